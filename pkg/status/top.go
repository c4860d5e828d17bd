package status

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/kboxdev/kbox/pkg/logdirs"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/quorum"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Sort orders of a top frame.
const (
	SortRecords = "records"
	SortBytes   = "bytes"
	SortLag     = "lag"
	SortName    = "name"
)

// SortOrders lists the values --sort accepts.
var SortOrders = []string{SortRecords, SortBytes, SortLag, SortName}

// TopicRate is one topic's rate in an interval.
type TopicRate struct {
	Topic         string  `json:"topic"`
	Partitions    int     `json:"partitions"`
	RecordsPerSec float64 `json:"records_per_sec"`
	// BytesPerSec is the growth of the leader replicas' log size; null
	// when unknown (log dirs not answered, or a log shrank: retention).
	BytesPerSec *float64 `json:"bytes_per_sec"`
}

// PartitionRate is one partition's rate in an interval.
type PartitionRate struct {
	Topic         string   `json:"topic"`
	Partition     int32    `json:"partition"`
	Leader        int32    `json:"leader"`
	RecordsPerSec float64  `json:"records_per_sec"`
	BytesPerSec   *float64 `json:"bytes_per_sec"`
}

// BrokerRate is one broker's rate in an interval: the records appended to
// the partitions it leads, and the growth of everything its log dirs hold
// (replication included).
type BrokerRate struct {
	Broker        int32    `json:"broker"`
	Leaders       int      `json:"leader_partitions"`
	RecordsPerSec float64  `json:"records_per_sec"`
	BytesPerSec   *float64 `json:"bytes_per_sec"`
}

// GroupLagRate is a consumer group's consumption and lag in an interval,
// overall or on one topic.
type GroupLagRate struct {
	// RecordsPerSec is the commit rate: how fast the group's committed
	// offsets advanced over the windows of commits of `kbox groups lag
	// --watch` (the consumption an observer without JMX sees). Null until
	// a partition has a window.
	RecordsPerSec *float64 `json:"records_per_sec"`
	// Lag is the lag in records at the end of the interval; LagPerSec its
	// change per second over the windows (positive: growing), null when
	// unknown; Trend growing, shrinking, steady or unknown.
	Lag       int64    `json:"lag"`
	LagPerSec *float64 `json:"lag_per_sec"`
	Trend     string   `json:"trend"`
	// Status is the catch-up status of `kbox groups lag --watch`.
	Status string `json:"status"`
	// Verdict is Burrow's verdict of `kbox groups lag --watch` (null:
	// unknown).
	Verdict groups.Verdict `json:"verdict"`
	// TimeLagMs is how long ago the next unconsumed record was written
	// (the largest over the partitions): 0 when caught up, null when not
	// measured (--time-lag) or unknown.
	TimeLagMs *int64 `json:"time_lag_ms"`
}

// GroupTopicRate is one group's GroupLagRate on one topic.
type GroupTopicRate struct {
	Topic string `json:"topic"`
	GroupLagRate
}

// GroupRate is one consumer group's GroupLagRate, overall and per topic.
type GroupRate struct {
	Group string `json:"group"`
	State string `json:"state"`
	GroupLagRate
	Topics []GroupTopicRate `json:"topics"`
	Error  string           `json:"error,omitempty"`
}

// TopFrame is one interval of `kbox top`.
type TopFrame struct {
	Time       time.Time `json:"time"`
	IntervalMs int64     `json:"interval_ms"`
	// RecordsPerSec and BytesPerSec are the totals over the topics shown.
	RecordsPerSec float64         `json:"records_per_sec"`
	BytesPerSec   *float64        `json:"bytes_per_sec"`
	Topics        []TopicRate     `json:"topics"`
	Partitions    []PartitionRate `json:"partitions"`
	Brokers       []BrokerRate    `json:"brokers"`
	// Groups are the consumer groups committed on the topics watched.
	Groups []GroupRate `json:"groups"`
	// GroupsError is why the groups could not be sampled (then Groups is
	// empty).
	GroupsError string `json:"groups_error,omitempty"`
	// Problems are the brokers the cluster lists that are down at the
	// end of the interval, one line each, as kbox status words them
	// ("broker 3 unreachable (connection refused)"); empty when none.
	Problems []string `json:"problems"`
}

