// Package clientmetrics reads and changes client-metrics subscriptions
// (KIP-714): the CLIENT_METRICS config resources (type 16) that tell
// clients which metrics to push, how often, and which clients match. It
// asks the cluster what Apache 4.4's kafka-client-metrics
// (ClientMetricsCommand) asks: IncrementalAlterConfigs, DescribeConfigs
// and ListConfigResources; cmd/clientmetrics prints.
package clientmetrics

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/pkg/configs"
	"github.com/kboxdev/kbox/pkg/javaerr"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/twmb/franz-go/pkg/kerr"
)

// The configs of a subscription.
const (
	IntervalKey = "interval.ms"
	MetricsKey  = "metrics"
	MatchKey    = "match"
)

// TimeoutMs is the timeout ClientMetricsCommand puts in its alterations.
const TimeoutMs = 30000

// resource is the CLIENT_METRICS config resource called name.
func resource(name string) configs.Resource {
	return configs.Resource{Type: configs.ClientMetrics, Name: name}
}

// Change is what --alter asks for; a nil field is not changed. An empty
// value (an --interval "" or a --metrics "") deletes that config, as in
// Apache's tool.
type Change struct {
	Interval *string
	Metrics  []string // nil: not given
	Match    []string // nil: not given
}

// SplitValues is jopt-simple's withValuesSeparatedBy(','): each value of a
// repeated option split on ',' with empty pieces dropped (StringTokenizer);
// a value with no piece at all ("", ",") is kept whole. nil stays nil.
func SplitValues(vals []string) []string {
	if vals == nil {
		return nil
	}
	out := []string{}
	for _, v := range vals {
		var pieces []string
		for _, p := range strings.Split(v, ",") {
			if p != "" {
				pieces = append(pieces, p)
			}
		}
		if len(pieces) == 0 {
			pieces = []string{v}
		}
		out = append(out, pieces...)
	}
	return out
}

// ValidInterval is the tool's own check of --interval: empty (reset) or a
// Java int (Integer.parseInt: an optional sign and decimal digits).
func ValidInterval(v string) bool {
	if v == "" {
		return true
	}
	_, err := strconv.ParseInt(v, 10, 32)
	return err == nil
}

// Ops are the alterations of a Change: SET for a value, DELETE for an
// empty one.
func (c Change) Ops() []configs.Op {
	var ops []configs.Op
	add := func(key, v string) {
		if v == "" {
			ops = append(ops, configs.Op{Name: key, Op: configs.Delete})
			return
		}
		ops = append(ops, configs.Op{Name: key, Value: v, Op: configs.Set})
	}
	if c.Interval != nil {
		add(IntervalKey, *c.Interval)
	}
	if c.Metrics != nil {
		add(MetricsKey, strings.Join(c.Metrics, ","))
	}
	if c.Match != nil {
		add(MatchKey, strings.Join(c.Match, ","))
	}
	return ops
}

// GenerateName is Uuid.randomUuid().toString() of the Kafka client: 16
// random bytes in unpadded URL-safe base64, never starting with '-' (nor
// the all-zero or metadata topic ids, which 16 random bytes with the
// version bits set cannot be).
func GenerateName() string {
	for {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			panic(err)
		}
		b[6] = b[6]&0x0f | 0x40 // version 4, as java.util.UUID.randomUUID
		b[8] = b[8]&0x3f | 0x80 // IETF variant
		s := base64.RawURLEncoding.EncodeToString(b[:])
		if !strings.HasPrefix(s, "-") {
			return s
		}
	}
}

// Alter applies c to the subscription name in one request (all or none).
func Alter(ctx context.Context, s *configs.Service, name string, c Change) error {
	return s.Alter(ctx, resource(name), c.Ops(), false)
}

// Delete removes every config of the subscription name, as the tool's
// --delete does: it describes the subscription, then deletes each config
// described in one request.
func Delete(ctx context.Context, s *configs.Service, name string) error {
	entries, err := s.Describe(ctx, resource(name), false)
	if err != nil {
		return err
	}
	ops := make([]configs.Op, 0, len(entries))
	for _, e := range entries {
		ops = append(ops, configs.Op{Name: e.Name, Op: configs.Delete})
	}
	return s.Alter(ctx, resource(name), ops, false)
}

// Names lists the subscriptions in the broker's order.
func Names(ctx context.Context, s *configs.Service) ([]string, error) {
	return s.ListConfigResources(ctx, configs.ClientMetrics)
}

// List is the result of --list.
type List struct {
	Subscriptions []string `json:"subscriptions"`
	order         []string
}

// NewList is the list of names, given in the broker's order.
func NewList(names []string) *List {
	sorted := slices.Clone(names)
	if sorted == nil {
		sorted = []string{}
	}
	sort.Strings(sorted)
	return &List{Subscriptions: sorted, order: names}
}

// WriteApache prints the names one a line, in the broker's order; no
// subscription is one empty line (Java's println of an empty join).
func (l *List) WriteApache(w io.Writer) error {
	_, err := fmt.Fprintln(w, strings.Join(l.order, "\n"))
	return err
}

// Header is the table header.
func (l *List) Header() []string { return []string{"NAME"} }

// Rows are the table rows.
func (l *List) Rows() [][]string {
	rows := make([][]string, 0, len(l.Subscriptions))
	for _, n := range l.Subscriptions {
		rows = append(rows, []string{n})
	}
	return rows
}

