package configs

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseAddConfig(t *testing.T) {
	cases := []struct {
		in   string
		want Props
		err  bool
	}{
		{in: "k1=v1,k2=[v1,v2,v2],k3=v3", want: Props{{"k1", "v1"}, {"k2", "v1,v2,v2"}, {"k3", "v3"}}},
		{in: "a = b ,c=d", want: Props{{"a", "b"}, {"c", "d"}}},
		{in: "ssl.endpoint.identification.algorithm=", want: Props{{"ssl.endpoint.identification.algorithm", ""}}},
		{in: "a=1,a=2", want: Props{{"a", "2"}}},
		{in: "a=b,", want: Props{{"a", "b"}}},
		{in: "SCRAM-SHA-256=[iterations=8192,password=a=b,c]", want: Props{{"SCRAM-SHA-256", "iterations=8192,password=a=b,c"}}},
		{in: "x=[a,b", want: nil, err: true}, // the comma is outside any closed bracket: "b" has no '='
		{in: "a=b=c", err: true},
		{in: "", err: true},
		{in: ",a=b", err: true},
		{in: "novalue", err: true},
	}
	for _, c := range cases {
		var p Props
		err := ParseAddConfig(&p, c.in)
		if (err != nil) != c.err {
			t.Errorf("%q: err %v, want error %v", c.in, err, c.err)
			continue
		}
		if err != nil {
			if err.Error() != ErrAddConfigFormat {
				t.Errorf("%q: message %q", c.in, err)
			}
			continue
		}
		if !reflect.DeepEqual(p, c.want) {
			t.Errorf("%q: got %v, want %v", c.in, p, c.want)
		}
	}
}

func TestValidateKeys(t *testing.T) {
	if err := ValidateKeys(Props{{"kafka.server.ReplicaManager$LogDirFailureHandler", "INFO"}, {"a-b_c.1", ""}}); err != nil {
		t.Fatal(err)
	}
	err := ValidateKeys(Props{{"ok", "1"}, {"bad key", "1"}})
	if err == nil || err.Error() != "Invalid character found for config key: bad key" {
		t.Fatalf("got %v", err)
	}
}

func TestParseScram(t *testing.T) {
	u, err := ParseScram("SCRAM-SHA-256", "iterations=8192,password=se,cr=et")
	if err != nil || u.Iterations != 8192 || u.Password != "se,cr=et" {
		t.Fatalf("got %+v %v", u, err)
	}
	if u, err = ParseScram("SCRAM-SHA-512", "password=p"); err != nil || u.Iterations != 4096 {
		t.Fatalf("default iterations: %+v %v", u, err)
	}
	if u, err = ParseScram("SCRAM-SHA-512", "iterations=-1,password=p"); err != nil || u.Iterations != 4096 {
		t.Fatalf("-1 iterations: %+v %v", u, err)
	}
	bad := []struct{ in, msg string }{
		{"iterations=100,password=topsecret", "Iterations 100 is less than the minimum 4096 required for SCRAM-SHA-256"},
		{"iterations=,password=topsecret", `For input string: ""`},
		{"iterations=99999999999,password=topsecret", `For input string: "99999999999"`},
		{"pass=x", "Invalid credential property SCRAM_SHA_256=pass=x"},
		{"iterations=x,password=topsecret", "Invalid credential property SCRAM_SHA_256=iterations=x,password=<redacted>"},
	}
	for _, b := range bad {
		_, err := ParseScram("SCRAM-SHA-256", b.in)
		if err == nil || err.Error() != b.msg {
			t.Errorf("%q: got %v, want %q", b.in, err, b.msg)
		}
		if err != nil && strings.Contains(err.Error(), "topsecret") {
			t.Errorf("%q: password in error %q", b.in, err)
		}
	}
}

func TestRedactPasswords(t *testing.T) {
	in := "--add-config SCRAM-SHA-256=[iterations=8192,password=a,b],SCRAM-SHA-512=[password=c] --user u"
	want := "--add-config SCRAM-SHA-256=[iterations=8192,password=<redacted>],SCRAM-SHA-512=[password=<redacted>] --user u"
	if got := RedactPasswords(in); got != want {
		t.Fatalf("got %q", got)
	}
	if got := RedactPasswords("password=x y"); got != "password=<redacted>" {
		t.Fatalf("unbracketed: %q", got)
	}
}