type tp struct {
	topic string
	part  int32
}

// TopSample is one sample of end offsets, leaders and log sizes.
type TopSample struct {
	At      time.Time
	Ends    map[tp]int64
	Leaders map[tp]int32
	// Sizes are leader replica sizes; BrokerSizes what each broker holds.
	Sizes       map[tp]int64
	BrokerSizes map[int32]int64
	// Lag is the consumer groups' committed offsets and lag (nil when
	// groups are not watched); LagErr why it failed.
	Lag    *groups.LagReport
	LagErr error
	// Down are the listed brokers that are not up, with the reason
	// (unreachable, fenced).
	Down map[int32]string
	// Watch is Lag judged over the sampler's windows of commits (nil
	// when Lag is): groups and topics, without per-partition rates (the
	// partitions' verdicts are in Lag).
	Watch *groups.WatchSample
	// Dirs are the log dirs of the brokers that are up, as they answered.
	Dirs *logdirs.Query
	// TopicBytes is what every replica of each watched topic holds
	// (future replicas aside), on the brokers that answered.
	TopicBytes map[string]int64
	// Health is the cluster's health at the sample (nil unless
	// Sampler.Health).
	Health *SampleHealth
}

// SampleHealth is what kbox status checks, from one sample: the brokers
// up, the controller, the metadata quorum and partition health.
type SampleHealth struct {
	ClusterID string
	// Controller is the active controller (the quorum's leader in KRaft);
	// nil when none.
	Controller *int32
	// Quorum is the metadata quorum; nil when the cluster did not
	// describe it (QuorumErr says why).
	Quorum    *quorum.Quorum
	QuorumErr error
	// Brokers are every broker listed or holding a replica, by id, with
	// their disk use from the sample's log dirs.
	Brokers                    []Broker
	BrokersUp, BrokersExpected int
	// Topics is the partition health of every topic (not only the
	// watched ones), by name; Total sums them.
	Topics []TopicHealth
	Total  TopicHealth
}

// Sampler takes successive samples of a cluster.
type Sampler struct {
	Client *kgo.Client
	// Keep reports whether a topic is watched (nil: all).
	Keep func(topic string) bool
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Groups samples the consumer groups' committed offsets too, those
	// matching GroupRegex (nil: all), on the topics Keep accepts.
	Groups     bool
	GroupRegex *regexp.Regexp
	// Reader, when set, measures the groups' lag in time (see
	// groups.LagRequest), waiting at most TimeLagTimeout for records.
	Reader         *kgo.Client
	TimeLagTimeout time.Duration
	// ProbeTimeout bounds each broker's reachability probe (0:
	// DefaultProbeTimeout).
	ProbeTimeout time.Duration
	// KeepGroup, when set, keeps only the groups it accepts (on top of
	// GroupRegex).
	KeepGroup func(group string) bool
	// Health: each sample holds the cluster's health too (TopSample.Health),
	// brokers expected being ExpectedBrokers (0: as kbox status counts).
	Health          bool
	ExpectedBrokers int

	// window keeps the groups' windows of commits from sample to sample;
	// timestamps the record timestamps of the lag in time.
	window     groups.Sampler
	timestamps groups.TimestampCache
}

