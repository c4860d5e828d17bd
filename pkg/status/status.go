// Package status is the health of one or more Kafka clusters at a glance
// (`kbox status`): reachability, brokers up against brokers expected, the
// controller, partition health, disk use per broker and produce/consume
// rates measured from two samples of offsets (no JMX).
package status

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/cluster"
	"github.com/kboxdev/kbox/pkg/features"
	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/kboxdev/kbox/pkg/logdirs"
	"github.com/kboxdev/kbox/pkg/quorum"
	"github.com/kboxdev/kbox/pkg/redact"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// DiskFullPercent is the used share of a broker's log-dir volume from which
// a cluster is reported unhealthy.
const DiskFullPercent = 90.0

// Options tune one cluster's check.
type Options struct {
	// ExpectedBrokers is how many brokers should be up (0: the brokers
	// the cluster has registered, fenced ones included, and any broker
	// that holds a replica).
	ExpectedBrokers int
	// Sample is the time between the two offset samples the rates come
	// from (0: no rates).
	Sample time.Duration
	// Now is the clock (nil: time.Now); tests pin it.
	Now func() time.Time
	// ProbeTimeout bounds each broker's reachability probe (0:
	// DefaultProbeTimeout; at most half the time left of the check).
	ProbeTimeout time.Duration
	// Reader, when set, connects a consumer client without a group, which
	// reads the record at the most lagging groups' committed offsets to
	// measure their lag in time (pkg/groups Lag); nil: time lag unknown.
	Reader func(ctx context.Context) (cl *kgo.Client, close func(), err error)
}

// Broker is one broker of the cluster.
type Broker struct {
	ID int32 `json:"id"`
	// Up: listed by the cluster, not fenced, and answering kbox (a
	// connection of kbox's own to its address got an ApiVersions answer
	// during the check).
	Up bool `json:"up"`
	// Fenced: registered with the controller but fenced (stopped, or not
	// caught up with the metadata log).
	Fenced bool `json:"fenced"`
	// Address is where the cluster lists the broker (host:port); null
	// when it is not listed (a broker only named as a replica).
	Address *string `json:"address"`
	// Reachable: kbox's probe got an answer from Address; null when
	// there is no address to probe.
	Reachable *bool `json:"reachable"`
	// DownReason is why the broker is not up: "unreachable (connection
	// refused)", "fenced by the controller" or "not registered with the
	// controller"; null when up.
	DownReason *string `json:"down_reason"`
	// DiskUsedPercent is the used share of the broker's fullest log-dir
	// volume (pkg/logdirs' broker view); null when unknown (broker down,
	// or too old to report volume sizes).
	DiskUsedPercent *float64 `json:"disk_used_percent"`
	// LogBytes is what the broker's log dirs hold; null when unknown.
	LogBytes *int64 `json:"log_bytes"`
}

// Cluster is the status of one cluster.
type Cluster struct {
	// Name is the profile name (or the bootstrap list when no profile).
	Name      string `json:"name"`
	Healthy   bool   `json:"healthy"`
	Reachable bool   `json:"reachable"`
	// Problems are the reasons the cluster is unhealthy, one line each.
	Problems []string `json:"problems"`
	// Error is why the cluster could not be reached, null otherwise.
	Error      *string `json:"error"`
	ClusterID  string  `json:"cluster_id"`
	Controller *int32  `json:"controller"`
	// MetadataVersion is the finalized metadata.version against what the
	// brokers up support (highest common level, disagreement, upgrade
	// available): informational, never a problem. Null when no broker
	// gave a metadata.version (not KRaft, or too old).
	MetadataVersion *features.VersionStatus `json:"metadata_version"`
	BrokersUp       int                     `json:"brokers_up"`
	BrokersExpected int                     `json:"brokers_expected"`
	Brokers         []Broker                `json:"brokers"`
	Topics          int                     `json:"topics"`
	Partitions      int                     `json:"partitions"`
	// UnderReplicatedPartitions have fewer in-sync replicas than replicas.
	UnderReplicatedPartitions int `json:"under_replicated_partitions"`
	// UnderMinISRPartitions have fewer in-sync replicas than the topic's
	// min.insync.replicas (acks=all producers fail on them).
	UnderMinISRPartitions int `json:"under_min_isr_partitions"`
	// OfflinePartitions have no leader.
	OfflinePartitions int `json:"offline_partitions"`
	// NonPreferredLeaderPartitions are led by a broker other than their
	// first replica (a preferred election would move them).
	NonPreferredLeaderPartitions int `json:"non_preferred_leader_partitions"`
	// ProduceRecordsPerSec is the growth of all end offsets between two
	// samples; ConsumeRecordsPerSec the growth of all groups' committed
	// offsets. Null when not sampled or not measurable.
	ProduceRecordsPerSec *float64 `json:"produce_records_per_sec"`
	ConsumeRecordsPerSec *float64 `json:"consume_records_per_sec"`
	// LaggingGroups are the consumer groups furthest behind, in records
	// (at most MaxLaggingGroups, most lag first; groups caught up are not
	// listed). Null when the groups could not be read.
	LaggingGroups []GroupLag `json:"lagging_groups"`
	// WorstGroup is the group with the worst verdict (Burrow's rules, as
	// one sample can judge them: see groups.LagPartition.Verdict), most
	// lag first among equals; null when no group's verdict is worse than
	// OK or unknown, or the groups could not be read.
	WorstGroup *GroupLag `json:"worst_group"`
	SampleMs   int64     `json:"sample_ms"`
	CheckedMs  int64     `json:"check_duration_ms"`
}

