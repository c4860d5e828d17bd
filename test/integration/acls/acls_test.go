//go:build integration

// Package acls_test checks kafka-acls against Apache 4.4's AclCommand on a
// 1-broker SASL_SSL bed with the StandardAuthorizer (testbed.sh up
// --security sasl_ssl --authorizer), every Apache case in one JVM, and
// `kbox acls check` against the broker's own decisions for User:alice.
// A plaintext bed without an authorizer, started alongside, gives the
// SecurityDisabledException case.
package acls_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

var (
	cluster *testbed.Cluster // SASL_SSL with ACLs
	plain   *testbed.Cluster // plaintext, no authorizer
	kboxBin string
	binDir  string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kbox-acls-plain-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	tb := filepath.Join(dir, "tb")
	defer (&testbed.Cluster{Dir: tb}).Down()
	up := make(chan error, 1)
	go func() {
		var err error
		plain, err = testbed.Up(1, "plaintext", tb)
		up <- err
	}()
	code := testbed.Main(m, testbed.Options{Name: "acls", Applets: []string{"kafka-acls"}, Brokers: 1, Security: "sasl_ssl", Authorizer: true,
		Ready: func(e testbed.Env) error {
			kboxBin, binDir, cluster = e.Kbox, e.BinDir, e.Cluster
			if err := <-up; err != nil {
				return fmt.Errorf("plaintext bed: %w", err)
			}
			return nil
		}})
	return code
}

func kbox(t *testing.T, args ...string) testbed.Result {
	t.Helper()
	return testbed.Runner{Config: filepath.Join(binDir, "no-config.yaml"), Timeout: 90 * time.Second}.Exec(t, kboxBin, args...)
}

var (
	warnLine  = regexp.MustCompile(`(?m)^\[[^\]]+\] WARN .*\n`)
	stackLine = regexp.MustCompile(`(?m)^(java\.|joptsimple\.|org\.apache\.|\tat |\t\.\.\. |Caused by: ).*\n`)
	opList    = regexp.MustCompile(`only supports operations \[([^\]]*)\]`)
)

// normalize makes Apache's and kbox's texts comparable: the admin
// client's WARN lines and Java's stack traces out, the supported
// operations sorted, and the blocks (separated by blank lines) and the
// entry lines of each sorted (Apache's order is salted per JVM run).
func normalize(s string) string {
	s = warnLine.ReplaceAllString(s, "")
	s = stackLine.ReplaceAllString(s, "")
	if strings.HasPrefix(s, "Error while executing ACL command: ") {
		s = strings.TrimRight(s, "\n") + "\n" // the stack trace's own end
	}
	s = opList.ReplaceAllStringFunc(s, func(m string) string {
		ops := strings.Split(opList.FindStringSubmatch(m)[1], ", ")
		sort.Strings(ops)
		return "only supports operations [" + strings.Join(ops, ", ") + "]"
	})
	// The first entry of an "Adding ACLs" block starts with " \t".
	s = strings.ReplaceAll(s, "\n \t", "\n\t")
	blocks := strings.Split(s, "\n\n")
	for i, b := range blocks {
		lines := strings.Split(b, "\n")
		sort.Strings(lines)
		blocks[i] = strings.Join(lines, "\n")
	}
	sort.Strings(blocks)
	return strings.Join(blocks, "\n\n")
}