// Config is one config of a subscription as the broker describes it.
type Config struct {
	Name  string  `json:"name"`
	Value *string `json:"value"`
}

// Subscription is one described subscription.
type Subscription struct {
	Name string `json:"name"`
	// IntervalMs is interval.ms; null when the broker gives none or it is
	// not a number.
	IntervalMs *int64 `json:"interval_ms"`
	// Metrics are the metric name prefixes ("*" all), [] none.
	Metrics []string `json:"metrics"`
	// Match are the client selectors (client_id=regex, ...), [] every
	// client.
	Match []string `json:"match"`
	// Configs are every config the broker described, by name.
	Configs []Config `json:"configs"`
	// javaOrder are the configs in the order of the tool's HashMap.
	javaOrder []Config
}

// Description is the result of --describe.
type Description struct {
	Subscriptions []Subscription `json:"subscriptions"`
	// missing is the --name that names no subscription ("" none).
	missing *string
}

// Describe describes the subscriptions as --describe does: with a name
// only that one, when the cluster lists it (else the description says so);
// without, every one listed.
func Describe(ctx context.Context, s *configs.Service, name *string) (*Description, error) {
	names, err := Names(ctx, s)
	if err != nil {
		return nil, err
	}
	d := &Description{Subscriptions: []Subscription{}}
	if name != nil {
		if !slices.Contains(names, *name) {
			d.missing = name
			return d, nil
		}
		names = []string{*name}
	}
	for _, n := range names {
		entries, err := s.Describe(ctx, resource(n), false)
		if err != nil {
			return nil, err
		}
		d.Subscriptions = append(d.Subscriptions, newSubscription(n, entries))
	}
	return d, nil
}

func newSubscription(name string, entries []configs.Entry) Subscription {
	sub := Subscription{Name: name, Metrics: []string{}, Match: []string{}, Configs: []Config{}}
	byName := map[string]Config{}
	var keys []string
	for _, e := range entries {
		c := Config{Name: e.Name, Value: e.Value}
		sub.Configs = append(sub.Configs, c)
		if _, dup := byName[e.Name]; !dup {
			keys = append(keys, e.Name)
		}
		byName[e.Name] = c // a later entry of the same name replaces it, as in Config's HashMap
		if e.Value == nil {
			continue
		}
		switch e.Name {
		case IntervalKey:
			if n, err := strconv.ParseInt(*e.Value, 10, 64); err == nil {
				sub.IntervalMs = &n
			}
		case MetricsKey:
			sub.Metrics = splitList(*e.Value)
		case MatchKey:
			sub.Match = splitList(*e.Value)
		}
	}
	sort.SliceStable(sub.Configs, func(i, j int) bool { return sub.Configs[i].Name < sub.Configs[j].Name })
	for _, k := range javafmt.HashMapOrder(keys, -1) {
		sub.javaOrder = append(sub.javaOrder, byName[k])
	}
	return sub
}

// splitList is a broker LIST config's items: split on ',', trimmed, empty
// ones dropped.
func splitList(v string) []string {
	out := []string{}
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Sort puts the subscriptions in name order (the native views).
func (d *Description) Sort() {
	sort.SliceStable(d.Subscriptions, func(i, j int) bool { return d.Subscriptions[i].Name < d.Subscriptions[j].Name })
}

// WriteApache prints the description as the tool does: "Client metrics
// configs for NAME are:" and "  key=value" lines (a null value "null"),
// the configs in the order of Java's Config HashMap; or the line for a
// --name the cluster does not list.
func (d *Description) WriteApache(w io.Writer) error {
	var b strings.Builder
	if d.missing != nil {
		fmt.Fprintf(&b, "The client metric resource %s doesn't exist and doesn't have dynamic config.\n", *d.missing)
	}
	for _, s := range d.Subscriptions {
		fmt.Fprintf(&b, "Client metrics configs for %s are:\n", s.Name)
		for _, c := range s.javaOrder {
			v := "null"
			if c.Value != nil {
				v = *c.Value
			}
			fmt.Fprintf(&b, "  %s=%s\n", c.Name, v)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Header is the table header.
func (d *Description) Header() []string {
	return []string{"NAME", "INTERVAL MS", "METRICS", "MATCH"}
}

// Rows are the table rows.
func (d *Description) Rows() [][]string {
	rows := make([][]string, 0, len(d.Subscriptions))
	for _, s := range d.Subscriptions {
		iv := ""
		if s.IntervalMs != nil {
			iv = strconv.FormatInt(*s.IntervalMs, 10)
		}
		rows = append(rows, []string{s.Name, iv, strings.Join(s.Metrics, ","), strings.Join(s.Match, ",")})
	}
	return rows
}

// JavaException is the exception the Java admin client raises for a
// broker's error: its class and message (the broker's message, else
// Kafka's default one for the code); ok is false for any other error.
func JavaException(err error) (class, msg string, ok bool) {
	var ke *kerr.Error
	if !errors.As(err, &ke) {
		return "", "", false
	}
	msg = ke.Description
	var ce *configs.Error
	if errors.As(err, &ce) && ce.Message != "" {
		msg = ce.Message
	}
	return javaerr.Class(ke.Code), msg, true
}
