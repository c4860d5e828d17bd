package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
)

// Workload dimensions a sweep can vary besides client properties.
const (
	DimRecordSize        = "record-size"
	DimProducers         = "producers"
	DimConsumers         = "consumers"
	DimPartitions        = "partitions"
	DimReplicationFactor = "replication-factor"
	DimKeyCardinality    = "key-cardinality"
	// DimAgents is the number of Trogdor agents a cell runs on (the first
	// N of the plan's Agents): a produce sweep over agents.
	DimAgents = "agents"
)

// Sweep strategies.
const (
	StrategyGrid       = "grid"
	StrategyOneAtATime = "one-at-a-time"
)

// workloadDims lists the workload dimensions with the modes they apply to
// and their lowest allowed value.
var workloadDims = map[string]struct {
	modes string
	min   int64
	max   int64
}{
	DimRecordSize:        {"produce consume e2e", 1, 100 << 20},
	DimProducers:         {"produce", 1, 1000},
	DimConsumers:         {"consume", 1, 1000},
	DimPartitions:        {"produce consume e2e", 1, 100000},
	DimReplicationFactor: {"produce consume e2e", 1, 32767},
	DimKeyCardinality:    {"produce consume", 0, 1 << 30},
	DimAgents:            {"produce", 1, 1000},
}

// sizeProps are the client properties measured in bytes: their values may
// be written as 16k, 1m, 1g.
var sizeProps = map[string]bool{
	"batch.size": true, "buffer.memory": true, "max.request.size": true,
	"fetch.min.bytes": true, "fetch.max.bytes": true, "max.partition.fetch.bytes": true,
	"send.buffer.bytes": true, "receive.buffer.bytes": true,
}

// fixedProps are properties a sweep sets itself or that make no sense to vary.
var fixedProps = map[string]string{
	"bootstrap.servers": "the sweep runs against one cluster",
	"group.id":          "every consume run uses a fresh group",
	"group.instance.id": "every consume run uses a fresh group",
	"transactional.id":  "transactions are not part of a sweep",
	"client.id":         "the sweep names its clients",
}

// Dimension is one varied setting with its values in the order given.
type Dimension struct {
	Name string `json:"name"`
	// Workload is true for record-size, producers, consumers, partitions,
	// replication-factor and key-cardinality; false for client properties.
	Workload bool `json:"workload"`
	// Values are normalized (byte sizes in bytes); Labels are as typed.
	Values []string `json:"values"`
	Labels []string `json:"labels"`
}

// Bytes says whether the dimension's values are byte sizes (record-size,
// batch.size, fetch.max.bytes, ...).
func (d Dimension) Bytes() bool { return d.Name == DimRecordSize || sizeProps[d.Name] }

// ParseSize parses a byte size: a plain integer or one with a k, m or g
// suffix (powers of 1024; kb/kib/mb/mib/gb/gib also accepted).
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, suf := range []struct {
		s string
		m int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(t, suf.s) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, suf.s)), suf.m
			break
		}
	}
	if t == "" {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil && mult > 1 && strings.Contains(t, ".") {
		v := f * float64(mult)
		if v < 0 || v > math.MaxInt64/2 || v != math.Trunc(v) {
			return 0, fmt.Errorf("%q is not a whole number of bytes", s)
		}
		return int64(v), nil
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size (use bytes or a k, m, g suffix)", s)
	}
	if n > math.MaxInt64/mult || n < math.MinInt64/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n * mult, nil
}