// Sample takes one sample. Its instant is the midpoint of the end-offset
// request, when the brokers read their offsets.
func (s *Sampler) Sample(ctx context.Context) (*TopSample, error) {
	now := s.Now
	if now == nil {
		now = time.Now
	}
	adm := kadm.NewClient(s.Client)
	md, err := adm.Metadata(ctx)
	if err != nil {
		return nil, err
	}
	smp := &TopSample{Ends: map[tp]int64{}, Leaders: map[tp]int32{}, Sizes: map[tp]int64{}, BrokerSizes: map[int32]int64{}, TopicBytes: map[string]int64{}}
	var topics, allTopics []string
	for _, t := range md.Topics {
		if t.Err != nil {
			continue
		}
		allTopics = append(allTopics, t.Topic)
		if s.Keep != nil && !s.Keep(t.Topic) {
			continue
		}
		topics = append(topics, t.Topic)
		for _, p := range t.Partitions {
			smp.Leaders[tp{t.Topic, p.Partition}] = p.Leader
		}
	}
	// Health: the topics' min.insync.replicas and the quorum, meanwhile.
	type healthParts struct {
		minISR map[string]int
		q      *quorum.Quorum
		qErr   error
	}
	healthDone := make(chan healthParts, 1)
	if s.Health {
		go func() {
			var hp healthParts
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				hp.q, hp.qErr = quorum.Describe(ctx, s.Client)
			}()
			sort.Strings(allTopics)
			hp.minISR = topicMinISR(ctx, adm, allTopics)
			wg.Wait()
			healthDone <- hp
		}()
	} else {
		healthDone <- healthParts{}
	}
	// Every listed broker is probed first; the log dirs are asked of
	// those that answered (a killed broker, still listed until it is
	// fenced, would hold the sample for the whole request timeout).
	dirs := make(chan *logdirs.Query, 1)
	var listed map[int32]*listedBroker
	var unreachable map[int32]string
	go func() {
		listed = listBrokers(ctx, s.Client, md)
		unreachable = probeBrokers(ctx, s.Client, listed, s.ProbeTimeout)
		smp.Down = map[int32]string{}
		for id, lb := range listed {
			if r := downReason(true, lb.fenced, unreachable[id]); r != "" {
				smp.Down[id] = r
			}
		}
		brokers := []int32{} // none up: none asked (nil would ask every broker)
		for _, b := range md.Brokers {
			if _, down := smp.Down[b.NodeID]; !down {
				brokers = append(brokers, b.NodeID)
			}
		}
		in, err := logdirs.Read(ctx, s.Client, logdirs.ReadOptions{Brokers: brokers, Query: logdirs.QueryOptions{Timeout: 10 * time.Second}})
		if err != nil {
			in = &logdirs.Input{Query: &logdirs.Query{}}
		}
		dirs <- in.Query
	}()
	lagDone := make(chan struct{})
	if s.Groups {
		go func() {
			defer close(lagDone)
			req := groups.LagRequest{GroupRegex: s.GroupRegex, KeepTopic: s.Keep, KeepGroup: s.KeepGroup,
				Reader: s.Reader, TimeLagTimeout: s.TimeLagTimeout, Now: s.Now}
			if s.Reader != nil {
				req.Timestamps = &s.timestamps
			}
			smp.Lag, smp.LagErr = groups.Lag(ctx, s.Client, req)
		}()
	} else {
		close(lagDone)
	}
	before := now()
	if len(topics) > 0 {
		// A broker that is down (killed, not yet fenced) fails its
		// shard: its partitions have no end offset in this sample,
		// the others do, and the frame names the broker.
		if err := listEnds(ctx, s.Client, md, topics, smp.Ends); err != nil {
			<-dirs
			<-lagDone
			<-healthDone
			return nil, err
		}
	}
	after := now()
	smp.At = before.Add(after.Sub(before) / 2)
	q := <-dirs
	<-lagDone
	hp := <-healthDone
	if smp.Lag != nil {
		// Groups and topics are what a sample's Watch serves (groupRates):
		// no per-partition rates.
		s.window.OmitPartitions = true
		smp.Watch = s.window.Add(smp.Lag)
	}
	smp.Dirs = q
	for _, bd := range q.Answered {
		var total int64
		for _, d := range bd.Dirs {
			for _, r := range d.Replicas {
				total += r.Size
				k := tp{r.Topic, r.Partition}
				l, watched := smp.Leaders[k]
				if !watched || r.IsFuture {
					continue
				}
				smp.TopicBytes[r.Topic] += r.Size
				if l == bd.Broker {
					smp.Sizes[k] = r.Size
				}
			}
		}
		smp.BrokerSizes[bd.Broker] = total
	}
	if s.Health {
		smp.Health = s.health(md, allTopics, listed, unreachable, q, hp.minISR, hp.q, hp.qErr)
	}
	return smp, nil
}

