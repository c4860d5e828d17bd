package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The in-process verification run (`kbox verify run`): K producers and M
// consumers of one group running the drop-in tools' loops (Producer and
// Consumer: increasing integer values "P.i", Apache's ThroughputThrottler,
// a synchronous commit of maxOffset+1 after every poll), their events
// fed as they come to a streaming Checker (and mirrored to files when
// asked): memory does not grow with the records.

// RunConfig describes a verification run.
type RunConfig struct {
	Topic      string
	Messages   int64 // total over all producers; < 0: until StopProducers
	Producers  int
	Consumers  int
	Throughput int64 // total messages/s over all producers; < 0 unthrottled
	// NewProducer builds producer i's client; onDataLoss must be wired to
	// kgo.ProducerOnDataLossDetected.
	NewProducer func(i int, onDataLoss func(topic string, partition int32)) (*kgo.Client, error)
	// NewConsumer builds consumer i's group client with the given extra
	// options (topic subscription, rebalance callbacks) applied last.
	NewConsumer func(i int, extra []kgo.Opt) (*kgo.Client, error)
	// MaxPollRecords per poll (the consumer's max.poll.records).
	MaxPollRecords int
	// ProducerLogs/ConsumerLogs, when set, receive each tool's JSON lines.
	ProducerLogs []io.Writer
	ConsumerLogs []io.Writer
	// ProducerSinks/ConsumerSinks, when set, also receive each tool's
	// events (e.g. a Recorder in tests).
	ProducerSinks []Sink
	ConsumerSinks []Sink
	// Check are the checker's options (the run adds its franz-go
	// data-loss signals; add fault windows with Checker().AddFault).
	Check Options
	// StartOffsets are the partitions' end offsets before the run (the
	// consumers start there); their keys are the topic's partitions.
	StartOffsets map[int32]int64
	// Transactional producers (their clients must have a transactional
	// id) send TxnSize records per transaction and abort every
	// AbortEvery-th transaction on purpose (0: never); each transaction's
	// end is recorded as a transaction_end event. Consumers should read
	// with isolation.level=read_committed.
	Transactional bool
	TxnSize       int
	AbortEvery    int
	// JoinTimeout bounds the wait, before producing, for the group to
	// assign every partition to min(consumers, partitions) members
	// (default 30 s; the run goes on after it).
	JoinTimeout time.Duration
}

// Progress is a snapshot of a run (for the progress line; never encoded).
type Progress struct {
	Sent          int64
	Acked         int64
	SendErrors    int64
	Consumed      int64
	Lag           int64
	ProducersDone bool
}

// Run is a verification run in flight.
type Run struct {
	cfg          RunConfig
	checker      *Checker
	mirrors      []*Mirror
	prodSinks    []Sink
	consSinks    []Sink
	counters     Counters
	mu           sync.Mutex
	lastAcked    map[int32]int64
	consumedTo   map[int32]int64  // highest consumed offset
	assigned     []map[int32]bool // per consumer
	produceStart time.Time
	stopProd     chan os.Signal // closed to stop the producers
	stopProdOnce sync.Once
	stopCons     chan os.Signal // closed to stop the consumers
	prodWG       sync.WaitGroup
	consWG       sync.WaitGroup
	prodDone     chan struct{}
	producers    []*kgo.Client
	consumers    []*Consumer
}

