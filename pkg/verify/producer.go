package verify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/throttle"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Counters are live totals, shared by the producers and consumers of a
// run.
type Counters struct {
	Sent       atomic.Int64
	Acked      atomic.Int64
	SendErrors atomic.Int64
	Consumed   atomic.Int64
}

// Producer is the loop of Apache's VerifiableProducer: it sends the
// increasing integers "0", "1", ... (with ValuePrefix) to Topic through
// Apache's ThroughputThrottler and reports every send to Sink. The drop-in
// kafka-verifiable-producer runs one; `kbox verify run` runs several.
type Producer struct {
	Client *kgo.Client
	Topic  string
	Sink   Sink
	// MaxMessages is the number of records to send; < 0: until stopped.
	MaxMessages int64
	// Throughput is the target in messages/s; < 0: unthrottled. Its
	// integer part is tool_data's target_throughput.
	Throughput float64
	// ValuePrefix goes before each value ("P." for --value-prefix P).
	ValuePrefix string
	// RepeatingKeys, when set, keys the records "0", "1", ... up to
	// *RepeatingKeys (exclusive), then "0" again; nil: no keys.
	RepeatingKeys *int64
	// CreateTime, when set, is the first record's timestamp in ms; each
	// later one adds the time elapsed since the start (as Apache does).
	CreateTime *int64
	// Transactional producers (the client has a transactional id) send
	// TxnSize records per transaction and abort every AbortEvery-th one on
	// purpose (0: never); each end is a transaction_end event. kbox's own
	// extension, used by `kbox verify run --transactional`.
	Transactional bool
	TxnSize       int
	AbortEvery    int
	// Stop ends the sending when it delivers a signal or is closed; what
	// was sent is still flushed.
	Stop <-chan os.Signal
	// Counters, when set, count sends, acks and send errors live.
	Counters *Counters
	// OnDurable, when set, is called for every record acknowledged for
	// good: at its ack, or with transactions once its transaction
	// committed.
	OnDurable func(partition int32, offset int64)
}

// ProducerResult is what a producer did.
type ProducerResult struct {
	Sent, Acked int64
	// Signal is the signal that stopped the producer (nil if none, or if
	// Stop was closed).
	Signal os.Signal
}

// Run is VerifiableProducer.run and its shutdown hook: startup_complete,
// the sends until MaxMessages or Stop, a flush, the client's close, then
// shutdown_complete and tool_data.
func (p *Producer) Run() ProducerResult {
	var res ProducerResult
	p.Sink.AddLine(Event{Timestamp: nowMs(), Name: EvStartupComplete}, nil)
	startMs := nowMs()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case s := <-p.Stop:
			res.Signal = s
			stop()
		case <-ctx.Done():
		}
	}()
	s := &sender{p: p, ctx: ctx, th: throttle.NewApache(p.Throughput), createTime: p.CreateTime, startMs: startMs}
	if p.Transactional {
		s.transactions()
	} else {
		s.plain()
	}
	_ = p.Client.Flush(context.Background())
	stopMs := nowMs()
	stop()
	<-stopped
	p.Client.Close()
	p.Sink.AddLine(Event{Timestamp: nowMs(), Name: EvShutdownComplete}, nil)
	res.Sent, res.Acked = s.sent, s.acked.Load()
	avg := 1000 * float64(res.Acked) / float64(stopMs-startMs)
	ts := nowMs()
	p.Sink.AddLine(Event{Timestamp: ts, Name: EvToolData, Sent: res.Sent, Acked: res.Acked}, ToolData(ts, res.Sent, res.Acked, int64(p.Throughput), avg))
	return res
}

// sender is one Producer.Run in flight.
type sender struct {
	p          *Producer
	ctx        context.Context // done when stopped
	th         *throttle.Apache
	sent       int64
	acked      atomic.Int64
	keyCounter int64
	createTime *int64
	startMs    int64
}

func (s *sender) max() int64 {
	if s.p.MaxMessages < 0 {
		return math.MaxInt64
	}
	return s.p.MaxMessages
}