func TestDifferential(t *testing.T) {
	conn := []string{"--bootstrap-server", cluster.Bootstrap, "--command-config", cluster.ClientProperties}
	// Each case runs twice, for Apache with {p} = "a-" and for kbox with
	// "k-", so each side works on its own resources in the same order.
	cases := [][]string{
		{"--add", "--topic", "{p}orders", "--allow-principal", "User:alice", "--operation", "Write", "--operation", "describe"},
		{"--add", "--topic", "{p}orders", "--allow-principal", "User:alice", "--operation", "Write", "--deny-principal", "User:bob", "--deny-host", "10.0.0.1", "--deny-host", "10.0.0.2"},
		{"--list", "--topic", "{p}orders"},
		{"--add", "--topic", "{p}pre", "--resource-pattern-type", "prefixed", "--allow-principal", "User:alice", "--allow-principal", "User:carol", "--allow-host", "10.1.1.1"},
		{"--list", "--topic", "{p}pre", "--resource-pattern-type", "match"},
		{"--list", "--topic", "{p}pre-x", "--resource-pattern-type", "match"},
		{"--list", "--topic", "{p}pre", "--resource-pattern-type", "any"},
		{"--add", "--producer", "--idempotent", "--topic", "{p}out", "--transactional-id", "{p}tx", "--allow-principal", "User:{p}p"},
		{"--add", "--consumer", "--topic", "{p}in", "--group", "{p}g", "--allow-principal", "User:c"},
		{"--add", "--group", "{p}g2", "--transactional-id", "{p}tx2", "--delegation-token", "{p}tok", "--user-principal", "User:{p}u", "--allow-principal", "User:x", "--operation", "Describe"},
		{"--list", "--topic", "{p}out", "--transactional-id", "{p}tx", "--group", "{p}g"},
		{"--list", "--topic", "{p}in", "--principal", "User:c", "--principal", "User:nobody"},
		{"--list", "--group", "{p}g2", "--transactional-id", "{p}tx2", "--delegation-token", "{p}tok", "--user-principal", "User:{p}u"},
		// nothing half-applied: one bad operation adds none
		{"--add", "--topic", "{p}half", "--allow-principal", "User:alice", "--operation", "Read", "--operation", "IdempotentWrite"},
		{"--add", "--topic", "{p}half", "--allow-principal", "User:alice", "--operation", "Read", "--operation", "Bogus"},
		{"--list", "--topic", "{p}half"},
		{"--remove", "--force", "--topic", "{p}orders", "--deny-principal", "User:bob", "--deny-host", "10.0.0.1"},
		{"--list", "--topic", "{p}orders"},
		{"--remove", "--force", "--topic", "{p}orders"},
		{"--list", "--topic", "{p}orders"},
		// errors
		{"--add", "--topic", "{p}t", "--allow-principal", "bad"},
		{"--add", "--topic", "{p}t", "--allow-principal", "User:a", "--operation", "any"},
		{"--add", "--topic", "{p}t", "--allow-principal", "User:a", "--resource-pattern-type", "match"},
		{"--add", "--topic", "{p}t", "--allow-principal", "User:a", "--resource-pattern-type", "bogus"},
		{"--add", "--topic", "{p}t"},
		{"--add", "--allow-principal", "User:a"},
		{"--add", "--cluster", "--allow-principal", "User:a", "--operation", "Read"},
		{"--add", "--cluster", "--resource-pattern-type", "prefixed", "--allow-principal", "User:a"},
		{"--add", "--list", "--topic", "{p}t"},
		{"--list", "--producer"},
		{"--add", "--producer", "--group", "{p}g", "--allow-principal", "User:a"},
		{"--add", "--idempotent", "--topic", "{p}t", "--allow-principal", "User:a"},
		{"--add", "--consumer", "--topic", "{p}t", "--allow-principal", "User:a"},
		{"--add", "--producer", "--topic", "{p}t", "--operation", "Read", "--allow-principal", "User:a"},
		{"--add", "--topic", "{p}t", "--principal", "User:a"},
		{"--remove", "--user-principal", "User:a", "--allow-principal", "User:a", "--operation", "Read"},
	}
	expand := func(c []string, p string) []string {
		out := append([]string{}, conn...)
		for _, a := range c {
			out = append(out, strings.ReplaceAll(a, "{p}", p))
		}
		return out
	}
	var apache [][]string
	for _, c := range cases {
		apache = append(apache, expand(c, "a-"))
	}
	// Connection-free cases and the cluster without an authorizer.
	extra := [][]string{
		{"--list"},
		{"--bootstrap-server", plain.Bootstrap},
		{"--bootstrap-server", plain.Bootstrap, "--bootstrap-controller", plain.Bootstrap, "--list"},
		{"--bootstrap-server", plain.Bootstrap, "--bogus"},
		{"--bootstrap-server", plain.Bootstrap, "--list"},
		{"--bootstrap-server", plain.Bootstrap, "--add", "--topic", "t", "--allow-principal", "User:a"},
		{"--version"},
	}
	apache = append(apache, extra...)
	want, err := cluster.ApacheBatch("kafka-acls", apache)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		got := kbox(t, append([]string{"kafka-acls"}, expand(c, "k-")...)...)
		compare(t, strings.Join(c, " "), want[i], got, "a-", "k-")
	}
	for i, c := range extra {
		got := kbox(t, append([]string{"kafka-acls"}, c...)...)
		compare(t, strings.Join(c, " "), want[len(cases)+i], got, "", "")
	}
}

func compare(t *testing.T, name string, want, got testbed.Result, from, to string) {
	t.Helper()
	w := func(s string) string { return normalize(s) }
	g := func(s string) string {
		if from != "" {
			s = strings.ReplaceAll(s, to, from)
		}
		return normalize(s)
	}
	if want.Code != got.Code || w(want.Stdout) != g(got.Stdout) || w(want.Stderr) != g(got.Stderr) {
		t.Errorf("%s:\napache: exit %d\nstdout:\n%q\nstderr:\n%q\nkbox: exit %d\nstdout:\n%q\nstderr:\n%q", name,
			want.Code, w(want.Stdout), head(w(want.Stderr)), got.Code, g(got.Stdout), head(g(got.Stderr)))
	}
}

