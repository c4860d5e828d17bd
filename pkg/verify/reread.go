package verify

import (
	"context"
	"fmt"

	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Reread is the R1b diagnosis: it reads each partition holding a missing
// record with a fresh assign-mode consumer, from the earliest missing
// offset up to the last one, and reports which records still hold their
// acked value (present: lost in consumption; absent: lost in the log).
// A batch it cannot read (a CRC mismatch) is named in the result's
// Corrupt and read past. cl must be a client without a consumer group.
func Reread(ctx context.Context, cl *kgo.Client, missing []Missing) (RereadResult, error) {
	type rng struct{ lo, hi int64 }
	want := map[TP]rng{}
	for _, m := range missing {
		tp := TP{m.Topic, m.Partition}
		r, ok := want[tp]
		if !ok {
			r = rng{m.Offset, m.Offset}
		}
		r.lo, r.hi = min(r.lo, m.Offset), max(r.hi, m.Offset)
		want[tp] = r
	}
	parts := map[string]map[int32]kgo.Offset{}
	for tp, r := range want {
		if parts[tp.Topic] == nil {
			parts[tp.Topic] = map[int32]kgo.Offset{}
		}
		parts[tp.Topic][tp.Partition] = kgo.NewOffset().At(r.lo)
	}
	cl.AddConsumePartitions(parts)
	defer func() {
		for t, ps := range parts {
			var ids []int32
			for p := range ps {
				ids = append(ids, p)
			}
			cl.RemoveConsumePartitions(map[string][]int32{t: ids})
		}
	}()
	found := map[TP]map[int64]string{}
	remaining := len(want)
	done := map[TP]bool{}
	var res RereadResult
	watch := &integrity.Watcher{Log: integrity.Reader(cl)}
	for tp, r := range want {
		watch.Seed(tp.Topic, tp.Partition, r.lo)
	}
	for remaining > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return RereadResult{}, fmt.Errorf("re-read did not finish: %v", ctx.Err())
		}
		for _, fe := range fs.Errors() {
			if !integrity.Unreadable(fe) {
				return RereadResult{}, fmt.Errorf("re-read %s-%d: %v", fe.Topic, fe.Partition, fe.Err)
			}
		}
		fs.EachRecord(watch.See)
		corrupt, unconfirmed := watch.Check(ctx, fs)
		if len(unconfirmed) > 0 {
			fe := unconfirmed[0]
			return RereadResult{}, fmt.Errorf("re-read %s-%d: %v", fe.Topic, fe.Partition, fe.Err)
		}
		for _, corr := range corrupt {
			res.Corrupt = append(res.Corrupt, Corrupt{Topic: corr.Topic, Partition: corr.Partition, First: corr.Offset, Last: corr.Last, Desc: corr.Error()})
			tp := TP{corr.Topic, corr.Partition}
			if r := want[tp]; !done[tp] && corr.Last >= r.hi {
				done[tp] = true
				remaining--
				continue
			}
			watch.Skip(cl, corr)
		}
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			tp := TP{p.Topic, p.Partition}
			r, ok := want[tp]
			if !ok {
				return
			}
			if found[tp] == nil {
				found[tp] = map[int64]string{}
			}
			for _, rec := range p.Records {
				if rec.Offset <= r.hi {
					found[tp][rec.Offset] = string(rec.Value)
				}
			}
			if !done[tp] && (p.HighWatermark > 0 && (len(p.Records) > 0 && p.Records[len(p.Records)-1].Offset >= min(r.hi, p.HighWatermark-1) || p.HighWatermark <= r.lo)) {
				done[tp] = true
				remaining--
			}
		})
	}
	res.Present = map[Missing]bool{}
	for _, m := range missing {
		v, ok := found[TP{m.Topic, m.Partition}][m.Offset]
		res.Present[m] = ok && v == m.Value
	}
	return res, nil
}
