//go:build integration

// Package configs_test runs kbox's kafka-configs and Apache's
// kafka-configs.sh (Kafka 4.4.0, via testbed.sh) side by side on a 1-broker
// SASL_SSL cluster (admin over its PLAINTEXT listener) and compares stdout,
// stderr and exit codes; then logs in as a SCRAM user kbox created.
package configs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	cfgDir  string
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "configs", Applets: []string{"kafka-configs"}, Brokers: 1, Security: "sasl_ssl", Ready: func(e testbed.Env) error {
		applet, cfgDir, cluster = filepath.Join(e.BinDir, "kafka-configs"), e.Dir, e.Cluster
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
	r := testbed.Runner{
		Timeout: 90 * time.Second,
		Config:  filepath.Join(cfgDir, "none.yaml"),
		Env:     []string{"KBOX_PROFILE=", "KBOX_OUTPUT=", "KBOX_BOOTSTRAP_SERVERS="},
	}.Exec(t, applet, args...)
	return result{stdout: r.Stdout, stderr: r.Stderr, code: r.Code}
}

func runApache(t *testing.T, args ...string) result {
	t.Helper()
	out, errs, code, err := cluster.Apache(nil, "kafka-configs", args...)
	if err != nil {
		t.Fatalf("run apache: %v\n%s", err, errs)
	}
	return result{stdout: out, stderr: errs, code: code}
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

// runParallel runs the cases three at a time (each starts a JVM).
func runParallel(t *testing.T, cases []tcase) {
	sem := make(chan struct{}, 3)
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				sem <- struct{}{}
				defer func() { <-sem }()
				a := runApache(t, c.args...)
				k := runKbox(t, c.args...)
				compare(t, a, k, c.mode)
			})
		}
	})
}

// TestDifferentialDescribe: every entity type, with and without --all.
func TestDifferentialDescribe(t *testing.T) {
	runParallel(t, []tcase{
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
		{"bad-combination", bs("--describe", "--topic", "x", "--broker", "1"), exact},
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
	sem := make(chan struct{}, 3)
	t.Run("chains", func(t *testing.T) {
		for cname, steps := range chains {
			t.Run(cname, func(t *testing.T) {
				t.Parallel()
				for i, s := range steps {
					sem <- struct{}{}
					a := runApache(t, sub(s.alter, "apache")...)
					<-sem
					k := runKbox(t, sub(s.alter, "kbox")...)
					compare(t, swap(a), k, s.mode)
					if s.describe == nil {
						continue
					}
					ka := runKbox(t, sub(s.describe, "apache")...)
					kk := runKbox(t, sub(s.describe, "kbox")...)
					if ka.code != 0 || swap(ka) != kk {
						t.Errorf("step %d: read back differs\napache's entity:\n%s\nkbox's entity:\n%s", i, ka.stdout, kk.stdout)
					}
				}
			})
		}
		// Broker-level state is shared: Apache then kbox on the same broker.
		t.Run("broker", func(t *testing.T) {
			t.Parallel()
			for _, c := range []tcase{
				{"set", bs("--alter", "--broker", "1", "--add-config", "log.cleaner.threads=2"), exact},
				{"logger", bs("--alter", "--broker-logger", "1", "--add-config", "kafka.server.KafkaApis=DEBUG"), exact},
				{"default", bs("--alter", "--broker-defaults", "--add-config", "log.retention.ms=86400000"), exact},
			} {
				sem <- struct{}{}
				a := runApache(t, c.args...)
				<-sem
				compare(t, a, runKbox(t, c.args...), c.mode)
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