func head(s string) string {
	if len(s) > 600 {
		return s[:600] + "..."
	}
	return s
}

// alice is a client authenticated as User:alice (SCRAM-SHA-512 over TLS).
func alice(t *testing.T) *kgo.Client {
	t.Helper()
	ca, err := os.ReadFile(cluster.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...),
		kgo.DialTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}),
		kgo.SASL(scram.Auth{User: "alice", Pass: "alice-secret"}.AsSha512Mechanism()),
		kgo.DisableIdempotentWrite(), kgo.RecordRetries(1), kgo.UnknownTopicRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// TestCheckAgainstBroker: kbox acls check's verdict for User:alice is what
// the broker decides when alice produces to or describes a topic, or
// describes a group.
func TestCheckAgainstBroker(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn := []string{"--bootstrap-server", cluster.Bootstrap, "--command-config", cluster.ClientProperties}
	topics := []string{"chk-write", "chk-deny", "chk-pre-x", "chk-none", "chk-star"}
	if r := kbox(t, append([]string{"kafka-topics", "--create", "--topic", topics[0]}, conn...)...); r.Code != 0 {
		t.Fatal(r)
	}
	for _, tp := range topics[1:] {
		if r := kbox(t, append([]string{"kafka-topics", "--create", "--topic", tp}, conn...)...); r.Code != 0 {
			t.Fatal(r)
		}
	}
	adds := [][]string{
		{"--topic", "chk-write", "--allow-principal", "User:alice", "--operation", "Write"},
		{"--topic", "chk-deny", "--allow-principal", "User:alice", "--operation", "All"},
		{"--topic", "chk-deny", "--deny-principal", "User:alice", "--operation", "Write"},
		{"--topic", "chk-pre-", "--resource-pattern-type", "prefixed", "--allow-principal", "User:alice", "--operation", "Describe"},
		{"--topic", "chk-star", "--allow-principal", "User:*", "--operation", "Write"},
		{"--group", "chk-g", "--allow-principal", "User:alice", "--operation", "Read"},
		{"--group", "chk-g2", "--deny-principal", "User:alice", "--operation", "Describe", "--allow-principal", "User:alice", "--operation", "Describe"},
	}
	for _, a := range adds {
		if r := kbox(t, append(append([]string{"kafka-acls", "--add"}, conn...), a...)...); r.Code != 0 {
			t.Fatal(r)
		}
	}
	cl := alice(t)
	adm := kadm.NewClient(cl)
	// Each try says whether the broker allowed it.
	produce := func(topic string) bool {
		pctx, pcancel := context.WithTimeout(ctx, 30*time.Second)
		defer pcancel()
		err := cl.ProduceSync(pctx, &kgo.Record{Topic: topic, Value: []byte("x")}).FirstErr()
		if err != nil && !errors.Is(err, kerr.TopicAuthorizationFailed) {
			t.Fatalf("produce %s: %v", topic, err)
		}
		return err == nil
	}
	describeTopic := func(topic string) bool {
		md, err := adm.Metadata(ctx, topic)
		if errors.Is(err, kerr.TopicAuthorizationFailed) {
			return false
		}
		if err != nil {
			t.Fatalf("metadata %s: %v", topic, err)
		}
		err = md.Topics[topic].Err
		if err != nil && !errors.Is(err, kerr.TopicAuthorizationFailed) {
			t.Fatalf("metadata %s: %v", topic, err)
		}
		return err == nil
	}
	describeGroup := func(group string) bool {
		gs, err := adm.DescribeGroups(ctx, group)
		// The first group request creates __consumer_offsets: wait for
		// its coordinator.
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) &&
			(errors.Is(err, kerr.CoordinatorNotAvailable) || errors.Is(err, kerr.CoordinatorLoadInProgress) || errors.Is(err, kerr.NotCoordinator)); {
			gs, err = adm.DescribeGroups(ctx, group)
		}
		if errors.Is(err, kerr.GroupIDNotFound) { // authorized: the group has no members
			return true
		}
		if err != nil && !errors.Is(err, kerr.GroupAuthorizationFailed) {
			t.Fatalf("describe group %s: %v", group, err)
		}
		if err != nil {
			return false
		}
		err = gs[group].Err
		if errors.Is(err, kerr.GroupIDNotFound) { // authorized: the group has no members
			return true
		}
		if err != nil && !errors.Is(err, kerr.GroupAuthorizationFailed) {
			t.Fatalf("describe group %s: %v", group, err)
		}
		return err == nil
	}
	tries := []struct {
		op, resource string
		try          func() bool
	}{
		{"write", "topic:chk-write", func() bool { return produce("chk-write") }},
		{"describe", "topic:chk-write", func() bool { return describeTopic("chk-write") }},
		{"write", "topic:chk-deny", func() bool { return produce("chk-deny") }},
		{"describe", "topic:chk-deny", func() bool { return describeTopic("chk-deny") }},
		{"describe", "topic:chk-pre-x", func() bool { return describeTopic("chk-pre-x") }},
		{"write", "topic:chk-pre-x", func() bool { return produce("chk-pre-x") }},
		{"describe", "topic:chk-none", func() bool { return describeTopic("chk-none") }},
		{"write", "topic:chk-star", func() bool { return produce("chk-star") }},
		{"describe", "group:chk-g", func() bool { return describeGroup("chk-g") }},
		{"describe", "group:chk-g2", func() bool { return describeGroup("chk-g2") }},
	}
	for _, tr := range tries {
		r := kbox(t, append([]string{"acls", "check", "User:alice", tr.op, tr.resource, "-o", "json"}, conn...)...)
		if r.Code != 0 {
			t.Fatalf("check %s %s: %s", tr.op, tr.resource, r)
		}
		allowed := strings.Contains(r.Stdout, `"allowed":true`)
		if broker := tr.try(); broker != allowed {
			t.Errorf("%s %s: kbox acls check says allowed=%t, the broker %t\n%s", tr.op, tr.resource, allowed, broker, r.Stdout)
		}
	}
	// The admin principal is a super user (given: 4.4's brokers hide super.users).
	r := kbox(t, append([]string{"acls", "check", "User:admin", "delete", "topic:chk-none", "--super-users", "User:ANONYMOUS;User:admin"}, conn...)...)
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "VERDICT") || !strings.Contains(r.Stdout, "ALLOWED  User:admin is in super.users") {
		t.Errorf("super user: %s", r)
	}
}

