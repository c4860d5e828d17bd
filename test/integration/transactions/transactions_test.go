//go:build integration

// Package transactions_test checks kafka-transactions against Apache 4.4's
// TransactionsCommand on a 1-node cluster (the Apache cases that change
// nothing in one JVM per state), and kbox transactions hanging on real
// hanging transactions: one left open by a transactional producer that is
// SIGKILLed (its coordinator still tracks it), and one its coordinator
// never heard of for the partition (Apache's find-hanging case).
package transactions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

var (
	cluster *testbed.Cluster
	kboxBin string
	binDir  string
)

func TestMain(m *testing.M) {
	if spec := os.Getenv(helperEnv); spec != "" {
		os.Exit(runHelper(spec))
	}
	os.Exit(testbed.Main(m, testbed.Options{Name: "transactions", Applets: []string{"kafka-transactions", "kafka-transactions.sh"}, Brokers: 1,
		Ready: func(e testbed.Env) error {
			kboxBin, binDir, cluster = e.Kbox, e.BinDir, e.Cluster
			return nil
		}}))
}

func kbox(t *testing.T, path string, args ...string) testbed.Result {
	t.Helper()
	return testbed.Runner{Config: filepath.Join(binDir, "no-config.yaml"), Timeout: 60 * time.Second}.Exec(t, path, args...)
}

func link() string { return filepath.Join(binDir, "kafka-transactions") }

func admin(t *testing.T) (*kadm.Client, *kgo.Client) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.Bootstrap))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl), cl
}

func createTopic(t *testing.T, name string, partitions int32) {
	t.Helper()
	adm, _ := admin(t)
	r, err := adm.CreateTopic(context.Background(), partitions, 1, nil, name)
	if err == nil {
		err = r.Err
	}
	if err != nil {
		t.Fatal(err)
	}
}

// produce writes plain (non-transactional) values to partition 0.
func produce(t *testing.T, topic string, values ...string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.Bootstrap), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, v := range values {
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

// commitTxn writes values in one committed transaction of txnID.
func commitTxn(t *testing.T, txnID, topic string, values ...string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.Bootstrap), kgo.TransactionalID(txnID), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
}

// durationCell masks describe's TransactionDurationMs (now minus the
// start), the one value that moves between two runs. The cell keeps its
// width: the header's 21 characters, wider than any such number.
var durationCell = regexp.MustCompile(`(?m)^((?:[^\t]*\t){7})\d+ *\t`)

func normalize(s string) string {
	if !strings.HasPrefix(s, "CoordinatorId\t") {
		return s
	}
	return durationCell.ReplaceAllStringFunc(s, func(m string) string {
		g := durationCell.FindStringSubmatch(m)
		if len(m)-len(g[1]) != len("TransactionDurationMs\t") {
			return m // a cell of another width: left for the comparison to fail
		}
		return g[1] + "N\t"
	})
}

