package integrity

import (
	"context"
	"fmt"
)

// Gap is a jump in the offsets a consumer read in one partition that the
// log does not explain.
type Gap struct {
	Topic     string
	Partition int32
	// From is the last offset read before the jump, To the next one.
	From, To int64
	// Reason is what the log shows there.
	Reason string
}

func (g *Gap) Error() string {
	if g.To <= g.From {
		return fmt.Sprintf("partition %s-%d: offsets go back from %d to %d: %s", g.Topic, g.Partition, g.From, g.To, g.Reason)
	}
	return fmt.Sprintf("partition %s-%d: offsets jump from %d to %d (%d skipped): %s", g.Topic, g.Partition, g.From, g.To, g.To-g.From-1, g.Reason)
}

// ExplainGap reads the log between offset from (the last record a
// consumer read) and to (the next one it read), and returns nil when the
// log explains the jump, or the Gap. On a topic that is not compacted,
// consecutive batches are contiguous (each starts one past the last offset
// of the one before), so the only offsets a consumer skips are those of
// transaction markers and, reading committed data only, of transactional
// batches (aborted ones). A batch whose base offset was corrupted breaks
// the chain: the log then has no batch for some offsets, or two batches
// claim the same ones. A jump the log start explains (retention or
// DeleteRecords removed the offsets) is not a gap either. Compacted topics
// legitimately leave holes: callers do not ask about them.
func ExplainGap(ctx context.Context, cl Fetcher, topic string, partition int32, from, to int64, readCommitted bool) (*Gap, error) {
	gap := func(format string, a ...any) *Gap {
		return &Gap{Topic: topic, Partition: partition, From: from, To: to, Reason: fmt.Sprintf(format, a...)}
	}
	if to <= from {
		return gap("the consumer read offset %d again", to), nil
	}
	at, prevLast, started := from, int64(0), false
	for read := 0; read < scanLimit; {
		lg, err := cl.ReadLog(ctx, topic, partition, at)
		if err != nil {
			return nil, err
		}
		if lg.LogStartOffset > from {
			return nil, nil // the offsets were deleted
		}
		if len(lg.Batches) == 0 {
			return gap("the log ends at offset %d", lg.HighWatermark), nil
		}
		for i := range lg.Batches {
			b := &lg.Batches[i]
			read += len(b.Raw)
			if !started {
				if b.Base > from {
					return gap("no batch holds offset %d, the one before the jump", from), nil
				}
				if b.Last < from {
					continue
				}
				started, prevLast = true, b.Last
				continue
			}
			if prevLast+1 >= to {
				return nil, nil
			}
			switch {
			case b.Base > prevLast+1:
				return gap("no batch in the log holds offsets %d-%d (the batch after offset %d starts at %d: a corrupt base offset?)", prevLast+1, b.Base-1, prevLast, b.Base), nil
			case b.Base <= prevLast:
				return gap("the batch at offset %d overlaps the batch before it, which ends at %d (a corrupt base offset?)", b.Base, prevLast), nil
			case b.Control(), readCommitted && b.Transactional():
			default:
				return gap("the log holds records at offsets %d-%d that were not read", b.Base, min(b.Last, to-1)), nil
			}
			prevLast = b.Last
		}
		if prevLast+1 >= to {
			return nil, nil
		}
		at = lg.Batches[len(lg.Batches)-1].Last + 1
	}
	return nil, nil
}
