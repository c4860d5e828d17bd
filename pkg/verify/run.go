package verify

import (
	"context"
	"errors"
	"fmt"
	"github.com/kboxdev/kbox/pkg/throttle"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The in-process verification run (`kbox verify run`): K producers and M
// consumers of one group, with the semantics of the drop-in tools
// (increasing integer values "P.i", Apache's ThroughputThrottler,
// a synchronous commit of maxOffset+1 after every poll), recording the
// same events in memory so the checker can judge them.

// Recorder collects one tool's events in memory and, when W is set, also
// writes them as the tool's JSON lines.
type Recorder struct {
	mu  sync.Mutex
	log Log
	w   io.Writer
	err error
}

// NewRecorder returns a recorder named name (used in anomaly examples),
// mirroring events to w when w is not nil.
func NewRecorder(name string, w io.Writer) *Recorder {
	return &Recorder{log: Log{Name: name}, w: w}
}

// Add records e.
func (r *Recorder) Add(e Event) { r.AddLine(e, nil) }

// AddLine records e whose JSON line is line (nil: encode e).
func (r *Recorder) AddLine(e Event, line []byte) {
	r.mu.Lock()
	r.log.Events = append(r.log.Events, e)
	if r.w != nil && r.err == nil {
		if line == nil {
			line = EncodeEvent(&e)
		}
		_, r.err = r.w.Write(line)
	}
	r.mu.Unlock()
}

// Log returns the recorded events.
func (r *Recorder) Log() *Log {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.log
	return &l
}

// Err is the first error writing the mirror.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// EncodeEvent renders e as the JSON line the drop-in tools print.
func EncodeEvent(e *Event) []byte {
	switch e.Name {
	case EvSendSuccess:
		return SendSuccess(e.Timestamp, e.Key, deref(e.Value), e.Topic, e.Partition, e.Offset)
	case EvSendError:
		return SendError(e.Timestamp, e.Topic, e.Key, deref(e.Value), e.Exception, e.Message)
	case EvAssigned, EvRevoked:
		tps := make([]TP, len(e.Parts))
		for i, p := range e.Parts {
			tps[i] = TP{p.Topic, p.Partition}
		}
		if e.Name == EvAssigned {
			return PartitionsAssigned(e.Timestamp, tps)
		}
		return PartitionsRevoked(e.Timestamp, tps)
	case EvRecordsConsumed:
		return RecordsConsumed(e.Timestamp, e.Count, e.Parts)
	case EvRecordData:
		return RecordData(e.Timestamp, e.Key, e.Value, e.Topic, e.Partition, e.Offset)
	case EvOffsetsCommitted:
		return OffsetsCommitted(e.Timestamp, e.Offsets, e.Error)
	case EvTxnEnd:
		return TxnEnd(e.Timestamp, e.Result, e.Values, e.Error)
	}
	return newObj(e.Timestamp, e.Name).Line()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// RunConfig describes a verification run.
type RunConfig struct {
	Topic      string
	Messages   int64 // total over all producers
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
	prodRecs     []*Recorder
	consRecs     []*Recorder
	sent         atomic.Int64
	acked        atomic.Int64
	sendErrs     atomic.Int64
	consumed     atomic.Int64
	mu           sync.Mutex
	lastAcked    map[int32]int64
	consumedTo   map[int32]int64  // highest consumed offset
	assigned     []map[int32]bool // per consumer
	produceStart time.Time
	dataLoss     []string
	stopProd     context.CancelFunc
	prodCtx      context.Context
	stopCons     context.CancelFunc
	consCtx      context.Context
	prodWG       sync.WaitGroup
	consWG       sync.WaitGroup
	prodDone     chan struct{}
	producers    []*kgo.Client
	consumers    []*kgo.Client
}

// StartRun validates cfg, builds every client and starts consumers and
// producers. Stop the producers early with StopProducers; always call
// Finish.
func StartRun(cfg RunConfig) (*Run, error) {
	switch {
	case cfg.Topic == "":
		return nil, errors.New("no topic")
	case cfg.Messages <= 0:
		return nil, errors.New("messages must be positive")
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
	r := &Run{cfg: cfg, lastAcked: map[int32]int64{}, consumedTo: map[int32]int64{}, prodDone: make(chan struct{})}
	for i := 0; i < cfg.Producers; i++ {
		r.prodRecs = append(r.prodRecs, NewRecorder(fmt.Sprintf("producer-%d", i), pick(cfg.ProducerLogs, i)))
	}
	for i := 0; i < cfg.Consumers; i++ {
		r.consRecs = append(r.consRecs, NewRecorder(fmt.Sprintf("consumer-%d", i), pick(cfg.ConsumerLogs, i)))
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
		rec := r.consRecs[i]
		cb := func(name string) func(context.Context, *kgo.Client, map[string][]int32) {
			return func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
				var parts []PartitionData
				r.mu.Lock()
				for _, tp := range tpsOf(m) {
					parts = append(parts, PartitionData{Topic: tp.Topic, Partition: tp.Partition})
					if name == EvAssigned {
						r.assigned[i][tp.Partition] = true
					} else {
						delete(r.assigned[i], tp.Partition)
					}
				}
				r.mu.Unlock()
				rec.Add(Event{Timestamp: nowMs(), Name: name, Parts: parts})
			}
		}
		cl, err := cfg.NewConsumer(i, []kgo.Opt{
			kgo.ConsumeTopics(cfg.Topic),
			kgo.BlockRebalanceOnPoll(),
			kgo.OnPartitionsAssigned(cb(EvAssigned)),
			kgo.OnPartitionsRevoked(cb(EvRevoked)),
			kgo.OnPartitionsLost(cb(EvRevoked)),
		})
		if err != nil {
			r.closeAll()
			return nil, err
		}
		r.consumers = append(r.consumers, cl)
	}
	r.consCtx, r.stopCons = context.WithCancel(context.Background())
	r.prodCtx, r.stopProd = context.WithCancel(context.Background())
	for i, cl := range r.consumers {
		r.consWG.Add(1)
		go func() { defer r.consWG.Done(); r.consume(i, cl) }()
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
		target := float64(-1)
		if cfg.Throughput > 0 {
			target = float64(cfg.Throughput) / float64(cfg.Producers)
		}
		r.prodWG.Add(1)
		go func() {
			defer r.prodWG.Done()
			if cfg.Transactional {
				r.produceTxn(i, cl, n, target)
			} else {
				r.produce(i, cl, n, target)
			}
		}()
	}
	go func() { r.prodWG.Wait(); close(r.prodDone) }()
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

func nowMs() int64 { return time.Now().UnixMilli() }

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
		r.mu.Lock()
		r.dataLoss = append(r.dataLoss, fmt.Sprintf("%s: franz-go detected data loss on %s-%d", who, topic, partition))
		r.mu.Unlock()
	}
}

// produce is the drop-in producer's loop for producer i: values "i.n",
// no keys, Apache's throttler, then a flush.
func (r *Run) produce(i int, cl *kgo.Client, n int64, target float64) {
	rec := r.prodRecs[i]
	rec.Add(Event{Timestamp: nowMs(), Name: EvStartupComplete})
	startMs := nowMs()
	th := throttle.NewApache(target)
	prefix := strconv.Itoa(i) + "."
	var acked atomic.Int64
	var sent int64
	for j := int64(0); j < n && r.prodCtx.Err() == nil; j++ {
		value := prefix + strconv.FormatInt(j, 10)
		sent++
		r.sent.Add(1)
		cl.Produce(context.Background(), &kgo.Record{Topic: r.cfg.Topic, Value: []byte(value)}, func(k *kgo.Record, err error) {
			now := nowMs()
			if err != nil {
				class, msg := JavaErrorClass(err, k.Topic, k.Partition)
				r.sendErrs.Add(1)
				rec.Add(Event{Timestamp: now, Name: EvSendError, Topic: k.Topic, Value: &value, Exception: "class " + class, Message: &msg})
				return
			}
			acked.Add(1)
			r.acked.Add(1)
			r.mu.Lock()
			if cur, ok := r.lastAcked[k.Partition]; !ok || k.Offset > cur {
				r.lastAcked[k.Partition] = k.Offset
			}
			r.mu.Unlock()
			rec.Add(Event{Timestamp: now, Name: EvSendSuccess, Value: &value, Topic: k.Topic, Partition: k.Partition, Offset: k.Offset})
		})
		if th.ShouldThrottleNow(j) {
			th.Throttle(r.prodCtx)
		}
	}
	_ = cl.Flush(context.Background())
	shutdownProducer(rec, startMs, sent, acked.Load(), target)
}

// produceTxn is produce with transactions: TxnSize records each, every
// AbortEvery-th aborted on purpose, the result of each recorded with its
// values. Only committed records count as acked for catching up.
func (r *Run) produceTxn(i int, cl *kgo.Client, n int64, target float64) {
	rec := r.prodRecs[i]
	rec.Add(Event{Timestamp: nowMs(), Name: EvStartupComplete})
	startMs := nowMs()
	th := throttle.NewApache(target)
	prefix := strconv.Itoa(i) + "."
	var acked atomic.Int64
	var sent int64
	j := int64(0)
	for txn := 1; j < n && r.prodCtx.Err() == nil; txn++ {
		if err := cl.BeginTransaction(); err != nil {
			m := err.Error()
			rec.Add(Event{Timestamp: nowMs(), Name: EvTxnEnd, Result: TxnFailed, Values: []string{}, Error: &m})
			break
		}
		var mu sync.Mutex
		var values []string
		var offsets []PartitionData // partition and offset of each ack
		failed := false
		for k := 0; k < r.cfg.TxnSize && j < n && r.prodCtx.Err() == nil; k, j = k+1, j+1 {
			value := prefix + strconv.FormatInt(j, 10)
			values = append(values, value)
			sent++
			r.sent.Add(1)
			cl.Produce(context.Background(), &kgo.Record{Topic: r.cfg.Topic, Value: []byte(value)}, func(k *kgo.Record, err error) {
				now := nowMs()
				if err != nil {
					class, msg := JavaErrorClass(err, k.Topic, k.Partition)
					r.sendErrs.Add(1)
					mu.Lock()
					failed = true
					mu.Unlock()
					rec.Add(Event{Timestamp: now, Name: EvSendError, Topic: k.Topic, Value: &value, Exception: "class " + class, Message: &msg})
					return
				}
				acked.Add(1)
				r.acked.Add(1)
				mu.Lock()
				offsets = append(offsets, PartitionData{Partition: k.Partition, MaxOffset: k.Offset})
				mu.Unlock()
				rec.Add(Event{Timestamp: now, Name: EvSendSuccess, Value: &value, Topic: k.Topic, Partition: k.Partition, Offset: k.Offset})
			})
			if th.ShouldThrottleNow(j) {
				th.Throttle(r.prodCtx)
			}
		}
		_ = cl.Flush(context.Background())
		mu.Lock()
		sendFailed := failed
		mu.Unlock()
		result, errMsg := r.endTxn(cl, sendFailed, r.cfg.AbortEvery > 0 && txn%r.cfg.AbortEvery == 0)
		if result == TxnCommitted {
			r.mu.Lock()
			for _, o := range offsets {
				if cur, ok := r.lastAcked[o.Partition]; !ok || o.MaxOffset > cur {
					r.lastAcked[o.Partition] = o.MaxOffset
				}
			}
			r.mu.Unlock()
		}
		rec.Add(Event{Timestamp: nowMs(), Name: EvTxnEnd, Result: result, Values: values, Error: errMsg})
		if result == TxnUnknown {
			break // the client's state is unknown: stop this producer
		}
	}
	shutdownProducer(rec, startMs, sent, acked.Load(), target)
}

// endTxn commits (or aborts) the current transaction and classifies the
// outcome: a refused commit (OPERATION_NOT_ATTEMPTED, TRANSACTION_ABORTABLE)
// is followed by an abort and is "failed"; any other commit error leaves
// the outcome unknown (the commit may have been written).
func (r *Run) endTxn(cl *kgo.Client, sendFailed, abort bool) (string, *string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	msg := func(err error) *string {
		if err == nil {
			return nil
		}
		m := err.Error()
		return &m
	}
	if sendFailed || abort {
		err := cl.EndTransaction(ctx, kgo.TryAbort)
		// An abort that did not complete can still never commit: the
		// coordinator aborts the transaction on timeout or fencing.
		if sendFailed {
			return TxnFailed, msg(err)
		}
		return TxnAborted, msg(err)
	}
	err := cl.EndTransaction(ctx, kgo.TryCommit)
	if err == nil {
		return TxnCommitted, nil
	}
	aerr := cl.EndTransaction(ctx, kgo.TryAbort)
	if errors.Is(err, kerr.OperationNotAttempted) || errors.Is(err, kerr.TransactionAbortable) {
		return TxnFailed, msg(err)
	}
	m := fmt.Sprintf("commit: %v; abort: %v", err, aerr)
	return TxnUnknown, &m
}

// consume is the drop-in consumer's loop (always --verbose): poll, record,
// commit maxOffset+1 synchronously after every poll.
func (r *Run) consume(i int, cl *kgo.Client) {
	rec := r.consRecs[i]
	rec.Add(Event{Timestamp: nowMs(), Name: EvStartupComplete})
	ctx := r.consCtx
	for ctx.Err() == nil {
		fs := cl.PollRecords(ctx, r.cfg.MaxPollRecords)
		for _, fe := range fs.Errors() {
			if errors.Is(fe.Err, context.Canceled) || errors.Is(fe.Err, kgo.ErrClientClosed) {
				continue
			}
			var dl *kgo.ErrDataLoss
			if errors.As(fe.Err, &dl) {
				r.mu.Lock()
				r.dataLoss = append(r.dataLoss, fmt.Sprintf("consumer-%d: %v", i, fe.Err))
				r.mu.Unlock()
			}
		}
		total := int64(fs.NumRecords())
		if total == 0 {
			cl.AllowRebalance()
			continue
		}
		var sums []PartitionData
		var commits []CommitData
		offsets := map[string]map[int32]kgo.EpochOffset{}
		fs.EachPartition(func(ft kgo.FetchTopicPartition) {
			recs := ft.Records
			if len(recs) == 0 {
				return
			}
			first, last := recs[0], recs[len(recs)-1]
			sums = append(sums, PartitionData{Topic: ft.Topic, Partition: ft.Partition, Count: int64(len(recs)), MinOffset: first.Offset, MaxOffset: last.Offset})
			commits = append(commits, CommitData{Topic: ft.Topic, Partition: ft.Partition, Offset: last.Offset + 1})
			if offsets[ft.Topic] == nil {
				offsets[ft.Topic] = map[int32]kgo.EpochOffset{}
			}
			offsets[ft.Topic][ft.Partition] = kgo.EpochOffset{Epoch: last.LeaderEpoch, Offset: last.Offset + 1}
			now := nowMs()
			for _, k := range recs {
				var key *string
				if k.Key != nil {
					ks := string(k.Key)
					key = &ks
				}
				v := string(k.Value)
				rec.Add(Event{Timestamp: now, Name: EvRecordData, Key: key, Value: &v, Topic: k.Topic, Partition: k.Partition, Offset: k.Offset})
			}
		})
		rec.Add(Event{Timestamp: nowMs(), Name: EvRecordsConsumed, Count: total, Parts: sums})
		r.consumed.Add(total)
		r.mu.Lock()
		for _, s := range sums {
			if cur, ok := r.consumedTo[s.Partition]; !ok || s.MaxOffset > cur {
				r.consumedTo[s.Partition] = s.MaxOffset
			}
		}
		r.mu.Unlock()
		r.commitSync(cl, rec, offsets, commits)
		cl.AllowRebalance()
	}
	cl.AllowRebalance()
	closeCtx, cc := context.WithTimeout(context.Background(), 30*time.Second)
	_ = cl.LeaveGroupContext(closeCtx)
	cc()
	cl.Close()
	rec.Add(Event{Timestamp: nowMs(), Name: EvShutdownComplete})
}

func (r *Run) commitSync(cl *kgo.Client, rec *Recorder, offsets map[string]map[int32]kgo.EpochOffset, commits []CommitData) {
	var errMsg *string
	setErr := func(err error) {
		if errMsg == nil {
			m := err.Error()
			var ke *kerr.Error
			if errors.As(err, &ke) {
				m = ke.Description
			}
			errMsg = &m
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl.CommitOffsetsSync(ctx, offsets, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		if err != nil {
			setErr(err)
			return
		}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				if e := kerr.ErrorForCode(p.ErrorCode); e != nil {
					setErr(e)
				}
			}
		}
	})
	ok := errMsg == nil
	rec.Add(Event{Timestamp: nowMs(), Name: EvOffsetsCommitted, Offsets: commits, Error: errMsg, Success: &ok})
}

