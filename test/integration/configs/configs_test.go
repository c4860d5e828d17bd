//go:build integration

// Package configs_test runs kbox's kafka-configs and Apache's
// kafka-configs.sh (Kafka 4.4.0, via testbed.sh) side by side on a 1-broker
// SASL_SSL cluster (admin over its PLAINTEXT listener) and compares stdout,
// stderr and exit codes; then logs in as a SCRAM user kbox created.
package configs_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/configs"
	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

var (
	cluster *testbed.Cluster
	applet  string // path of a "kafka-configs" link to kbox
	kboxBin string // path of a "kbox" link
	cfgDir  string
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "configs", Applets: []string{"kafka-configs", "kbox"}, Brokers: 1, Security: "sasl_ssl", Ready: func(e testbed.Env) error {
		applet, kboxBin, cfgDir, cluster = filepath.Join(e.BinDir, "kafka-configs"), filepath.Join(e.BinDir, "kbox"), e.Dir, e.Cluster
		return setup()
	}}))
}

func client() (*kgo.Client, error) {
	return kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.PlaintextBootstrap, ",")...))
}

func str(s string) *string { return &s }

// setup seeds one entity of every type the read-only cases describe.
func setup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cl, err := client()
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"retention.ms": str("3600000"), "cleanup.policy": str("compact")}, "cfg-a"); err != nil {
		return fmt.Errorf("create cfg-a: %w", err)
	}
	for _, t := range []string{"cfg-b", "alt-apache", "alt-kbox"} {
		if _, err := adm.CreateTopic(ctx, 1, 1, nil, t); err != nil {
			return fmt.Errorf("create %s: %w", t, err)
		}
	}
	quotas := []kadm.AlterClientQuotaEntry{
		{Entity: kadm.ClientQuotaEntity{{Type: "user", Name: str("qa")}}, Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: 4096}, {Key: "consumer_byte_rate", Value: 8192}}},
		{Entity: kadm.ClientQuotaEntity{{Type: "user", Name: str("qa")}, {Type: "client-id", Name: str("c1")}}, Ops: []kadm.AlterClientQuotaOp{{Key: "request_percentage", Value: 12.5}}},
		{Entity: kadm.ClientQuotaEntity{{Type: "client-id"}}, Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: 1e7}}},
		{Entity: kadm.ClientQuotaEntity{{Type: "ip"}}, Ops: []kadm.AlterClientQuotaOp{{Key: "connection_creation_rate", Value: 50}}},
		{Entity: kadm.ClientQuotaEntity{{Type: "ip", Name: str("127.0.0.1")}}, Ops: []kadm.AlterClientQuotaOp{{Key: "connection_creation_rate", Value: 100}}},
	}
	// Users whose quota entities collide in Java's HashMap (bucket 12 of
	// 16): kafka-configs prints them in the order of a table that
	// treeifyBin grew (javafmt.HashMapCapacityOf).
	for _, u := range []string{"a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8", "i9", "j10"} {
		quotas = append(quotas, kadm.AlterClientQuotaEntry{Entity: kadm.ClientQuotaEntity{{Type: "user", Name: str(u)}}, Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: 10}}})
	}
	quotas = append(quotas, kadm.AlterClientQuotaEntry{Entity: kadm.ClientQuotaEntity{{Type: "user"}}, Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: 10}}})
	res, err := adm.AlterClientQuotas(ctx, quotas)
	if err != nil {
		return err
	}
	for _, r := range res {
		if r.Err != nil {
			return fmt.Errorf("quota %v: %w", r.Entity, r.Err)
		}
	}
	sr, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: "sc", Mechanism: kadm.ScramSha256, Iterations: 8192, Password: "sc-secret"}})
	if err == nil {
		err = sr.Error()
	}
	if err != nil {
		return fmt.Errorf("scram: %w", err)
	}
	svc := &configs.Service{Client: cl}
	if err := svc.Alter(ctx, configs.Resource{Type: configs.ClientMetrics, Name: "cm1"}, []configs.Op{{Name: "metrics", Value: "org.apache.kafka.producer.", Op: configs.Set}, {Name: "interval.ms", Value: "5000", Op: configs.Set}}, false); err != nil {
		return fmt.Errorf("client metrics: %w", err)
	}
	if err := svc.Alter(ctx, configs.Resource{Type: configs.Group, Name: "g1"}, []configs.Op{{Name: "consumer.session.timeout.ms", Value: "50000", Op: configs.Set}}, false); err != nil {
		return fmt.Errorf("group config: %w", err)
	}
	return nil
}

