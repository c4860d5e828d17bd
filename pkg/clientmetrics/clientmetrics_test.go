package clientmetrics

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/pkg/configs"
	"github.com/twmb/franz-go/pkg/kerr"
)

// jopt-simple's withValuesSeparatedBy(','), as the real tool splits
// (--metrics a,,b --metrics c was a,b,c; --metrics , stayed ",").
func TestSplitValues(t *testing.T) {
	for _, c := range []struct {
		in, want []string
	}{
		{nil, nil},
		{[]string{""}, []string{""}},
		{[]string{","}, []string{","}},
		{[]string{"a,,b", "c"}, []string{"a", "b", "c"}},
		{[]string{"a,"}, []string{"a"}},
		{[]string{"client_id=x", "client_source_port=5"}, []string{"client_id=x", "client_source_port=5"}},
	} {
		if got := SplitValues(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}

// Integer.parseInt, or empty.
func TestValidInterval(t *testing.T) {
	for v, want := range map[string]bool{"": true, "100": true, "+500": true, "-5": true, "2147483647": true,
		"2147483648": false, "99999999999": false, "abc": false, "1_000": false, " 1": false, "1.5": false, "+": false} {
		if ValidInterval(v) != want {
			t.Errorf("%q: %v", v, !want)
		}
	}
}

func TestOps(t *testing.T) {
	iv, empty := "1000", ""
	got := Change{Interval: &iv, Metrics: []string{"a", "b"}, Match: []string{""}}.Ops()
	want := []configs.Op{{Name: "interval.ms", Value: "1000", Op: configs.Set}, {Name: "metrics", Value: "a,b", Op: configs.Set}, {Name: "match", Op: configs.Delete}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%+v", got)
	}
	if got := (Change{Interval: &empty}).Ops(); len(got) != 1 || got[0].Op != configs.Delete {
		t.Errorf("empty interval: %+v", got)
	}
	if got := (Change{}).Ops(); len(got) != 0 {
		t.Errorf("nothing: %+v", got)
	}
}

func TestGenerateName(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		n := GenerateName()
		if len(n) != 22 || strings.HasPrefix(n, "-") || strings.ContainsAny(n, "+/=") || seen[n] {
			t.Fatalf("%q", n)
		}
		seen[n] = true
	}
}

func sp(s string) *string { return &s }

// The configs print in the order of Java's Config HashMap, whatever the
// broker's order; a null value prints "null".
func TestWriteApache(t *testing.T) {
	entries := []configs.Entry{{Name: "metrics", Value: sp("m")}, {Name: "match", Value: nil}, {Name: "interval.ms", Value: sp("500")}}
	d := &Description{Subscriptions: []Subscription{newSubscription("b", entries), newSubscription("a", entries[:1])}}
	var w bytes.Buffer
	if err := d.WriteApache(&w); err != nil {
		t.Fatal(err)
	}
	want := "Client metrics configs for b are:\n  interval.ms=500\n  match=null\n  metrics=m\nClient metrics configs for a are:\n  metrics=m\n"
	if w.String() != want {
		t.Errorf("%q", w.String())
	}
	s := d.Subscriptions[0]
	if *s.IntervalMs != 500 || !reflect.DeepEqual(s.Metrics, []string{"m"}) || len(s.Match) != 0 || s.Configs[0].Name != "interval.ms" {
		t.Errorf("%+v", s)
	}
	d.Sort()
	if d.Subscriptions[0].Name != "a" {
		t.Errorf("sort: %+v", d.Subscriptions)
	}
	w.Reset()
	missing := &Description{Subscriptions: []Subscription{}, missing: sp("x")}
	_ = missing.WriteApache(&w)
	if w.String() != "The client metric resource x doesn't exist and doesn't have dynamic config.\n" {
		t.Errorf("%q", w.String())
	}
}

func TestList(t *testing.T) {
	var w bytes.Buffer
	l := NewList(nil)
	_ = l.WriteApache(&w)
	if w.String() != "\n" || l.Subscriptions == nil {
		t.Errorf("empty: %q %v", w.String(), l.Subscriptions)
	}
	w.Reset()
	l = NewList([]string{"b", "a"})
	_ = l.WriteApache(&w)
	if w.String() != "b\na\n" || !reflect.DeepEqual(l.Subscriptions, []string{"a", "b"}) {
		t.Errorf("%q %v", w.String(), l.Subscriptions)
	}
}

func TestJavaException(t *testing.T) {
	class, msg, ok := JavaException(&configs.Error{Err: kerr.InvalidConfig, Message: "Illegal client matching pattern: x"})
	if !ok || class != "org.apache.kafka.common.errors.InvalidConfigurationException" || msg != "Illegal client matching pattern: x" {
		t.Errorf("%s %s %v", class, msg, ok)
	}
	class, msg, ok = JavaException(fmt.Errorf("wrapped: %w", &configs.Error{Err: kerr.InvalidRequest}))
	if !ok || class != "org.apache.kafka.common.errors.InvalidRequestException" || msg != kerr.InvalidRequest.Description {
		t.Errorf("%s %s %v", class, msg, ok)
	}
	if _, _, ok := JavaException(fmt.Errorf("dial")); ok {
		t.Error("not a broker error")
	}
}
