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
	var payload []byte
	var bufs payloadBuffers
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
	thr := throttle.NewApache(cfg.Throughput)
	var txnSize int64
	var txnStart int64
	for i := int64(0); i < cfg.NumRecords; i++ {
		if ctx.Err() != nil {
			break
		}
		switch {
		case len(cfg.Payloads) > 0:
			payload = cfg.Payloads[rnd.Intn(int32(len(cfg.Payloads)))]
		case cfg.RecordSize > 0:
			// Java refills one buffer per record (it serializes on send);
			// the client keeps the slice until the record's promise, so
			// each record in flight has its own buffer, recycled after.
			payload = bufs.get(cfg.RecordSize)
			rnd.FillUpper(payload)
		case cfg.Monotonic:
			payload = strconv.AppendInt(nil, i, 10)
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
			key = strconv.AppendInt(nil, i%int64(cfg.KeyRange), 10)
		case KeysRandom:
			key = strconv.AppendInt(nil, int64(rnd.Intn(cfg.KeyRange)), 10)
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
		ss := steady
		steadyMu.Unlock()
		n := len(payload)
		rec := &kgo.Record{Topic: cfg.Topic, Key: key, Value: payload}
		cl.Produce(ctx, rec, func(r *kgo.Record, err error) {
			now := NowMs()
			lat := int32(now - sendStartMs)
			if cfg.RecordSize > 0 && len(cfg.Payloads) == 0 {
				bufs.put(r.Value)
			}
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
		})
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

// payloadBuffers recycles the random payloads of records whose promise
// has run: the client no longer reads them, so the run allocates only as
// many as are in flight (bounded by buffer.memory) instead of one per
// record.
type payloadBuffers struct {
	mu   sync.Mutex
	free [][]byte
}

func (p *payloadBuffers) get(size int) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		return b
	}
	return make([]byte, size)
}

func (p *payloadBuffers) put(b []byte) {
	p.mu.Lock()
	p.free = append(p.free, b)
	p.mu.Unlock()
}

func commit(ctx context.Context, cl *kgo.Client) error {
	if err := cl.Flush(ctx); err != nil {
		return err
	}
	return cl.EndTransaction(ctx, kgo.TryCommit)
}
