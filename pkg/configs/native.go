package configs

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/pkg/config"
)

// Ref names a resource in kbox's schemas: kind "topic", "broker" or
// "broker-defaults" (name "").
type Ref struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// RefOf is r's reference.
func RefOf(r Resource) Ref {
	switch {
	case r.Type == Topic:
		return Ref{"topic", r.Name}
	case r.Type == Broker && r.Name == "":
		return Ref{"broker-defaults", ""}
	case r.Type == Broker:
		return Ref{"broker", r.Name}
	case r.Type == BrokerLogger:
		return Ref{"broker-logger", r.Name}
	case r.Type == ClientMetrics:
		return Ref{"client-metrics", r.Name}
	case r.Type == Group:
		return Ref{"group", r.Name}
	}
	return Ref{"unknown", r.Name}
}

func (r Ref) String() string {
	if r.Kind == "broker-defaults" {
		return "the broker defaults"
	}
	return r.Kind + " " + r.Name
}

// SourceText is a source as kbox prints it ("dynamic topic", "static
// broker", "default").
func SourceText(s string) string {
	s = strings.TrimSuffix(s, "_CONFIG")
	if s == "DEFAULT" {
		return "default"
	}
	return strings.ReplaceAll(strings.ToLower(s), "_", " ")
}

func sourceKey(s string) string { return strings.ReplaceAll(SourceText(s), " ", "_") }

// defaultValue is the value Kafka itself defaults the config to (its
// DEFAULT_CONFIG synonym), and whether there is one.
func (e Entry) defaultValue() (*string, bool) {
	for _, s := range e.Synonyms {
		if s.Source == "DEFAULT_CONFIG" {
			return s.Value, true
		}
	}
	if e.Source == "DEFAULT_CONFIG" {
		return e.Value, true
	}
	return nil, false
}

// defaultOn is e's default on r, and whether the broker's answer tells it.
//
// A topic's default is the value the config takes without the topic's own
// override: the broker-wide value it inherits. The broker lists a topic
// config's synonyms in the order it applies them (the topic's own
// override, then the broker's dynamic config, the cluster-wide dynamic
// default, the static server.properties value, Kafka's default), so it is
// the first synonym after the topic's own; a config the topic does not
// override is at its default. Not Kafka's DEFAULT_CONFIG synonym: a
// cluster-wide default (min.insync.replicas=2) comes first, and the
// DEFAULT_CONFIG synonym of retention.ms is log.retention.hours=168,
// in hours.
//
// Any other resource's default is Kafka's own (the DEFAULT_CONFIG synonym).
func (e Entry) defaultOn(r Resource) (*string, bool) {
	if r.Type != Topic {
		return e.defaultValue()
	}
	own := DynamicSource(r)
	if e.Source != own {
		return e.Value, true
	}
	for _, s := range e.Synonyms {
		if s.Source != own {
			return s.Value, true
		}
	}
	return nil, false
}

// unitSynonym is a broker config from which the broker derives a topic
// config's broker-wide default, in units of Scale milliseconds.
type unitSynonym struct {
	Name  string
	Scale int64
}

// topicBrokerChains are the topic configs whose broker-wide default the
// broker derives from the first set of several broker configs in other
// units (Kafka's ServerTopicConfigSynonyms and KafkaConfig). When the
// first of them (log.retention.ms) is set nowhere, the broker reports no
// synonym after a topic's own override at all, so DescribeDefaults reads
// the chain from a broker's own configs.
var topicBrokerChains = map[string][]unitSynonym{
	"retention.ms":      {{"log.retention.ms", 1}, {"log.retention.minutes", 60_000}, {"log.retention.hours", 3_600_000}},
	"segment.ms":        {{"log.roll.ms", 1}, {"log.roll.hours", 3_600_000}},
	"segment.jitter.ms": {{"log.roll.jitter.ms", 1}, {"log.roll.jitter.hours", 3_600_000}},
	"flush.ms":          {{"log.flush.interval.ms", 1}, {"log.flush.scheduler.interval.ms", 1}},
}

