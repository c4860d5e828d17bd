package metrics

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Tag is one metric tag; tags keep Java's insertion order.
type Tag struct{ Key, Value string }

// Name is Java's MetricName.
type Name struct {
	Name  string
	Group string
	Tags  []Tag
}

// String is "group:name:{k=v, k=v}", the name ToolsUtils.printMetrics shows
// (a Java Map's toString for the tags).
func (n Name) String() string {
	var b strings.Builder
	b.WriteString(n.Group)
	b.WriteByte(':')
	b.WriteString(n.Name)
	b.WriteString(":{")
	for i, t := range n.Tags {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.Key)
		b.WriteByte('=')
		b.WriteString(t.Value)
	}
	b.WriteByte('}')
	return b.String()
}

// Value is one metric's value at the time of a snapshot (Java's
// metricValue() of a measurable metric, always a double).
type Value struct {
	Name
	Value float64
}

type metric struct {
	name Name
	st   stat
}

// Registry holds a client's metrics. Its methods are safe for concurrent
// use (franz-go calls hooks from several goroutines).
type Registry struct {
	cfg Config
	now func() int64

	mu      sync.Mutex
	metrics []*metric          // in registration order
	byName  map[string]*metric // Name.String() → metric
	sensors map[string]*sensor
}

// NewRegistry returns an empty registry with Java's default windows.
func NewRegistry() *Registry { return NewRegistryWith(DefaultConfig) }

// NewRegistryWith returns an empty registry with the windows of cfg
// (WindowMs and Samples at least 1).
func NewRegistryWith(cfg Config) *Registry {
	cfg.WindowMs, cfg.Samples = max(cfg.WindowMs, 1), max(cfg.Samples, 1)
	return &Registry{cfg: cfg, now: func() int64 { return time.Now().UnixMilli() },
		byName: map[string]*metric{}, sensors: map[string]*sensor{}}
}

// sensor records one measurement into several statistics at once (a Java
// Sensor: a Meter's rate and total, an Avg and a Max).
type sensor struct{ stats []stat }

// Snapshot measures every metric now, in registration order.
func (r *Registry) Snapshot() []Value {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	out := make([]Value, 0, len(r.metrics))
	for _, m := range r.metrics {
		out = append(out, Value{Name: m.name, Value: m.st.measure(r.cfg, now)})
	}
	return out
}

// Sorted returns vs sorted by their printed names (ToolsUtils.printMetrics'
// TreeMap order).
func Sorted(vs []Value) []Value {
	out := append([]Value(nil), vs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name.String() < out[j].Name.String() })
	return out
}

// kind of statistics a sensor keeps.
type kind int

const (
	meterSum   kind = iota // <x>-rate (windowed sum) and <x>-total
	meterCount             // <x>-rate (windowed count) and <x>-total
	avgMax                 // <x>-avg and <x>-max
	maxOnly                // <x>-max
	avgOnly                // <x>-avg
	value                  // <x>: the last value recorded
)

// add registers the metrics of one sensor under group and tags (locked).
func (r *Registry) sensorLocked(group, base string, k kind, tags []Tag, names ...string) *sensor {
	key := group + "\x00" + base + "\x00" + strconv.Itoa(int(k)) + Name{Tags: tags}.String()
	if s, ok := r.sensors[key]; ok {
		return s
	}
	s := &sensor{}
	reg := func(name string, st stat) {
		n := Name{Name: name, Group: group, Tags: tags}
		ks := n.String()
		if m, ok := r.byName[ks]; ok {
			s.stats = append(s.stats, m.st)
			return
		}
		m := &metric{name: n, st: st}
		r.byName[ks] = m
		r.metrics = append(r.metrics, m)
		s.stats = append(s.stats, st)
	}
	rateName, totalName := base+"-rate", base+"-total"
	if len(names) == 2 {
		rateName, totalName = names[0], names[1]
	}
	switch k {
	case meterSum:
		reg(rateName, rate{newWindowedSum()})
		reg(totalName, &total{})
	case meterCount:
		reg(rateName, rate{newWindowedCount()})
		reg(totalName, &total{count: true})
	case avgMax:
		reg(base+"-avg", newAvg())
		reg(base+"-max", newMax())
	case maxOnly:
		reg(base+"-max", newMax())
	case avgOnly:
		reg(base+"-avg", newAvg())
	case value:
		reg(base, &gauge{})
	}
	r.sensors[key] = s
	return s
}

// record feeds v into the sensor (created on first use).
func (r *Registry) record(group, base string, k kind, tags []Tag, v float64, names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sensorLocked(group, base, k, tags, names...)
	now := r.now()
	for _, st := range s.stats {
		st.record(r.cfg, v, now)
	}
}

// ensure registers a sensor's metrics without recording (Java registers
// most sensors when the client starts, so they show as 0 or NaN).
func (r *Registry) ensure(group, base string, k kind, tags []Tag, names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sensorLocked(group, base, k, tags, names...)
}