// StartRun validates cfg, builds every client and starts consumers and
// producers. Stop the producers early with StopProducers; always call
// Finish.
func StartRun(cfg RunConfig) (*Run, error) {
	switch {
	case cfg.Topic == "":
		return nil, errors.New("no topic")
	case cfg.Messages == 0:
		return nil, errors.New("messages must be positive (or negative: until stopped)")
	case cfg.Producers < 1 || cfg.Consumers < 1:
		return nil, errors.New("need at least one producer and one consumer")
	case cfg.Throughput == 0:
		return nil, errors.New("throughput must be positive or -1 (unthrottled)")
	}
	if cfg.MaxPollRecords <= 0 {
		cfg.MaxPollRecords = 500
	}
	if cfg.Transactional && cfg.TxnSize <= 0 {
		cfg.TxnSize = 100
	}
	r := &Run{cfg: cfg, lastAcked: map[int32]int64{}, consumedTo: map[int32]int64{},
		stopProd: make(chan os.Signal), stopCons: make(chan os.Signal), prodDone: make(chan struct{})}
	r.checker = NewChecker(cfg.Check)
	mirror := func(w io.Writer) *Mirror {
		if w == nil {
			return nil
		}
		m := NewMirror(w)
		r.mirrors = append(r.mirrors, m)
		return m
	}
	for i := 0; i < cfg.Producers; i++ {
		r.prodSinks = append(r.prodSinks, Tee(r.checker.Producer(fmt.Sprintf("producer-%d", i)), mirror(pick(cfg.ProducerLogs, i)), pickSink(cfg.ProducerSinks, i)))
	}
	for i := 0; i < cfg.Consumers; i++ {
		r.consSinks = append(r.consSinks, Tee(r.checker.Consumer(fmt.Sprintf("consumer-%d", i)), mirror(pick(cfg.ConsumerLogs, i)), pickSink(cfg.ConsumerSinks, i)))
	}
	for i := 0; i < cfg.Producers; i++ {
		cl, err := cfg.NewProducer(i, r.onDataLoss("producer"))
		if err != nil {
			r.closeAll()
			return nil, err
		}
		r.producers = append(r.producers, cl)
	}
	for i := 0; i < cfg.Consumers; i++ {
		r.assigned = append(r.assigned, map[int32]bool{})
	}
	for i := 0; i < cfg.Consumers; i++ {
		c := &Consumer{
			Topic: cfg.Topic, Sink: r.consSinks[i], MaxMessages: -1, MaxPollRecords: cfg.MaxPollRecords,
			Verbose: true, CloseTimeout: 30 * time.Second, Stop: r.stopCons, Counters: &r.counters,
			OnRebalance: func(name string, tps []TP) {
				r.mu.Lock()
				defer r.mu.Unlock()
				for _, tp := range tps {
					if name == EvAssigned {
						r.assigned[i][tp.Partition] = true
					} else {
						delete(r.assigned[i], tp.Partition)
					}
				}
			},
			OnFetchError: func(_ string, _ int32, err error) {
				var dl *kgo.ErrDataLoss
				if errors.As(err, &dl) {
					r.checker.AddDataLoss(fmt.Sprintf("consumer-%d: %v", i, err))
				}
			},
			// A batch no consumer can read is its own anomaly; the
			// consumer reads on past it.
			OnCorrupt: func(corr *integrity.Corruption) bool {
				if corr.Last >= corr.Offset {
					r.checker.AddCorrupt(Corrupt{Topic: corr.Topic, Partition: corr.Partition, First: corr.Offset, Last: corr.Last, Desc: corr.Error()})
				}
				return true
			},
			OnConsumed: func(sums []PartitionData) {
				r.mu.Lock()
				defer r.mu.Unlock()
				for _, s := range sums {
					if cur, ok := r.consumedTo[s.Partition]; !ok || s.MaxOffset > cur {
						r.consumedTo[s.Partition] = s.MaxOffset
					}
				}
			},
		}
		cl, err := cfg.NewConsumer(i, c.ClientOpts())
		if err != nil {
			r.closeAll()
			return nil, err
		}
		c.Client = cl
		r.consumers = append(r.consumers, c)
	}
	for _, c := range r.consumers {
		r.consWG.Add(1)
		go func() { defer r.consWG.Done(); c.Run() }()
	}
	if cfg.JoinTimeout <= 0 {
		cfg.JoinTimeout = 30 * time.Second
	}
	for deadline := time.Now().Add(cfg.JoinTimeout); !r.joined() && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	r.produceStart = time.Now()
	per, extra := cfg.Messages/int64(cfg.Producers), cfg.Messages%int64(cfg.Producers)
	for i, cl := range r.producers {
		n := per
		if int64(i) < extra {
			n++
		}
		if cfg.Messages < 0 {
			n = -1
		}
		target := float64(-1)
		if cfg.Throughput > 0 {
			target = float64(cfg.Throughput) / float64(cfg.Producers)
		}
		p := &Producer{
			Client: cl, Topic: cfg.Topic, Sink: r.prodSinks[i], MaxMessages: n, Throughput: target,
			ValuePrefix:   strconv.Itoa(i) + ".",
			Transactional: cfg.Transactional, TxnSize: cfg.TxnSize, AbortEvery: cfg.AbortEvery,
			Stop: r.stopProd, Counters: &r.counters, OnDurable: r.durable,
		}
		r.prodWG.Add(1)
		go func() { defer r.prodWG.Done(); p.Run() }()
	}
	go func() { r.prodWG.Wait(); r.checker.ProducersDone(); close(r.prodDone) }()
	return r, nil
}