type result struct {
	stdout, stderr string
	code           int
}

func runKbox(t *testing.T, args ...string) result {
	t.Helper()
	return runBin(t, applet, args...)
}

// runBin runs bin (the kafka-configs link or kbox) with args.
func runBin(t *testing.T, bin string, args ...string) result {
	t.Helper()
	r := testbed.Runner{
		Timeout: 90 * time.Second,
		Config:  filepath.Join(cfgDir, "none.yaml"),
		Env:     []string{"KBOX_PROFILE=", "KBOX_OUTPUT=", "KBOX_BOOTSTRAP_SERVERS="},
	}.Exec(t, bin, args...)
	return result{stdout: r.Stdout, stderr: r.Stderr, code: r.Code}
}

// apacheBatch runs Apache's ConfigCommand for every command line in one
// JVM (testdata/Batch.java): a JVM start costs seconds on a loaded machine.
func apacheBatch(t *testing.T, cmds [][]string) []result {
	t.Helper()
	var b strings.Builder
	for _, c := range cmds {
		for _, a := range c {
			if strings.ContainsAny(a, "\t\n") {
				t.Fatalf("argument %q: a batch line cannot hold a tab or newline", a)
			}
		}
		b.WriteString(strings.Join(c, "\t") + "\n")
	}
	file := filepath.Join(t.TempDir(), "cases.txt")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := filepath.Abs(filepath.Join("testdata", "Batch.java"))
	if err != nil {
		t.Fatal(err)
	}
	out, errs, code, err := cluster.Apache(nil, "kafka-run-class", src, file)
	if err != nil || code != 0 {
		t.Fatalf("apache batch: exit %d, %v\n%s", code, err, errs)
	}
	lines := strings.Split(out, "\n")
	var res []result
	for i := 0; i+2 < len(lines); i += 3 {
		var r result
		if _, err := fmt.Sscanf(lines[i], "@@case %d", &r.code); err != nil {
			t.Fatalf("batch output line %d: %q", i, lines[i])
		}
		o, err1 := base64.StdEncoding.DecodeString(lines[i+1])
		e, err2 := base64.StdEncoding.DecodeString(lines[i+2])
		if err1 != nil || err2 != nil {
			t.Fatalf("batch output: %v %v", err1, err2)
		}
		r.stdout, r.stderr = string(o), string(e)
		res = append(res, r)
	}
	if len(res) != len(cmds) {
		t.Fatalf("batch: %d results for %d cases\n%s", len(res), len(cmds), errs)
	}
	return res
}

// stderr comparison modes.
const (
	exact     = iota // byte for byte (usage errors, argument errors)
	firstLine        // Apache adds a Java stack trace after its line
)

func head(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "")
}

func compare(t *testing.T, a, k result, mode int) {
	t.Helper()
	if a.code != k.code {
		t.Errorf("exit code: apache %d, kbox %d\napache stdout:\n%s\napache stderr:\n%s\nkbox stdout:\n%s\nkbox stderr:\n%s", a.code, k.code, a.stdout, head(a.stderr, 3), k.stdout, k.stderr)
	}
	if a.stdout != k.stdout {
		t.Errorf("stdout differs\napache:\n%q\nkbox:\n%q", a.stdout, k.stdout)
	}
	switch mode {
	case exact:
		if a.stderr != k.stderr {
			t.Errorf("stderr differs\napache:\n%q\nkbox:\n%q", head(a.stderr, 3), head(k.stderr, 3))
		}
	case firstLine:
		if head(a.stderr, 1) != head(k.stderr, 1) {
			t.Errorf("stderr first line differs\napache:\n%q\nkbox:\n%q", head(a.stderr, 1), head(k.stderr, 1))
		}
	}
}

type tcase struct {
	name string
	args []string
	mode int
}

func bs(args ...string) []string {
	return append([]string{"--bootstrap-server", cluster.PlaintextBootstrap}, args...)
}

// runCases runs the cases with Apache (one batch), then with kbox, and
// compares.
func runCases(t *testing.T, cases []tcase) {
	var cmds [][]string
	for _, c := range cases {
		cmds = append(cmds, c.args)
	}
	apache := apacheBatch(t, cmds)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			compare(t, apache[i], runKbox(t, c.args...), c.mode)
		})
	}
}

