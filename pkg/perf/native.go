package perf

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Progress is a live snapshot for a progress line.
type Progress struct {
	Elapsed time.Duration
	Done    int64 // acknowledged (produce) or received (consume), warm-up included
	Target  int64 // 0 when the run is bounded by time
	Rate    float64
	P99Ms   float64
	Warmup  bool
}

// ProduceConfig configures a native produce run.
type ProduceConfig struct {
	Topic          string
	Records        int64         // total over all producers; 0 = until Duration
	Duration       time.Duration // 0 = until Records
	RecordSize     int
	Rate           float64 // total records/s; <= 0 unthrottled
	KeyCardinality int
	WarmupRecords  int64
	WarmupDuration time.Duration
	RepeatPayload  bool
	Seed           int64
	Interval       time.Duration // series interval (default 5s)
	Settings       []string
}

// meter collects measured records of one run.
type meter struct {
	hist     *Latency // whole run
	win      *Latency // current interval
	records  atomic.Int64
	bytes    atomic.Int64
	done     atomic.Int64 // incl. warm-up
	failed   atomic.Int64
	firstNs  atomic.Int64
	lastNs   atomic.Int64
	errOnce  sync.Once
	firstErr error
}

func newMeter() *meter { return &meter{hist: NewLatency(), win: NewLatency()} }

func (m *meter) measured(start time.Time, lat time.Duration, n int, now time.Time) {
	m.hist.Record(lat)
	m.win.Record(lat)
	m.records.Add(1)
	m.bytes.Add(int64(n))
	ns := now.UnixNano()
	for {
		l := m.lastNs.Load()
		if ns <= l || m.lastNs.CompareAndSwap(l, ns) {
			break
		}
	}
	s := start.UnixNano()
	for {
		f := m.firstNs.Load()
		if (f != 0 && f <= s) || m.firstNs.CompareAndSwap(f, s) {
			break
		}
	}
}

func (m *meter) fail(err error) {
	m.failed.Add(1)
	m.errOnce.Do(func() { m.firstErr = err })
}

// sampler emits intervals and progress until stop is closed.
func (m *meter) sampler(start time.Time, interval time.Duration, target int64, warm func() bool, progress func(Progress), stop <-chan struct{}) []Interval {
	if interval <= 0 {
		interval = 5 * time.Second
	}
	var series []Interval
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var ptick <-chan time.Time
	if progress != nil {
		pt := time.NewTicker(500 * time.Millisecond)
		defer pt.Stop()
		ptick = pt.C
	}
	lastRecs, lastBytes, lastT := int64(0), int64(0), start
	lastDone, lastPT := int64(0), start
	emit := func(now time.Time) {
		w := m.win.TakeAndReset()
		recs, bytes := m.records.Load(), m.bytes.Load()
		d := now.Sub(lastT).Seconds()
		if d <= 0 {
			return
		}
		s := w.Summary()
		series = append(series, Interval{
			ElapsedSec: now.Sub(start).Seconds(), Records: recs - lastRecs,
			RecordsPerSec: float64(recs-lastRecs) / d, MBPerSec: float64(bytes-lastBytes) / (1 << 20) / d,
			P50Ms: s.P50Ms, P99Ms: s.P99Ms, MaxMs: s.MaxMs,
		})
		lastRecs, lastBytes, lastT = recs, bytes, now
	}
	for {
		select {
		case <-stop:
			// The last, partial interval: without it a run shorter than
			// one interval would have no series at all.
			if m.records.Load() > lastRecs {
				emit(time.Now())
			}
			return series
		case now := <-tick.C:
			emit(now)
		case now := <-ptick:
			done := m.done.Load()
			progress(Progress{Elapsed: now.Sub(start), Done: done, Target: target,
				Rate: float64(done-lastDone) / now.Sub(lastPT).Seconds(), P99Ms: m.hist.Summary().P99Ms, Warmup: warm()})
			lastDone, lastPT = done, now
		}
	}
}