// ParseVary parses one --vary NAME=V1,V2,... for a produce, consume or
// e2e sweep (an e2e sweep varies producer properties). Errors are one line and name the property.
func ParseVary(spec, mode string) (Dimension, error) {
	name, list, ok := strings.Cut(spec, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Dimension{}, fmt.Errorf("--vary %q: want NAME=V1,V2 (a comma-separated list of values)", spec)
	}
	var vals []string
	for _, v := range strings.Split(list, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return Dimension{}, fmt.Errorf("--vary %s: empty value in %q", name, list)
		}
		vals = append(vals, v)
	}
	d := Dimension{Name: name, Labels: vals}
	if wd, ok := workloadDims[name]; ok {
		if !strings.Contains(wd.modes, mode) {
			return Dimension{}, fmt.Errorf("--vary %s: not a dimension of a %s sweep", name, mode)
		}
		d.Workload = true
		for _, v := range vals {
			var n int64
			var err error
			if name == DimRecordSize {
				n, err = ParseSize(v)
			} else {
				n, err = strconv.ParseInt(v, 10, 64)
				if err != nil {
					err = fmt.Errorf("%q is not a whole number", v)
				}
			}
			if err != nil {
				return Dimension{}, fmt.Errorf("--vary %s: %v", name, err)
			}
			if n < wd.min || n > wd.max {
				return Dimension{}, fmt.Errorf("--vary %s: %s is out of range [%d, %d]", name, v, wd.min, wd.max)
			}
			d.Values = append(d.Values, strconv.FormatInt(n, 10))
		}
	} else {
		role := kafka.Producer // produce and e2e sweeps vary the producer
		if mode == "consume" {
			role = kafka.Consumer
		}
		if err := checkProperty(name, role); err != nil {
			return Dimension{}, err
		}
		for _, v := range vals {
			nv := v
			if sizeProps[name] {
				n, err := ParseSize(v)
				if err != nil {
					return Dimension{}, fmt.Errorf("--vary %s: %v", name, err)
				}
				nv = strconv.FormatInt(n, 10)
			}
			p := config.NewProperties()
			p.Set(name, nv)
			if _, err := kafka.Parse(p, role); err != nil {
				return Dimension{}, fmt.Errorf("--vary %s: %v", name, strings.TrimPrefix(err.Error(), "property "+name+": "))
			}
			d.Values = append(d.Values, nv)
		}
	}
	seen := map[string]bool{}
	for i, v := range d.Values {
		if seen[v] {
			return Dimension{}, fmt.Errorf("--vary %s: value %s is given twice", name, d.Labels[i])
		}
		seen[v] = true
	}
	return d, nil
}

func checkProperty(name string, role kafka.Role) error {
	if why, ok := fixedProps[name]; ok {
		return fmt.Errorf("--vary %s: cannot be varied (%s)", name, why)
	}
	known, mapped := kafka.KnownProperty(name)
	if !known {
		return fmt.Errorf("--vary %s: unknown client property or dimension (dimensions: record-size, producers, consumers, partitions, replication-factor, key-cardinality, agents)", name)
	}
	if config.IsSecretKey(name) || strings.HasPrefix(name, "ssl.") || strings.HasPrefix(name, "sasl.") || name == "security.protocol" {
		return fmt.Errorf("--vary %s: security settings cannot be varied", name)
	}
	p := config.NewProperties()
	p.Set(name, "x")
	s, _ := kafka.Parse(p, role)
	if s != nil {
		for _, ig := range s.Ignored {
			if ig.Name == name {
				return fmt.Errorf("--vary %s: %s", name, ig.Reason)
			}
		}
	}
	if !mapped {
		return fmt.Errorf("--vary %s: has no effect on kbox's client", name)
	}
	return nil
}

// Setting is one dimension's value in a cell.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Label string `json:"label"`
}

// Cell is one combination of settings.
type Cell struct {
	Index    int       `json:"index"` // 1-based position in the plan
	Settings []Setting `json:"settings"`
}

// Key identifies a cell by its normalized settings (used to resume).
func (c Cell) Key() string {
	parts := make([]string, len(c.Settings))
	for i, s := range c.Settings {
		parts[i] = s.Name + "=" + s.Value
	}
	return strings.Join(parts, " ")
}

// Label is the cell's settings as typed.
func (c Cell) Label() string {
	parts := make([]string, len(c.Settings))
	for i, s := range c.Settings {
		parts[i] = s.Name + "=" + s.Label
	}
	return strings.Join(parts, " ")
}

// Get returns the cell's value of a dimension.
func (c Cell) Get(name string) (string, bool) {
	for _, s := range c.Settings {
		if s.Name == name {
			return s.Value, true
		}
	}
	return "", false
}