// TestDifferentialArgs: usage and argument errors, before any request.
func TestDifferentialArgs(t *testing.T) {
	runCases(t, []tcase{
		{"no-args", nil, exact},
		{"help", []string{"--help"}, exact},
		{"version", []string{"--version"}, exact},
		{"no-action", bs("--topic", "x"), exact},
		{"two-actions", bs("--describe", "--alter", "--topic", "x"), exact},
		{"describe-add-config", bs("--describe", "--topic", "x", "--add-config", "a=b"), exact},
		{"unknown-option", bs("--describe", "--nosuch"), firstLine},
		{"no-bootstrap", []string{"--describe", "--topic", "x"}, exact},
		{"no-entity", bs("--describe"), exact},
		{"bad-entity-type", bs("--describe", "--entity-type", "foo"), exact},
		{"two-types", bs("--describe", "--topic", "x", "--broker", "1"), exact},
		{"duplicate-type", bs("--describe", "--topic", "x", "--entity-type", "topics"), exact},
		{"entity-and-flags", bs("--describe", "--entity-type", "topics", "--entity-name", "t", "--broker-defaults"), exact},
		{"topic-twice", bs("--describe", "--topic", "a", "--topic", "b"), exact},
		{"bad-broker-id", bs("--describe", "--broker", "x"), exact},
		{"bad-ip", bs("--alter", "--ip", "not.a.host.invalid", "--add-config", "connection_creation_rate=1"), exact},
		{"default-topic", bs("--describe", "--entity-type", "topics", "--entity-default"), exact},
		{"logger-no-name", bs("--describe", "--entity-type", "broker-loggers"), exact},
		{"alter-no-name", bs("--alter", "--entity-type", "topics", "--add-config", "a=b"), exact},
		{"alter-nothing", bs("--alter", "--topic", "x"), exact},
		{"alter-file-and-config", bs("--alter", "--topic", "x", "--add-config", "a=b", "--add-config-file", "f"), exact},
		{"alter-names-mismatch", bs("--alter", "--entity-type", "users", "--entity-type", "clients", "--entity-name", "u", "--add-config", "producer_byte_rate=1"), exact},
		{"missing-config-file", bs("--alter", "--topic", "cfg-b", "--add-config-file", "/nonexistent/add.properties"), firstLine},
		{"bad-add-config", bs("--alter", "--topic", "cfg-b", "--add-config", "a=b=c"), exact},
		{"unclosed-bracket", bs("--alter", "--topic", "cfg-b", "--add-config", "x=[a,b"), exact},
		{"bad-key", bs("--alter", "--topic", "cfg-b", "--add-config", "bad key=1"), exact},
		{"user-unknown-config", bs("--alter", "--user", "u", "--add-config", "foo=1"), exact},
		{"user-unknown-delete", bs("--alter", "--user", "u", "--delete-config", "foo"), exact},
		{"client-scram", bs("--alter", "--client", "c", "--add-config", "SCRAM-SHA-256=[password=x]"), exact},
		{"scram-default-user", bs("--alter", "--user-defaults", "--add-config", "SCRAM-SHA-256=[password=x]"), exact},
		{"scram-and-quota", bs("--alter", "--user", "u", "--add-config", "SCRAM-SHA-256=[password=x],producer_byte_rate=5"), exact},
		{"scram-few-iterations", bs("--alter", "--user", "u", "--add-config", "SCRAM-SHA-256=[iterations=100,password=x]"), exact},
		{"scram-empty-iterations", bs("--alter", "--user", "u", "--add-config", "SCRAM-SHA-256=[iterations=,password=x]"), exact},
		{"scram-malformed", bs("--alter", "--user", "u", "--add-config", "SCRAM-SHA-512=[pass=x]"), exact},
		{"quota-not-number", bs("--alter", "--user", "u", "--add-config", "producer_byte_rate=abc"), exact},
		{"ip-unknown-config", bs("--alter", "--ip", "127.0.0.1", "--add-config", "producer_byte_rate=1"), exact},
		{"bad-topic-name", bs("--describe", "--topic", "bad name"), exact},
		{"long-topic-name", bs("--describe", "--topic", strings.Repeat("a", 250)), exact},
		{"empty-topic-name", bs("--describe", "--topic", ""), exact},
	})
}