// chainValue is the value the broker derives from chain with its
// configs: the first one set, in milliseconds (a negative retention is
// -1, unlimited, as KafkaConfig makes it).
func chainValue(key string, chain []unitSynonym, broker map[string]Entry) (*string, bool) {
	for _, u := range chain {
		b, ok := broker[u.Name]
		if !ok || b.Sensitive {
			return nil, false
		}
		if b.Value == nil || *b.Value == "" {
			continue
		}
		n, err := strconv.ParseInt(*b.Value, 10, 64)
		if err != nil || n > math.MaxInt64/u.Scale || n < math.MinInt64/u.Scale {
			return nil, false
		}
		n *= u.Scale
		if key == "retention.ms" && n < 0 {
			n = -1
		}
		v := strconv.FormatInt(n, 10)
		return &v, true
	}
	return nil, false
}

// DescribeDefaults is Describe with each entry's default on r (defaultOn).
// A topic config the topic overrides and whose broker-wide default the
// broker derives from a chain of broker configs (topicBrokerChains), none
// of which its synonyms name, takes the default from the configs of the
// first broker the cluster lists; when they cannot be read, the default
// stays unknown.
func (s *Service) DescribeDefaults(ctx context.Context, r Resource, docs bool) ([]Entry, error) {
	entries, err := s.Describe(ctx, r, docs)
	if err != nil {
		return nil, err
	}
	var chained []int
	for i := range entries {
		e := &entries[i]
		e.def, e.hasDef = e.defaultOn(r)
		if !e.hasDef && !e.Sensitive && r.Type == Topic && topicBrokerChains[e.Name] != nil {
			chained = append(chained, i)
		}
	}
	if len(chained) == 0 {
		return entries, nil
	}
	ids, err := s.BrokerIDs(ctx)
	if err != nil || len(ids) == 0 {
		return entries, nil
	}
	bes, err := s.Describe(ctx, Resource{Type: Broker, Name: strconv.Itoa(int(ids[0]))}, false)
	if err != nil {
		return entries, nil
	}
	broker := make(map[string]Entry, len(bes))
	for _, b := range bes {
		broker[b.Name] = b
	}
	for _, i := range chained {
		e := &entries[i]
		e.def, e.hasDef = chainValue(e.Name, topicBrokerChains[e.Name], broker)
	}
	return entries, nil
}

// ConfigValue is one config with where its value comes from.
type ConfigValue struct {
	Name      string  `json:"name"`
	Value     *string `json:"value"`
	Source    string  `json:"source"`
	Default   *string `json:"default"`
	Sensitive bool    `json:"sensitive,omitempty"`
	ReadOnly  bool    `json:"read_only"`
}

// valueOf is e as kbox prints it, with the default DescribeDefaults found.
func valueOf(e Entry) ConfigValue {
	d := e.def
	if e.Sensitive {
		d = nil
	}
	return ConfigValue{Name: e.Name, Value: e.Value, Source: sourceKey(e.Source), Default: d, Sensitive: e.Sensitive, ReadOnly: e.ReadOnly}
}

// ConfigList is `kbox configs get`.
type ConfigList struct {
	Resource Ref           `json:"resource"`
	Configs  []ConfigValue `json:"configs"`
}

func text(s *string, sensitive bool) string {
	switch {
	case sensitive:
		return "(sensitive)"
	case s == nil:
		return "(null)"
	}
	return *s
}

// Header implements output.Tabular.
func (l *ConfigList) Header() []string { return []string{"NAME", "VALUE", "SOURCE", "DEFAULT"} }

// Rows implements output.Tabular.
func (l *ConfigList) Rows() [][]string {
	var out [][]string
	for _, c := range l.Configs {
		d := text(c.Default, c.Sensitive)
		if c.Default == nil && !c.Sensitive {
			d = ""
		}
		out = append(out, []string{c.Name, text(c.Value, c.Sensitive), strings.ReplaceAll(c.Source, "_", " "), d})
	}
	return out
}