// Expand turns dimensions into cells. grid is the cartesian product (the
// first dimension varies slowest); one-at-a-time starts from the baseline
// (every dimension at its first value) and varies one dimension at a time.
func Expand(dims []Dimension, strategy string) ([]Cell, error) {
	if len(dims) == 0 {
		return nil, errors.New("give at least one --vary NAME=V1,V2 (a comma-separated list of values)")
	}
	seen := map[string]bool{}
	for _, d := range dims {
		if seen[d.Name] {
			return nil, fmt.Errorf("--vary %s: given twice", d.Name)
		}
		seen[d.Name] = true
		if len(d.Values) == 0 || len(d.Values) != len(d.Labels) {
			return nil, fmt.Errorf("--vary %s: no values", d.Name)
		}
	}
	set := func(d Dimension, i int) Setting { return Setting{d.Name, d.Values[i], d.Labels[i]} }
	var cells []Cell
	switch strategy {
	case StrategyGrid, "":
		idx := make([]int, len(dims))
		for {
			c := Cell{Index: len(cells) + 1}
			for j, d := range dims {
				c.Settings = append(c.Settings, set(d, idx[j]))
			}
			cells = append(cells, c)
			j := len(dims) - 1
			for ; j >= 0; j-- {
				idx[j]++
				if idx[j] < len(dims[j].Values) {
					break
				}
				idx[j] = 0
			}
			if j < 0 {
				break
			}
		}
	case StrategyOneAtATime:
		base := Cell{Index: 1}
		for _, d := range dims {
			base.Settings = append(base.Settings, set(d, 0))
		}
		cells = append(cells, base)
		for j, d := range dims {
			for i := 1; i < len(d.Values); i++ {
				c := Cell{Index: len(cells) + 1, Settings: append([]Setting(nil), base.Settings...)}
				c.Settings[j] = set(d, i)
				cells = append(cells, c)
			}
		}
	default:
		return nil, fmt.Errorf("unknown strategy %q (grid or one-at-a-time)", strategy)
	}
	return cells, nil
}

// Plan is everything that defines a sweep; a results file can only
// be resumed by the same plan.
type Plan struct {
	Mode        string      `json:"mode"` // produce, consume or e2e
	Strategy    string      `json:"strategy"`
	Preset      string      `json:"preset,omitempty"`
	Dimensions  []Dimension `json:"dimensions"`
	TopicPrefix string      `json:"topic_prefix"`
	// A run measures Records records or for DurationSec seconds (one of
	// the two); the warm-up (WarmupRecords records, or WarmupDurationSec)
	// comes on top and is excluded from every statistic.
	Records           int64   `json:"records"`
	DurationSec       float64 `json:"duration_sec,omitempty"`
	WarmupRecords     int64   `json:"warmup_records"`
	WarmupDurationSec float64 `json:"warmup_duration_sec,omitempty"`
	Repeat            int     `json:"repeat"`
	Throughput        float64 `json:"throughput"` // records/s per run; <= 0 unthrottled
	RecordSize        int     `json:"record_size"`
	Producers         int     `json:"producers"`
	Consumers         int     `json:"consumers"`
	Partitions        int     `json:"partitions"`
	ReplicationFactor int     `json:"replication_factor"`
	KeyCardinality    int     `json:"key_cardinality"`
	// Properties are the fixed client properties (key=value, sorted;
	// secret values are redacted).
	Properties []string `json:"properties,omitempty"`
	// Coordinator and Agents: a sweep varying agents runs every cell on
	// the first N of Agents through the Trogdor coordinator.
	Coordinator string   `json:"coordinator,omitempty"`
	Agents      []string `json:"agents,omitempty"`
}

// OverAgents reports whether the plan varies the number of agents: its
// cells then run distributed (kbox perf distributed's driver).
func (p *Plan) OverAgents() bool {
	for _, d := range p.Dimensions {
		if d.Name == DimAgents {
			return true
		}
	}
	return false
}