// TestDifferentialDescribe: every entity type, with and without --all.
func TestDifferentialDescribe(t *testing.T) {
	runCases(t, []tcase{
		{"topic", bs("--describe", "--topic", "cfg-a"), exact},
		{"topic-all", bs("--describe", "--topic", "cfg-a", "--all"), exact},
		{"topic-missing", bs("--describe", "--topic", "nosuch"), exact},
		{"brokers", bs("--describe", "--entity-type", "brokers"), exact},
		{"broker-logger", bs("--describe", "--broker-logger", "1"), exact},
		{"users", bs("--describe", "--entity-type", "users"), exact},
		{"users-clients", bs("--describe", "--entity-type", "users", "--entity-type", "clients"), exact},
		{"ips", bs("--describe", "--entity-type", "ips"), exact},
		{"client-metrics", bs("--describe", "--entity-type", "client-metrics"), exact},
		{"groups", bs("--describe", "--entity-type", "groups"), exact},
		{"topic-none", bs("--describe", "--topic", "cfg-b"), exact},
		{"topic-missing-all", bs("--describe", "--topic", "nosuch", "--all"), firstLine},
		{"topics", bs("--describe", "--entity-type", "topics"), exact},
		{"topics-all", bs("--describe", "--entity-type", "topics", "--all"), exact},
		{"broker", bs("--describe", "--broker", "1"), exact},
		{"broker-all", bs("--describe", "--broker", "1", "--all"), exact},
		{"broker-missing", bs("--describe", "--broker", "7"), exact},
		{"broker-defaults", bs("--describe", "--broker-defaults"), exact},
		{"broker-entity-default", bs("--describe", "--entity-type", "brokers", "--entity-default"), exact},
		{"user", bs("--describe", "--user", "qa"), exact},
		{"user-scram", bs("--describe", "--user", "sc"), exact},
		{"user-none", bs("--describe", "--user", "nobody"), exact},
		{"user-client", bs("--describe", "--user", "qa", "--client", "c1"), exact},
		{"users-default-clients", bs("--describe", "--entity-type", "users", "--entity-default", "--entity-type", "clients"), exact},
		{"clients", bs("--describe", "--entity-type", "clients"), exact},
		{"client-defaults", bs("--describe", "--client-defaults"), exact},
		{"ip", bs("--describe", "--ip", "127.0.0.1"), exact},
		{"ip-defaults", bs("--describe", "--ip-defaults"), exact},
		{"client-metrics-one", bs("--describe", "--client-metrics", "cm1"), exact},
		{"client-metrics-missing", bs("--describe", "--client-metrics", "nosuch"), exact},
		{"group", bs("--describe", "--group", "g1"), exact},
		{"group-all", bs("--describe", "--group", "g1", "--all"), exact},
		{"group-missing", bs("--describe", "--group", "nosuch"), exact},
	})
}