// MaxLaggingGroups is how many lagging groups a status lists.
const MaxLaggingGroups = 5

// GroupLag is one consumer group's lag in records and in time.
type GroupLag struct {
	Group string `json:"group"`
	State string `json:"state"`
	// Lag is the records between the committed offsets and the log ends,
	// summed over the group's partitions.
	Lag               int64 `json:"lag"`
	LaggingPartitions int   `json:"lagging_partitions"`
	// TimeLagMs is how long ago the group's oldest unconsumed record was
	// written (the largest over its partitions); null when unknown.
	TimeLagMs *int64 `json:"time_lag_ms"`
	// Verdict is the group's verdict from one sample: OK when caught up,
	// STOP when lagging without members, else null (unknown).
	Verdict groups.Verdict `json:"verdict"`
}

// Unreachable is the status of a cluster that could not be reached.
func Unreachable(name string, err error) *Cluster {
	msg := oneLine(err.Error())
	return &Cluster{Name: name, Problems: []string{"unreachable: " + msg}, Error: &msg, Brokers: []Broker{}, LaggingGroups: []GroupLag{}}
}

// Check measures one cluster through a connected client. Errors past the
// first request are reported as problems of the cluster, not returned:
// the result is always a status.
func Check(ctx context.Context, name string, cl *kgo.Client, o Options) *Cluster {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	c := &Cluster{Name: name, Brokers: []Broker{}, Problems: []string{}, LaggingGroups: []GroupLag{}}
	defer func() {
		c.CheckedMs = now().Sub(start).Milliseconds()
		c.Healthy = len(c.Problems) == 0
	}()
	adm := kadm.NewClient(cl)
	md, err := adm.Metadata(ctx)
	if err != nil {
		*c = *Unreachable(name, err)
		return c
	}
	c.Reachable = true
	c.ClusterID = md.Cluster
	ctrl := md.Controller
	if leader, ok := cluster.QuorumLeader(ctx, cl); ok {
		ctrl = leader
	}
	if ctrl >= 0 {
		c.Controller = &ctrl
	}

	// Brokers: metadata lists the live (unfenced) ones; DescribeCluster
	// with fenced brokers also lists the registered ones that are down.
	// Each listed broker is probed on a connection of kbox's own: a
	// killed broker stays listed (unfenced) until the controller's
	// session timeout, and its address refuses connections at once.
	listed := listBrokers(ctx, cl, md)
	probed := make(chan map[int32]string, 1)
	go func() { probed <- probeBrokers(ctx, cl, listed, o.ProbeTimeout) }()
	topicNames := make([]string, 0, len(md.Topics))
	for _, t := range md.Topics {
		if t.Err != nil {
			c.Problems = append(c.Problems, fmt.Sprintf("topic %s: %s", t.Topic, oneLine(t.Err.Error())))
			continue
		}
		topicNames = append(topicNames, t.Topic)
	}
	sort.Strings(topicNames)
	_, total := PartitionHealth(md, topicNames, topicMinISR(ctx, adm, topicNames))
	c.Topics = len(topicNames)
	c.Partitions = total.Partitions
	c.OfflinePartitions = total.Offline
	c.NonPreferredLeaderPartitions = total.NonPreferredLeader
	c.UnderReplicatedPartitions = total.UnderReplicated
	c.UnderMinISRPartitions = total.UnderMinISR

	brokers, up := brokerStates(listed, md, <-probed)
	c.BrokersUp = len(up)
	c.MetadataVersion = features.MetadataVersionStatus(features.BrokerFeatures(ctx, cl, up, "status"))
	c.BrokersExpected = len(brokers)
	if o.ExpectedBrokers > 0 {
		c.BrokersExpected = o.ExpectedBrokers
	}
	disk(ctx, cl, up, brokers)
	c.Brokers = sortedBrokers(brokers)

	c.LaggingGroups, c.WorstGroup = laggingGroups(ctx, cl, o.Reader, now)
	if o.Sample > 0 {
		c.SampleMs = o.Sample.Milliseconds()
		c.ProduceRecordsPerSec, c.ConsumeRecordsPerSec = rates(ctx, adm, topicNames, o.Sample, now)
	}
	c.Problems = append(c.Problems, problems(c)...)
	// KRaft quorum health (a cluster that describes no quorum has none).
	if q, err := quorum.Describe(ctx, cl); err == nil {
		c.Problems = append(c.Problems, quorum.Problems(q, now())...)
	}
	return c
}