// Get returns r's configs: keys only when given, else every config with
// all, else those not at Kafka's default (source other than DEFAULT_CONFIG).
func Get(ctx context.Context, s *Service, r Resource, keys []string, all bool) (*ConfigList, error) {
	entries, err := s.DescribeDefaults(ctx, r, false)
	if err != nil {
		return nil, err
	}
	l := &ConfigList{Resource: RefOf(r), Configs: []ConfigValue{}}
	if len(keys) > 0 {
		byName := map[string]Entry{}
		for _, e := range entries {
			byName[e.Name] = e
		}
		var missing []string
		for _, k := range keys {
			if _, ok := byName[k]; !ok {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			return nil, s.unknownKeys(ctx, r, missing, entries, true)
		}
		for _, k := range keys {
			l.Configs = append(l.Configs, valueOf(byName[k]))
		}
		return l, nil
	}
	for _, e := range entries {
		if all || e.Source != "DEFAULT_CONFIG" {
			l.Configs = append(l.Configs, valueOf(e))
		}
	}
	return l, nil
}

// ConfigChange is one alteration of `kbox configs set|unset`. NewValue of
// a deletion is the value the config falls back to, null when the broker
// does not report it (no synonym from another source). Sensitive values
// are always null.
type ConfigChange struct {
	Name     string  `json:"name"`
	Op       string  `json:"op"`
	OldValue *string `json:"old_value"`
	NewValue *string `json:"new_value"`
	Source   string  `json:"old_source"`
}

// ChangeResult is `kbox configs set|unset`.
type ChangeResult struct {
	Resource Ref            `json:"resource"`
	DryRun   bool           `json:"dry_run"`
	Changes  []ConfigChange `json:"changes"`
}

// Header implements output.Tabular.
func (c *ChangeResult) Header() []string {
	return []string{"NAME", "OP", "OLD VALUE", "NEW VALUE", "RESULT"}
}

// Rows implements output.Tabular.
func (c *ChangeResult) Rows() [][]string {
	res := "applied"
	if c.DryRun {
		res = "valid (dry run, not applied)"
	}
	var out [][]string
	for _, ch := range c.Changes {
		nv := text(ch.NewValue, false)
		if ch.Op == "delete" && ch.NewValue == nil {
			nv = "(default)" // the broker did not say which value applies
		}
		out = append(out, []string{ch.Name, ch.Op, text(ch.OldValue, false), nv, res})
	}
	return out
}

// ChangeOption changes what Change accepts.
type ChangeOption int

// AllowUnknown lets Change set and delete configs the broker does not know
// for the resource's type (a plugin's, which Kafka accepts on brokers).
const AllowUnknown ChangeOption = 1

// Change applies ops to r (validate-only when dryRun) and reports each
// config's value before and after. A config name the broker does not know
// for r's type is refused before anything is sent (an *UnknownKeysError
// with what it may have meant; nothing is changed), unless AllowUnknown.
// A deleted config falls back to the next source in its synonyms.
// Sensitive values are never reported, nor the value of a name the broker
// does not list that names a secret (config.IsSecretKey).
func Change(ctx context.Context, s *Service, r Resource, ops []Op, dryRun bool, opts ...ChangeOption) (*ChangeResult, error) {
	before, err := s.DescribeDefaults(ctx, r, false)
	if err != nil {
		return nil, err
	}
	allowUnknown := false
	for _, o := range opts {
		allowUnknown = allowUnknown || o == AllowUnknown
	}
	if !allowUnknown {
		names := make([]string, len(ops))
		for i, o := range ops {
			names[i] = o.Name
		}
		if err := s.unknownKeys(ctx, r, names, before, false); err != nil {
			return nil, err
		}
	}
	byName := map[string]Entry{}
	for _, e := range before {
		byName[e.Name] = e
	}
	if err := s.Alter(ctx, r, ops, dryRun); err != nil {
		return nil, err
	}
	res := &ChangeResult{Resource: RefOf(r), DryRun: dryRun, Changes: []ConfigChange{}}
	for _, o := range ops {
		e, known := byName[o.Name]
		c := ConfigChange{Name: o.Name, Op: "set", Source: "none"}
		if known {
			c.OldValue, c.Source = e.Value, sourceKey(e.Source)
		}
		// A name the broker does not list (a listener-prefixed password, a
		// plugin's secret set with AllowUnknown) is judged by its name.
		sensitive := known && e.Sensitive || !known && config.IsSecretKey(o.Name)
		if o.Op == Delete {
			c.Op = "delete"
			c.NewValue = fallback(e, r, known)
		} else {
			v := o.Value
			c.NewValue = &v
		}
		if sensitive {
			c.OldValue, c.NewValue = nil, nil
		}
		res.Changes = append(res.Changes, c)
	}
	return res, nil
}

// fallback is the value a config takes when r's own dynamic value is
// deleted: a topic's default (DescribeDefaults), else the first synonym
// from another source (nil when there is none).
func fallback(e Entry, r Resource, known bool) *string {
	if !known {
		return nil
	}
	if r.Type == Topic {
		return e.def
	}
	own := DynamicSource(r)
	if e.Source != own {
		return e.Value
	}
	for _, s := range e.Synonyms {
		if s.Source != own {
			return s.Value
		}
	}
	return nil
}

// Difference is one config that differs.
type Difference struct {
	Name  string      `json:"name"`
	Left  ConfigValue `json:"left"`
	Right ConfigValue `json:"right"`
}

// Diff is `kbox configs diff`: against the defaults (Right is the
// default, Against "defaults"), or between two resources.
type Diff struct {
	Left        Ref          `json:"left"`
	Right       *Ref         `json:"right"`
	Differences []Difference `json:"differences"`
}

// Header implements output.Tabular.
func (d *Diff) Header() []string {
	if d.Right == nil {
		return []string{"NAME", "VALUE", "SOURCE", "DEFAULT"}
	}
	return []string{"NAME", strings.ToUpper(d.Left.String()), strings.ToUpper(d.Right.String()), "SOURCES"}
}

// Rows implements output.Tabular.
func (d *Diff) Rows() [][]string {
	var out [][]string
	for _, x := range d.Differences {
		if d.Right == nil {
			out = append(out, []string{x.Name, text(x.Left.Value, false), strings.ReplaceAll(x.Left.Source, "_", " "), text(x.Right.Value, false)})
			continue
		}
		src := strings.ReplaceAll(x.Left.Source+" / "+x.Right.Source, "_", " ")
		out = append(out, []string{x.Name, text(x.Left.Value, false), text(x.Right.Value, false), src})
	}
	return out
}

func eq(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// Compare diffs one resource against Kafka's defaults, or two resources
// against each other. Sensitive configs are left out (their values are
// never returned).
func Compare(ctx context.Context, s *Service, rs []Resource) (*Diff, error) {
	left, err := s.DescribeDefaults(ctx, rs[0], false)
	if err != nil {
		return nil, err
	}
	d := &Diff{Left: RefOf(rs[0]), Differences: []Difference{}}
	if len(rs) == 1 {
		for _, e := range left {
			if e.Sensitive || e.Source == "DEFAULT_CONFIG" {
				continue
			}
			def, ok := e.def, e.hasDef
			if ok && eq(def, e.Value) {
				continue
			}
			right := ConfigValue{Name: e.Name, Value: def, Source: "default"}
			if !ok {
				right.Source = "none"
			}
			d.Differences = append(d.Differences, Difference{Name: e.Name, Left: valueOf(e), Right: right})
		}
		return d, nil
	}
	right, err := s.DescribeDefaults(ctx, rs[1], false)
	if err != nil {
		return nil, err
	}
	rr := RefOf(rs[1])
	d.Right = &rr
	lm, rm := map[string]Entry{}, map[string]Entry{}
	var names []string
	for _, e := range left {
		lm[e.Name] = e
		names = append(names, e.Name)
	}
	for _, e := range right {
		if _, ok := lm[e.Name]; !ok {
			names = append(names, e.Name)
		}
		rm[e.Name] = e
	}
	sort.Strings(names)
	for _, n := range names {
		l, lok := lm[n]
		r, rok := rm[n]
		if l.Sensitive || r.Sensitive {
			continue
		}
		if lok && rok && eq(l.Value, r.Value) {
			continue
		}
		x := Difference{Name: n, Left: ConfigValue{Name: n, Source: "none"}, Right: ConfigValue{Name: n, Source: "none"}}
		if lok {
			x.Left = valueOf(l)
		}
		if rok {
			x.Right = valueOf(r)
		}
		d.Differences = append(d.Differences, x)
	}
	return d, nil
}

// Explanation is `kbox configs explain KEY`.
type Explanation struct {
	Name          string    `json:"name"`
	Resource      Ref       `json:"resource"`
	Type          string    `json:"type"`
	Value         *string   `json:"value"`
	Source        string    `json:"source"`
	Default       *string   `json:"default"`
	ReadOnly      bool      `json:"read_only"`
	Sensitive     bool      `json:"sensitive"`
	Documentation *string   `json:"documentation"`
	Synonyms      []Synonym `json:"synonyms"`
}

// ExplainKey describes key on r with the broker's documentation.
func ExplainKey(ctx context.Context, s *Service, r Resource, key string) (*Explanation, error) {
	entries, err := s.DescribeDefaults(ctx, r, true)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Name != key {
			continue
		}
		x := &Explanation{Name: e.Name, Resource: RefOf(r), Type: e.Type, Value: e.Value, Source: sourceKey(e.Source),
			ReadOnly: e.ReadOnly, Sensitive: e.Sensitive, Documentation: e.Documentation, Synonyms: []Synonym{}}
		if e.hasDef && !e.Sensitive {
			x.Default = e.def
		}
		for _, s := range e.Synonyms {
			x.Synonyms = append(x.Synonyms, Synonym{Name: s.Name, Value: s.Value, Source: sourceKey(s.Source)})
		}
		return x, nil
	}
	if err := s.unknownKeys(ctx, r, []string{key}, entries, true); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w %s for %s", ErrUnknownKey, key, RefOf(r))
}

// Text is the explanation as kbox prints it for people.
func (x *Explanation) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s) on %s\n", x.Name, x.Type, x.Resource)
	fmt.Fprintf(&b, "  value:     %s (%s)\n", text(x.Value, x.Sensitive), strings.ReplaceAll(x.Source, "_", " "))
	def := "(none)"
	if x.Default != nil {
		def = *x.Default
	} else if x.Sensitive {
		def = "(sensitive)"
	}
	fmt.Fprintf(&b, "  default:   %s\n", def)
	yn := func(v bool) string {
		if v {
			return "yes"
		}
		return "no"
	}
	fmt.Fprintf(&b, "  read-only: %s\n  sensitive: %s\n", yn(x.ReadOnly), yn(x.Sensitive))
	if len(x.Synonyms) > 0 {
		var parts []string
		for _, s := range x.Synonyms {
			parts = append(parts, fmt.Sprintf("%s=%s (%s)", s.Name, text(s.Value, x.Sensitive), strings.ReplaceAll(s.Source, "_", " ")))
		}
		fmt.Fprintf(&b, "  set by:    %s\n", strings.Join(parts, ", "))
	}
	if x.Documentation != nil && *x.Documentation != "" {
		b.WriteString("\n" + wrap(*x.Documentation, 78) + "\n")
	} else {
		b.WriteString("\n(the broker returned no documentation for this config)\n")
	}
	return b.String()
}

func wrap(s string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