// TestDifferentialAlter: Apache alters one entity, kbox its twin; the
// outputs must match with the names swapped, and kbox must read back the
// same state from both (its describe output is checked against Apache's
// in TestDifferentialDescribe).
func TestDifferentialAlter(t *testing.T) {
	file := filepath.Join(t.TempDir(), "add.properties")
	if err := os.WriteFile(file, []byte("retention.ms=1000000\nsegment.ms = 3600000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type step struct {
		alter    []string // "@" is the entity's name
		describe []string
		mode     int
	}
	// Each chain works on its own entities; chains run side by side.
	chains := map[string][]step{
		"topic": {
			{[]string{"--alter", "--topic", "alt-@", "--add-config", "retention.ms=7200000,cleanup.policy=[compact,delete]"}, []string{"--describe", "--topic", "alt-@"}, exact},
			{[]string{"--alter", "--topic", "alt-@", "--delete-config", "cleanup.policy,nosuch", "--add-config-file", file}, []string{"--describe", "--topic", "alt-@"}, exact},
			{[]string{"--alter", "--topic", "alt-@", "--add-config", "bogus.config=1"}, nil, firstLine},
		},
		"user": {
			{[]string{"--alter", "--user", "u-@", "--add-config", "producer_byte_rate=1024,consumer_byte_rate=2e6"}, []string{"--describe", "--user", "u-@"}, exact},
			{[]string{"--alter", "--user", "u-@", "--delete-config", "request_percentage"}, nil, exact},
			{[]string{"--alter", "--entity-type", "users", "--entity-name", "u-@", "--entity-type", "clients", "--entity-name", "c-@", "--add-config", "request_percentage=33.3"}, []string{"--describe", "--user", "u-@", "--client", "c-@"}, exact},
		},
		"scram": {
			{[]string{"--alter", "--user", "s-@", "--add-config", "SCRAM-SHA-512=[iterations=8192,password=pw-@]"}, []string{"--describe", "--user", "s-@"}, exact},
		},
		"ip": {
			{[]string{"--alter", "--ip", "10.0.0.@", "--add-config", "connection_creation_rate=7"}, []string{"--describe", "--ip", "10.0.0.@"}, exact},
		},
		"client-metrics": {
			{[]string{"--alter", "--client-metrics", "cm-@", "--add-config", "metrics=[a.,b.],interval.ms=10000"}, []string{"--describe", "--client-metrics", "cm-@"}, exact},
		},
		"group": {
			{[]string{"--alter", "--group", "g-@", "--add-config", "consumer.heartbeat.interval.ms=6000"}, []string{"--describe", "--group", "g-@"}, exact},
		},
	}
	// The twins' names: "apache" and "kbox" (IPs 10.0.0.1 and 10.0.0.2).
	name := map[string]string{"apache": "apache", "kbox": "kbox"}
	sub := func(args []string, who string) []string {
		out := make([]string, len(args))
		for i, a := range args {
			if strings.HasPrefix(a, "10.0.0.@") {
				n := "1"
				if who == "kbox" {
					n = "2"
				}
				out[i] = strings.ReplaceAll(a, "@", n)
				continue
			}
			out[i] = strings.ReplaceAll(a, "@", name[who])
		}
		return bs(out...)
	}
	swap := func(r result) result {
		for _, x := range []*string{&r.stdout, &r.stderr} {
			*x = strings.ReplaceAll(*x, "apache", "kbox")
			*x = strings.ReplaceAll(*x, "10.0.0.1", "10.0.0.2")
		}
		return r
	}
	// Apache's alterations, chain by chain in order, in one batch; the
	// shared broker-level ones last.
	names := make([]string, 0, len(chains))
	for n := range chains {
		names = append(names, n)
	}
	sort.Strings(names)
	var cmds [][]string
	for _, n := range names {
		for _, s := range chains[n] {
			cmds = append(cmds, sub(s.alter, "apache"))
		}
	}
	broker := []tcase{
		{"set", bs("--alter", "--broker", "1", "--add-config", "log.cleaner.threads=2"), exact},
		{"logger", bs("--alter", "--broker-logger", "1", "--add-config", "kafka.server.KafkaApis=DEBUG"), exact},
		{"default", bs("--alter", "--broker-defaults", "--add-config", "log.retention.ms=86400000"), exact},
		{"read-only", bs("--alter", "--broker", "1", "--add-config", "broker.id=5"), firstLine},
	}
	for _, c := range broker {
		cmds = append(cmds, c.args)
	}
	apache := apacheBatch(t, cmds)
	i := 0
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			var readBack []string
			for _, s := range chains[n] {
				a := apache[i]
				i++
				k := runKbox(t, sub(s.alter, "kbox")...)
				compare(t, swap(a), k, s.mode)
				if s.describe != nil {
					readBack = s.describe
				}
			}
			// Apache's entity went through the whole chain in the batch:
			// compare the final states.
			ka := runKbox(t, sub(readBack, "apache")...)
			kk := runKbox(t, sub(readBack, "kbox")...)
			if ka.code != 0 || swap(ka) != kk {
				t.Errorf("read back differs\napache's entity:\n%s\nkbox's entity:\n%s", ka.stdout, kk.stdout)
			}
			if kk.stdout == "" {
				t.Errorf("read back shows nothing: %q", kk.stdout)
			}
		})
	}
	// Broker-level state is shared: kbox repeats Apache's alterations.
	t.Run("broker", func(t *testing.T) {
		for _, c := range broker {
			compare(t, apache[i], runKbox(t, c.args...), c.mode)
			i++
		}
		r := runKbox(t, bs("--describe", "--entity-type", "brokers")...)
		want := "Dynamic configs for broker 1 are:\n  log.cleaner.threads=2 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.cleaner.threads=2, "
		if !strings.HasPrefix(r.stdout, want) || !strings.Contains(r.stdout, "  log.retention.ms=86400000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=86400000}\n") {
			t.Errorf("broker read back:\n%s", r.stdout)
		}
		for _, args := range [][]string{
			{"--alter", "--broker", "1", "--delete-config", "log.cleaner.threads"},
			{"--alter", "--broker-logger", "1", "--delete-config", "kafka.server.KafkaApis"},
			{"--alter", "--entity-type", "brokers", "--entity-default", "--delete-config", "log.retention.ms"},
		} {
			if r := runKbox(t, bs(args...)...); r.code != 0 {
				t.Errorf("%v: %+v", args, r)
			}
		}
	})
}