// listEnds lists the log-end offsets of the topics' partitions (as md
// has them) into ends, with one ListOffsets request sharded to the
// leaders: no Metadata request of its own (kadm's ListEndOffsets asks for
// the topics again). A failed shard or partition leaves its partitions
// out; an authorization failure is the error.
func listEnds(ctx context.Context, cl *kgo.Client, md kadm.Metadata, topics []string, ends map[tp]int64) error {
	req := kmsg.NewPtrListOffsetsRequest()
	req.TimeoutMillis = 15000
	for _, t := range topics {
		td := md.Topics[t]
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = t
		rt.Partitions = make([]kmsg.ListOffsetsRequestTopicPartition, 0, len(td.Partitions))
		for p := range td.Partitions {
			rp := kmsg.NewListOffsetsRequestTopicPartition()
			rp.Partition, rp.Timestamp = p, -1
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
	}
	for _, shard := range cl.RequestSharded(ctx, req) {
		if shard.Err != nil {
			continue
		}
		for _, t := range shard.Resp.(*kmsg.ListOffsetsResponse).Topics {
			for _, p := range t.Partitions {
				switch err := kerr.ErrorForCode(p.ErrorCode); err {
				case nil:
					ends[tp{t.Topic, p.Partition}] = p.Offset
				case kerr.TopicAuthorizationFailed, kerr.ClusterAuthorizationFailed:
					return &kadm.AuthError{Err: err}
				}
			}
		}
	}
	return ctx.Err()
}

// health is a sample's SampleHealth: brokers as kbox status counts them,
// the controller (the quorum's leader, else the one metadata names) and
// every topic's partition health.
func (s *Sampler) health(md kadm.Metadata, topics []string, listed map[int32]*listedBroker, unreachable map[int32]string,
	dirs *logdirs.Query, minISR map[string]int, q *quorum.Quorum, qErr error) *SampleHealth {
	h := &SampleHealth{ClusterID: md.Cluster, Quorum: q, QuorumErr: qErr}
	ctrl := md.Controller
	if q != nil && q.LeaderID >= 0 {
		ctrl = q.LeaderID
	}
	if ctrl >= 0 {
		h.Controller = &ctrl
	}
	brokers, up := brokerStates(listed, md, unreachable)
	diskFrom(dirs, brokers)
	h.Brokers = sortedBrokers(brokers)
	h.BrokersUp, h.BrokersExpected = len(up), len(brokers)
	if s.ExpectedBrokers > 0 {
		h.BrokersExpected = s.ExpectedBrokers
	}
	h.Topics, h.Total = PartitionHealth(md, topics, minISR)
	return h
}

// Frame computes the rates between two samples, sorted by order.
func Frame(a, b *TopSample, order string) *TopFrame {
	dt := b.At.Sub(a.At)
	f := &TopFrame{Time: b.At, IntervalMs: dt.Milliseconds(), Topics: []TopicRate{}, Partitions: []PartitionRate{}, Brokers: []BrokerRate{}, Groups: []GroupRate{},
		Problems: downProblems(b.Down)}
	if dt <= 0 {
		return f
	}
	f.Groups, f.GroupsError = groupRates(a, b)
	sec := dt.Seconds()
	topics := map[string]*TopicRate{}
	topicBytes := map[string]bool{}
	brokers := map[int32]*BrokerRate{}
	broker := func(id int32) *BrokerRate {
		br, ok := brokers[id]
		if !ok {
			br = &BrokerRate{Broker: id}
			brokers[id] = br
		}
		return br
	}
	var totalBytes float64
	bytesKnown := false
	for k, end := range b.Ends {
		prev, ok := a.Ends[k]
		if !ok {
			continue
		}
		recs := 0.0
		if end > prev {
			recs = float64(end-prev) / sec
		}
		leader := b.Leaders[k]
		pr := PartitionRate{Topic: k.topic, Partition: k.part, Leader: leader, RecordsPerSec: round1(recs)}
		if sb, ok := b.Sizes[k]; ok {
			if sa, ok := a.Sizes[k]; ok && sb >= sa {
				v := float64(sb-sa) / sec
				pr.BytesPerSec = &v
			}
		}
		t, ok := topics[k.topic]
		if !ok {
			t = &TopicRate{Topic: k.topic}
			topics[k.topic] = t
		}
		t.Partitions++
		t.RecordsPerSec += recs
		if pr.BytesPerSec != nil {
			if t.BytesPerSec == nil {
				t.BytesPerSec = new(float64)
			}
			*t.BytesPerSec += *pr.BytesPerSec
			topicBytes[k.topic] = true
			totalBytes += *pr.BytesPerSec
			bytesKnown = true
			r := round1(*pr.BytesPerSec)
			pr.BytesPerSec = &r
		}
		if leader >= 0 {
			br := broker(leader)
			br.Leaders++
			br.RecordsPerSec += recs
		}
		f.RecordsPerSec += recs
		f.Partitions = append(f.Partitions, pr)
	}
	for id, sb := range b.BrokerSizes {
		br := broker(id)
		if sa, ok := a.BrokerSizes[id]; ok && sb >= sa {
			v := round1(float64(sb-sa) / sec)
			br.BytesPerSec = &v
		}
	}
	f.RecordsPerSec = round1(f.RecordsPerSec)
	if bytesKnown {
		v := round1(totalBytes)
		f.BytesPerSec = &v
	}
	for _, t := range topics {
		t.RecordsPerSec = round1(t.RecordsPerSec)
		if t.BytesPerSec != nil {
			v := round1(*t.BytesPerSec)
			t.BytesPerSec = &v
		}
		f.Topics = append(f.Topics, *t)
	}
	for _, br := range brokers {
		br.RecordsPerSec = round1(br.RecordsPerSec)
		f.Brokers = append(f.Brokers, *br)
	}
	f.Sort(order)
	return f
}

// downProblems are the reason lines of the brokers that are down, by id.
func downProblems(down map[int32]string) []string {
	ids := make([]int32, 0, len(down))
	for id := range down {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, brokerProblem(id, down[id]))
	}
	return out
}