func TestValidateTopicName(t *testing.T) {
	for name, msg := range map[string]string{
		"":                       "Topic name is invalid: the empty string is not allowed",
		".":                      "Topic name is invalid: '.' is not allowed",
		"a b":                    "Topic name is invalid: 'a b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'",
		strings.Repeat("x", 250): "Topic name is invalid: the length of '" + strings.Repeat("x", 250) + "' is longer than the max allowed length 249",
	} {
		if err := ValidateTopicName(name); err == nil || err.Error() != msg {
			t.Errorf("%q: got %v", name, err)
		}
	}
	if err := ValidateTopicName("ok.topic_1-" + strings.Repeat("x", 238)); err != nil {
		t.Errorf("valid name refused: %v", err)
	}
}

func TestWriteApache(t *testing.T) {
	v := func(s string) *string { return &s }
	var b bytes.Buffer
	err := WriteEntriesApache(&b, []Entry{
		{Name: "retention.ms", Value: v("3600000"), Synonyms: []Synonym{{"retention.ms", v("3600000"), "DYNAMIC_TOPIC_CONFIG"}, {"log.retention.hours", v("168"), "DEFAULT_CONFIG"}}},
		{Name: "ssl.key.password", Sensitive: true, Synonyms: []Synonym{{"ssl.key.password", nil, "STATIC_BROKER_CONFIG"}}},
		{Name: "x", Value: v("")},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "  retention.ms=3600000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=3600000, DEFAULT_CONFIG:log.retention.hours=168}\n" +
		"  ssl.key.password=null sensitive=true synonyms={STATIC_BROKER_CONFIG:ssl.key.password=null}\n" +
		"  x= sensitive=false synonyms={}\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	qs := Quotas{
		{Entity: []QuotaComponent{{Type: QuotaClientID, Name: v("c1")}, {Type: QuotaUser, Name: v("alice")}}, Values: []QuotaValue{{"request_percentage", 12.5}}},
		{Entity: []QuotaComponent{{Type: QuotaClientID}}, Values: []QuotaValue{{"producer_byte_rate", 1e7}, {"consumer_byte_rate", 4096}}},
		{Entity: []QuotaComponent{{Type: QuotaIP, Name: v("")}}, Values: []QuotaValue{{"connection_creation_rate", 0.001}}},
	}
	if err := qs.WriteApache(&b); err != nil {
		t.Fatal(err)
	}
	want = "Quota configs for user-principal 'alice', client-id 'c1' are request_percentage=12.5\n" +
		"Quota configs for the default client-id are producer_byte_rate=1.0E7, consumer_byte_rate=4096.0\n" +
		"Quota configs for the default ip are connection_creation_rate=0.001\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteScramApache(&b, []ScramUser{{User: "bob", Credentials: []ScramCredential{{"SCRAM-SHA-256", 8192}, {"SCRAM-SHA-512", 4096}}}}); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "SCRAM credential configs for user-principal 'bob' are SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096\n" {
		t.Fatalf("scram: %q", got)
	}
}

func sp(s string) *string { return &s }

