package logdirs

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/output"
	"github.com/twmb/franz-go/pkg/kerr"
)

// Aggregations of the native report.
const (
	AggBroker    = "broker"
	AggDir       = "dir"
	AggTopic     = "topic"
	AggPartition = "partition"
	AggReplica   = "replica"
	// ViewHealth is the replica health view.
	ViewHealth = "health"
)

// Aggregations lists the values --aggregate-into accepts.
var Aggregations = []string{AggBroker, AggDir, AggTopic, AggPartition, AggReplica}

// ReportOptions shape the native report.
type ReportOptions struct {
	View         string // one of Aggregations or ViewHealth; "" = dir
	SortBySize   bool   // largest first
	Top          int    // keep the first N rows (0: all)
	RawBytes     bool   // table sizes as byte counts (--bytes), not KiB/MiB/GiB
	SkewPercent  float64
	SkewMinBytes int64
}

// Input is everything the report is computed from (Read gathers it).
type Input struct {
	Query   *Query
	Hosts   map[int32]string           // broker id → host:port
	Leaders map[string]map[int32]int32 // topic → partition → leader id (-1: none)
	// Keep reports whether a topic is included (nil: all).
	Keep func(topic string) bool
	// Brokers are the brokers the cluster listed (Read; nil when the
	// caller named the brokers and wanted no leaders).
	Brokers []ClusterBroker
	// LeadersErr is why the leaders could not be read (Read with
	// Leaders): the logical sizes are then estimated.
	LeadersErr error
	// At is when the brokers answered (Read).
	At time.Time
}

// Report is the native result. Only the selected view is set.
type Report struct {
	View          string            `json:"view"`
	Brokers       *[]BrokerUsage    `json:"brokers,omitempty"`
	Dirs          *[]DirUsage       `json:"dirs,omitempty"`
	Topics        *[]TopicUsage     `json:"topics,omitempty"`
	Partitions    *[]PartitionUsage `json:"partitions,omitempty"`
	Replicas      *[]ReplicaUsage   `json:"replicas,omitempty"`
	Health        *[]HealthIssue    `json:"replica_health,omitempty"`
	FailedBrokers []FailedBroker    `json:"failed_brokers"`

	rawBytes bool
}

// FailedBroker is a broker that did not answer.
type FailedBroker struct {
	Broker int32  `json:"broker"`
	Error  string `json:"error"`
}

// DirUsage is one log directory.
type DirUsage struct {
	Broker      int32    `json:"broker"`
	Dir         string   `json:"dir"`
	Error       *string  `json:"error"`
	SizeBytes   int64    `json:"size_bytes"`
	TotalBytes  *int64   `json:"total_bytes"`
	UsableBytes *int64   `json:"usable_bytes"`
	UsedPercent *float64 `json:"used_percent"`
	Partitions  int      `json:"partitions"`
	Future      int      `json:"future_replicas"`
}

// BrokerUsage sums a broker's dirs: what they hold (SizeBytes,
// Partitions). Its volume (TotalBytes, UsableBytes, UsedPercent) is the
// volume of one dir, VolumeDir: the fullest. Volumes are never summed
// across dirs: several dirs may share one volume, and nothing a broker
// reports tells which do (each dir's free bytes are read at a different
// moment, so even dirs on one volume rarely report the same numbers).
type BrokerUsage struct {
	Broker      int32    `json:"broker"`
	Host        string   `json:"host"`
	Dirs        int      `json:"dirs"`
	OfflineDirs int      `json:"offline_dirs"`
	SizeBytes   int64    `json:"size_bytes"`
	TotalBytes  *int64   `json:"total_bytes"`
	UsableBytes *int64   `json:"usable_bytes"`
	UsedPercent *float64 `json:"used_percent"`
	// VolumeDir is the dir whose volume TotalBytes, UsableBytes and
	// UsedPercent describe; null when no dir reported its volume.
	VolumeDir  *string `json:"volume_dir"`
	Partitions int     `json:"partitions"`
	Error      *string `json:"error"`
}