// groupRates takes the groups' rates, lag trend and verdicts from the
// last sample, judged over the windows of commits of `kbox groups lag
// --watch` (Sampler keeps them; two samples built by hand are judged
// from these two alone).
func groupRates(a, b *TopSample) ([]GroupRate, string) {
	out := []GroupRate{}
	if b.LagErr != nil {
		return out, oneLine(b.LagErr.Error())
	}
	if b.Lag == nil {
		return out, ""
	}
	ws := b.Watch
	if ws == nil {
		var s groups.Sampler
		if a.Lag != nil {
			s.Add(a.Lag)
		}
		ws = s.Add(b.Lag)
	}
	conv := func(rl groups.RateLag) GroupLagRate {
		g := GroupLagRate{Lag: rl.Lag, Trend: rl.Trend, Status: rl.Status, TimeLagMs: rl.TimeLagMs, Verdict: rl.Verdict}
		if rl.ConsumeRecordsPerSec != nil {
			g.RecordsPerSec = ptrOf(round1(*rl.ConsumeRecordsPerSec))
		}
		if rl.LagPerSec != nil {
			g.LagPerSec = ptrOf(round1(*rl.LagPerSec))
		}
		return g
	}
	for _, g := range ws.Groups {
		if len(g.Topics) == 0 && g.Error == "" {
			continue // no commit on the topics watched
		}
		gr := GroupRate{Group: g.Group, State: g.State, GroupLagRate: conv(g.RateLag), Topics: []GroupTopicRate{}, Error: g.Error}
		for _, t := range g.Topics {
			gr.Topics = append(gr.Topics, GroupTopicRate{Topic: t.Topic, GroupLagRate: conv(t.RateLag)})
		}
		out = append(out, gr)
	}
	return out, ""
}

func ptrOf[T any](v T) *T { return &v }