// compare runs the Apache cases in one JVM and kbox on each.
func compare(t *testing.T, cases [][]string) []testbed.Result {
	t.Helper()
	want, err := cluster.ApacheBatch("kafka-transactions", cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, args := range cases {
		w, got := want[i], kbox(t, link(), args...)
		errOK := got.Stderr == w.Stderr
		if strings.Contains(w.Stderr, "\n\tat ") { // a stack trace: kbox prints its first line
			first, _, _ := strings.Cut(w.Stderr, "\n")
			errOK = got.Stderr == first+"\n"
		}
		if got.Code != w.Code || normalize(got.Stdout) != normalize(w.Stdout) || !errOK {
			t.Errorf("%v:\nkbox   exit %d\nstdout %q\nstderr %.600q\napache exit %d\nstdout %q\nstderr %.600q", args, got.Code, got.Stdout, got.Stderr, w.Code, w.Stdout, w.Stderr)
		}
	}
	return want
}

func TestDifferential(t *testing.T) {
	bs := cluster.Bootstrap
	createTopic(t, "diff", 2)
	commitTxn(t, "diff-app", "diff", "a", "b")
	dir := t.TempDir()
	props := filepath.Join(dir, "admin.properties")
	if err := os.WriteFile(props, []byte("request.timeout.ms=20000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := func(args ...string) []string { return append([]string{"--bootstrap-server", bs}, args...) }
	cases := [][]string{
		b("list"),
		b("li"),
		b("list", "--duration-filter", "-1"),
		b("list", "--transactional-id-pattern", "diff-.*"),
		b("list", "--transactional-id-pattern", "nomatch"),
		b("--command-config", props, "describe", "--transactional-id", "diff-app"),
		b("describe", "--transactional-id", "diff-app"),
		b("describe", "--transactional-id", "nope"),
		b("describe-producers", "--topic", "diff", "--partition", "0"),
		b("describe-producers", "--topic", "diff", "--partition", "1"),
		b("describe-producers", "--topic", "diff", "--partition", "0", "--broker-id", "1"),
		b("find-hanging", "--broker-id", "1"),
		b("find-hanging", "--topic", "diff"),
		b("find-hanging", "--topic", "diff", "--partition", "0", "--max-transaction-timeout", "0"),
		b("find-hanging", "--topic", "nope"),
		b("abort", "--topic", "diff", "--partition", "0", "--start-offset", "0"),
		// The tool's own checks.
		b("abort", "--topic", "diff", "--partition", "0"),
		b("abort", "--topic", "diff", "--partition", "0", "--producer-id", "5"),
		b("abort", "--topic", "diff", "--partition", "0", "--producer-id", "5", "--producer-epoch", "1"),
		b("find-hanging"),
		b("find-hanging", "--partition", "1"),
		b("--command-config", filepath.Join(dir, "missing.properties"), "list"),
		{"--bootstrap-server", "bad", "list"},
		// argparse4j: help, version, parse errors.
		{},
		{"--help"},
		{"-v"},
		{"--version", "list"},
		b("list", "-h"),
		b("describe", "--help"),
		b("describe-producers", "-h"),
		b("abort", "-h"),
		b("find-hanging", "-h"),
		b("forceTerminateTransaction", "-h"),
		b("describe"),
		b("describe-producers", "--topic", "diff"),
		b("describe-producers", "--topic", "diff", "--partition", "x"),
		b("abort", "--topic", "diff", "--partition", "0", "--producer-epoch", "40000"),
		b("abort", "--topic", "diff", "--partition", "0", "--producer-epoch", "x"),
		b("list", "--duration-filter", "soon"),
		b("find-hanging", "--topic", "diff", "--max-transaction-timeout", "1.5"),
		b("bogus"),
		b(),
		{"list"},
		b("list", "--bogus"),
		b("desc", "--transactional-id", "diff-app"),
	}
	compare(t, cases)
	// The .sh link and kbox's own names are the same tool.
	for _, argv := range [][]string{{"kafka-transactions.sh"}, {"kbox", "kafka-transactions"}, {"kbox", "transactions"}} {
		path := kboxBin
		args := append([]string(nil), argv[1:]...)
		if argv[0] != "kbox" {
			path = filepath.Join(binDir, argv[0])
		}
		args = append(args, b("describe-producers", "--topic", "diff", "--partition", "1")...)
		if got := kbox(t, path, args...); got.Code != 0 || !strings.HasPrefix(got.Stdout, "ProducerId\tProducerEpoch\t") {
			t.Errorf("%v: %s", argv, got)
		}
	}
	// A pattern the broker refuses: Apache's log line (its time and client
	// id vary) and message.
	got := kbox(t, link(), b("list", "--transactional-id-pattern", "(")...)
	logLine := regexp.MustCompile(`^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] ERROR \[AdminClient clientId=adminclient-1\] The ` + "`ListTransactions`" + ` request sent to broker 1 failed because of an unexpected error INVALID_REGULAR_EXPRESSION \(org.apache.kafka.clients.admin.internals.ListTransactionsHandler\)\nFailed to list transactions: ListTransactions request sent to broker 1 failed with an unexpected exception. Enable debug logging for additional detail.\n$`)
	if got.Code != 1 || !logLine.MatchString(got.Stderr) {
		t.Errorf("list with a bad pattern: %s", got)
	}
	// kbox's views of the same results.
	var ls []struct {
		TransactionalID string `json:"transactional_id"`
		State           string `json:"state"`
	}
	r := kbox(t, link(), b("list", "-o", "json", "--transactional-id-pattern", "diff-app")...)
	if err := json.Unmarshal([]byte(r.Stdout), &ls); err != nil || len(ls) != 1 || ls[0].TransactionalID != "diff-app" || ls[0].State != "CompleteCommit" {
		t.Errorf("list -o json: %v %s", err, r)
	}
	// forceTerminateTransaction bumps the epoch (InitProducerId); both
	// tools print nothing.
	before := describeEpoch(t, "diff-app")
	for i, tool := range []string{"apache", "kbox"} {
		var code int
		var out, errs string
		if tool == "apache" {
			var err error
			out, errs, code, err = cluster.Apache(nil, "kafka-transactions", b("forceTerminateTransaction", "--transactionalId", "diff-app")...)
			if err != nil {
				t.Fatal(err)
			}
		} else {
			r := kbox(t, link(), b("forceTerminateTransaction", "--transactionalId", "diff-app")...)
			code, out, errs = r.Code, r.Stdout, r.Stderr
		}
		if code != 0 || out != "" || errs != "" {
			t.Errorf("%s forceTerminateTransaction: exit %d %q %q", tool, code, out, errs)
		}
		if e := describeEpoch(t, "diff-app"); e <= before+int16(i) {
			t.Errorf("%s forceTerminateTransaction: epoch %d after %d", tool, e, before)
		}
	}
}

func describeEpoch(t *testing.T, id string) int16 {
	t.Helper()
	adm, _ := admin(t)
	d, err := adm.DescribeTransactions(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d[id].ProducerEpoch
}

type report struct {
	Partitions int `json:"partitions_scanned"`
	Open       int `json:"open_transactions"`
	Hanging    []struct {
		Topic            string   `json:"topic"`
		Partition        int32    `json:"partition"`
		TransactionalID  string   `json:"transactional_id"`
		ProducerID       int64    `json:"producer_id"`
		StartOffset      int64    `json:"start_offset"`
		Coordinator      string   `json:"coordinator"`
		Blocked          bool     `json:"blocked"`
		LastStableOffset int64    `json:"last_stable_offset"`
		HighWatermark    int64    `json:"high_watermark"`
		Groups           []string `json:"groups"`
		AbortCommand     string   `json:"abort_command"`
	} `json:"hanging"`
}

func hanging(t *testing.T, args ...string) (report, testbed.Result) {
	t.Helper()
	r := kbox(t, kboxBin, append([]string{"transactions", "hanging", "--bootstrap-server", cluster.Bootstrap, "-o", "json"}, args...)...)
	var rep report
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, r)
	}
	return rep, r
}

// readCommitted consumes the topic with read_committed for up to wait
// (or until n values) and returns the values.
func readCommitted(t *testing.T, topic string, n int, wait time.Duration) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.Bootstrap), kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var vals []string
	deadline := time.Now().Add(wait)
	for len(vals) < n && time.Now().Before(deadline) {
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		fs := cl.PollFetches(ctx)
		cancel()
		fs.EachRecord(func(r *kgo.Record) { vals = append(vals, string(r.Value)) })
	}
	return vals
}

