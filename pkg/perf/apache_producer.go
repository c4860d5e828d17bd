package perf

import (
	"context"
	"errors"
	"fmt"
	"github.com/kboxdev/kbox/pkg/throttle"
	"io"
	"strconv"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Key distributions of kafka-producer-perf-test (4.4).
const (
	KeysNone   = "none"
	KeysRange  = "range"
	KeysRandom = "random"
)

// ApacheProducerConfig is the parsed configuration of
// kafka-producer-perf-test.
type ApacheProducerConfig struct {
	Topic               string
	NumRecords          int64
	RecordSize          int      // > 0: random A-Z payloads refilled per record
	Payloads            [][]byte // --payload-file entries
	Monotonic           bool     // payload = decimal record index
	Throughput          float64  // records/s; < 0 unthrottled; 0 blocks
	WarmupRecords       int64
	ReportingIntervalMs int64
	KeyDistribution     string // none, range, random
	KeyRange            int32
	Seed                int64
	Transactional       bool
	TxnDurationMs       int64
	// FlushBeforeTotal is --print-metrics: flush (not close) before the
	// final line.
	FlushBeforeTotal bool
}

// ApacheProducerResult is what the run measured (for callers that print
// more than the Apache lines).
type ApacheProducerResult struct {
	Sent   int64
	Failed int64
	// FirstErr is the first failed send.
	FirstErr error
}

// RunApacheProducer runs the ProducerPerformance loop against cl, writing
// the Apache lines to out. onErr is called for each failed record (Java
// prints the stack trace of each).
func RunApacheProducer(ctx context.Context, cl *kgo.Client, cfg ApacheProducerConfig, out io.Writer, onErr func(error)) (*ApacheProducerResult, error) {
	if cfg.ReportingIntervalMs <= 0 {
		cfg.ReportingIntervalMs = 5000
	}
	var pool recordPool
	rnd := NewSplittableRandom(cfg.Seed)
	if cfg.WarmupRecords > 0 {
		fmt.Fprintf(out, "Warmup first %d records. Steady state results will print after the complete test summary.\n", cfg.WarmupRecords)
	}
	stats := NewApacheStats(out, cfg.NumRecords, cfg.ReportingIntervalMs, false, nil)
	var (
		steadyMu sync.Mutex
		steady   *ApacheStats
		res      = &ApacheProducerResult{}
		resMu    sync.Mutex
	)
	// One promise for every record: what it needs travels in the record's
	// pooledRecord, which goes back to the pool once the promise has run
	// (the client no longer reads the record then), so a run allocates
	// records, payloads and keys only as many as are in flight.
	promise := func(r *kgo.Record, err error) {
		pr := r.Context.(*pooledRecord)
		now := NowMs()
		lat := int32(now - pr.start)
		n, ss := pr.n, pr.steady
		pool.put(pr)
		if err == nil {
			stats.Record(lat, n, now)
			if ss != nil {
				ss.Record(lat, n, now)
			}
			return
		}
		resMu.Lock()
		res.Failed++
		if res.FirstErr == nil {
			res.FirstErr = err
		}
		resMu.Unlock()
		if onErr != nil {
			onErr(err)
		}
	}
	thr := throttle.NewApache(cfg.Throughput)
	var txnSize int64
	var txnStart int64
	for i := int64(0); i < cfg.NumRecords; i++ {
		if ctx.Err() != nil {
			break
		}
		pr := pool.get()
		var payload []byte
		switch {
		case len(cfg.Payloads) > 0:
			payload = cfg.Payloads[rnd.Intn(int32(len(cfg.Payloads)))]
		case cfg.RecordSize > 0:
			// Java refills one buffer per record (it serializes on send);
			// the client keeps the slice until the record's promise, so
			// each record in flight has its own buffer, recycled after.
			if cap(pr.value) < cfg.RecordSize {
				pr.value = make([]byte, cfg.RecordSize)
			}
			payload = pr.value[:cfg.RecordSize]
			rnd.FillUpper(payload)
		case cfg.Monotonic:
			payload = strconv.AppendInt(pr.value[:0], i, 10)
			pr.value = payload
		default:
			return nil, errors.New("no payload file, record size or payload-monotonic option provided")
		}
		if cfg.Transactional && txnSize == 0 {
			if err := cl.BeginTransaction(); err != nil {
				return res, err
			}
			txnStart = NowMs()
		}
		var key []byte
		switch cfg.KeyDistribution {
		case KeysRange:
			key = strconv.AppendInt(pr.key[:0], i%int64(cfg.KeyRange), 10)
			pr.key = key
		case KeysRandom:
			key = strconv.AppendInt(pr.key[:0], int64(rnd.Intn(cfg.KeyRange)), 10)
			pr.key = key
		}
		sendStartMs := NowMs()
		if cfg.WarmupRecords > 0 && i == cfg.WarmupRecords {
			st := NewApacheStats(out, cfg.NumRecords-cfg.WarmupRecords, cfg.ReportingIntervalMs, true, nil)
			steadyMu.Lock()
			steady = st
			steadyMu.Unlock()
			stats.SuppressPrinting()
		}
		steadyMu.Lock()
		pr.steady = steady
		steadyMu.Unlock()
		pr.start, pr.n = sendStartMs, len(payload)
		pr.rec = kgo.Record{Topic: cfg.Topic, Key: key, Value: payload, Context: pr}
		cl.Produce(ctx, &pr.rec, promise)
		txnSize++
		if cfg.Transactional && cfg.TxnDurationMs <= sendStartMs-txnStart {
			if err := commit(ctx, cl); err != nil {
				return res, err
			}
			txnSize = 0
		}
		if thr.ShouldThrottleNow(i) {
			thr.Throttle(ctx)
		}
	}
	if cfg.Transactional && txnSize != 0 {
		if err := commit(ctx, cl); err != nil {
			return res, err
		}
	}
	if err := cl.Flush(ctx); err != nil {
		return res, err
	}
	if !cfg.FlushBeforeTotal {
		// Java closes the producer before the final line; closing is the
		// caller's, flushing is what makes the timing equivalent.
		cl.Close()
	}
	stats.PrintTotal()
	steadyMu.Lock()
	if steady != nil {
		steady.PrintTotal()
	}
	steadyMu.Unlock()
	res.Sent = stats.Count()
	return res, ctx.Err()
}

// pooledRecord is one record in flight with what its promise needs. It is
// the record's Context (a background context: kgo reads only Done and
// Value of it), so one promise serves every record without a closure.
type pooledRecord struct {
	context.Context
	rec    kgo.Record
	value  []byte // the generated payload's buffer (--record-size, --payload-monotonic)
	key    []byte
	start  int64
	n      int
	steady *ApacheStats
}

// recordPool recycles pooledRecords whose promise has run: the client no
// longer reads them, so the run allocates only as many as are in flight
// (bounded by buffer.memory) instead of one per record.
type recordPool struct {
	mu   sync.Mutex
	free []*pooledRecord
}

func (p *recordPool) get() *pooledRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		r := p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		return r
	}
	return &pooledRecord{Context: context.Background()}
}

func (p *recordPool) put(r *pooledRecord) {
	r.rec = kgo.Record{}
	r.steady = nil
	p.mu.Lock()
	p.free = append(p.free, r)
	p.mu.Unlock()
}

func commit(ctx context.Context, cl *kgo.Client) error {
	if err := cl.Flush(ctx); err != nil {
		return err
	}
	return cl.EndTransaction(ctx, kgo.TryCommit)
}
