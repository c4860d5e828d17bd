package perf

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kboxdev/kbox/pkg/integrity"
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
	// Records and Bytes are the measured records so far, and Hist their
	// latencies (the run's own histogram: read it, never record into it).
	Records int64
	Bytes   int64
	Hist    *Latency
}

// WarmupHelp is what warm-up means in every perf command (kbox perf
// produce|consume|e2e and kbox perf sweep), for their help.
const WarmupHelp = `Warm-up: the first --warmup-records records, or the records sent (received)
within --warmup-duration of the start (the later of the two when both are
given), are excluded from every statistic and come on top of the measured
run: --records counts measured records only, and --duration starts when the
warm-up ends.
`

// ProduceConfig configures a native produce run.
type ProduceConfig struct {
	Topic          string
	Records        int64         // measured records, total over all producers (warm-up on top); 0 = until Duration
	Duration       time.Duration // measured time after the warm-up; 0 = until Records
	RecordSize     int
	Rate           float64 // total records/s; <= 0 unthrottled
	KeyCardinality int
	KeyFirst       int64 // keys are KeyFirst .. KeyFirst+KeyCardinality-1
	WarmupRecords  int64
	WarmupDuration time.Duration
	RepeatPayload  bool
	Seed           int64
	Interval       time.Duration // series interval (default 5s)
	Settings       []string
	// OnInterval, when set, is called with every interval of the series
	// as it ends (from another goroutine).
	OnInterval func(Interval)
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
	errMu    sync.Mutex
	firstErr error
	// onInterval, when set, gets every interval as it ends.
	onInterval func(Interval)
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
	m.errMu.Lock()
	if m.firstErr == nil {
		m.firstErr = err
	}
	m.errMu.Unlock()
}

// err is the first failure. A run stopped by its context returns before
// every promise has run, so late failures may still arrive: read it
// under the lock.
func (m *meter) err() error {
	m.errMu.Lock()
	defer m.errMu.Unlock()
	return m.firstErr
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
		if m.onInterval != nil {
			m.onInterval(series[len(series)-1])
		}
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
			// The histogram as of now, and the records it holds: senders
			// record into it while the progress is written, so a live
			// histogram would hold more values than the count beside it.
			bytes := m.bytes.Load()
			snap := m.hist.Snapshot()
			progress(Progress{Elapsed: now.Sub(start), Done: done, Target: target,
				Rate: float64(done-lastDone) / now.Sub(lastPT).Seconds(), P99Ms: snap.Summary().P99Ms, Warmup: warm(),
				Records: snap.Count(), Bytes: bytes, Hist: snap})
			lastDone, lastPT = done, now
		}
	}
}

