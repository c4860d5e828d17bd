package configs

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/internal/editdist"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ErrUnknownKey is what every UnknownKeysError unwraps to: a config name
// the broker does not describe for the resource.
var ErrUnknownKey = errors.New("unknown config")

// UnknownKey is one config name the broker does not know for a resource.
type UnknownKey struct {
	Name string
	// Suggestions are the nearest names the broker knows for the
	// resource's type (edit distance), best first; none when no name is
	// close.
	Suggestions []string
	// OtherKind is "topic" or "broker" when the name is a config of that
	// other kind of resource (retention.ms asked of a broker).
	OtherKind string
	// NotSet: the name is a broker config that has no cluster-wide
	// default set (only set defaults are described).
	NotSet bool
}

// UnknownKeysError lists the config names a command gave that the broker
// does not know for Resource, with what they may have meant.
type UnknownKeysError struct {
	Resource Ref
	Keys     []UnknownKey
}

func (e *UnknownKeysError) Unwrap() error { return ErrUnknownKey }

func (e *UnknownKeysError) Error() string {
	return e.Text(func(kind string) string { return "it is a " + kind + " config" })
}

// Text is the error's one line, with other(kind) saying what to do about a
// config of the other kind of resource ("it is a topic config: give
// --topic NAME").
func (e *UnknownKeysError) Text(other func(kind string) string) string {
	hints := func(k UnknownKey) string {
		var parts []string
		if k.OtherKind != "" {
			parts = append(parts, other(k.OtherKind))
		}
		if n := len(k.Suggestions); n > 0 {
			s := k.Suggestions[0]
			if n > 1 {
				s = strings.Join(k.Suggestions[:n-1], ", ") + " or " + k.Suggestions[n-1]
			}
			parts = append(parts, "did you mean "+s+"?")
		}
		return strings.Join(parts, "; ")
	}
	var notSet []string
	var unknown []UnknownKey
	anyHint := false
	for _, k := range e.Keys {
		if k.NotSet {
			notSet = append(notSet, k.Name)
			continue
		}
		unknown = append(unknown, k)
		anyHint = anyHint || hints(k) != ""
	}
	var msgs []string
	switch {
	case len(unknown) == 1 && anyHint:
		msgs = append(msgs, fmt.Sprintf("%s %s for %s (%s)", ErrUnknownKey, unknown[0].Name, e.Resource, hints(unknown[0])))
	case len(unknown) == 1:
		msgs = append(msgs, fmt.Sprintf("%s %s for %s (the broker does not describe it)", ErrUnknownKey, unknown[0].Name, e.Resource))
	case len(unknown) > 1:
		names := make([]string, len(unknown))
		for i, k := range unknown {
			names[i] = k.Name
			if h := hints(k); h != "" {
				names[i] += " (" + h + ")"
			}
		}
		msgs = append(msgs, fmt.Sprintf("%ss for %s (the broker does not describe them): %s", ErrUnknownKey, e.Resource, strings.Join(names, ", ")))
	}
	if len(notSet) > 0 {
		msgs = append(msgs, fmt.Sprintf("no cluster-wide default is set for %s (a broker describes it)", strings.Join(notSet, ", ")))
	}
	return strings.Join(msgs, "; ")
}

// knowsKey reports whether key is a config of a resource that describes
// the names in known: one of them, or a broker's per-listener form of one
// (listener.name.LISTENER.KEY, and listener.name.LISTENER.MECHANISM.KEY for
// SASL settings), which a broker describes only once it is set.
func knowsKey(known map[string]bool, key string, broker bool) bool {
	if known[key] {
		return true
	}
	rest, ok := strings.CutPrefix(key, "listener.name.")
	if !broker || !ok {
		return false
	}
	for i := 0; i < 2; i++ {
		_, after, ok := strings.Cut(rest, ".")
		if !ok {
			return false
		}
		rest = after
		if known[rest] {
			return true
		}
	}
	return false
}

