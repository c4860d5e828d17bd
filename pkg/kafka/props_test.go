package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
)

func props(t *testing.T, text string) *config.Properties {
	t.Helper()
	p, err := config.ParsePropertiesString(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestJavaDefaultsDifferFromKgo(t *testing.T) {
	c, err := Parse(nil, Consumer)
	if err != nil {
		t.Fatal(err)
	}
	if c.AutoOffsetReset != "latest" || c.FetchMaxWait != 500*time.Millisecond || c.MaxPollRecords != 500 {
		t.Fatalf("consumer defaults: reset=%s wait=%s poll=%d", c.AutoOffsetReset, c.FetchMaxWait, c.MaxPollRecords)
	}
	p, err := Parse(nil, Producer)
	if err != nil {
		t.Fatal(err)
	}
	if p.Compression != "none" || p.Acks != "all" || !p.Idempotent || p.Linger != 5*time.Millisecond {
		t.Fatalf("producer defaults: %+v", p.EffectiveSorted())
	}
}

func TestIdempotenceFollowsJava(t *testing.T) {
	cases := []struct {
		text    string
		idem    bool
		errProp string
	}{
		{"acks=1", false, ""},
		{"acks=0", false, ""},
		{"acks=-1", true, ""},
		{"retries=0", false, ""},
		{"max.in.flight.requests.per.connection=6", false, ""},
		{"acks=1\nenable.idempotence=true", false, "acks"},
		{"retries=0\nenable.idempotence=true", false, "retries"},
		{"max.in.flight.requests.per.connection=6\nenable.idempotence=true", false, "max.in.flight.requests.per.connection"},
		{"enable.idempotence=false", false, ""},
		{"acks=1\ntransactional.id=x", false, "transactional.id"},
	}
	for _, c := range cases {
		s, err := Parse(props(t, c.text), Producer)
		if c.errProp != "" {
			pe, ok := err.(*PropertyError)
			if !ok || pe.Name != c.errProp {
				t.Errorf("%q: want error naming %s, got %v", c.text, c.errProp, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if s.Idempotent != c.idem {
			t.Errorf("%q: idempotent=%v want %v", c.text, s.Idempotent, c.idem)
		}
		if _, err := s.Opts(); err != nil {
			t.Errorf("%q: opts: %v", c.text, err)
		}
	}
}

func TestMalformedValuesNameTheProperty(t *testing.T) {
	for _, text := range []string{
		"acks=2", "linger.ms=abc", "linger.ms=-1", "batch.size=1.5", "enable.idempotence=yes",
		"compression.type=brotli", "security.protocol=TLS", "auto.offset.reset=oldest",
		"isolation.level=dirty", "partition.assignment.strategy=foo", "group.protocol=new",
		"fetch.max.bytes=", "auto.offset.reset=by_duration:1h",
	} {
		key, _, _ := strings.Cut(text, "=")
		role := Producer | Consumer
		_, err := Parse(props(t, text), role)
		if err == nil {
			t.Errorf("%q: no error", text)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "property "+key+": ") || strings.Contains(msg, "\n") {
			t.Errorf("%q: error %q does not name the property in one line", text, msg)
		}
	}
}

func TestIgnoredPropertiesAreReportedByName(t *testing.T) {
	s, err := Parse(props(t, "send.buffer.bytes=1\nno.such.thing=1\ngroup.id=g\nclient.id=c\n"), Admin)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ig := range s.Ignored {
		got[ig.Name] = ig.Reason
	}
	if got["send.buffer.bytes"] == "" || got["no.such.thing"] != "unknown property" || !strings.Contains(got["group.id"], "admin") {
		t.Fatalf("ignored: %v", s.Ignored)
	}
	if _, ok := got["client.id"]; ok || s.ClientID != "c" {
		t.Fatalf("client.id should apply: %v", s.Ignored)
	}
}

func TestBatchSizeIsNotARecordLimit(t *testing.T) {
	s, err := Parse(props(t, "batch.size=16384"), Producer)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.EffectiveBatchMaxBytes(); got != 16384 {
		t.Fatalf("batch max = %d", got)
	}
	s.MaxRecordBytes = 100000
	if got := s.EffectiveBatchMaxBytes(); got < 100000 {
		t.Fatalf("a 100 kB record must fit: batch max = %d", got)
	}
	s2, _ := Parse(props(t, "batch.size=16384\nmax.request.size=50000"), Producer)
	s2.MaxRecordBytes = 100000
	if got := s2.EffectiveBatchMaxBytes(); got != 50000 {
		t.Fatalf("capped by max.request.size: %d", got)
	}
}

func TestSASLFromJAAS(t *testing.T) {
	s, err := Parse(props(t, `security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="s3cret";
`), Admin)
	if err != nil {
		t.Fatal(err)
	}
	if s.SASLUser != "alice" || s.saslPassword != "s3cret" || s.saslMechanism() == nil {
		t.Fatalf("sasl: user=%q mech=%q", s.SASLUser, s.SASLMechanism)
	}
	for _, l := range s.EffectiveSorted() {
		if strings.Contains(l, "s3cret") {
			t.Fatalf("secret in effective settings: %s", l)
		}
	}
	_, err = Parse(props(t, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=GSSAPI\n"), Admin)
	if err == nil || !strings.Contains(err.Error(), "GSSAPI") {
		t.Fatalf("GSSAPI: %v", err)
	}
	_, err = Parse(props(t, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=x required password=\"hunter2\""), Admin)
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("malformed jaas must fail without echoing the secret: %v", err)
	}
}

func TestTruststoreErrors(t *testing.T) {
	s, err := Parse(props(t, "security.protocol=SSL\nssl.truststore.location=/nonexistent/ca.jks\n"), Admin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Opts(); err == nil || !strings.Contains(err.Error(), "ssl.truststore.location") || !strings.Contains(err.Error(), "/nonexistent/ca.jks") {
		t.Fatalf("JKS default type, missing file: %v", err)
	}
	s, _ = Parse(props(t, "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=/nonexistent/ca.pem\n"), Admin)
	if _, err := s.Opts(); err == nil || !strings.Contains(err.Error(), "/nonexistent/ca.pem") {
		t.Fatalf("missing file: %v", err)
	}
}

func TestEveryTableRowParsesAnExample(t *testing.T) {
	examples := map[string]string{
		"security.protocol": "PLAINTEXT", "acks": "all", "compression.type": "lz4", "auto.offset.reset": "earliest",
		"isolation.level": "read_committed", "partition.assignment.strategy": "range", "group.protocol": "classic",
		"partitioner.class": "org.apache.kafka.clients.producer.RoundRobinPartitioner", "ssl.endpoint.identification.algorithm": "https",
		"bootstrap.servers": "a:1", "enable.idempotence": "true", "enable.metrics.push": "false", "partitioner.ignore.keys": "false",
		"partitioner.adaptive.partitioning.enable": "true", "enable.auto.commit": "false", "allow.auto.create.topics": "false",
		"check.crcs": "true", "compression.gzip.level": "5", "compression.lz4.level": "9", "compression.zstd.level": "3",
		"group.remote.assignor": "", "ssl.enabled.protocols": "TLSv1.2", "ssl.cipher.suites": "",
		"sasl.login.refresh.min.period.seconds": "60", "sasl.login.refresh.window.factor": "0.8", "sasl.login.refresh.window.jitter": "0.05",
		"sasl.oauthbearer.header.urlencode": "false", "sasl.oauthbearer.jwt.retriever.class": "org.apache.kafka.common.security.oauthbearer.FileJwtRetriever",
	}
	for _, name := range PropertyNames() {
		p := properties[name]
		if p.apply == nil {
			if p.reason == "" {
				t.Errorf("%s: unmapped without a reason", name)
			}
			continue
		}
		v, ok := examples[name]
		if !ok {
			v = "1000"
		}
		s := newSettings(Common)
		if err := p.apply(s, v); err != nil {
			t.Errorf("%s=%s: %v", name, v, err)
		}
	}
}

// auto.offset.reset=by_duration takes what Java's Duration.parse takes,
// not negative.
func TestISODuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"PT1H": time.Hour, "P1D": 24 * time.Hour, "PT1H30M": 90 * time.Minute, "PT0.5S": 500 * time.Millisecond,
		"P1DT1S": 24*time.Hour + time.Second, " pt2m ": 2 * time.Minute, "PT1,5S": 1500 * time.Millisecond, "PT0S": 0} {
		s := newSettings(Consumer)
		if err := autoOffsetReset(s, "by_duration:"+in); err != nil || s.ResetDuration != want || s.AutoOffsetReset != "by_duration" {
			t.Errorf("%s: %v %v", in, s.ResetDuration, err)
		}
	}
	for _, in := range []string{"", "P", "1H", "PT", "PTH", "P1H", "PT1D", "P1.5D", "-PT1H"} {
		if err := autoOffsetReset(newSettings(Consumer), "by_duration:"+in); err == nil || !strings.Contains(err.Error(), "invalid ISO-8601 duration") {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// A delegation token login (ScramLoginModule's tokenauth="true") sends the
// tokenauth=true SCRAM extension in the client's first message; without it
// (or with PLAIN) none is sent.
func TestSASLTokenAuth(t *testing.T) {
	first := func(mech, jaas string) (bool, string) {
		t.Helper()
		s, err := Parse(props(t, "security.protocol=SASL_SSL\nsasl.mechanism="+mech+"\nsasl.jaas.config="+jaas+"\n"), Admin)
		if err != nil {
			t.Fatal(err)
		}
		_, msg, err := s.saslMechanism().Authenticate(context.Background(), "b:9092")
		if err != nil {
			t.Fatal(err)
		}
		return s.SASLToken, string(msg)
	}
	const module = "org.apache.kafka.common.security.scram.ScramLoginModule required "
	for _, c := range []struct {
		mech, jaas string
		token      bool
	}{
		{"SCRAM-SHA-256", module + `username="tid" password="aG1hYw==" tokenauth="true";`, true},
		{"SCRAM-SHA-512", module + `username="tid" password="aG1hYw==" tokenauth=TRUE;`, true},
		{"SCRAM-SHA-512", module + `username="tid" password="aG1hYw==" tokenauth="false";`, false},
		{"SCRAM-SHA-512", module + `username="tid" password="aG1hYw==";`, false},
		{"PLAIN", `org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p" tokenauth="true";`, false},
	} {
		token, msg := first(c.mech, c.jaas)
		if token != c.token || strings.Contains(msg, "tokenauth=true") != c.token {
			t.Errorf("%s %s: token %v, first message %q", c.mech, c.jaas, token, msg)
		}
	}
}