// CheckAgents checks a sweep over agents once its dimensions are parsed:
// it needs the coordinator and the agents, no cell may ask for more agents
// than were given, and a run sized by --records needs a record per agent.
func (p *Plan) CheckAgents() error {
	if !p.OverAgents() {
		if p.Coordinator != "" || len(p.Agents) > 0 {
			return errors.New("--coordinator and --agents go with --vary agents=N1,N2,... (a sweep over Trogdor agents)")
		}
		return nil
	}
	if p.Coordinator == "" {
		return errors.New("--vary agents runs each cell on Trogdor agents: give --coordinator URL (or set TROGDOR_COORDINATOR) and --agents a,b,c")
	}
	if len(p.Agents) == 0 {
		return errors.New("--vary agents runs each cell on Trogdor agents: give --agents a,b,c (or set TROGDOR_AGENTS)")
	}
	for _, d := range p.Dimensions {
		if d.Name != DimAgents {
			continue
		}
		for i, v := range d.Values {
			n, _ := strconv.Atoi(v)
			if n > len(p.Agents) {
				return fmt.Errorf("--vary agents: %s is more than the %d agents of --agents", d.Labels[i], len(p.Agents))
			}
			if p.Records > 0 && p.Records < int64(n) {
				return fmt.Errorf("--records %d is fewer than one record per agent (%d agents)", p.Records, n)
			}
			if p.KeyCardinality > 0 && p.KeyCardinality < n {
				return fmt.Errorf("--key-cardinality %d is fewer than one key per agent (%d agents)", p.KeyCardinality, n)
			}
		}
	}
	return nil
}

// AgentsFor returns the agents a cell runs on: the first N of the plan's
// agents for the cell's agents=N (nil when the plan does not vary agents).
func (p *Plan) AgentsFor(c Cell) []string {
	if !p.OverAgents() {
		return nil
	}
	n := p.Workload(c).Agents
	if n < 1 || n > len(p.Agents) {
		return nil
	}
	return p.Agents[:n]
}

// Validate checks the plan's fixed numbers.
func (p *Plan) Validate() error {
	switch {
	case p.Mode != "produce" && p.Mode != "consume" && p.Mode != "e2e":
		return fmt.Errorf("unknown sweep mode %q", p.Mode)
	case p.TopicPrefix == "":
		return errors.New("--topic-prefix is required")
	case p.Records < 0 || p.DurationSec < 0:
		return errors.New("--records and --duration must be positive")
	case p.Mode == "consume" && p.Records == 0:
		return errors.New("a consume sweep reads topics filled before its runs: size its runs with --records")
	case (p.Records > 0) == (p.DurationSec > 0):
		return errors.New("size each run with either --records or --duration")
	case p.Mode == "consume" && p.WarmupDurationSec > 0:
		return errors.New("a consume sweep's topics hold --records plus --warmup-records records: give its warm-up by count")
	case p.WarmupRecords < 0 || p.WarmupDurationSec < 0:
		return errors.New("--warmup-records and --warmup-duration must not be negative")
	case p.Repeat < 1:
		return errors.New("--repeat must be at least 1")
	case p.RecordSize < 1 || p.Producers < 1 || p.Consumers < 1 || p.Partitions < 1 || p.ReplicationFactor < 1:
		return errors.New("--record-size, --producers, --consumers, --partitions and --replication-factor must be positive")
	case p.KeyCardinality < 0:
		return errors.New("--key-cardinality must not be negative")
	}
	return nil
}

// Workload is the effective workload of one cell.
type Workload struct {
	RecordSize        int
	Producers         int
	Consumers         int
	Partitions        int
	ReplicationFactor int
	KeyCardinality    int
	// Agents is the number of Trogdor agents of a sweep over agents.
	Agents int
	// Props are the cell's varied client properties.
	Props map[string]string
}

// Workload returns the cell's workload: the plan's fixed values overridden
// by the cell's workload dimensions.
func (p *Plan) Workload(c Cell) Workload {
	w := Workload{RecordSize: p.RecordSize, Producers: p.Producers, Consumers: p.Consumers, Partitions: p.Partitions,
		ReplicationFactor: p.ReplicationFactor, KeyCardinality: p.KeyCardinality, Props: map[string]string{}}
	for i, s := range c.Settings {
		n, _ := strconv.Atoi(s.Value)
		if i < len(p.Dimensions) && !p.Dimensions[i].Workload {
			w.Props[s.Name] = s.Value
			continue
		}
		switch s.Name {
		case DimRecordSize:
			w.RecordSize = n
		case DimProducers:
			w.Producers = n
		case DimConsumers:
			w.Consumers = n
		case DimPartitions:
			w.Partitions = n
		case DimReplicationFactor:
			w.ReplicationFactor = n
		case DimKeyCardinality:
			w.KeyCardinality = n
		case DimAgents:
			w.Agents = n
		default:
			w.Props[s.Name] = s.Value
		}
	}
	return w
}