// problems are the reasons a reachable cluster is unhealthy.
func problems(c *Cluster) []string {
	var out []string
	if c.Controller == nil {
		out = append(out, "no active controller")
	}
	if c.BrokersUp < c.BrokersExpected {
		var down []string
		for _, b := range c.Brokers {
			if !b.Up {
				down = append(down, strconv.Itoa(int(b.ID)))
			}
		}
		msg := fmt.Sprintf("%d of %d brokers up", c.BrokersUp, c.BrokersExpected)
		if len(down) > 0 {
			msg += fmt.Sprintf(" (down: %s)", joinStrings(down))
		}
		out = append(out, msg)
	}
	for _, b := range c.Brokers {
		if b.DownReason != nil {
			out = append(out, brokerProblem(b.ID, *b.DownReason))
		}
	}
	if c.OfflinePartitions > 0 {
		out = append(out, fmt.Sprintf("%d offline partition(s)", c.OfflinePartitions))
	}
	if c.UnderMinISRPartitions > 0 {
		out = append(out, fmt.Sprintf("%d partition(s) under min.insync.replicas", c.UnderMinISRPartitions))
	}
	if c.UnderReplicatedPartitions > 0 {
		out = append(out, fmt.Sprintf("%d under-replicated partition(s)", c.UnderReplicatedPartitions))
	}
	for _, b := range c.Brokers {
		if b.DiskUsedPercent != nil && *b.DiskUsedPercent >= DiskFullPercent {
			out = append(out, fmt.Sprintf("broker %d disk %.1f%% used", b.ID, *b.DiskUsedPercent))
		}
	}
	return out
}

func joinStrings(v []string) string {
	s := ""
	for i, x := range v {
		if i > 0 {
			s += ","
		}
		s += x
	}
	return s
}

// laggingGroups lists the consumer groups with the most lag in records,
// as pkg/groups Lag measures it, and the group with the worst verdict;
// nil when the groups could not be read. With a reader, a second Lag over
// just the listed groups reads their lag in time (only a handful of
// groups: a status stays quick).
func laggingGroups(ctx context.Context, cl *kgo.Client, reader func(context.Context) (*kgo.Client, func(), error), now func() time.Time) ([]GroupLag, *GroupLag) {
	rep, err := groups.Lag(ctx, cl, groups.LagRequest{Now: now})
	if err != nil {
		return nil, nil
	}
	out := []GroupLag{}
	var worst *GroupLag
	for _, g := range rep.Groups {
		gl := GroupLag{Group: g.Group, State: g.State, Verdict: g.Verdict}
		for _, p := range g.Partitions {
			if p.Error == "" && p.Lag > 0 {
				gl.Lag += p.Lag
				gl.LaggingPartitions++
			}
		}
		if r := gl.Verdict.Rank(); r > groups.VerdictUnknown.Rank() &&
			(worst == nil || r > worst.Verdict.Rank() || (r == worst.Verdict.Rank() && gl.Lag > worst.Lag)) {
			w := gl
			worst = &w
		}
		if gl.Lag > 0 {
			out = append(out, gl)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Lag != out[j].Lag {
			return out[i].Lag > out[j].Lag
		}
		return out[i].Group < out[j].Group
	})
	if len(out) > MaxLaggingGroups {
		out = out[:MaxLaggingGroups]
	}
	if len(out) == 0 || reader == nil {
		return out, worst
	}
	// Half the check's remaining time at most, for the record reads.
	timeout := 5 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl)/2)
	}
	if timeout <= 0 {
		return out, worst
	}
	rcl, closeFn, err := reader(ctx)
	if err != nil {
		return out, worst
	}
	defer closeFn()
	names := make([]string, len(out))
	for i, g := range out {
		names[i] = g.Group
	}
	timed, err := groups.Lag(ctx, cl, groups.LagRequest{Groups: names, Reader: rcl, TimeLagTimeout: timeout, Now: now})
	if err != nil {
		return out, worst
	}
	byName := map[string]*int64{}
	for _, g := range timed.Groups {
		byName[g.Group] = g.TimeLagMs
	}
	for i := range out {
		out[i].TimeLagMs = byName[out[i].Group]
	}
	if worst != nil {
		worst.TimeLagMs = byName[worst.Group]
	}
	return out, worst
}