// TestExportApply: export, edit, apply --dry-run changes nothing, apply
// adds and removes exactly the diff.
func TestExportApply(t *testing.T) {
	conn := []string{"--bootstrap-server", cluster.Bootstrap, "--command-config", cluster.ClientProperties}
	for _, a := range [][]string{
		{"--topic", "ex-keep", "--allow-principal", "User:e", "--operation", "Read"},
		{"--topic", "ex-drop", "--allow-principal", "User:e", "--operation", "Read"},
	} {
		if r := kbox(t, append(append([]string{"kafka-acls", "--add"}, conn...), a...)...); r.Code != 0 {
			t.Fatal(r)
		}
	}
	exp := kbox(t, append([]string{"acls", "export"}, conn...)...)
	if exp.Code != 0 || !strings.Contains(exp.Stdout, "resource_name: ex-drop") {
		t.Fatal(exp)
	}
	// Drop ex-drop's ACL, add one on ex-new.
	doc := strings.Replace(exp.Stdout, "resource_name: ex-drop", "resource_name: ex-new", 1)
	file := filepath.Join(t.TempDir(), "acls.yaml")
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	wantDiff := "- ALLOW User:e READ TOPIC:ex-drop (LITERAL) from *\n+ ALLOW User:e READ TOPIC:ex-new (LITERAL) from *\n"
	dry := kbox(t, append([]string{"acls", "apply", file, "--dry-run"}, conn...)...)
	if dry.Code != 0 || dry.Stdout != wantDiff {
		t.Fatalf("dry run:\n%s", dry)
	}
	if again := kbox(t, append([]string{"acls", "apply", file, "--dry-run"}, conn...)...); again.Stdout != wantDiff {
		t.Fatalf("a dry run changed the cluster:\n%s", again)
	}
	if r := kbox(t, append([]string{"acls", "apply", file}, conn...)...); r.Code != 0 || r.Stdout != wantDiff {
		t.Fatalf("apply:\n%s", r)
	}
	if r := kbox(t, append([]string{"acls", "apply", file, "--dry-run"}, conn...)...); r.Stdout != "no changes: the cluster's ACLs are the document's\n" {
		t.Fatalf("after apply:\n%s", r)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte(doc+"  - {resource_type: topic, resource_name: x, principal: User:e, operation: IdempotentWrite}\n"), 0o600)
	if r := kbox(t, append([]string{"acls", "apply", bad}, conn...)...); r.Code != 2 || !strings.Contains(r.Stderr, "has no operation IDEMPOTENT_WRITE") {
		t.Fatalf("bad document:\n%s", r)
	}
}
