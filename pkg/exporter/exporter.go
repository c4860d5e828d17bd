// Package exporter is `kbox exporter`: what kbox status, kbox top and kbox
// groups lag measure, as Prometheus metrics, without JMX. One loop per
// cluster refreshes a snapshot every interval with pkg/status's sampler
// (brokers probed, partition health, end offsets, log dirs, consumer
// group lag in records and in time with Burrow's verdicts over windows of
// commits, the metadata quorum); after each refresh the metrics are
// rendered once with client_golang, and a scrape serves the rendered
// text: a scrape never reaches a cluster, so ten Prometheus servers cost
// the clusters what one does.
package exporter

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/kboxdev/kbox/pkg/logdirs"
	"github.com/kboxdev/kbox/pkg/redact"
	"github.com/kboxdev/kbox/pkg/status"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Cluster is one cluster the exporter serves: a profile's name and how to
// connect. Clients are made on the first refresh and kept.
type Cluster struct {
	Name string
	// ExpectedBrokers is how many brokers should be up (0: as kbox status
	// counts them).
	ExpectedBrokers int
	// Connect returns a connected admin client.
	Connect func(ctx context.Context) (*kgo.Client, error)
	// Reader, when set, connects a consumer without a group that reads
	// the record at each lagging committed offset (lag in seconds).
	Reader func(ctx context.Context) (cl *kgo.Client, close func(), err error)
	// ProbeClients, when set, makes the end-to-end probe's producer and
	// consumer (without a group) with the kgo options given, applied last.
	ProbeClients func(ctx context.Context, producer, consumer []kgo.Opt) (prod, cons *kgo.Client, close func(), err error)
	// Err, when set, is why the cluster cannot be used (its profile did
	// not resolve): it is served as unreachable, never connected.
	Err error
}

// Filter keeps names by an allow and a deny regular expression (each
// matching the whole name; nil: all allowed, none denied).
type Filter struct {
	Allow, Deny *regexp.Regexp
}

// Keep reports whether name passes the filter.
func (f Filter) Keep(name string) bool {
	return (f.Allow == nil || f.Allow.MatchString(name)) && (f.Deny == nil || !f.Deny.MatchString(name))
}

// WholeName compiles a regular expression that must match a whole name
// ("" gives nil).
func WholeName(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	return regexp.Compile("^(?:" + expr + ")$")
}

// Options configure the exporter.
type Options struct {
	Clusters []Cluster
	// Interval is the time between two refreshes' starts (default 15s);
	// Timeout bounds one refresh (default 30s).
	Interval, Timeout time.Duration
	// Topics and Groups select the topics and consumer groups served
	// (cluster-wide partition counts cover every topic, as kbox status).
	Topics, Groups Filter
	// GroupPartitions serves the per-partition group series too.
	GroupPartitions bool
	// MaxTopics, MaxGroups and MaxGroupPartitions cap the label sets
	// served per cluster (in name order); what is left out is counted in
	// kbox_exporter_cardinality_dropped_total. 0: no cap.
	MaxTopics, MaxGroups, MaxGroupPartitions int
	// TimeLagTimeout bounds the record reads of the lag in seconds in one
	// refresh (default 5s).
	TimeLagTimeout time.Duration
	// Probe is the end-to-end probe (off when its Topic is empty).
	Probe ProbeOptions
	// Version is served in kbox_exporter_build_info.
	Version string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Exporter refreshes the clusters' snapshots and serves them.
type Exporter struct {
	o        Options
	clusters []*clusterState
	now      func() time.Time

	snapReg *prometheus.Registry // the snapshots, rendered after each refresh
	live    *prometheus.Registry // the exporter's own metrics, gathered at each scrape
	m       selfMetrics

	renderCh chan struct{}
	mu       sync.Mutex
	page     *page
	wg       sync.WaitGroup
}

// clusterState is one cluster's clients, sampler and last snapshot.
type clusterState struct {
	Cluster
	client      *kgo.Client
	reader      *kgo.Client
	closeReader func()
	readerErr   error
	sampler     *status.Sampler
	prev        *status.TopSample

	mu   sync.Mutex
	snap *snapshot // nil until the first refresh ends
}

// New builds an exporter; Run starts it. Cluster names must be unique.
func New(o Options) (*Exporter, error) {
	if o.Interval <= 0 {
		o.Interval = 15 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.TimeLagTimeout <= 0 {
		o.TimeLagTimeout = 5 * time.Second
	}
	e := &Exporter{o: o, now: o.Now, renderCh: make(chan struct{}, 1)}
	if e.now == nil {
		e.now = time.Now
	}
	seen := map[string]bool{}
	for _, c := range o.Clusters {
		if seen[c.Name] {
			return nil, fmt.Errorf("cluster %q given twice", c.Name)
		}
		seen[c.Name] = true
		e.clusters = append(e.clusters, &clusterState{Cluster: c})
	}
	e.snapReg = prometheus.NewRegistry()
	if err := e.snapReg.Register(&snapshotCollector{e: e}); err != nil {
		return nil, err
	}
	e.live = prometheus.NewRegistry()
	if err := e.m.register(e.live, o.Version); err != nil {
		return nil, err
	}
	e.page = &page{}
	if err := e.render(); err != nil {
		return nil, err
	}
	return e, nil
}

// Run refreshes every cluster every interval until ctx ends, then closes
// the clients. The end-to-end probes run beside (ProbeOptions).
func (e *Exporter) Run(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.renderLoop(ctx)
	}()
	for _, cs := range e.clusters {
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			e.loop(ctx, cs)
		}()
		if e.o.Probe.Topic != "" && cs.Err == nil && cs.ProbeClients != nil {
			e.wg.Add(1)
			go func() {
				defer e.wg.Done()
				e.runProbe(ctx, cs)
			}()
		}
	}
	<-ctx.Done()
	e.wg.Wait()
	for _, cs := range e.clusters {
		if cs.closeReader != nil {
			cs.closeReader()
		}
		if cs.client != nil {
			cs.client.Close()
		}
	}
}