// topicMinISR returns each topic's min.insync.replicas (topics whose
// configs could not be read are left out, and so not counted as under).
func topicMinISR(ctx context.Context, adm *kadm.Client, topics []string) map[string]int {
	out := map[string]int{}
	if len(topics) == 0 {
		return out
	}
	rcs, err := adm.DescribeTopicConfigs(ctx, topics...)
	if err != nil && len(rcs) == 0 {
		return out
	}
	for _, rc := range rcs {
		if rc.Err != nil {
			continue
		}
		for _, cfg := range rc.Configs {
			if cfg.Key != "min.insync.replicas" || cfg.Value == nil {
				continue
			}
			if n, err := strconv.Atoi(*cfg.Value); err == nil {
				out[rc.Name] = n
			}
		}
	}
	return out
}

// TopicHealth is the partition health of one topic (or, summed, of a
// cluster).
type TopicHealth struct {
	Topic      string
	Partitions int
	// UnderReplicated: fewer in-sync replicas than replicas; UnderMinISR:
	// fewer than the topic's min.insync.replicas; Offline: no leader;
	// NonPreferredLeader: led by another broker than the first replica.
	UnderReplicated, UnderMinISR, Offline, NonPreferredLeader int
}

// PartitionHealth counts the partitions of the named topics that are
// under-replicated, under min.insync.replicas (minISR: each topic's, a
// topic missing from it is not counted), offline or not on their
// preferred leader: per topic, in the order named, and in total.
func PartitionHealth(md kadm.Metadata, topics []string, minISR map[string]int) ([]TopicHealth, TopicHealth) {
	out := make([]TopicHealth, 0, len(topics))
	var total TopicHealth
	for _, name := range topics {
		th := TopicHealth{Topic: name}
		m, hasMin := minISR[name]
		for _, p := range md.Topics[name].Partitions {
			th.Partitions++
			if p.Leader < 0 {
				th.Offline++
			} else if len(p.Replicas) > 0 && p.Leader != p.Replicas[0] {
				th.NonPreferredLeader++
			}
			if len(p.ISR) < len(p.Replicas) {
				th.UnderReplicated++
			}
			if hasMin && len(p.ISR) < m {
				th.UnderMinISR++
			}
		}
		total.Partitions += th.Partitions
		total.UnderReplicated += th.UnderReplicated
		total.UnderMinISR += th.UnderMinISR
		total.Offline += th.Offline
		total.NonPreferredLeader += th.NonPreferredLeader
		out = append(out, th)
	}
	return out, total
}

// brokerStates is every broker the cluster lists or that holds a replica
// (of a topic without error), up or down by the probe's answers
// (unreachable: the listed brokers that did not answer), and the ids of
// those up, sorted.
func brokerStates(listed map[int32]*listedBroker, md kadm.Metadata, unreachable map[int32]string) (map[int32]*Broker, []int32) {
	brokers := map[int32]*Broker{}
	for id, lb := range listed {
		addr := lb.addr
		brokers[id] = &Broker{ID: id, Fenced: lb.fenced, Address: &addr}
	}
	for _, t := range md.Topics {
		if t.Err != nil {
			continue
		}
		for _, p := range t.Partitions {
			for _, r := range p.Replicas {
				if _, ok := brokers[r]; !ok {
					brokers[r] = &Broker{ID: r}
				}
			}
		}
	}
	var up []int32
	for _, b := range brokers {
		if b.Address != nil {
			ok := unreachable[b.ID] == ""
			b.Reachable = &ok
		}
		if r := downReason(b.Address != nil, b.Fenced, unreachable[b.ID]); r != "" {
			b.DownReason = &r
			continue
		}
		b.Up = true
		up = append(up, b.ID)
	}
	sort.Slice(up, func(i, j int) bool { return up[i] < up[j] })
	return brokers, up
}