// Sort orders topics and partitions by order (records or bytes per
// second, highest first, then name; or by name; lag orders them by
// records); brokers stay by id. Groups go by commit rate (records,
// bytes), by lag in records (lag), or by name; their topics by name.
func (f *TopFrame) Sort(order string) {
	rateOf := func(p *float64) float64 {
		if p == nil {
			return -1
		}
		return *p
	}
	sort.SliceStable(f.Groups, func(i, j int) bool {
		a, b := f.Groups[i], f.Groups[j]
		switch order {
		case SortLag:
			if a.Lag != b.Lag {
				return a.Lag > b.Lag
			}
		case SortRecords, SortBytes:
			if ra, rb := rateOf(a.RecordsPerSec), rateOf(b.RecordsPerSec); ra != rb {
				return ra > rb
			}
		}
		return a.Group < b.Group
	})
	bytesOf := func(p *float64) float64 {
		if p == nil {
			return -1
		}
		return *p
	}
	key := func(recs float64, bytes *float64) float64 {
		if order == SortBytes {
			return bytesOf(bytes)
		}
		return recs
	}
	sort.SliceStable(f.Topics, func(i, j int) bool {
		a, b := f.Topics[i], f.Topics[j]
		if order != SortName {
			if ka, kb := key(a.RecordsPerSec, a.BytesPerSec), key(b.RecordsPerSec, b.BytesPerSec); ka != kb {
				return ka > kb
			}
		}
		return a.Topic < b.Topic
	})
	sort.SliceStable(f.Partitions, func(i, j int) bool {
		a, b := f.Partitions[i], f.Partitions[j]
		if order != SortName {
			if ka, kb := key(a.RecordsPerSec, a.BytesPerSec), key(b.RecordsPerSec, b.BytesPerSec); ka != kb {
				return ka > kb
			}
		}
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		return a.Partition < b.Partition
	})
	sort.Slice(f.Brokers, func(i, j int) bool { return f.Brokers[i].Broker < f.Brokers[j].Broker })
}

// Line is the frame as one line (for a pipe): time, totals, the busiest
// topics.
func (f *TopFrame) Line(maxTopics int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s records/s=%s bytes/s=%s", f.Time.Format("2006-01-02T15:04:05.000Z07:00"), num(f.RecordsPerSec), optNum(f.BytesPerSec))
	for i, t := range f.Topics {
		if i == maxTopics {
			fmt.Fprintf(&b, " (+%d topics)", len(f.Topics)-i)
			break
		}
		fmt.Fprintf(&b, " %s=%s/%s", t.Topic, num(t.RecordsPerSec), optNum(t.BytesPerSec))
	}
	for i, g := range f.Groups {
		if i == maxTopics {
			fmt.Fprintf(&b, " (+%d groups)", len(f.Groups)-i)
			break
		}
		fmt.Fprintf(&b, " group:%s=%s lag=%d", g.Group, optNum(g.RecordsPerSec), g.Lag)
		if g.LagPerSec != nil {
			fmt.Fprintf(&b, "(%s/s)", signedRate(g.LagPerSec))
		}
		if g.Verdict != groups.VerdictUnknown {
			fmt.Fprintf(&b, " %s", g.Verdict)
		}
	}
	if f.GroupsError != "" {
		fmt.Fprintf(&b, " groups: %s", f.GroupsError)
	}
	if len(f.Problems) > 0 {
		fmt.Fprintf(&b, " problems: %s", strings.Join(f.Problems, "; "))
	}
	return b.String()
}

// GroupTable is the first n groups of a frame as a table: a row per
// group (its topic named when it has one), then one per topic when it
// has several.
func (f *TopFrame) GroupTable(n int) ([]string, [][]string) {
	rows := [][]string{}
	row := func(group, state, topic string, g GroupLagRate) []string {
		return []string{group, state, topic, optNum(g.RecordsPerSec), strconv.FormatInt(g.Lag, 10), signedRate(g.LagPerSec), g.Trend,
			groups.FormatTimeLag(g.TimeLagMs, g.Status == groups.StatusCaughtUp), g.Verdict.String()}
	}
	for i, g := range f.Groups {
		if i == n {
			break
		}
		topic := "*"
		switch {
		case g.Error != "":
			topic = "error: " + g.Error
		case len(g.Topics) == 1:
			topic = g.Topics[0].Topic
		case len(g.Topics) == 0:
			topic = "-"
		}
		rows = append(rows, row(g.Group, g.State, topic, g.GroupLagRate))
		if len(g.Topics) > 1 {
			for _, t := range g.Topics {
				rows = append(rows, row(g.Group, "", t.Topic, t.GroupLagRate))
			}
		}
	}
	return []string{"GROUP", "STATE", "TOPIC", "COMMITTED/S", "LAG", "LAG/S", "TREND", "TIME-LAG", "VERDICT"}, rows
}