// TestScramLogin creates a SCRAM user with kbox, checks no output holds
// its password, and logs in as that user on the SASL_SSL listener (through
// kbox, with a client properties file), then with a wrong password.
func TestScramLogin(t *testing.T) {
	// brackets group a password holding ',' and '='
	const pw2 = "n3w,s3cret=x"
	k := runKbox(t, bs("--alter", "--user", "newuser", "--add-config", "SCRAM-SHA-256=[iterations=8192,password="+pw2+"]")...)
	if k.code != 0 || k.stdout != "Completed updating config for user newuser.\n" {
		t.Fatalf("create user: %+v", k)
	}
	d := runKbox(t, bs("--describe", "--user", "newuser")...)
	if d.stdout != "SCRAM credential configs for user-principal 'newuser' are SCRAM-SHA-256=iterations=8192\n" {
		t.Fatalf("describe: %+v", d)
	}
	for _, r := range []result{k, d} {
		if strings.Contains(r.stdout+r.stderr, pw2) {
			t.Fatalf("password printed: %+v", r)
		}
	}
	props := func(user, pass string) string {
		f := filepath.Join(t.TempDir(), "client.properties")
		body := fmt.Sprintf("security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-256\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"%s\" password=\"%s\";\nssl.truststore.type=PEM\nssl.truststore.location=%s\n", user, pass, cluster.CAFile())
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	good := props("newuser", pw2)
	// The credential reaches the broker's cache through the metadata log:
	// retry until the login works, within a deadline.
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := runKbox(t, "--bootstrap-server", cluster.Bootstrap, "--command-config", good, "--describe", "--topic", "cfg-a")
		if r.code == 0 {
			if !strings.HasPrefix(r.stdout, "Dynamic configs for topic cfg-a are:\n") {
				t.Fatalf("login as newuser: %+v", r)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("newuser never logged in: %+v", r)
		}
		time.Sleep(500 * time.Millisecond)
	}
	bad := runKbox(t, "--bootstrap-server", cluster.Bootstrap, "--command-config", props("newuser", "wrong"), "--describe", "--topic", "cfg-a")
	if bad.code == 0 {
		t.Fatalf("wrong password logged in: %+v", bad)
	}
	if strings.Contains(bad.stdout+bad.stderr, "wrong") {
		t.Fatalf("password printed: %+v", bad)
	}
}

// TestNative: the native commands on a real broker: --dry-run is a
// validate-only request (a bad value is refused, a good one changes
// nothing), explain carries the broker's documentation.
func TestNative(t *testing.T) {
	nat := func(args ...string) result {
		// The native commands are `kbox configs SUB` (under the link
		// name every argument is Apache's).
		return runBin(t, kboxBin, append(append([]string{"configs"}, args...), "--bootstrap-server", cluster.PlaintextBootstrap)...)
	}
	if r := nat("set", "--topic", "cfg-b", "retention.ms=abc", "--dry-run"); r.code != 1 || !strings.Contains(r.stderr, "topic cfg-b: Invalid value abc for configuration retention.ms") {
		t.Errorf("bad value, dry run: %+v", r)
	}
	if r := nat("set", "--topic", "cfg-b", "retention.ms=123456", "--dry-run", "-o", "json"); r.code != 0 || !strings.Contains(r.stdout, `"dry_run":true`) {
		t.Errorf("dry run: %+v", r)
	}
	if r := nat("get", "--topic", "cfg-b", "retention.ms", "-o", "json"); r.code != 0 || strings.Contains(r.stdout, "123456") {
		t.Errorf("dry run changed the topic: %+v", r)
	}
	if r := nat("set", "--topic", "cfg-b", "retention.ms=123456"); r.code != 0 {
		t.Errorf("set: %+v", r)
	}
	if r := nat("get", "--topic", "cfg-b", "retention.ms", "-o", "json"); !strings.Contains(r.stdout, `"value":"123456","source":"dynamic_topic"`) {
		t.Errorf("set not read back: %+v", r)
	}
	if r := nat("diff", "--topic", "cfg-a", "--topic", "cfg-b"); r.code != 0 || !strings.Contains(r.stdout, "cleanup.policy") || !strings.Contains(r.stdout, "123456") {
		t.Errorf("diff: %+v", r)
	}
	if r := nat("unset", "--topic", "cfg-b", "retention.ms", "--dry-run"); r.code != 0 {
		t.Errorf("unset dry run: %+v", r)
	}
	if r := nat("explain", "retention.ms", "--topic", "cfg-b", "-o", "json"); r.code != 0 || strings.Contains(r.stdout, `"documentation":null`) || !strings.Contains(r.stdout, `"type":"LONG"`) {
		t.Errorf("explain: %+v", r)
	}
	if r := nat("explain", "log.cleaner.threads"); r.code != 0 || !strings.HasPrefix(r.stdout, "log.cleaner.threads (INT) on broker 1\n") {
		t.Errorf("explain broker key: %+v", r)
	}
}

// nativeConfigs runs `kbox configs SUB ARGS --bootstrap-server ...`.
func nativeConfigs(t *testing.T, args ...string) result {
	t.Helper()
	return runBin(t, kboxBin, append(append([]string{"configs"}, args...), "--bootstrap-server", cluster.PlaintextBootstrap)...)
}

// A topic config's default is what the topic falls back to without its
// override, also once it overrides it: the broker reports no synonym after
// the override of retention.ms (log.retention.ms is set nowhere; Kafka
// derives it from log.retention.hours), and a cluster-wide dynamic default
// comes before Kafka's own (whose DEFAULT_CONFIG synonym is in hours).
func TestNativeDefaultAfterOverride(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := client()
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "dflt"); err != nil {
		t.Fatal(err)
	}
	type value struct {
		Name    string  `json:"name"`
		Value   *string `json:"value"`
		Default *string `json:"default"`
	}
	deref := func(s *string) string {
		if s == nil {
			return "null"
		}
		return *s
	}
	// check reads retention.ms of dflt through get, diff and explain.
	check := func(t *testing.T, wantValue, wantDefault string) {
		t.Helper()
		var get struct{ Configs []value }
		if r := nativeConfigs(t, "get", "--topic", "dflt", "retention.ms", "-o", "json"); r.code != 0 || json.Unmarshal([]byte(r.stdout), &get) != nil || len(get.Configs) != 1 {
			t.Fatalf("get: %+v", r)
		} else if v := get.Configs[0]; deref(v.Value) != wantValue || deref(v.Default) != wantDefault {
			t.Errorf("get: value %s default %s, want %s and %s", deref(v.Value), deref(v.Default), wantValue, wantDefault)
		}
		if r := nativeConfigs(t, "get", "--topic", "dflt", "retention.ms"); r.code != 0 || !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), "retention.ms "+wantValue+" ") || !strings.HasSuffix(strings.TrimSpace(r.stdout), " "+wantDefault) {
			t.Errorf("get table, want default %s:\n%s", wantDefault, r.stdout)
		}
		var ex value
		if r := nativeConfigs(t, "explain", "retention.ms", "--topic", "dflt", "-o", "json"); r.code != 0 || json.Unmarshal([]byte(r.stdout), &ex) != nil {
			t.Fatalf("explain: %+v", r)
		} else if deref(ex.Default) != wantDefault {
			t.Errorf("explain: default %s, want %s", deref(ex.Default), wantDefault)
		}
		if r := nativeConfigs(t, "explain", "retention.ms", "--topic", "dflt"); !strings.Contains(r.stdout, "\n  default:   "+wantDefault+"\n") {
			t.Errorf("explain text, want default %s:\n%s", wantDefault, r.stdout)
		}
		var diff struct {
			Differences []struct {
				Name  string `json:"name"`
				Right value  `json:"right"`
			} `json:"differences"`
		}
		r := nativeConfigs(t, "diff", "--topic", "dflt", "-o", "json")
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &diff) != nil {
			t.Fatalf("diff: %+v", r)
		}
		found := false
		for _, d := range diff.Differences {
			if d.Name == "retention.ms" {
				found = true
				if deref(d.Right.Value) != wantDefault {
					t.Errorf("diff: default %s, want %s", deref(d.Right.Value), wantDefault)
				}
			}
		}
		if found != (wantValue != wantDefault) {
			t.Errorf("diff lists retention.ms: %v (value %s, default %s)\n%s", found, wantValue, wantDefault, r.stdout)
		}
	}
	t.Run("before", func(t *testing.T) { check(t, "604800000", "604800000") })
	if r := nativeConfigs(t, "set", "--topic", "dflt", "retention.ms=1000"); r.code != 0 {
		t.Fatalf("set: %+v", r)
	}
	t.Run("override", func(t *testing.T) { check(t, "1000", "604800000") })

	// A cluster-wide default: the topic falls back to it, not to Kafka's.
	t.Cleanup(func() {
		if r := nativeConfigs(t, "unset", "--broker-defaults", "log.retention.ms"); r.code != 0 {
			t.Errorf("unset the broker default: %+v", r)
		}
	})
	if r := nativeConfigs(t, "set", "--broker-defaults", "log.retention.ms=86400000"); r.code != 0 {
		t.Fatalf("set broker default: %+v", r)
	}
	// The broker applies the default from the metadata log: wait for it.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(nativeConfigs(t, "get", "--broker", "1", "log.retention.ms").stdout, "86400000") {
		if time.Now().After(deadline) {
			t.Fatal("the broker default never showed")
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Run("cluster-default", func(t *testing.T) { check(t, "1000", "86400000") })
	// unset reports the value the topic falls back to.
	if r := nativeConfigs(t, "unset", "--topic", "dflt", "retention.ms", "--dry-run", "-o", "json"); r.code != 0 || !strings.Contains(r.stdout, `"new_value":"86400000"`) {
		t.Errorf("unset dry run: %+v", r)
	}
}