// send produces the i-th value; onAck (if set) sees its partition and
// offset once acked, before the event; onErr (if set) sees a failure.
// It returns the value.
func (s *sender) send(i int64, onAck func(partition int32, offset int64), onErr func()) string {
	p := s.p
	var key *string
	if p.RepeatingKeys != nil {
		k := strconv.FormatInt(s.keyCounter, 10)
		key = &k
		s.keyCounter++
		if s.keyCounter == *p.RepeatingKeys {
			s.keyCounter = 0
		}
	}
	value := p.ValuePrefix + strconv.FormatInt(i, 10)
	rec := &kgo.Record{Topic: p.Topic, Value: []byte(value)}
	if key != nil {
		rec.Key = []byte(*key)
	}
	if s.createTime != nil {
		rec.Timestamp = time.UnixMilli(*s.createTime)
		ct := *s.createTime + (nowMs() - s.startMs)
		s.createTime = &ct
	}
	s.sent++
	if p.Counters != nil {
		p.Counters.Sent.Add(1)
	}
	p.Client.Produce(context.Background(), rec, func(r *kgo.Record, err error) {
		now := nowMs()
		if err != nil {
			class, msg := JavaErrorClass(kafka.SendError(r, err), r.Topic, r.Partition)
			if p.Counters != nil {
				p.Counters.SendErrors.Add(1)
			}
			if onErr != nil {
				onErr()
			}
			p.Sink.AddLine(Event{Timestamp: now, Name: EvSendError, Topic: r.Topic, Key: key, Value: &value, Exception: "class " + class, Message: &msg}, nil)
			return
		}
		s.acked.Add(1)
		if p.Counters != nil {
			p.Counters.Acked.Add(1)
		}
		if onAck != nil {
			onAck(r.Partition, r.Offset)
		}
		p.Sink.AddLine(Event{Timestamp: now, Name: EvSendSuccess, Key: key, Value: &value, Topic: r.Topic, Partition: r.Partition, Offset: r.Offset}, nil)
	})
	return value
}

func (s *sender) throttle(i int64) {
	if s.th.ShouldThrottleNow(i) {
		s.th.Throttle(s.ctx)
	}
}

// plain sends without transactions.
func (s *sender) plain() {
	for i := int64(0); i < s.max() && s.ctx.Err() == nil; i++ {
		s.send(i, s.p.OnDurable, nil)
		s.throttle(i)
	}
}

// transactions sends TxnSize records per transaction, every AbortEvery-th
// aborted on purpose, the result of each recorded with its values. Only
// the records of committed transactions are durable.
func (s *sender) transactions() {
	p := s.p
	size := p.TxnSize
	if size <= 0 {
		size = 100
	}
	i := int64(0)
	for txn := 1; i < s.max() && s.ctx.Err() == nil; txn++ {
		if err := p.Client.BeginTransaction(); err != nil {
			m := err.Error()
			p.Sink.AddLine(Event{Timestamp: nowMs(), Name: EvTxnEnd, Result: TxnFailed, Values: []string{}, Error: &m}, nil)
			return
		}
		var mu sync.Mutex
		var values []string
		var acks []PartitionData // partition and offset of each ack
		failed := false
		onAck := func(partition int32, offset int64) {
			mu.Lock()
			acks = append(acks, PartitionData{Partition: partition, MaxOffset: offset})
			mu.Unlock()
		}
		onErr := func() {
			mu.Lock()
			failed = true
			mu.Unlock()
		}
		for k := 0; k < size && i < s.max() && s.ctx.Err() == nil; k, i = k+1, i+1 {
			values = append(values, s.send(i, onAck, onErr))
			s.throttle(i)
		}
		_ = p.Client.Flush(context.Background())
		mu.Lock()
		sendFailed := failed
		mu.Unlock()
		result, errMsg := endTxn(p.Client, sendFailed, p.AbortEvery > 0 && txn%p.AbortEvery == 0)
		if result == TxnCommitted && p.OnDurable != nil {
			for _, a := range acks {
				p.OnDurable(a.Partition, a.MaxOffset)
			}
		}
		p.Sink.AddLine(Event{Timestamp: nowMs(), Name: EvTxnEnd, Result: result, Values: values, Error: errMsg}, nil)
		if result == TxnUnknown {
			return // the client's state is unknown: stop this producer
		}
	}
}

// endTxn commits (or aborts) the current transaction and classifies the
// outcome: a refused commit (OPERATION_NOT_ATTEMPTED, TRANSACTION_ABORTABLE)
// is followed by an abort and is "failed"; any other commit error leaves
// the outcome unknown (the commit may have been written).
func endTxn(cl *kgo.Client, sendFailed, abort bool) (string, *string) {
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