func sortedBrokers(brokers map[int32]*Broker) []Broker {
	ids := make([]int32, 0, len(brokers))
	for id := range brokers {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out := make([]Broker, 0, len(ids))
	for _, id := range ids {
		out = append(out, *brokers[id])
	}
	return out
}

// disk fills each up broker's used percent from its log dirs.
func disk(ctx context.Context, cl *kgo.Client, up []int32, brokers map[int32]*Broker) {
	if len(up) == 0 {
		return
	}
	noRetry := map[int32]bool{}
	for _, id := range up {
		noRetry[id] = true
	}
	in, err := logdirs.Read(ctx, cl, logdirs.ReadOptions{Brokers: up, Query: logdirs.QueryOptions{Timeout: 10 * time.Second, NoRetry: noRetry}})
	if err != nil {
		return
	}
	diskFrom(in.Query, brokers)
}

// diskFrom fills the brokers' log bytes and used percent from a log-dir
// query.
func diskFrom(q *logdirs.Query, brokers map[int32]*Broker) {
	r := logdirs.BuildReport(logdirs.Input{Query: q}, logdirs.ReportOptions{View: logdirs.AggBroker})
	if r.Brokers == nil {
		return
	}
	for _, u := range *r.Brokers {
		b, ok := brokers[u.Broker]
		if !ok || u.Error != nil {
			continue
		}
		size := u.SizeBytes
		b.LogBytes = &size
		if u.UsedPercent != nil {
			p := math.Round(*u.UsedPercent*10) / 10
			b.DiskUsedPercent = &p
		}
	}
}

// offsetSample is one sample of end offsets and committed offsets, each
// with the instant it was read (the midpoint of its requests).
type offsetSample struct {
	endsAt, groupsAt time.Time
	ends             map[string]map[int32]int64
	committed        map[string]map[string]map[int32]int64 // group → topic → partition
	endsOK, groupsOK bool
}

func midpoint(a, b time.Time) time.Time { return a.Add(b.Sub(a) / 2) }

func sampleOffsets(ctx context.Context, adm *kadm.Client, topics []string, now func() time.Time) offsetSample {
	s := offsetSample{ends: map[string]map[int32]int64{}, committed: map[string]map[string]map[int32]int64{}}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		t0 := now()
		if len(topics) == 0 {
			s.endsOK, s.endsAt = true, t0
			return
		}
		lo, err := adm.ListEndOffsets(ctx, topics...)
		s.endsAt = midpoint(t0, now())
		if err != nil {
			return
		}
		s.endsOK = true
		lo.Each(func(o kadm.ListedOffset) {
			if o.Err != nil {
				return
			}
			if s.ends[o.Topic] == nil {
				s.ends[o.Topic] = map[int32]int64{}
			}
			s.ends[o.Topic][o.Partition] = o.Offset
		})
	}()
	go func() {
		defer wg.Done()
		groups, err := adm.ListGroups(ctx)
		if err != nil {
			return
		}
		t0 := now()
		resps := adm.FetchManyOffsets(ctx, groups.Groups()...)
		s.groupsAt = midpoint(t0, now())
		s.groupsOK = true
		for g, r := range resps {
			if r.Err != nil {
				continue
			}
			m := map[string]map[int32]int64{}
			r.Fetched.Each(func(o kadm.OffsetResponse) {
				if o.Err != nil || o.At < 0 {
					return
				}
				if m[o.Topic] == nil {
					m[o.Topic] = map[int32]int64{}
				}
				m[o.Topic][o.Partition] = o.At
			})
			s.committed[g] = m
		}
	}()
	wg.Wait()
	return s
}