// A topic's default is what it falls back to without its own override:
// the first synonym after the topic's own, in the broker's order; a
// config the topic does not override is at its default. A broker's is
// Kafka's (DEFAULT_CONFIG).
func TestDefaultOn(t *testing.T) {
	topic := Resource{Type: Topic, Name: "t"}
	cases := []struct {
		name string
		e    Entry
		r    Resource
		want *string
		ok   bool
	}{
		{"cluster default before Kafka's, in the topic's units", Entry{Name: "retention.ms", Value: sp("1000"), Source: "DYNAMIC_TOPIC_CONFIG", Synonyms: []Synonym{
			{"retention.ms", sp("1000"), "DYNAMIC_TOPIC_CONFIG"}, {"log.retention.ms", sp("86400000"), "DYNAMIC_DEFAULT_BROKER_CONFIG"}, {"log.retention.hours", sp("168"), "DEFAULT_CONFIG"}}}, topic, sp("86400000"), true},
		{"static before Kafka's", Entry{Name: "min.insync.replicas", Value: sp("1"), Source: "DYNAMIC_TOPIC_CONFIG", Synonyms: []Synonym{
			{"min.insync.replicas", sp("1"), "DYNAMIC_TOPIC_CONFIG"}, {"min.insync.replicas", sp("2"), "STATIC_BROKER_CONFIG"}, {"min.insync.replicas", sp("1"), "DEFAULT_CONFIG"}}}, topic, sp("2"), true},
		{"per-broker dynamic first", Entry{Name: "segment.bytes", Value: sp("1"), Source: "DYNAMIC_TOPIC_CONFIG", Synonyms: []Synonym{
			{"segment.bytes", sp("1"), "DYNAMIC_TOPIC_CONFIG"}, {"log.segment.bytes", sp("5000000"), "DYNAMIC_BROKER_CONFIG"}, {"log.segment.bytes", sp("7000000"), "DYNAMIC_DEFAULT_BROKER_CONFIG"}}}, topic, sp("5000000"), true},
		{"not overridden: inherited", Entry{Name: "min.insync.replicas", Value: sp("2"), Source: "DYNAMIC_DEFAULT_BROKER_CONFIG", Synonyms: []Synonym{
			{"min.insync.replicas", sp("2"), "DYNAMIC_DEFAULT_BROKER_CONFIG"}, {"min.insync.replicas", sp("1"), "DEFAULT_CONFIG"}}}, topic, sp("2"), true},
		{"not overridden, no synonym", Entry{Name: "retention.ms", Value: sp("604800000"), Source: "DEFAULT_CONFIG"}, topic, sp("604800000"), true},
		{"overridden, nothing after", Entry{Name: "retention.ms", Value: sp("1000"), Source: "DYNAMIC_TOPIC_CONFIG", Synonyms: []Synonym{
			{"retention.ms", sp("1000"), "DYNAMIC_TOPIC_CONFIG"}}}, topic, nil, false},
		{"broker: Kafka's default", Entry{Name: "log.cleaner.threads", Value: sp("2"), Source: "DYNAMIC_BROKER_CONFIG", Synonyms: []Synonym{
			{"log.cleaner.threads", sp("2"), "DYNAMIC_BROKER_CONFIG"}, {"log.cleaner.threads", sp("3"), "STATIC_BROKER_CONFIG"}, {"log.cleaner.threads", sp("1"), "DEFAULT_CONFIG"}}}, Resource{Type: Broker, Name: "1"}, sp("1"), true},
	}
	for _, c := range cases {
		got, ok := c.e.defaultOn(c.r)
		if ok != c.ok || !eq(got, c.want) {
			t.Errorf("%s: got %v %v, want %v %v", c.name, deref(got), ok, deref(c.want), c.ok)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// The broker-wide default of a topic config the broker derives from a
// chain of broker configs in other units: the first one set, in ms.
func TestChainValue(t *testing.T) {
	broker := func(kv ...string) map[string]Entry {
		m := map[string]Entry{}
		for i := 0; i < len(kv); i += 2 {
			e := Entry{Name: kv[i]}
			if kv[i+1] != "null" {
				e.Value = sp(kv[i+1])
			}
			m[kv[i]] = e
		}
		return m
	}
	cases := []struct {
		key    string
		broker map[string]Entry
		want   string // "" when unknown
	}{
		{"retention.ms", broker("log.retention.ms", "null", "log.retention.minutes", "null", "log.retention.hours", "168"), "604800000"},
		{"retention.ms", broker("log.retention.ms", "null", "log.retention.minutes", "90", "log.retention.hours", "168"), "5400000"},
		{"retention.ms", broker("log.retention.ms", "3000", "log.retention.minutes", "90", "log.retention.hours", "168"), "3000"},
		{"retention.ms", broker("log.retention.ms", "null", "log.retention.minutes", "null", "log.retention.hours", "-1"), "-1"},
		{"segment.ms", broker("log.roll.ms", "null", "log.roll.hours", "24"), "86400000"},
		{"segment.jitter.ms", broker("log.roll.jitter.ms", "null", "log.roll.jitter.hours", "0"), "0"},
		{"flush.ms", broker("log.flush.interval.ms", "null", "log.flush.scheduler.interval.ms", "9223372036854775807"), "9223372036854775807"},
		{"retention.ms", broker("log.retention.ms", "null"), ""}, // the broker does not describe the rest
		{"retention.ms", broker("log.retention.ms", "null", "log.retention.minutes", "null", "log.retention.hours", "x"), ""},
	}
	for _, c := range cases {
		v, ok := chainValue(c.key, topicBrokerChains[c.key], c.broker)
		if got := deref(v); ok != (c.want != "") || ok && got != c.want {
			t.Errorf("%s %v: got %s %v, want %q", c.key, c.broker, got, ok, c.want)
		}
	}
}

func TestKnowsKey(t *testing.T) {
	known := map[string]bool{"ssl.keystore.type": true, "sasl.jaas.config": true, "log.retention.ms": true}
	for key, want := range map[string]bool{
		"log.retention.ms":                                      true,
		"listener.name.internal.ssl.keystore.type":              true,
		"listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config": true,
		"listener.name.internal.nosuch":                         false,
		"listener.name.a.b.c.ssl.keystore.type":                 false,
		"foo.bar":                                               false,
		"listener.name.":                                        false,
	} {
		if got := knowsKey(known, key, true); got != want {
			t.Errorf("broker %q: %v, want %v", key, got, want)
		}
	}
	if knowsKey(known, "listener.name.internal.ssl.keystore.type", false) {
		t.Error("a topic knows a listener config")
	}
}

func TestSuggest(t *testing.T) {
	known := map[string]bool{}
	for _, k := range []string{"log.retention.ms", "log.retention.hours", "log.retention.minutes", "log.local.retention.ms", "log.cleaner.delete.retention.ms", "retention.ms", "cleanup.policy", "segment.ms", "segment.bytes"} {
		known[k] = true
	}
	for key, want := range map[string]string{
		"log.retention.hour": "log.retention.hours",
		"cleanup.polcy":      "cleanup.policy",
		"retnetion.ms":       "retention.ms",
		"segment.byte":       "segment.bytes",
		"foo.bar":            "",
		"x":                  "",
	} {
		if got := strings.Join(suggest(key, known), ","); got != want {
			t.Errorf("%q: %q, want %q", key, got, want)
		}
	}
	// A dot away: the nearest such name, before a closer spelling.
	delete(known, "retention.ms")
	if got := strings.Join(suggest("retention.ms", known), ","); got != "log.retention.ms" {
		t.Errorf("retention.ms: %q", got)
	}
	if got := strings.Join(suggest("log.segment.ms", known), ","); got != "segment.ms" {
		t.Errorf("log.segment.ms: %q", got)
	}
}

func TestUnknownKeysText(t *testing.T) {
	other := func(kind string) string { return "it is a " + kind + " config: give --" + kind }
	b1 := Ref{"broker", "1"}
	for _, c := range []struct {
		e    UnknownKeysError
		want string
	}{
		{UnknownKeysError{b1, []UnknownKey{{Name: "foo.bar"}}}, "unknown config foo.bar for broker 1 (the broker does not describe it)"},
		{UnknownKeysError{b1, []UnknownKey{{Name: "retention.ms", Suggestions: []string{"log.retention.ms"}, OtherKind: "topic"}}},
			"unknown config retention.ms for broker 1 (it is a topic config: give --topic; did you mean log.retention.ms?)"},
		{UnknownKeysError{b1, []UnknownKey{{Name: "a", Suggestions: []string{"b", "c", "d"}}, {Name: "e"}}},
			"unknown configs for broker 1 (the broker does not describe them): a (did you mean b, c or d?), e"},
		{UnknownKeysError{Ref{"broker-defaults", ""}, []UnknownKey{{Name: "x"}, {Name: "log.cleaner.threads", NotSet: true}}},
			"unknown config x for the broker defaults (the broker does not describe it); no cluster-wide default is set for log.cleaner.threads (a broker describes it)"},
	} {
		if got := c.e.Text(other); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
		if !errors.Is(&c.e, ErrUnknownKey) {
			t.Errorf("%v is not ErrUnknownKey", c.e)
		}
	}
}