// The native set refuses a config name the broker does not know, with the
// nearest known names, and applies nothing (not even the known names
// beside it); --allow-unknown sets it on purpose. explain says which kind
// of resource a key belongs to. The drop-in keeps Apache's behaviour: it
// sets the unknown name.
func TestNativeUnknownKey(t *testing.T) {
	r := nativeConfigs(t, "set", "--broker", "1", "log.cleaner.threads=2", "log.retention.hour=1")
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "unknown config log.retention.hour for broker 1 (did you mean log.retention.hours?); nothing was changed (--allow-unknown") {
		t.Errorf("typo: %+v", r)
	}
	if r := nativeConfigs(t, "set", "--broker", "1", "foo.bar=1"); r.code != 1 || !strings.Contains(r.stderr, "unknown config foo.bar for broker 1") {
		t.Errorf("unknown key: %+v", r)
	}
	if r := nativeConfigs(t, "set", "--topic", "cfg-b", "retension.ms=1"); r.code != 1 || !strings.Contains(r.stderr, "(did you mean retention.ms?)") {
		t.Errorf("topic typo: %+v", r)
	}
	// Nothing was applied: broker 1 has no dynamic log.cleaner.threads
	// and no foo.bar.
	d := runKbox(t, bs("--describe", "--broker", "1")...)
	if d.code != 0 || strings.Contains(d.stdout, "log.cleaner.threads") || strings.Contains(d.stdout, "foo.bar") {
		t.Errorf("a refused set changed broker 1:\n%+v", d)
	}
	// explain names the kind of resource a key belongs to.
	if r := nativeConfigs(t, "explain", "retention.ms", "--broker", "1"); r.code != 1 || !strings.Contains(r.stderr, "it is a topic config: give --topic NAME") {
		t.Errorf("explain topic key on a broker: %+v", r)
	}
	if r := nativeConfigs(t, "explain", "log.cleaner.threads", "--topic", "cfg-b"); r.code != 1 || !strings.Contains(r.stderr, "it is a broker config: give --broker ID or --broker-defaults") {
		t.Errorf("explain broker key on a topic: %+v", r)
	}
	// On purpose: --allow-unknown, then unset (the broker now describes it).
	if r := nativeConfigs(t, "set", "--broker", "1", "kbox.test.plugin.key=1", "--allow-unknown"); r.code != 0 || !strings.Contains(r.stdout, "applied") {
		t.Fatalf("--allow-unknown: %+v", r)
	}
	deadline := time.Now().Add(30 * time.Second)
	for nativeConfigs(t, "get", "--broker", "1", "kbox.test.plugin.key").code != 0 {
		if time.Now().After(deadline) {
			t.Fatal("broker 1 never described kbox.test.plugin.key")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if r := nativeConfigs(t, "unset", "--broker", "1", "kbox.test.plugin.key"); r.code != 0 {
		t.Errorf("unset the plugin key: %+v", r)
	}
	// The drop-in accepts the unknown name as Apache's tool does.
	if r := runKbox(t, bs("--alter", "--broker", "1", "--add-config", "kbox.test.dropin=1")...); r.code != 0 || r.stdout != "Completed updating config for broker 1.\n" {
		t.Errorf("drop-in: %+v", r)
	}
	if r := runKbox(t, bs("--alter", "--broker", "1", "--delete-config", "kbox.test.dropin")...); r.code != 0 {
		t.Errorf("drop-in delete: %+v", r)
	}
}
