package console

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kboxdev/kbox/pkg/throttle"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Source yields the records to produce: Next returns io.EOF at the end.
type Source interface {
	Next() (Record, error)
}

// JSONReader reads records in the shared JSON schema, one object per line
// (what `kbox consume -o json` writes). Blank lines are skipped.
type JSONReader struct {
	in   lineSplitter
	line int
	// RawKey and RawValue take the key or value as a JSON value (kept as
	// its JSON text) to encode with a schema, not as a string of bytes.
	RawKey, RawValue bool
}

// NewJSONReader returns a reader of r's JSON lines.
func NewJSONReader(r io.Reader) *JSONReader {
	return &JSONReader{in: lineSplitter{r: bufio.NewReaderSize(r, 64<<10)}}
}

// Next returns the next record.
func (j *JSONReader) Next() (Record, error) {
	for {
		raw, err := j.in.next()
		if err != nil {
			return Record{}, err
		}
		j.line++
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var rec Record
		if j.RawKey || j.RawValue {
			rec, err = decodeJSONRaw(bytes.TrimSpace(raw), j.RawKey, j.RawValue)
		} else {
			rec, err = DecodeJSON(raw)
		}
		if err != nil {
			return Record{}, fmt.Errorf("line %d: invalid JSON record: %v", j.line, err)
		}
		return rec, nil
	}
}

// MultiSource reads its sources one after the other.
type MultiSource []Source

// Next returns the next record of the first source that has one.
func (m *MultiSource) Next() (Record, error) {
	for len(*m) > 0 {
		r, err := (*m)[0].Next()
		if errors.Is(err, io.EOF) {
			*m = (*m)[1:]
			continue
		}
		return r, err
	}
	return Record{}, io.EOF
}

// ProduceConfig says how Produce sends.
type ProduceConfig struct {
	// Topic, when set, replaces each record's topic.
	Topic string
	// Partition >= 0 sends every record there; -1 keeps each record's own
	// (-1 in a record: the partitioner chooses).
	Partition int32
	// KeepTimestamps sends a record's timestamp when it has one (>= 0);
	// otherwise the client stamps the send time.
	KeepTimestamps bool
	// Sync waits for each record's acknowledgement before reading the next
	// (the console producer's --sync): the first failure ends the run.
	Sync bool
	// Rate caps the records per second (Apache's throttler); <= 0 is no cap.
	Rate float64
	// OnError receives each failed record in async mode (Apache logs it
	// and goes on). It may be called from the client's goroutines.
	OnError func(r *kgo.Record, err error)
	// Progress, when set, is called about once a second with the records
	// handed to the client and acknowledged so far.
	Progress func(sent, acked int64, elapsed time.Duration)
}

// SendError is a record the brokers did not take (sync mode).
type SendError struct {
	Record *kgo.Record
	Err    error
}

func (e *SendError) Error() string { return e.Err.Error() }
func (e *SendError) Unwrap() error { return e.Err }

// ProduceResult counts the records of a run.
type ProduceResult struct {
	Read    int64 // records read from the source
	Acked   int64 // records the brokers acknowledged
	Failed  int64 // records that failed
	Elapsed time.Duration
}

// Produce sends src's records with cl until src ends, fails or ctx ends,
// then waits for every record in flight. The error is the source's (a
// line it cannot parse), the first failed record's in sync mode, or ctx's.
func Produce(ctx context.Context, cl *kgo.Client, src Source, cfg ProduceConfig) (ProduceResult, error) {
	var res ProduceResult
	var sent, acked, failed atomic.Int64
	start := time.Now()
	var thr *throttle.Apache
	if cfg.Rate > 0 {
		thr = throttle.NewApache(cfg.Rate)
	}
	stopProgress := startProgress(cfg.Progress, &sent, &acked, start)
	var wg sync.WaitGroup
	promise := func(r *kgo.Record, err error) {
		defer wg.Done()
		if err != nil {
			failed.Add(1)
			if cfg.OnError != nil {
				cfg.OnError(r, err)
			}
			return
		}
		acked.Add(1)
	}
	var runErr error
	for ctx.Err() == nil {
		rec, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			runErr = err
			break
		}
		res.Read++
		sent.Add(1)
		kr := toProduce(rec, cfg)
		if cfg.Sync {
			if err := cl.ProduceSync(ctx, kr).FirstErr(); err != nil {
				failed.Add(1)
				runErr = &SendError{Record: kr, Err: err}
				break
			}
			acked.Add(1)
		} else {
			wg.Add(1)
			cl.Produce(ctx, kr, promise)
		}
		if thr != nil && thr.ShouldThrottleNow(res.Read) {
			thr.Throttle(ctx)
		}
	}
	// Records handed to the client are sent even when the run stops early,
	// as the Java tool's shutdown hook closes (and flushes) its producer.
	flushCtx := ctx
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		flushCtx, cancel = context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
	}
	if err := cl.Flush(flushCtx); err != nil && runErr == nil {
		runErr = err
	}
	wg.Wait()
	stopProgress()
	res.Acked, res.Failed, res.Elapsed = acked.Load(), failed.Load(), time.Since(start)
	if runErr == nil {
		runErr = ctx.Err()
	}
	return res, runErr
}

func toProduce(rec Record, cfg ProduceConfig) *kgo.Record {
	if cfg.Topic != "" {
		rec.Topic = cfg.Topic
	}
	if cfg.Partition >= 0 {
		rec.Partition = cfg.Partition
	}
	if !cfg.KeepTimestamps {
		rec.Timestamp = -1
	}
	return rec.ToKgo()
}

func startProgress(fn func(int64, int64, time.Duration), sent, acked *atomic.Int64, start time.Time) (stop func()) {
	if fn == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fn(sent.Load(), acked.Load(), time.Since(start))
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
