package integrity

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Corruption is a record batch a consumer cannot read past.
type Corruption struct {
	Topic     string
	Partition int32
	// Offset is the batch's base offset (the offset Java's error names);
	// Last its last offset.
	Offset, Last int64
	// Position is the offset the consumer was stuck at (in the batch, or
	// before it).
	Position int64
	// StoredCRC and ComputedCRC differ for a CRC mismatch.
	StoredCRC, ComputedCRC uint32
	// Client is franz-go's error for a batch whose CRC matches but which
	// it cannot parse; nil for a CRC mismatch.
	Client error
	// Java is what Java's parser throws reading the batch's records without
	// a CRC check, and Records what it reads before that (offsets from
	// Position on); nil when every record reads.
	Java    *JavaException
	Records []JavaRecord
}

// CRCMismatch says whether the batch's bytes no longer match its CRC.
func (c *Corruption) CRCMismatch() bool { return c.StoredCRC != c.ComputedCRC }

// TP is the partition as Java names it: topic-partition.
func (c *Corruption) TP() string { return fmt.Sprintf("%s-%d", c.Topic, c.Partition) }

// Error names the partition, the batch and what is wrong with it.
func (c *Corruption) Error() string {
	what := "cannot be read"
	switch {
	case c.CRCMismatch():
		what = fmt.Sprintf("is corrupt: stored crc = %d, computed crc = %d", c.StoredCRC, c.ComputedCRC)
	case c.Client != nil:
		what = "cannot be read: " + c.Client.Error()
	case c.Java != nil:
		what = "cannot be read: " + c.Java.Message
	}
	if c.Last < c.Offset {
		return fmt.Sprintf("partition %s at offset %d %s", c.TP(), c.Offset, what)
	}
	return fmt.Sprintf("partition %s: record batch at offset %d (offsets %d-%d) %s", c.TP(), c.Offset, c.Offset, c.Last, what)
}

// ApacheReceived is the KafkaException Java's KafkaConsumer.poll throws
// for a partition it cannot read past (CompletedFetch.fetchRecords).
func ApacheReceived(topic string, partition int32) string {
	return fmt.Sprintf("org.apache.kafka.common.KafkaException: Received exception when fetching the next record from %s-%d. If needed, please seek past the record to continue consumption.", topic, partition)
}

// ApacheCause is the cause of ApacheReceived, as its "Caused by: " line
// shows it: with checkCRC (Java's check.crcs, on by default) the batch's
// CRC mismatch (CompletedFetch.maybeEnsureValid), else (or when the CRC
// matches) the exception of Java's record parser.
func (c *Corruption) ApacheCause(checkCRC bool) string {
	if checkCRC && c.CRCMismatch() {
		return fmt.Sprintf("org.apache.kafka.common.KafkaException: Record batch for partition %s at offset %d is invalid, cause: Record is corrupt (stored crc = %d, computed crc = %d)", c.TP(), c.Offset, c.StoredCRC, c.ComputedCRC)
	}
	if c.Java != nil {
		return c.Java.String()
	}
	if c.Client != nil {
		return "org.apache.kafka.common.KafkaException: " + c.Client.Error()
	}
	return fmt.Sprintf("org.apache.kafka.common.KafkaException: Record batch for partition %s at offset %d cannot be read", c.TP(), c.Offset)
}

// scanLimit bounds how far Find reads past the position.
const scanLimit = 64 << 20

// Find looks for the batch a consumer at position is stuck on: the first
// batch holding an offset from position on whose bytes do not match its
// CRC, or that franz-go cannot parse. It reads the log from the leader
// (ReadLog) at most 64 MiB past the position; nil when that part of the
// log reads cleanly.
func Find(ctx context.Context, cl Fetcher, topic string, partition int32, position int64) (*Corruption, error) {
	at, read := position, 0
	for read < scanLimit {
		lg, err := cl.ReadLog(ctx, topic, partition, at)
		if err != nil {
			return nil, err
		}
		if len(lg.Batches) == 0 {
			return nil, nil
		}
		for i := range lg.Batches {
			b := &lg.Batches[i]
			read += len(b.Raw)
			if b.Last < position {
				continue
			}
			c := &Corruption{Topic: topic, Partition: partition, Offset: b.Base, Last: b.Last, Position: position, StoredCRC: b.StoredCRC, ComputedCRC: b.ComputedCRC}
			if !b.CRCOK() {
				c.java(b)
				return c, nil
			}
			if err := parseErr(topic, partition, position, b); err != nil {
				c.Client = err
				c.java(b)
				return c, nil
			}
		}
		at = lg.Batches[len(lg.Batches)-1].Last + 1
		if at >= lg.HighWatermark {
			return nil, nil
		}
	}
	return nil, nil
}

func (c *Corruption) java(b *Batch) {
	recs, exc := b.JavaRecords()
	c.Java = exc
	for _, r := range recs {
		if r.Offset >= c.Position {
			c.Records = append(c.Records, r)
		}
	}
}

// parseErr is franz-go's verdict on one batch (CRC checked).
func parseErr(topic string, partition int32, position int64, b *Batch) error {
	rp := kmsg.NewFetchResponseTopicPartition()
	rp.Partition = partition
	rp.HighWatermark = b.Last + 1
	rp.RecordBatches = b.Raw
	fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Topic: topic, Partition: partition, Offset: position, KeepControlRecords: true}, &rp, kgo.DefaultDecompressor(), nil)
	return fp.Err
}