// Produce runs one producer goroutine per client and returns the measured
// result. Every acknowledged record after the warm-up is in the histogram.
func Produce(ctx context.Context, clients []*kgo.Client, cfg ProduceConfig, progress func(Progress)) (*Result, error) {
	if len(clients) == 0 {
		return nil, errors.New("no clients")
	}
	if cfg.Records <= 0 && cfg.Duration <= 0 {
		return nil, errors.New("a record count or a duration is required")
	}
	P := int64(len(clients))
	payloads := NewPayloads(cfg.RecordSize, cfg.Seed, cfg.RepeatPayload)
	keys := Keys(cfg.KeyCardinality)
	m := newMeter()
	start := time.Now()
	warmEnd := start.Add(cfg.WarmupDuration)
	var warmDone atomic.Bool
	warm := func() bool { return !warmDone.Load() }
	if cfg.WarmupRecords <= 0 && cfg.WarmupDuration <= 0 {
		warmDone.Store(true)
	}
	var sent atomic.Int64 // global sequence for warm-up by count
	runCtx, cancel := runContext(ctx, start, cfg.Duration)
	defer cancel()
	stop := make(chan struct{})
	seriesCh := make(chan []Interval, 1)
	go func() { seriesCh <- m.sampler(start, cfg.Interval, cfg.Records, warm, progress, stop) }()

	var wg sync.WaitGroup
	var produceErr error
	var errMu sync.Mutex
	for p := int64(0); p < P; p++ {
		n := int64(-1)
		if cfg.Records > 0 {
			n = cfg.Records / P
			if p < cfg.Records%P {
				n++
			}
		}
		pacer := NewPacer(start, cfg.Rate/float64(P))
		cl := clients[p]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int64(0); n < 0 || i < n; i++ {
				due := pacer.Wait(runCtx, i)
				if runCtx.Err() != nil {
					break
				}
				g := i*P + p
				val := payloads.Value(g)
				rec := &kgo.Record{Topic: cfg.Topic, Value: val}
				if keys != nil {
					rec.Key = keys[g%int64(len(keys))]
				}
				sendT := time.Now()
				basis := sendT
				if pacer.Throttled() {
					basis = due
				}
				seq := sent.Add(1)
				isWarm := seq <= cfg.WarmupRecords || sendT.Before(warmEnd)
				if !isWarm && !warmDone.Load() {
					warmDone.Store(true)
				}
				size := len(val) + len(rec.Key)
				cl.Produce(ctx, rec, func(_ *kgo.Record, err error) {
					now := time.Now()
					m.done.Add(1)
					if err != nil {
						m.fail(err)
						return
					}
					if !isWarm {
						m.measured(basis, now.Sub(basis), size, now)
					}
				})
			}
			if err := cl.Flush(ctx); err != nil {
				errMu.Lock()
				produceErr = err
				errMu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	series := <-seriesCh
	res := &Result{
		Kind: "produce", Topic: cfg.Topic, Clients: int(P),
		Records: m.records.Load(), Bytes: m.bytes.Load(), Failed: m.failed.Load(),
		WarmupRecords: m.done.Load() - m.records.Load() - m.failed.Load(),
		TargetRate:    max(cfg.Rate, 0), Settings: cfg.Settings, Intervals: series,
		LatencyBasis: BasisSend,
	}
	if cfg.Rate > 0 {
		res.LatencyBasis = BasisIntended
	}
	res.MeasureStart = time.Unix(0, m.firstNs.Load())
	res.MeasureEnd = time.Unix(0, m.lastNs.Load())
	if m.records.Load() == 0 {
		res.MeasureStart, res.MeasureEnd = start, start
	}
	if err := res.finish(m.hist); err != nil {
		return nil, err
	}
	if produceErr != nil && ctx.Err() == nil {
		return res, produceErr
	}
	if m.firstErr != nil && res.Records == 0 {
		return res, m.firstErr
	}
	return res, ctx.Err()
}

// ConsumeConfig configures a native consume run.
type ConsumeConfig struct {
	Topic          string
	Records        int64         // total over all consumers; 0 = until Duration or idle
	Duration       time.Duration // 0 = until Records
	IdleTimeout    time.Duration // stop when no record arrives for this long
	WarmupRecords  int64
	MaxPollRecords int
	Interval       time.Duration
	Settings       []string
}

// ErrIdle reports that a consume run stopped because no record arrived
// within the idle timeout before the requested count.
var ErrIdle = errors.New("no record arrived within the idle timeout")

// Consume polls with one goroutine per client (already subscribed or
// assigned) until the requested count, duration or idle timeout. Latency is
// end to end, from each record's timestamp.
func Consume(ctx context.Context, clients []*kgo.Client, cfg ConsumeConfig, progress func(Progress)) (*Result, error) {
	if len(clients) == 0 {
		return nil, errors.New("no clients")
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 10 * time.Second
	}
	m := newMeter()
	start := time.Now()
	runCtx, cancel := runContext(ctx, start, cfg.Duration)
	defer cancel()
	var lastRecv atomic.Int64
	lastRecv.Store(start.UnixNano())
	var warmDone atomic.Bool
	warm := func() bool { return !warmDone.Load() }
	stop := make(chan struct{})
	seriesCh := make(chan []Interval, 1)
	go func() { seriesCh <- m.sampler(start, cfg.Interval, cfg.Records, warm, progress, stop) }()
	idle := atomic.Bool{}
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case now := <-t.C:
				if now.Sub(time.Unix(0, lastRecv.Load())) > cfg.IdleTimeout {
					idle.Store(true)
					cancel()
					return
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for _, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				fs := cl.PollRecords(runCtx, cfg.MaxPollRecords)
				now := time.Now()
				if fs.NumRecords() > 0 {
					lastRecv.Store(now.UnixNano())
				}
				fs.EachRecord(func(r *kgo.Record) {
					seq := m.done.Add(1)
					if cfg.Records > 0 && seq > cfg.Records {
						return
					}
					if seq <= cfg.WarmupRecords {
						return
					}
					warmDone.Store(true)
					m.measured(now, now.Sub(r.Timestamp), len(r.Key)+len(r.Value), now)
					if cfg.Records > 0 && seq == cfg.Records {
						cancel()
					}
				})
			}
		}()
	}
	wg.Wait()
	close(stop)
	series := <-seriesCh
	done := min(m.done.Load(), max(cfg.Records, m.done.Load()))
	if cfg.Records > 0 {
		done = min(m.done.Load(), cfg.Records)
	}
	res := &Result{
		Kind: "consume", Topic: cfg.Topic, Clients: len(clients),
		Records: m.records.Load(), Bytes: m.bytes.Load(),
		WarmupRecords: done - m.records.Load(),
		Settings:      cfg.Settings, Intervals: series, LatencyBasis: BasisE2E,
	}
	res.MeasureStart = start
	if cfg.WarmupRecords > 0 && m.firstNs.Load() != 0 {
		res.MeasureStart = time.Unix(0, m.firstNs.Load())
	}
	res.MeasureEnd = time.Unix(0, m.lastNs.Load())
	if m.records.Load() == 0 {
		res.MeasureEnd = res.MeasureStart
	}
	if err := res.finish(m.hist); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if idle.Load() && cfg.Records > 0 && done < cfg.Records {
		return res, ErrIdle
	}
	return res, nil
}

// runContext is ctx, cancelled by the returned function and, when d > 0,
// at start+d.
func runContext(ctx context.Context, start time.Time, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithDeadline(ctx, start.Add(d))
	}
	return context.WithCancel(ctx)
}