// The scenario: a transactional producer writes and is SIGKILLed;
// its transaction stays open (10 min timeout), holding back the LSO.
func TestHangingAfterKill(t *testing.T) {
	createTopic(t, "orders", 1)
	produce(t, "orders", "before-0", "before-1")
	kill := startHangingProducer(t, "stuck-app", "orders")
	kill()
	produce(t, "orders", "after-0", "after-1")
	adm, _ := admin(t)
	offs := kadm.Offsets{}
	offs.AddOffset("orders", 0, 2, -1)
	if r, err := adm.CommitOffsets(context.Background(), "billing", offs); err != nil || r.Error() != nil {
		t.Fatalf("commit: %v %v", err, r.Error())
	}

	// Its own timeout (10 min) has not passed: nothing is hanging yet.
	rep, r := hanging(t)
	if r.Code != 0 || len(rep.Hanging) != 0 || rep.Open != 1 {
		t.Errorf("hanging without a limit: %s", r)
	}
	if r := kbox(t, kboxBin, "transactions", "hanging", "--bootstrap-server", cluster.Bootstrap); r.Code != 0 || !strings.HasPrefix(r.Stdout, "No hanging transactions (") {
		t.Errorf("hanging as a table: %s", r)
	}
	// Open longer than a second: found, with what it blocks.
	cmdtest.Eventually(t, 30*time.Second, func() (bool, string) {
		rep, r = hanging(t, "--max-transaction-timeout", "1s")
		return r.Code == 1 && len(rep.Hanging) == 1, r.String()
	})
	h := rep.Hanging[0]
	wantAbort := "kafka-transactions --bootstrap-server " + cluster.Bootstrap + " abort --topic orders --partition 0 --start-offset 2"
	if h.Topic != "orders" || h.TransactionalID != "stuck-app" || h.StartOffset != 2 || h.Coordinator != "Ongoing" || !h.Blocked ||
		h.LastStableOffset != 2 || h.HighWatermark != 7 || len(h.Groups) != 1 || h.Groups[0] != "billing" || h.AbortCommand != wantAbort {
		t.Errorf("hanging: %+v", h)
	}
	if r := kbox(t, kboxBin, "transactions", "hanging", "--bootstrap-server", cluster.Bootstrap, "--max-transaction-timeout", "1s"); r.Code != 1 ||
		!strings.Contains(r.Stdout, "stuck-app") || !strings.Contains(r.Stdout, "abort: "+wantAbort+"\n") || !strings.Contains(r.Stdout, "billing") {
		t.Errorf("hanging as a table: %s", r)
	}
	// Apache and kbox agree on the Apache views (the coordinator still
	// tracks the transaction, so find-hanging reports nothing).
	b := func(args ...string) []string {
		return append([]string{"--bootstrap-server", cluster.Bootstrap}, args...)
	}
	compare(t, [][]string{
		b("describe", "--transactional-id", "stuck-app"),
		b("describe-producers", "--topic", "orders", "--partition", "0"),
		b("list"),
		b("find-hanging", "--topic", "orders", "--max-transaction-timeout", "0"),
		b("find-hanging", "--broker-id", "1", "--max-transaction-timeout", "0"),
		b("abort", "--topic", "orders", "--partition", "0", "--start-offset", "3"),
	})
	// A read_committed consumer stops at the LSO.
	if got := readCommitted(t, "orders", 3, 5*time.Second); strings.Join(got, ",") != "before-0,before-1" {
		t.Errorf("read_committed before the abort: %v", got)
	}
	// kbox aborts it, the consumer moves on (the aborted values skipped).
	if r := kbox(t, link(), b("abort", "--topic", "orders", "--partition", "0", "--start-offset", "2")...); r.Code != 0 || r.Stdout != "" || r.Stderr != "" {
		t.Fatalf("abort: %s", r)
	}
	if got := readCommitted(t, "orders", 4, 30*time.Second); strings.Join(got, ",") != "before-0,before-1,after-0,after-1" {
		t.Errorf("read_committed after the abort: %v", got)
	}
	if rep, r := hanging(t, "--max-transaction-timeout", "1s"); r.Code != 0 || len(rep.Hanging) != 0 {
		t.Errorf("hanging after the abort: %s", r)
	}
}