// TopicUsage is a topic's size both ways: physical counts every replica
// (what the disks hold), logical counts the leader replica of each
// partition once (how big the topic is).
type TopicUsage struct {
	Topic            string `json:"topic"`
	Partitions       int    `json:"partitions"`
	Replicas         int    `json:"replicas"`
	PhysicalBytes    int64  `json:"physical_bytes"`
	LogicalBytes     int64  `json:"logical_bytes"`
	LogicalEstimated int    `json:"logical_estimated_partitions"`
}

// PartitionUsage is one partition over all its replicas.
type PartitionUsage struct {
	Topic            string `json:"topic"`
	Partition        int32  `json:"partition"`
	Leader           int32  `json:"leader"`
	Replicas         int    `json:"replicas"`
	PhysicalBytes    int64  `json:"physical_bytes"`
	LogicalBytes     int64  `json:"logical_bytes"`
	LogicalEstimated bool   `json:"logical_estimated"`
	MaxOffsetLag     int64  `json:"max_offset_lag"`
	FutureReplicas   int    `json:"future_replicas"`
}

// ReplicaUsage is one replica.
type ReplicaUsage struct {
	Broker    int32  `json:"broker"`
	Dir       string `json:"dir"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	SizeBytes int64  `json:"size_bytes"`
	OffsetLag int64  `json:"offset_lag"`
	IsFuture  bool   `json:"is_future"`
	IsLeader  bool   `json:"is_leader"`
}

// HealthIssue is a replica that differs from its leader: size skew beyond
// the threshold, offsetLag > 0, or a future replica (a move between dirs).
type HealthIssue struct {
	Topic       string   `json:"topic"`
	Partition   int32    `json:"partition"`
	Broker      int32    `json:"broker"`
	Dir         string   `json:"dir"`
	SizeBytes   int64    `json:"size_bytes"`
	OffsetLag   int64    `json:"offset_lag"`
	IsFuture    bool     `json:"is_future"`
	Leader      int32    `json:"leader"`
	LeaderSize  *int64   `json:"leader_size_bytes"`
	SkewBytes   *int64   `json:"skew_bytes"`
	SkewPercent *float64 `json:"skew_percent"`
	Issues      []string `json:"issues"`
}

type located struct {
	broker int32
	dir    string
	Replica
}

// BuildReport computes the selected view.
func BuildReport(in Input, o ReportOptions) *Report {
	if o.View == "" {
		o.View = AggDir
	}
	r := &Report{View: o.View, rawBytes: o.RawBytes, FailedBrokers: []FailedBroker{}}
	if in.Query != nil {
		for _, f := range in.Query.Failed {
			r.FailedBrokers = append(r.FailedBrokers, FailedBroker{Broker: f.Broker, Error: f.Err.Error()})
		}
	}
	x := newReplicas(in)
	switch o.View {
	case AggDir:
		x.dirView(r, o)
	case AggBroker:
		x.brokerView(r, o)
	case AggPartition, AggTopic:
		x.partitionViews(r, o)
	case AggReplica:
		x.replicaView(r, o)
	case ViewHealth:
		x.healthView(r, o)
	}
	return r
}

// tp is a topic partition.
type tp struct {
	t string
	p int32
}

// replicas are the answered brokers' replicas of the kept topics, by
// partition, with the partitions' leaders.
type replicas struct {
	in       Input
	keep     func(string) bool
	answered []BrokerDirs
	all      []located
	byTP     map[tp][]int // indexes into all
	keys     []tp         // sorted
}

func newReplicas(in Input) *replicas {
	x := &replicas{in: in, keep: in.Keep, byTP: map[tp][]int{}}
	if x.keep == nil {
		x.keep = func(string) bool { return true }
	}
	if in.Query != nil {
		x.answered = in.Query.Answered
	}
	for _, b := range x.answered {
		for _, d := range b.Dirs {
			for _, rep := range d.Replicas {
				if !x.keep(rep.Topic) {
					continue
				}
				k := tp{rep.Topic, rep.Partition}
				x.byTP[k] = append(x.byTP[k], len(x.all))
				x.all = append(x.all, located{b.Broker, d.Path, rep})
			}
		}
	}
	x.keys = make([]tp, 0, len(x.byTP))
	for k := range x.byTP {
		x.keys = append(x.keys, k)
	}
	sort.Slice(x.keys, func(i, j int) bool {
		if x.keys[i].t != x.keys[j].t {
			return x.keys[i].t < x.keys[j].t
		}
		return x.keys[i].p < x.keys[j].p
	})
	return x
}

func (x *replicas) leaderOf(t string, p int32) int32 {
	if ps, ok := x.in.Leaders[t]; ok {
		if l, ok := ps[p]; ok {
			return l
		}
	}
	return -1
}

// leaderReplica returns the leader's current (non-future) replica.
func (x *replicas) leaderReplica(k tp) (located, bool) {
	l := x.leaderOf(k.t, k.p)
	for _, i := range x.byTP[k] {
		if x.all[i].broker == l && !x.all[i].IsFuture {
			return x.all[i], true
		}
	}
	return located{}, false
}

func (x *replicas) dirView(r *Report, o ReportOptions) {
	rows := []DirUsage{}
	for _, b := range sortedAnswers(x.answered) {
		for _, d := range sortedDirs(b.Dirs) {
			u := DirUsage{Broker: b.Broker, Dir: d.Path, Error: dirError(d.ErrCode)}
			for _, rep := range d.Replicas {
				if !x.keep(rep.Topic) {
					continue
				}
				u.SizeBytes += rep.Size
				u.Partitions++
				if rep.IsFuture {
					u.Future++
				}
			}
			u.TotalBytes, u.UsableBytes, u.UsedPercent = volume(d.TotalBytes, d.UsableBytes)
			rows = append(rows, u)
		}
	}
	if o.SortBySize {
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].SizeBytes > rows[j].SizeBytes })
	}
	rows = top(rows, o.Top)
	r.Dirs = &rows
}

func (x *replicas) brokerView(r *Report, o ReportOptions) {
	rows := []BrokerUsage{}
	for _, b := range sortedAnswers(x.answered) {
		u := BrokerUsage{Broker: b.Broker, Host: x.in.Hosts[b.Broker], Dirs: len(b.Dirs)}
		var errs []string
		for _, d := range sortedDirs(b.Dirs) {
			if d.ErrCode != 0 {
				u.OfflineDirs++
				errs = append(errs, d.Path+": "+*dirError(d.ErrCode))
			}
			for _, rep := range d.Replicas {
				if x.keep(rep.Topic) {
					u.SizeBytes += rep.Size
					u.Partitions++
				}
			}
		}
		if d, ok := fullestVolume(b.Dirs); ok {
			u.TotalBytes, u.UsableBytes, u.UsedPercent = volume(d.TotalBytes, d.UsableBytes)
			path := d.Path
			u.VolumeDir = &path
		}
		if len(errs) > 0 {
			s := strings.Join(errs, "; ")
			u.Error = &s
		}
		rows = append(rows, u)
	}
	if o.SortBySize {
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].SizeBytes > rows[j].SizeBytes })
	}
	rows = top(rows, o.Top)
	r.Brokers = &rows
}

func (x *replicas) partitionViews(r *Report, o ReportOptions) {
	parts := make([]PartitionUsage, 0, len(x.keys))
	for _, k := range x.keys {
		u := PartitionUsage{Topic: k.t, Partition: k.p, Leader: x.leaderOf(k.t, k.p)}
		var largest int64
		for _, i := range x.byTP[k] {
			rep := x.all[i]
			u.Replicas++
			u.PhysicalBytes += rep.Size
			if rep.OffsetLag > u.MaxOffsetLag {
				u.MaxOffsetLag = rep.OffsetLag
			}
			if rep.IsFuture {
				u.FutureReplicas++
			} else if rep.Size > largest {
				largest = rep.Size
			}
		}
		if lr, ok := x.leaderReplica(k); ok {
			u.LogicalBytes = lr.Size
		} else {
			u.LogicalBytes, u.LogicalEstimated = largest, true
		}
		parts = append(parts, u)
	}
	if o.View == AggPartition {
		if o.SortBySize {
			sort.SliceStable(parts, func(i, j int) bool { return parts[i].PhysicalBytes > parts[j].PhysicalBytes })
		}
		parts = top(parts, o.Top)
		r.Partitions = &parts
		return
	}
	rows := []TopicUsage{}
	idx := map[string]int{}
	for _, p := range parts {
		i, ok := idx[p.Topic]
		if !ok {
			i = len(rows)
			idx[p.Topic] = i
			rows = append(rows, TopicUsage{Topic: p.Topic})
		}
		t := &rows[i]
		t.Partitions++
		t.Replicas += p.Replicas
		t.PhysicalBytes += p.PhysicalBytes
		t.LogicalBytes += p.LogicalBytes
		if p.LogicalEstimated {
			t.LogicalEstimated++
		}
	}
	if o.SortBySize {
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].PhysicalBytes > rows[j].PhysicalBytes })
	}
	rows = top(rows, o.Top)
	r.Topics = &rows
}

func (x *replicas) replicaView(r *Report, o ReportOptions) {
	rows := make([]ReplicaUsage, 0, len(x.all))
	for _, k := range x.keys {
		l := x.leaderOf(k.t, k.p)
		for _, i := range x.byTP[k] {
			rep := x.all[i]
			rows = append(rows, ReplicaUsage{Broker: rep.broker, Dir: rep.dir, Topic: rep.Topic, Partition: rep.Partition,
				SizeBytes: rep.Size, OffsetLag: rep.OffsetLag, IsFuture: rep.IsFuture, IsLeader: rep.broker == l && !rep.IsFuture})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Topic != b.Topic || a.Partition != b.Partition {
			return false // keys are already in order
		}
		if a.Broker != b.Broker {
			return a.Broker < b.Broker
		}
		return !a.IsFuture && b.IsFuture
	})
	if o.SortBySize {
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].SizeBytes > rows[j].SizeBytes })
	}
	rows = top(rows, o.Top)
	r.Replicas = &rows
}

func (x *replicas) healthView(r *Report, o ReportOptions) {
	rows := []HealthIssue{}
	for _, k := range x.keys {
		lr, haveLeader := x.leaderReplica(k)
		reps := append([]int(nil), x.byTP[k]...)
		sort.SliceStable(reps, func(i, j int) bool { return x.all[reps[i]].broker < x.all[reps[j]].broker })
		for _, i := range reps {
			rep := x.all[i]
			isLeader := haveLeader && rep.broker == lr.broker && rep.dir == lr.dir && !rep.IsFuture
			h := HealthIssue{Topic: k.t, Partition: k.p, Broker: rep.broker, Dir: rep.dir, SizeBytes: rep.Size,
				OffsetLag: rep.OffsetLag, IsFuture: rep.IsFuture, Leader: x.leaderOf(k.t, k.p), Issues: []string{}}
			if haveLeader {
				ls := lr.Size
				h.LeaderSize = &ls
				if !isLeader && !rep.IsFuture {
					d := ls - rep.Size
					if d < 0 {
						d = -d
					}
					h.SkewBytes = &d
					if ls > 0 {
						pct := float64(d) * 100 / float64(ls)
						h.SkewPercent = &pct
					}
					if d > o.SkewMinBytes && (ls == 0 || float64(d)*100 > o.SkewPercent*float64(ls)) {
						h.Issues = append(h.Issues, "size-skew")
					}
				}
			}
			if rep.OffsetLag > 0 {
				h.Issues = append(h.Issues, "offset-lag")
			}
			if rep.IsFuture {
				h.Issues = append(h.Issues, "future-replica")
			}
			if len(h.Issues) > 0 {
				rows = append(rows, h)
			}
		}
	}
	if o.SortBySize {
		sort.SliceStable(rows, func(i, j int) bool { return skewOf(rows[i]) > skewOf(rows[j]) })
	}
	rows = top(rows, o.Top)
	r.Health = &rows
}

// fullestVolume is the dir whose volume has the largest used share (on a
// tie, or when no share is known, the largest volume; then the first dir
// by path): the volume that fills first, which a broker's health is
// judged by. ok is false when no dir reported its volume.
func fullestVolume(dirs []Dir) (Dir, bool) {
	var best Dir
	bestPct, found := -1.0, false
	for _, d := range sortedDirs(dirs) {
		if d.TotalBytes < 0 || d.UsableBytes < 0 {
			continue
		}
		p := -1.0
		if _, _, pct := volume(d.TotalBytes, d.UsableBytes); pct != nil {
			p = *pct
		}
		if !found || p > bestPct || (p == bestPct && d.TotalBytes > best.TotalBytes) {
			best, bestPct, found = d, p, true
		}
	}
	return best, found
}

func skewOf(h HealthIssue) int64 {
	if h.SkewBytes == nil {
		return 0
	}
	return *h.SkewBytes
}

func top[T any](rows []T, n int) []T {
	if n > 0 && len(rows) > n {
		return rows[:n]
	}
	return rows
}

func sortedAnswers(bs []BrokerDirs) []BrokerDirs {
	out := append([]BrokerDirs(nil), bs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Broker < out[j].Broker })
	return out
}

func sortedDirs(ds []Dir) []Dir {
	out := append([]Dir(nil), ds...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func dirError(code int16) *string {
	if code == 0 {
		return nil
	}
	s := kerr.ErrorForCode(code).Error()
	if name, _, ok := strings.Cut(s, ":"); ok {
		s = name
	}
	if code == kerr.KafkaStorageError.Code {
		s = "offline (" + s + ")"
	}
	return &s
}

func volume(total, usable int64) (*int64, *int64, *float64) {
	if total < 0 || usable < 0 {
		return nil, nil, nil
	}
	t, u := total, usable
	var p *float64
	// A volume cannot have more usable than total bytes; some brokers
	// (and franz-go's kfake) report such pairs: show the percentage as unknown.
	if total > 0 && usable <= total {
		v := float64(total-usable) * 100 / float64(total)
		p = &v
	}
	return &t, &u, p
}

// Table form.

// Header implements output.Tabular.
func (r *Report) Header() []string {
	switch r.View {
	case AggBroker:
		return []string{"BROKER", "HOST", "DIRS", "SIZE", "TOTAL", "USABLE", "USED%", "PARTITIONS", "ERROR"}
	case AggTopic:
		return []string{"TOPIC", "PARTITIONS", "REPLICAS", "PHYSICAL", "LOGICAL"}
	case AggPartition:
		return []string{"TOPIC", "PARTITION", "LEADER", "REPLICAS", "PHYSICAL", "LOGICAL", "MAX-OFFSET-LAG", "FUTURE"}
	case AggReplica:
		return []string{"BROKER", "DIR", "TOPIC", "PARTITION", "SIZE", "OFFSET-LAG", "FUTURE", "LEADER"}
	case ViewHealth:
		return []string{"TOPIC", "PARTITION", "BROKER", "DIR", "SIZE", "OFFSET-LAG", "FUTURE", "LEADER", "LEADER-SIZE", "SKEW", "SKEW%", "ISSUES"}
	}
	return []string{"BROKER", "DIR", "SIZE", "TOTAL", "USABLE", "USED%", "PARTITIONS", "ERROR"}
}

// Rows implements output.Tabular.
func (r *Report) Rows() [][]string {
	sz := func(n int64) string { return output.BytesOrRaw(n, r.rawBytes) }
	var out [][]string
	switch r.View {
	case AggBroker:
		for _, u := range deref(r.Brokers) {
			out = append(out, []string{itoa32(u.Broker), u.Host, dirsCell(u.Dirs, u.OfflineDirs), sz(u.SizeBytes),
				optBytes(u.TotalBytes, r.rawBytes), optBytes(u.UsableBytes, r.rawBytes), pct(u.UsedPercent), strconv.Itoa(u.Partitions), optStr(u.Error)})
		}
	case AggTopic:
		for _, u := range deref(r.Topics) {
			logical := sz(u.LogicalBytes)
			if u.LogicalEstimated > 0 {
				logical = "~" + logical
			}
			out = append(out, []string{u.Topic, strconv.Itoa(u.Partitions), strconv.Itoa(u.Replicas), sz(u.PhysicalBytes), logical})
		}
	case AggPartition:
		for _, u := range deref(r.Partitions) {
			logical := sz(u.LogicalBytes)
			if u.LogicalEstimated {
				logical = "~" + logical
			}
			out = append(out, []string{u.Topic, itoa32(u.Partition), leaderCell(u.Leader), strconv.Itoa(u.Replicas), sz(u.PhysicalBytes), logical,
				strconv.FormatInt(u.MaxOffsetLag, 10), strconv.Itoa(u.FutureReplicas)})
		}
	case AggReplica:
		for _, u := range deref(r.Replicas) {
			out = append(out, []string{itoa32(u.Broker), u.Dir, u.Topic, itoa32(u.Partition), sz(u.SizeBytes),
				strconv.FormatInt(u.OffsetLag, 10), yesNo(u.IsFuture), yesNo(u.IsLeader)})
		}
	case ViewHealth:
		for _, u := range deref(r.Health) {
			out = append(out, []string{u.Topic, itoa32(u.Partition), itoa32(u.Broker), u.Dir, sz(u.SizeBytes),
				strconv.FormatInt(u.OffsetLag, 10), yesNo(u.IsFuture), leaderCell(u.Leader), optBytes(u.LeaderSize, r.rawBytes),
				dashBytes(u.SkewBytes, r.rawBytes), pct(u.SkewPercent), strings.Join(u.Issues, ",")})
		}
	default:
		for _, u := range deref(r.Dirs) {
			out = append(out, []string{itoa32(u.Broker), u.Dir, sz(u.SizeBytes), optBytes(u.TotalBytes, r.rawBytes),
				optBytes(u.UsableBytes, r.rawBytes), pct(u.UsedPercent), strconv.Itoa(u.Partitions), optStr(u.Error)})
		}
	}
	return out
}

// Note is the line printed after the broker view's table when a broker
// has several dirs ("" otherwise): which volume its TOTAL, USABLE and
// USED% describe, and why volumes are not summed.
func (r *Report) Note() string {
	for _, u := range deref(r.Brokers) {
		if u.Dirs > 1 {
			return "TOTAL, USABLE and USED% of a broker with several log dirs are its fullest dir's volume: dirs may share a volume, so volumes are not summed (each dir: --aggregate-into dir)"
		}
	}
	return ""
}

// Empty reports whether the selected view has no rows.
func (r *Report) Empty() bool { return len(r.Rows()) == 0 }

func deref[T any](p *[]T) []T {
	if p == nil {
		return nil
	}
	return *p
}

func itoa32(n int32) string { return strconv.Itoa(int(n)) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func leaderCell(l int32) string {
	if l < 0 {
		return "none"
	}
	return itoa32(l)
}

func dirsCell(n, offline int) string {
	if offline > 0 {
		return fmt.Sprintf("%d (%d offline)", n, offline)
	}
	return strconv.Itoa(n)
}

func optStr(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

func optBytes(n *int64, raw bool) string {
	if n == nil {
		return "unknown"
	}
	return output.BytesOrRaw(*n, raw)
}

func dashBytes(n *int64, raw bool) string {
	if n == nil {
		return "-"
	}
	return output.BytesOrRaw(*n, raw)
}

func pct(p *float64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatFloat(*p, 'f', 1, 64) + "%"
}
