package exporter

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ProbeOptions configure the end-to-end probe: every Interval it sends one
// record to each partition of Topic (so each partition leader is on the
// path) and times the acknowledgement and the record's arrival at a
// consumer of its own, as kminion's end-to-end monitoring does.
type ProbeOptions struct {
	// Topic is the probe's topic ("" : no probe). When missing it is
	// created with one partition per broker and min(3, brokers) replicas.
	Topic string
	// Interval is the time between two rounds (default 1s).
	Interval time.Duration
	// Timeout: an acknowledged record not consumed within it counts as
	// lost (default 10s).
	Timeout time.Duration
}

// probeKeyLen: the records' key is the run's id, so that records of
// another probe (another exporter on the same topic) are ignored.
const probeKeyLen = 16

type pendingRecord struct {
	sent  time.Time
	acked bool
}

type prober struct {
	e      *Exporter
	cs     *clusterState
	topic  string
	runID  []byte
	prod   *kgo.Client
	cons   *kgo.Client
	parts  int32
	seq    uint64
	mu     sync.Mutex
	inTime map[uint64]*pendingRecord
}

// runProbe runs the probe of one cluster until ctx ends, connecting (and
// creating the topic) again after a failure.
func (e *Exporter) runProbe(ctx context.Context, cs *clusterState) {
	o := e.o.Probe
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	id := make([]byte, probeKeyLen/2)
	_, _ = rand.Read(id)
	p := &prober{e: e, cs: cs, topic: o.Topic, runID: []byte(hex.EncodeToString(id)), inTime: map[uint64]*pendingRecord{}}
	for ctx.Err() == nil {
		err := p.run(ctx, o)
		if ctx.Err() != nil {
			return
		}
		_ = err // retried after an interval; the counters tell the story
		t := time.NewTimer(o.Interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func (p *prober) run(ctx context.Context, o ProbeOptions) error {
	start := time.Now()
	prod, cons, closeFn, err := p.cs.ProbeClients(ctx,
		[]kgo.Opt{kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0)},
		[]kgo.Opt{kgo.ConsumeTopics(p.topic), kgo.FetchMaxWait(500 * time.Millisecond),
			// Records sent from now on: none missed while the
			// consumer looks up its first offsets.
			kgo.ConsumeResetOffset(kgo.NewOffset().AfterMilli(start.Add(-time.Second).UnixMilli()))})
	if err != nil {
		return err
	}
	defer closeFn()
	p.prod, p.cons = prod, cons
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		p.consume(ctx)
	}()
	defer wg.Wait()
	defer cancel()
	t := time.NewTicker(o.Interval)
	defer t.Stop()
	round := 0
	for {
		if round%30 == 0 {
			n, err := p.ensureTopic(ctx)
			if err != nil {
				return err
			}
			p.parts = n
		}
		round++
		p.send(ctx)
		p.sweep(o.Timeout)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// ensureTopic returns the probe topic's partition count, creating it when
// missing.
func (p *prober) ensureTopic(ctx context.Context) (int32, error) {
	adm := kadm.NewClient(p.prod)
	td, err := adm.ListTopics(ctx, p.topic)
	if err != nil {
		return 0, err
	}
	if d, ok := td[p.topic]; ok && d.Err == nil && len(d.Partitions) > 0 {
		return int32(len(d.Partitions)), nil
	}
	md, err := adm.BrokerMetadata(ctx)
	if err != nil {
		return 0, err
	}
	n := int32(max(len(md.Brokers), 1))
	cr, err := adm.CreateTopic(ctx, n, int16(min(n, 3)), nil, p.topic)
	if err == nil {
		err = cr.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return 0, err
	}
	return n, nil
}

// send sends one record to each partition.
func (p *prober) send(ctx context.Context) {
	m := &p.e.m.probe
	for part := int32(0); part < p.parts; part++ {
		p.seq++
		seq := p.seq
		rec := &kgo.Record{Topic: p.topic, Partition: part, Key: p.runID, Value: strconv.AppendUint(nil, seq, 10)}
		sent := time.Now()
		p.mu.Lock()
		p.inTime[seq] = &pendingRecord{sent: sent}
		p.mu.Unlock()
		m.sent.WithLabelValues(p.cs.Name).Inc()
		p.prod.Produce(ctx, rec, func(_ *kgo.Record, err error) {
			p.mu.Lock()
			defer p.mu.Unlock()
			if err != nil {
				delete(p.inTime, seq)
				if ctx.Err() == nil {
					m.errors.WithLabelValues(p.cs.Name).Inc()
				}
				return
			}
			m.ack.WithLabelValues(p.cs.Name).Observe(time.Since(sent).Seconds())
			if pr, ok := p.inTime[seq]; ok {
				pr.acked = true
			}
		})
	}
}

// consume times the probe's own records back.
func (p *prober) consume(ctx context.Context) {
	m := &p.e.m.probe
	for ctx.Err() == nil {
		fs := p.cons.PollFetches(ctx)
		now := time.Now()
		fs.EachRecord(func(r *kgo.Record) {
			if string(r.Key) != string(p.runID) {
				return
			}
			seq, err := strconv.ParseUint(string(r.Value), 10, 64)
			if err != nil {
				return
			}
			p.mu.Lock()
			pr, ok := p.inTime[seq]
			delete(p.inTime, seq)
			p.mu.Unlock()
			if ok {
				m.received.WithLabelValues(p.cs.Name).Inc()
				m.e2e.WithLabelValues(p.cs.Name).Observe(now.Sub(pr.sent).Seconds())
			}
		})
	}
}

// sweep counts the acknowledged records not back within timeout as lost.
func (p *prober) sweep(timeout time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for seq, pr := range p.inTime {
		if pr.acked && time.Since(pr.sent) > timeout {
			delete(p.inTime, seq)
			p.e.m.probe.lost.WithLabelValues(p.cs.Name).Inc()
		}
	}
}