// Produce runs one producer goroutine per client and returns the measured
// result. Every acknowledged record after the warm-up is in the histogram.
//
// Warm-up comes on top of the measured run: cfg.Records counts measured
// records only, and cfg.Duration starts when the warm-up ends (the first
// record sent after WarmupRecords records and WarmupDuration).
func Produce(ctx context.Context, clients []*kgo.Client, cfg ProduceConfig, progress func(Progress)) (*Result, error) {
	if len(clients) == 0 {
		return nil, errors.New("no clients")
	}
	if cfg.Records <= 0 && cfg.Duration <= 0 {
		return nil, errors.New("a record count or a duration is required")
	}
	P := int64(len(clients))
	payloads := NewPayloads(cfg.RecordSize, cfg.Seed, cfg.RepeatPayload)
	keys := KeyRange(cfg.KeyFirst, cfg.KeyCardinality)
	m := newMeter()
	m.onInterval = cfg.OnInterval
	start := time.Now()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := newWarmup(start, cfg.WarmupRecords, cfg.WarmupDuration, cfg.Duration, cancel)
	defer w.stop()
	stop := make(chan struct{})
	seriesCh := make(chan []Interval, 1)
	target := int64(0)
	if cfg.Records > 0 {
		target = cfg.Records + cfg.WarmupRecords
	}
	go func() { seriesCh <- m.sampler(start, cfg.Interval, target, w.active, progress, stop) }()

	var wg sync.WaitGroup
	var produceErr error
	var errMu sync.Mutex
	var seqAll, measured atomic.Int64
	for p := int64(0); p < P; p++ {
		pacer := NewPacer(start, cfg.Rate/float64(P))
		cl := clients[p]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int64(0); ; i++ {
				due := pacer.Wait(runCtx, i)
				if runCtx.Err() != nil {
					break
				}
				sendT := time.Now()
				isWarm := w.take(sendT)
				if !isWarm {
					if n := measured.Add(1); cfg.Records > 0 && n > cfg.Records {
						break
					}
				}
				g := seqAll.Add(1) - 1
				val := payloads.Value(g)
				rec := &kgo.Record{Topic: cfg.Topic, Value: val}
				if keys != nil {
					rec.Key = keys[g%int64(len(keys))]
				}
				basis := sendT
				if pacer.Throttled() {
					basis = due
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
	if err := m.err(); err != nil && res.Records == 0 {
		return res, err
	}
	return res, ctx.Err()
}

// ConsumeConfig configures a native consume run.
type ConsumeConfig struct {
	Topic          string
	Records        int64         // measured records, total over all consumers (warm-up on top); 0 = until Duration or idle
	Duration       time.Duration // measured time after the warm-up; 0 = until Records
	IdleTimeout    time.Duration // stop when no record arrives for this long
	WarmupRecords  int64
	WarmupDuration time.Duration
	MaxPollRecords int
	Interval       time.Duration
	Settings       []string
}

// ErrIdle reports that a consume run stopped because no record arrived
// within the idle timeout before the requested count.
var ErrIdle = errors.New("no record arrived within the idle timeout")

// ReadinessHeader marks the records a sweep writes to a fresh topic to check
// that every partition accepts writes; consume runs skip them, so they count
// neither as warm-up nor as measured records.
const ReadinessHeader = "kbox-readiness"

func isReadiness(r *kgo.Record) bool {
	return len(r.Headers) > 0 && r.Headers[0].Key == ReadinessHeader
}

// Consume polls with one goroutine per client (already subscribed or
// assigned) until the requested count, duration or idle timeout. Latency is
// end to end, from each record's timestamp. The warm-up (WarmupRecords
// records, or what arrives within WarmupDuration) comes on top of Records,
// and Duration starts when it ends.
func Consume(ctx context.Context, clients []*kgo.Client, cfg ConsumeConfig, progress func(Progress)) (*Result, error) {
	if len(clients) == 0 {
		return nil, errors.New("no clients")
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 10 * time.Second
	}
	m := newMeter()
	start := time.Now()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := newWarmup(start, cfg.WarmupRecords, cfg.WarmupDuration, cfg.Duration, cancel)
	defer w.stop()
	var lastRecv atomic.Int64
	lastRecv.Store(start.UnixNano())
	stop := make(chan struct{})
	seriesCh := make(chan []Interval, 1)
	target := int64(0)
	if cfg.Records > 0 {
		target = cfg.Records + cfg.WarmupRecords
	}
	go func() { seriesCh <- m.sampler(start, cfg.Interval, target, w.active, progress, stop) }()
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
	var warmN, tickets atomic.Int64
	var wg sync.WaitGroup
	var unreadable atomic.Pointer[integrity.Corruption]
	for _, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			watch := integrity.NewWatcher(cl)
			for runCtx.Err() == nil {
				fs := cl.PollRecords(runCtx, cfg.MaxPollRecords)
				now := time.Now()
				if fs.NumRecords() > 0 {
					lastRecv.Store(now.UnixNano())
				}
				// A partition the client cannot read past (a corrupt
				// batch) ends the run, named.
				if corrupt, _ := watch.Check(runCtx, fs); len(corrupt) > 0 {
					unreadable.CompareAndSwap(nil, corrupt[0])
					cancel()
				}
				fs.EachRecord(func(r *kgo.Record) {
					watch.See(r)
					if isReadiness(r) || runCtx.Err() != nil {
						return
					}
					if w.take(now) {
						m.done.Add(1)
						warmN.Add(1)
						return
					}
					n := tickets.Add(1)
					if cfg.Records > 0 && n > cfg.Records {
						return
					}
					m.done.Add(1)
					m.measured(now, now.Sub(r.Timestamp), len(r.Key)+len(r.Value), now)
					if cfg.Records > 0 && n == cfg.Records {
						cancel()
					}
				})
			}
		}()
	}
	wg.Wait()
	close(stop)
	series := <-seriesCh
	res := &Result{
		Kind: "consume", Topic: cfg.Topic, Clients: len(clients),
		Records: m.records.Load(), Bytes: m.bytes.Load(),
		WarmupRecords: warmN.Load(),
		Settings:      cfg.Settings, Intervals: series, LatencyBasis: BasisE2E,
	}
	res.MeasureStart = start
	if w.configured() && m.firstNs.Load() != 0 {
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
	if corr := unreadable.Load(); corr != nil {
		return res, corr
	}
	if idle.Load() && cfg.Records > 0 && res.Records < cfg.Records {
		return res, ErrIdle
	}
	return res, nil
}

// warmup decides which records of a run are warm-up: the first records
// records and everything before start+d (the later of the two when both
// are given). When it ends, the run's measured duration starts: cancel is
// called that long after the first measured record.
type warmup struct {
	records int64
	end     time.Time
	measure time.Duration
	cancel  func()
	taken   atomic.Int64
	done    atomic.Bool
	mu      sync.Mutex
	timer   *time.Timer
	given   bool
}

func newWarmup(start time.Time, records int64, d, measure time.Duration, cancel func()) *warmup {
	w := &warmup{records: records, end: start.Add(d), measure: measure, cancel: cancel, given: records > 0 || d > 0}
	if !w.given {
		w.finish(start)
	}
	return w
}

// configured reports whether a warm-up was asked for.
func (w *warmup) configured() bool { return w.given }

// active reports whether the warm-up still runs.
func (w *warmup) active() bool { return !w.done.Load() }

// take reports whether a record sent (or received) at t is warm-up; the
// first one that is not ends the warm-up.
func (w *warmup) take(t time.Time) bool {
	if w.done.Load() {
		return false
	}
	if n := w.taken.Add(1); n <= w.records || t.Before(w.end) {
		return true
	}
	w.finish(t)
	return false
}

func (w *warmup) finish(t time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done.Load() {
		return
	}
	w.done.Store(true)
	if w.measure > 0 {
		w.timer = time.AfterFunc(time.Until(t.Add(w.measure)), w.cancel)
	}
}

func (w *warmup) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
}