// loop refreshes one cluster; refreshes start interval apart (at once
// after one that took longer).
func (e *Exporter) loop(ctx context.Context, cs *clusterState) {
	next := time.Now()
	for {
		next = next.Add(e.o.Interval)
		e.refresh(ctx, cs)
		select {
		case e.renderCh <- struct{}{}:
		default:
		}
		wait := time.Until(next)
		if wait < 0 {
			next, wait = time.Now(), 0
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func (e *Exporter) renderLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.renderCh:
			_ = e.render()
		}
	}
}

// Ready reports whether every cluster has finished a refresh.
func (e *Exporter) Ready() (bool, string) {
	n := 0
	for _, cs := range e.clusters {
		cs.mu.Lock()
		if cs.snap != nil {
			n++
		}
		cs.mu.Unlock()
	}
	return n == len(e.clusters), fmt.Sprintf("%d of %d cluster(s) refreshed", n, len(e.clusters))
}

// refresh takes one sample of a cluster and stores its snapshot.
func (e *Exporter) refresh(ctx context.Context, cs *clusterState) {
	start := e.now()
	wall := time.Now()
	snap := e.sample(ctx, cs)
	took := time.Since(wall)
	if ctx.Err() != nil {
		return
	}
	snap.at = start
	e.m.refreshes.WithLabelValues(cs.Name).Inc()
	if snap.err != "" {
		e.m.refreshErrors.WithLabelValues(cs.Name).Inc()
	}
	e.m.refreshDuration.WithLabelValues(cs.Name).Set(took.Seconds())
	e.m.lastRefresh.WithLabelValues(cs.Name).Set(float64(e.now().UnixNano()) / 1e9)
	for _, k := range dropKinds {
		if n := snap.dropped[k]; n > 0 {
			e.m.dropped.WithLabelValues(cs.Name, k).Add(float64(n))
		}
	}
	cs.mu.Lock()
	cs.snap = snap
	cs.mu.Unlock()
}

func (e *Exporter) sample(ctx context.Context, cs *clusterState) *snapshot {
	if cs.Err != nil {
		return &snapshot{err: oneLine(cs.Err.Error())}
	}
	rctx, cancel := context.WithTimeout(ctx, e.o.Timeout)
	defer cancel()
	if cs.client == nil {
		if cs.Connect == nil {
			return &snapshot{err: "no connection"}
		}
		cl, err := cs.Connect(rctx)
		if err != nil {
			return &snapshot{err: oneLine(err.Error())}
		}
		cs.client = cl
	}
	if cs.reader == nil && cs.Reader != nil && cs.readerErr == nil {
		// The lag in seconds: without a reader it is unknown (absent),
		// and the rest is served.
		cs.reader, cs.closeReader, cs.readerErr = cs.Reader(rctx)
	}
	if cs.sampler == nil {
		cs.sampler = &status.Sampler{Client: cs.client, Keep: e.o.Topics.Keep, Groups: true, KeepGroup: e.o.Groups.Keep,
			Reader: cs.reader, TimeLagTimeout: e.o.TimeLagTimeout, Health: true, ExpectedBrokers: cs.ExpectedBrokers, Now: e.o.Now}
	}
	smp, err := cs.sampler.Sample(rctx)
	if err != nil {
		msg := err.Error()
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			msg = fmt.Sprintf("no complete answer within %s", e.o.Timeout)
		}
		return &snapshot{err: oneLine(msg)}
	}
	var frame *status.TopFrame
	if cs.prev != nil {
		frame = status.Frame(cs.prev, smp, status.SortName)
	}
	snap := e.build(smp, frame)
	// The next frame needs only the end offsets and sizes of this sample:
	// the groups' lag (the window sampler keeps its own state), the log
	// dirs and the health go.
	smp.Lag, smp.Watch, smp.Dirs, smp.Health = nil, nil, nil, nil
	cs.prev = smp
	return snap
}