// suggest returns the known names nearest to key: within a few edits, or
// one a dot away (retention.ms and log.retention.ms), the nearest of those
// first; at most three, then by name.
func suggest(key string, known map[string]bool) []string {
	type score struct{ edits, dist int }
	limit := min(max(2, len(key)/5), 4)
	best := score{limit + 1, 0}
	var out []string
	for k := range known {
		d := editdist.Distance(key, k)
		sc := score{d, d}
		if strings.HasSuffix(k, "."+key) || strings.HasSuffix(key, "."+k) {
			sc.edits = min(d, 1)
		}
		switch {
		case sc.edits < best.edits || sc.edits == best.edits && sc.dist < best.dist:
			best, out = sc, []string{k}
		case sc == best:
			out = append(out, k)
		}
	}
	if best.edits > limit {
		return nil
	}
	sort.Strings(out)
	return out[:min(len(out), 3)]
}

// typeKeys returns the names the broker knows for r's type: a topic's or
// a broker's own configs (described before, when given), a broker's for
// the broker defaults (which describe only the defaults set); set holds
// what r itself describes.
func (s *Service) typeKeys(ctx context.Context, r Resource, described []Entry) (known, set map[string]bool, err error) {
	if described == nil {
		if described, err = s.Describe(ctx, r, false); err != nil {
			return nil, nil, err
		}
	}
	set = map[string]bool{}
	for _, e := range described {
		set[e.Name] = true
	}
	if r.Type != Broker || r.Name != "" {
		return set, set, nil
	}
	known = map[string]bool{}
	for k := range set {
		known[k] = true
	}
	broker, err := s.someResourceKeys(ctx, Broker)
	if err != nil {
		return nil, nil, err
	}
	for k := range broker {
		known[k] = true
	}
	return known, set, nil
}

// someResourceKeys returns the config names of one resource of type t (the
// first broker the cluster lists; the first topic by name), or none when
// the cluster has no such resource.
func (s *Service) someResourceKeys(ctx context.Context, t kmsg.ConfigResourceType) (map[string]bool, error) {
	var r Resource
	switch t {
	case Broker:
		ids, err := s.BrokerIDs(ctx)
		if err != nil || len(ids) == 0 {
			return nil, err
		}
		r = Resource{Type: Broker, Name: strconv.Itoa(int(ids[0]))}
	case Topic:
		names, err := s.ListTopics(ctx)
		if err != nil || len(names) == 0 {
			return nil, err
		}
		sort.Strings(names)
		r = Resource{Type: Topic, Name: names[0]}
	default:
		return nil, nil
	}
	es, err := s.Describe(ctx, r, false)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(es))
	for _, e := range es {
		out[e.Name] = true
	}
	return out, nil
}

// unknownKeys returns an *UnknownKeysError for the keys the broker does not
// know for r's type (nil when it knows them all); described is r's
// Describe, when the caller has it. With notSet, a name known for the type
// that r does not describe (a broker default not set) is one too. Which
// other kind of resource a key belongs to is looked up only for unknown
// keys, and only told when that lookup works.
func (s *Service) unknownKeys(ctx context.Context, r Resource, keys []string, described []Entry, notSet bool) error {
	known, set, err := s.typeKeys(ctx, r, described)
	if err != nil {
		return err
	}
	broker := r.Type == Broker
	var unknown []UnknownKey
	for _, k := range keys {
		switch {
		case set[k]:
		case knowsKey(known, k, broker):
			if notSet {
				unknown = append(unknown, UnknownKey{Name: k, NotSet: true})
			}
		default:
			unknown = append(unknown, UnknownKey{Name: k, Suggestions: suggest(k, known)})
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	other, kind := Topic, "topic"
	if r.Type == Topic {
		other, kind = Broker, "broker"
	}
	if r.Type == Topic || r.Type == Broker {
		if okeys, err := s.someResourceKeys(ctx, other); err == nil {
			for i := range unknown {
				if !unknown[i].NotSet && knowsKey(okeys, unknown[i].Name, other == Broker) {
					unknown[i].OtherKind = kind
				}
			}
		}
	}
	return &UnknownKeysError{Resource: RefOf(r), Keys: unknown}
}