// rates takes two samples `sample` apart and returns the produce and
// consume rates in records per second (nil when not measurable).
func rates(ctx context.Context, adm *kadm.Client, topics []string, sample time.Duration, now func() time.Time) (*float64, *float64) {
	a := sampleOffsets(ctx, adm, topics, now)
	t := time.NewTimer(sample)
	select {
	case <-ctx.Done():
		t.Stop()
		return nil, nil
	case <-t.C:
	}
	b := sampleOffsets(ctx, adm, topics, now)
	var produce, consume *float64
	if a.endsOK && b.endsOK {
		produce = ProduceRate(a.ends, b.ends, b.endsAt.Sub(a.endsAt))
	}
	if a.groupsOK && b.groupsOK {
		consume = ConsumeRate(a.committed, b.committed, b.groupsAt.Sub(a.groupsAt))
	}
	return produce, consume
}

// ProduceRate is the growth of end offsets (topic → partition → offset)
// between two samples dt apart, in records/s. Only partitions in both
// samples count; a decrease (a topic recreated) counts as zero. Nil when
// dt is not positive.
func ProduceRate(a, b map[string]map[int32]int64, dt time.Duration) *float64 {
	if dt <= 0 {
		return nil
	}
	var n int64
	for t, ps := range b {
		for p, off := range ps {
			if prev, ok := a[t][p]; ok && off > prev {
				n += off - prev
			}
		}
	}
	r := round1(float64(n) / dt.Seconds())
	return &r
}

// ConsumeRate is the growth of committed offsets (group → topic →
// partition → offset) between two samples dt apart, in records/s, counted
// as ProduceRate counts.
func ConsumeRate(a, b map[string]map[string]map[int32]int64, dt time.Duration) *float64 {
	if dt <= 0 {
		return nil
	}
	var n int64
	for g, ts := range b {
		for t, ps := range ts {
			for p, off := range ps {
				if prev, ok := a[g][t][p]; ok && off > prev {
					n += off - prev
				}
			}
		}
	}
	r := round1(float64(n) / dt.Seconds())
	return &r
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// oneLine is an error's text as a status shows it: on one line, and
// without the credentials a URL in it may carry (redact.URLs).
func oneLine(s string) string {
	out := make([]rune, 0, len(s))
	space := false
	for _, r := range s {
		if r == '\n' || r == '\r' || r == '\t' || r == ' ' {
			space = true
			continue
		}
		if space && len(out) > 0 {
			out = append(out, ' ')
		}
		space = false
		out = append(out, r)
	}
	return redact.URLs(string(out))
}

// Target is one cluster to check: its name and how to get a connected
// client (close is called when the check ends).
type Target struct {
	Name    string
	Connect func(ctx context.Context) (cl *kgo.Client, close func(), err error)
	Options Options
	// Err, when set, is why the cluster cannot be checked at all (its
	// profile did not resolve); the status reports it and Connect is not
	// called.
	Err error
}

const notChecked = "not checked: "

// NotChecked is the status of a cluster whose connection could not be
// set up (its profile did not resolve), with the reason.
func NotChecked(name string, err error) *Cluster {
	msg := oneLine(err.Error())
	return &Cluster{Name: name, Problems: []string{notChecked + msg}, Error: &msg, Brokers: []Broker{}, LaggingGroups: []GroupLag{}}
}

// CheckAll checks every target concurrently, each within timeout (connect
// included), and returns the statuses in the targets' order. A cluster that
// does not finish in time is reported unreachable with the reason.
func CheckAll(ctx context.Context, targets []Target, timeout time.Duration) []*Cluster {
	out := make([]*Cluster, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = checkOne(ctx, t, timeout)
		}()
	}
	wg.Wait()
	return out
}

func checkOne(ctx context.Context, t Target, timeout time.Duration) *Cluster {
	if t.Err != nil {
		return NotChecked(t.Name, t.Err)
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan *Cluster, 1)
	go func() {
		cl, closeFn, err := t.Connect(cctx)
		if err != nil {
			done <- Unreachable(t.Name, err)
			return
		}
		defer closeFn()
		done <- Check(cctx, t.Name, cl, t.Options)
	}()
	select {
	case c := <-done:
		if cctx.Err() != nil && ctx.Err() == nil && c.Reachable {
			// A check cut short by the timeout may have missed parts.
			c.Problems = append(c.Problems, fmt.Sprintf("check not finished within %s", timeout))
			c.Healthy = false
		}
		return c
	case <-cctx.Done():
		if ctx.Err() != nil {
			return Unreachable(t.Name, ctx.Err())
		}
		return Unreachable(t.Name, fmt.Errorf("no complete answer within %s", timeout))
	}
}