// oneLine is an error as served: on one line, without the credentials a
// URL in it may carry.
func oneLine(s string) string { return redact.URLs(strings.Join(strings.Fields(s), " ")) }

// Kinds of label sets the caps drop.
const (
	dropTopic          = "topic"
	dropGroup          = "group"
	dropGroupPartition = "group_partition"
)

var dropKinds = []string{dropTopic, dropGroup, dropGroupPartition}

// snapshot is what one refresh measured of a cluster, ready to serve.
type snapshot struct {
	at  time.Time
	err string // the cluster could not be sampled: only reachable=0 is served

	health  *status.SampleHealth
	topics  []topicSnap
	brokers []brokerSnap
	dirs    []logdirs.DirUsage
	groups  []groupSnap
	parts   []partSnap
	dropped map[string]int
}

type topicSnap struct {
	status.TopicHealth
	endOffset, leaderBytes, bytes *int64
	recordsPerSec, bytesPerSec    *float64
}

type brokerSnap struct {
	status.Broker
	leaders int
}

type groupSnap struct {
	group, topic  string
	lag           int64
	timeLagMs     *int64
	consumePerSec *float64
	verdict       groups.Verdict
}

type partSnap struct {
	group, topic string
	partition    int32
	committed    int64
	lag          int64
	timeLagMs    *int64
	verdict      groups.Verdict
}

// build turns a sample (and the frame of rates since the previous one)
// into a snapshot, applying the caps.
func (e *Exporter) build(smp *status.TopSample, frame *status.TopFrame) *snapshot {
	s := &snapshot{health: smp.Health, dropped: map[string]int{}}
	h := smp.Health
	// Topics: the watched ones, by name, at most MaxTopics.
	health := map[string]status.TopicHealth{}
	for _, th := range h.Topics {
		health[th.Topic] = th
	}
	rates := map[string]status.TopicRate{}
	if frame != nil {
		for _, tr := range frame.Topics {
			rates[tr.Topic] = tr
		}
	}
	sums := smp.TopicSums()
	names := make([]string, 0, len(sums))
	for t := range sums {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		if e.o.MaxTopics > 0 && len(s.topics) == e.o.MaxTopics {
			s.dropped[dropTopic]++
			continue
		}
		sum := sums[t]
		ts := topicSnap{TopicHealth: health[t]}
		ts.Topic = t
		if ts.Partitions == 0 {
			ts.Partitions = sum.Partitions
		}
		if sum.EndOffsetKnown {
			ts.endOffset = ptr(sum.EndOffset)
		}
		if sum.LeaderBytesKnown {
			ts.leaderBytes = ptr(sum.LeaderBytes)
			ts.bytes = ptr(smp.TopicBytes[t])
		}
		if r, ok := rates[t]; ok {
			ts.recordsPerSec = ptr(r.RecordsPerSec)
			ts.bytesPerSec = r.BytesPerSec
		}
		s.topics = append(s.topics, ts)
	}
	leaders := smp.LeadersPerBroker()
	for _, b := range h.Brokers {
		s.brokers = append(s.brokers, brokerSnap{Broker: b, leaders: leaders[b.ID]})
	}
	if r := logdirs.BuildReport(logdirs.Input{Query: smp.Dirs}, logdirs.ReportOptions{View: logdirs.AggDir}); r.Dirs != nil {
		s.dirs = *r.Dirs
	}
	e.buildGroups(s, smp)
	return s
}

func (e *Exporter) buildGroups(s *snapshot, smp *status.TopSample) {
	if smp.Lag == nil || smp.Watch == nil {
		return
	}
	watch := map[string]*groups.GroupRate{}
	for i := range smp.Watch.Groups {
		watch[smp.Watch.Groups[i].Group] = &smp.Watch.Groups[i]
	}
	kept := 0
	for _, g := range smp.Lag.Groups { // by name
		if g.Error != "" || len(g.Partitions) == 0 {
			continue
		}
		if e.o.MaxGroups > 0 && kept == e.o.MaxGroups {
			s.dropped[dropGroup]++
			continue
		}
		kept++
		if gr := watch[g.Group]; gr != nil {
			for _, t := range gr.Topics {
				s.groups = append(s.groups, groupSnap{group: g.Group, topic: t.Topic, lag: t.Lag, timeLagMs: t.TimeLagMs,
					consumePerSec: t.ConsumeRecordsPerSec, verdict: t.Verdict})
			}
		}
		if !e.o.GroupPartitions {
			continue
		}
		for _, p := range g.Partitions {
			if p.Error != "" {
				continue
			}
			if e.o.MaxGroupPartitions > 0 && len(s.parts) == e.o.MaxGroupPartitions {
				s.dropped[dropGroupPartition]++
				continue
			}
			s.parts = append(s.parts, partSnap{group: g.Group, topic: p.Topic, partition: p.Partition, committed: p.CommittedOffset,
				lag: p.Lag, timeLagMs: p.TimeLagMs, verdict: p.Verdict})
		}
	}
}

func ptr[T any](v T) *T { return &v }