// signedRate prints a lag change per second with its sign ("-" unknown).
func signedRate(v *float64) string {
	if v == nil {
		return "-"
	}
	if *v > 0 {
		return "+" + num(*v)
	}
	return num(*v)
}

// TopicTable is the topics of a frame as a table (sizes in KiB/MiB/GiB,
// or byte counts when raw; so the other tables).
func (f *TopFrame) TopicTable(raw bool) ([]string, [][]string) {
	rows := make([][]string, 0, len(f.Topics))
	for _, t := range f.Topics {
		rows = append(rows, []string{t.Topic, strconv.Itoa(t.Partitions), num(t.RecordsPerSec), optBytes(t.BytesPerSec, raw)})
	}
	return []string{"TOPIC", "PARTITIONS", "RECORDS/S", "BYTES/S"}, rows
}

// PartitionTable is the first n partitions of a frame as a table.
func (f *TopFrame) PartitionTable(n int, raw bool) ([]string, [][]string) {
	var rows [][]string
	for i, p := range f.Partitions {
		if i == n {
			break
		}
		rows = append(rows, []string{p.Topic, strconv.Itoa(int(p.Partition)), leaderCell(p.Leader), num(p.RecordsPerSec), optBytes(p.BytesPerSec, raw)})
	}
	return []string{"TOPIC", "PARTITION", "LEADER", "RECORDS/S", "BYTES/S"}, rows
}

// BrokerTable is the brokers of a frame as a table.
func (f *TopFrame) BrokerTable(raw bool) ([]string, [][]string) {
	rows := make([][]string, 0, len(f.Brokers))
	for _, b := range f.Brokers {
		rows = append(rows, []string{strconv.Itoa(int(b.Broker)), strconv.Itoa(b.Leaders), num(b.RecordsPerSec), optBytes(b.BytesPerSec, raw)})
	}
	return []string{"BROKER", "LEADS", "RECORDS/S (LED)", "LOG BYTES/S"}, rows
}

func leaderCell(l int32) string {
	if l < 0 {
		return "none"
	}
	return strconv.Itoa(int(l))
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func optNum(v *float64) string {
	if v == nil {
		return "-"
	}
	return num(*v)
}

func optBytes(v *float64, raw bool) string {
	if v == nil {
		return "-"
	}
	return output.BytesOrRaw(int64(*v+0.5), raw)
}

// TopicSum is one watched topic of a sample, summed over its partitions.
type TopicSum struct {
	Partitions int
	// EndOffset sums the partitions' end offsets, LeaderBytes their
	// leader replicas' sizes; each only when every partition's is known
	// (EndOffsetKnown, LeaderBytesKnown): a broker down leaves some out.
	EndOffset        int64
	EndOffsetKnown   bool
	LeaderBytes      int64
	LeaderBytesKnown bool
}

// TopicSums sums the sample per watched topic.
func (s *TopSample) TopicSums() map[string]*TopicSum {
	out := map[string]*TopicSum{}
	ends, sizes := map[string]int{}, map[string]int{}
	for k := range s.Leaders {
		ts, ok := out[k.topic]
		if !ok {
			ts = &TopicSum{}
			out[k.topic] = ts
		}
		ts.Partitions++
		if e, ok := s.Ends[k]; ok {
			ts.EndOffset += e
			ends[k.topic]++
		}
		if b, ok := s.Sizes[k]; ok {
			ts.LeaderBytes += b
			sizes[k.topic]++
		}
	}
	for t, ts := range out {
		ts.EndOffsetKnown = ends[t] == ts.Partitions
		ts.LeaderBytesKnown = sizes[t] == ts.Partitions
	}
	return out
}

// LeadersPerBroker counts the watched partitions each broker leads.
func (s *TopSample) LeadersPerBroker() map[int32]int {
	out := map[int32]int{}
	for _, l := range s.Leaders {
		if l >= 0 {
			out[l]++
		}
	}
	return out
}