// topicDims are the dimensions that need a topic of their own: for a
// produce sweep the topic's shape, for a consume sweep also what the
// topic was filled with.
func (p *Plan) topicDims() map[string]bool {
	// A sweep over agents gives each cell a topic of its own: what each
	// cell wrote is on its topic.
	m := map[string]bool{DimPartitions: true, DimReplicationFactor: true, DimAgents: true}
	if p.Mode == "consume" {
		m[DimRecordSize] = true
		m[DimKeyCardinality] = true
	}
	return m
}

// TopicFor names the topic of a cell. shared is false when the cell gets a
// fresh topic of its own (a produce sweep varying partitions or
// replication-factor). Consume sweeps share one filled topic between the
// cells that read the same data.
func (p *Plan) TopicFor(c Cell, cells []Cell) (name string, shared bool) {
	td := p.topicDims()
	varies := false
	for _, d := range p.Dimensions {
		if d.Workload && td[d.Name] {
			varies = true
		}
	}
	if !varies {
		return p.TopicPrefix, true
	}
	if p.Mode != "consume" {
		return fmt.Sprintf("%s-c%d", p.TopicPrefix, c.Index), false
	}
	key := func(c Cell) string {
		var parts []string
		for _, s := range c.Settings {
			if td[s.Name] {
				parts = append(parts, s.Name+"="+s.Value)
			}
		}
		return strings.Join(parts, " ")
	}
	k, n := key(c), 0
	seen := map[string]bool{}
	for _, o := range cells {
		ok := key(o)
		if seen[ok] {
			continue
		}
		seen[ok] = true
		n++
		if ok == k {
			break
		}
	}
	return fmt.Sprintf("%s-f%d", p.TopicPrefix, n), true
}

// Duration is the measured time of a run (0 when runs are sized by records).
func (p *Plan) Duration() time.Duration { return secDuration(p.DurationSec) }

// WarmupDuration is the timed warm-up of a run.
func (p *Plan) WarmupDuration() time.Duration { return secDuration(p.WarmupDurationSec) }

func secDuration(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

// Totals is what a sweep will send and read.
type Totals struct {
	Cells      int
	Runs       int   // cells × repeat
	RunRecords int64 // records per run incl. warm-up (0: runs sized by time)
	Records    int64 // produced or consumed by the runs (0: runs sized by time)
	// RunTime is the measured time of all runs (runs sized by time),
	// warm-ups excluded.
	RunTime     time.Duration
	FillTopics  int   // consume sweep: topics filled before the runs
	FillRecords int64 // consume sweep: records produced to fill them
}

// Total is every record the sweep moves.
func (t Totals) Total() int64 { return t.Records + t.FillRecords }

// Totals computes the sweep's size before anything runs.
func (p *Plan) Totals(cells []Cell) Totals {
	t := Totals{Cells: len(cells), Runs: len(cells) * p.Repeat}
	if p.Records > 0 {
		t.RunRecords = p.Records + p.WarmupRecords
		t.Records = int64(t.Runs) * t.RunRecords
	} else {
		t.RunTime = time.Duration(t.Runs) * p.Duration()
	}
	if p.Mode == "consume" {
		seen := map[string]bool{}
		for _, c := range cells {
			name, _ := p.TopicFor(c, cells)
			seen[name] = true
		}
		t.FillTopics = len(seen)
		t.FillRecords = int64(t.FillTopics) * t.RunRecords
	}
	return t
}

// Compatible reports how a stored plan differs from this one (nil when a
// results file written by prev can be resumed).
func (p *Plan) Compatible(prev *Plan) error {
	a, _ := json.Marshal(p)
	b, _ := json.Marshal(prev)
	if string(a) == string(b) {
		return nil
	}
	var ma, mb map[string]any
	_ = json.Unmarshal(a, &ma)
	_ = json.Unmarshal(b, &mb)
	var diff []string
	for k := range ma {
		x, _ := json.Marshal(ma[k])
		y, _ := json.Marshal(mb[k])
		if string(x) != string(y) {
			diff = append(diff, k)
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			diff = append(diff, k)
		}
	}
	sort.Strings(diff)
	return fmt.Errorf("it was written by a different sweep (differs in %s)", strings.Join(diff, ", "))
}