// A transaction no coordinator tracks for its partition: what Apache's
// find-hanging finds. Both tools report the same row; kbox aborts it
// with the pre-3.0 form.
func TestUntrackedTransaction(t *testing.T) {
	bs := cluster.Bootstrap
	set := func(v string) {
		r := kbox(t, kboxBin, "kafka-configs", "--bootstrap-server", bs, "--alter", "--entity-type", "brokers", "--entity-default", "--add-config", "transaction.partition.verification.enable="+v)
		if r.Code != 0 {
			t.Fatal(r)
		}
	}
	set("false")
	defer set("true")
	createTopic(t, "ghosts", 1)
	produce(t, "ghosts", "g-0")
	var pid int64
	var epoch int16
	cmdtest.Eventually(t, 30*time.Second, func() (bool, string) { // the dynamic config reaches the broker
		var err error
		pid, epoch, err = openUntracked("ghost", "ghosts")
		return err == nil, fmt.Sprint(err)
	})
	produce(t, "ghosts", "g-after")
	b := func(args ...string) []string { return append([]string{"--bootstrap-server", bs}, args...) }
	want := compare(t, [][]string{
		b("find-hanging", "--topic", "ghosts", "--max-transaction-timeout", "0"),
		b("find-hanging", "--topic", "ghosts", "--partition", "0", "--max-transaction-timeout", "0"),
		b("find-hanging", "--broker-id", "1", "--max-transaction-timeout", "0"),
		b("find-hanging", "--topic", "ghosts"),
		b("describe-producers", "--topic", "ghosts", "--partition", "0"),
	})
	if !strings.Contains(want[0].Stdout, fmt.Sprintf("\nghosts\t0        \t%d", pid)) {
		t.Errorf("Apache does not see the hanging transaction: %q", want[0].Stdout)
	}
	rep, r := hanging(t, "--max-transaction-timeout", "1ms")
	if r.Code != 1 || len(rep.Hanging) != 1 || rep.Hanging[0].Coordinator != "untracked" || rep.Hanging[0].TransactionalID != "ghost" || !rep.Hanging[0].Blocked {
		t.Errorf("hanging: %s", r)
	}
	ab := b("abort", "--topic", "ghosts", "--partition", "0", "--producer-id", fmt.Sprint(pid), "--producer-epoch", fmt.Sprint(epoch), "--coordinator-epoch", "-1")
	if r := kbox(t, link(), ab...); r.Code != 0 || r.Stdout != "" || r.Stderr != "" {
		t.Fatalf("abort: %s", r)
	}
	compare(t, [][]string{b("find-hanging", "--topic", "ghosts", "--max-transaction-timeout", "0")})
	if got := readCommitted(t, "ghosts", 2, 30*time.Second); strings.Join(got, ",") != "g-0,g-after" {
		t.Errorf("read_committed after the abort: %v", got)
	}
	// Apache's abort --start-offset on another such transaction: the
	// same empty answer, and the scan finds nothing left.
	createTopic(t, "ghosts2", 1)
	if _, _, err := openUntracked("ghost2", "ghosts2"); err != nil {
		t.Fatal(err)
	}
	if rep, r := hanging(t, "--max-transaction-timeout", "1ms"); r.Code != 1 || len(rep.Hanging) != 1 || rep.Hanging[0].Topic != "ghosts2" {
		t.Errorf("hanging before Apache's abort: %s", r)
	}
	out, errs, code, err := cluster.Apache(nil, "kafka-transactions", b("abort", "--topic", "ghosts2", "--partition", "0", "--start-offset", "0")...)
	if err != nil || code != 0 || out != "" || errs != "" {
		t.Errorf("Apache's abort: %v exit %d %q %q", err, code, out, errs)
	}
	if rep, r := hanging(t, "--max-transaction-timeout", "1ms"); r.Code != 0 || len(rep.Hanging) != 0 {
		t.Errorf("hanging after Apache's abort: %s", r)
	}
}