// Progress returns the current counters; lag is the number of acked
// offsets the consumers have not reached yet, over all partitions.
func (r *Run) Progress() Progress {
	p := Progress{Sent: r.sent.Load(), Acked: r.acked.Load(), SendErrors: r.sendErrs.Load(), Consumed: r.consumed.Load()}
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
func (r *Run) StopProducers() { r.stopProd() }

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
// is left) and consumers, and returns the logs and franz-go data-loss
// signals.
func (r *Run) Finish(flushTimeout time.Duration) (producers, consumers []*Log, dataLoss []string) {
	r.stopProd()
	select {
	case <-r.prodDone:
	case <-time.After(flushTimeout):
		// Closing fails the buffered records (recorded as send errors).
		for _, cl := range r.producers {
			cl.Close()
		}
		<-r.prodDone
	}
	for _, cl := range r.producers {
		cl.Close()
	}
	r.stopCons()
	r.consWG.Wait()
	for _, rec := range r.prodRecs {
		producers = append(producers, rec.Log())
	}
	for _, rec := range r.consRecs {
		consumers = append(consumers, rec.Log())
	}
	r.mu.Lock()
	dataLoss = append([]string(nil), r.dataLoss...)
	r.mu.Unlock()
	return producers, consumers, dataLoss
}

// WriteErr is the first error writing a log mirror.
func (r *Run) WriteErr() error {
	for _, rec := range append(append([]*Recorder(nil), r.prodRecs...), r.consRecs...) {
		if err := rec.Err(); err != nil {
			return err
		}
	}
	return nil
}

func (r *Run) closeAll() {
	for _, cl := range r.producers {
		cl.Close()
	}
	for _, cl := range r.consumers {
		cl.Close()
	}
}

// shutdownProducer records a producer's shutdown_complete and tool_data
// events, with tool_data's average throughput over the whole run.
func shutdownProducer(rec *Recorder, startMs, sent, acked int64, target float64) {
	stopMs := nowMs()
	rec.Add(Event{Timestamp: stopMs, Name: EvShutdownComplete})
	avg := 0.0
	if stopMs > startMs {
		avg = 1000 * float64(acked) / float64(stopMs-startMs)
	}
	tgt := int64(-1)
	if target >= 0 {
		tgt = int64(target)
	}
	ts := nowMs()
	rec.AddLine(Event{Timestamp: ts, Name: EvToolData, Sent: sent, Acked: acked}, ToolData(ts, sent, acked, tgt, avg))
}