// joined reports whether every partition is assigned and min(consumers,
// partitions) consumers have partitions.
func (r *Run) joined() bool {
	parts := len(r.cfg.StartOffsets)
	if parts == 0 {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	members, total := 0, 0
	for _, a := range r.assigned {
		if len(a) > 0 {
			members++
		}
		total += len(a)
	}
	return total >= parts && members >= min(parts, len(r.assigned))
}

func pick(ws []io.Writer, i int) io.Writer {
	if i < len(ws) {
		return ws[i]
	}
	return nil
}

func pickSink(ss []Sink, i int) Sink {
	if i < len(ss) {
		return ss[i]
	}
	return nil
}

// Checker is the run's streaming checker (Snapshot for counts so far,
// AddFault for fault windows).
func (r *Run) Checker() *Checker { return r.checker }

func nowMs() int64 { return time.Now().UnixMilli() }

// durable notes that a producer's record at offset is acked for good.
func (r *Run) durable(partition int32, offset int64) {
	r.mu.Lock()
	if cur, ok := r.lastAcked[partition]; !ok || offset > cur {
		r.lastAcked[partition] = offset
	}
	r.mu.Unlock()
}

func tpsOf(m map[string][]int32) []TP {
	var out []TP
	for t, ps := range m {
		for _, p := range ps {
			out = append(out, TP{Topic: t, Partition: p})
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && (out[j].Topic < out[j-1].Topic || (out[j].Topic == out[j-1].Topic && out[j].Partition < out[j-1].Partition)); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func (r *Run) onDataLoss(who string) func(string, int32) {
	return func(topic string, partition int32) {
		r.checker.AddDataLoss(fmt.Sprintf("%s: franz-go detected data loss on %s-%d", who, topic, partition))
	}
}

// Progress returns the current counters; lag is the number of acked
// offsets the consumers have not reached yet, over all partitions.
func (r *Run) Progress() Progress {
	c := &r.counters
	p := Progress{Sent: c.Sent.Load(), Acked: c.Acked.Load(), SendErrors: c.SendErrors.Load(), Consumed: c.Consumed.Load()}
	r.mu.Lock()
	for part, last := range r.lastAcked {
		to, ok := r.consumedTo[part]
		if !ok {
			to = r.cfg.StartOffsets[part] - 1
		}
		if last > to {
			p.Lag += last - to
		}
	}
	r.mu.Unlock()
	select {
	case <-r.prodDone:
		p.ProducersDone = true
	default:
	}
	return p
}

// ProduceStart is when the producers started (after the group joined).
func (r *Run) ProduceStart() time.Time { return r.produceStart }

// ProducersDone is closed once every producer has sent its share (or was
// stopped) and flushed.
func (r *Run) ProducersDone() <-chan struct{} { return r.prodDone }

// StopProducers stops sending; buffered records are still flushed.
func (r *Run) StopProducers() { r.stopProdOnce.Do(func() { close(r.stopProd) }) }

// CaughtUp reports whether, for every partition with an acked record, a
// consumer has consumed an offset at or beyond the last acked one.
func (r *Run) CaughtUp() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for p, last := range r.lastAcked {
		if to, ok := r.consumedTo[p]; !ok || to < last {
			return false
		}
	}
	return true
}

// WaitCaughtUp waits for the producers to finish and the consumers to
// reach every last acked offset, or for ctx to end.
func (r *Run) WaitCaughtUp(ctx context.Context) bool {
	select {
	case <-r.prodDone:
	case <-ctx.Done():
		return false
	}
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for !r.CaughtUp() {
		select {
		case <-ctx.Done():
			return r.CaughtUp()
		case <-t.C:
		}
	}
	return true
}

// Finish stops producers (flushing within flushTimeout, then failing what
// is left) and consumers, flushes the log mirrors, and returns the
// checker's report.
func (r *Run) Finish(flushTimeout time.Duration) *Report {
	r.StopProducers()
	select {
	case <-r.prodDone:
	case <-time.After(flushTimeout):
		// Closing fails the buffered records (recorded as send errors);
		// each producer closes its client after the flush anyway.
		for _, cl := range r.producers {
			cl.Close()
		}
		<-r.prodDone
	}
	close(r.stopCons)
	r.consWG.Wait()
	for _, m := range r.mirrors {
		_ = m.Flush()
	}
	return r.checker.Finish()
}

// WriteErr is the first error writing a log mirror.
func (r *Run) WriteErr() error {
	for _, m := range r.mirrors {
		if err := m.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func (r *Run) closeAll() {
	for _, cl := range r.producers {
		cl.Close()
	}
	for _, c := range r.consumers {
		c.Client.Close()
	}
}
