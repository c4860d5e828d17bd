package transactions

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Apache 4.4's help, usage and parse errors, captured with testbed.sh
// apache kafka-transactions (testdata/apache-*.txt: stdout, then stderr).
// None of these connects: 127.0.0.1:1 is never dialled.
func TestApacheTexts(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"help", []string{"--help"}, 1},
		{"list-help", []string{"--bootstrap-server", "BS", "list", "--help"}, 1},
		{"describe-help", []string{"--bootstrap-server", "BS", "describe", "-h"}, 1},
		{"describe-producers-help", []string{"--bootstrap-server", "BS", "describe-producers", "-h"}, 1},
		{"abort-help", []string{"--bootstrap-server", "BS", "abort", "-h"}, 1},
		{"find-hanging-help", []string{"--bootstrap-server", "BS", "find-hanging", "-h"}, 1},
		{"force-terminate-help", []string{"--bootstrap-server", "BS", "forceTerminateTransaction", "-h"}, 1},
		{"describe-missing", []string{"--bootstrap-server", "BS", "describe"}, 1},
		{"abort-epoch-range", []string{"--bootstrap-server", "BS", "abort", "--topic", "x", "--partition", "0", "--producer-epoch", "40000"}, 1},
		{"abort-epoch-nan", []string{"--bootstrap-server", "BS", "abort", "--topic", "x", "--partition", "0", "--producer-epoch", "x"}, 1},
		{"no-bootstrap", []string{"list"}, 1},
		{"bogus-command", []string{"--bootstrap-server", "BS", "bogus"}, 1},
	}
	for _, c := range cases {
		want, err := os.ReadFile(filepath.Join("testdata", "apache-"+c.name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		args := append([]string(nil), c.args...)
		for i, a := range args {
			if a == "BS" {
				args[i] = "127.0.0.1:1"
			}
		}
		r := cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kafka-transactions", Env: map[string]string{"COLUMNS": "80"}}, args...)
		if r.Code != c.code || r.Stdout+r.Stderr != string(want) {
			t.Errorf("%s: exit %d\n%s%s\nwant exit %d\n%s", c.name, r.Code, r.Stdout, r.Stderr, c.code, want)
		}
	}
	r := cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kafka-transactions"}, "-v")
	if r.Code != 0 || r.Stdout != "4.4.0 (Commit:1156b2752aaa28ea)\n" {
		t.Errorf("-v: %d %q", r.Code, r.Stdout)
	}
}

// The tool's own checks, in its order, all before a request.
func TestApacheChecks(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.properties")
	bs := []string{"--bootstrap-server", "127.0.0.1:1"}
	cases := []struct {
		args []string
		errL string
	}{
		{[]string{"abort", "--topic", "t", "--partition", "0"}, "The transaction to abort must be identified either with --start-offset (for brokers on 3.0 or above) or with --producer-id, --producer-epoch, and --coordinator-epoch (for older brokers)"},
		{[]string{"abort", "--topic", "t", "--partition", "0", "--producer-id", "5"}, "Missing required argument --producer-epoch"},
		{[]string{"abort", "--topic", "t", "--partition", "0", "--producer-id", "5", "--producer-epoch", "1"}, "Missing required argument --coordinator-epoch"},
		{[]string{"find-hanging"}, "The `find-hanging` command requires either --topic or --broker-id to limit the scope of the search"},
		{[]string{"find-hanging", "--partition", "1", "--broker-id", "1"}, "The --partition argument requires --topic to be provided"},
		{[]string{"--command-config", missing, "list"}, "Failed to load admin client properties: " + missing + ". Enable debug logging for additional detail."},
	}
	for _, c := range cases {
		r := cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kafka-transactions"}, append(append([]string(nil), bs...), c.args...)...)
		if r.Code != 1 || r.Stdout != "" || r.Stderr != c.errL+"\n" {
			t.Errorf("%v: exit %d stdout %q stderr %q", c.args, r.Code, r.Stdout, r.Stderr)
		}
	}
	r := cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kafka-transactions"}, "--bootstrap-server", "bad", "list")
	if r.Code != 1 || r.Stderr != "Exception in thread \"main\" org.apache.kafka.common.KafkaException: Failed to create new KafkaAdminClient\n" {
		t.Errorf("bad bootstrap: %d %q", r.Code, r.Stderr)
	}
}

// On kfake: an open transaction through the drop-in's tables and kbox
// transactions hanging's verdict.
func TestOnKfake(t *testing.T) {
	bs, _ := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	txn, err := kgo.NewClient(kgo.SeedBrokers(bs), kgo.DefaultProduceTopic("t"), kgo.TransactionalID("app"), kgo.TransactionTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Close()
	if err := txn.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := txn.ProduceSync(ctx, &kgo.Record{Value: []byte("y")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) cmdtest.Result {
		return cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kafka-transactions"}, append([]string{"--bootstrap-server", bs}, args...)...)
	}
	if r := run("list"); r.Code != 0 || !strings.HasPrefix(r.Stdout, "TransactionalId\tCoordinator\tProducerId") || !strings.Contains(r.Stdout, "\napp            \t0          \t") ||
		!strings.HasSuffix(r.Stdout, "\tOngoing         \t\n") {
		t.Errorf("list: %s", r.Stdout+r.Stderr)
	}
	if r := run("describe", "--transactional-id", "app"); r.Code != 0 || !strings.Contains(r.Stdout, "\tOngoing         \t60000               \t") ||
		!strings.HasSuffix(r.Stdout, "\tt-0            \t\n") {
		t.Errorf("describe: %s", r.Stdout+r.Stderr)
	}
	if r := run("describe", "--transactional-id", "nope"); r.Code != 1 || r.Stderr != "Failed to describe transaction state of transactional-id `nope`: DescribeTransactions request for transactionalId `nope` failed because the ID could not be found. Enable debug logging for additional detail.\n" {
		t.Errorf("describe nope: %s", r.Stderr)
	}
	if r := run("describe-producers", "--topic", "t", "--partition", "0"); r.Code != 0 || !strings.HasSuffix(strings.Split(r.Stdout, "\n")[0], "\tProducerEpoch\tLatestCoordinatorEpoch\tLastSequence\tLastTimestamp\tCurrentTransactionStartOffset\t") ||
		!strings.HasSuffix(r.Stdout, "\t0                            \t\n") {
		t.Errorf("describe-producers: %s", r.Stdout+r.Stderr)
	}
	if r := run("abort", "--topic", "t", "--partition", "0", "--start-offset", "5"); r.Code != 1 || r.Stderr != "Could not find any open transactions starting at offset 5 on partition t-0\n" {
		t.Errorf("abort at 5: %s", r.Stderr)
	}
	if r := run("describe-producers", "--topic", "t", "--partition", "0", "--broker-id", "7"); r.Code != 1 || !strings.Contains(r.Stderr, "broker 7: unknown broker") {
		t.Errorf("describe-producers on broker 7: %d %q", r.Code, r.Stderr)
	}
	var ps []map[string]any
	if r := run("describe-producers", "--topic", "t", "--partition", "0", "-o", "json"); r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &ps) != nil || len(ps) != 1 || ps[0]["txn_start_offset"] != 0.0 {
		t.Errorf("describe-producers -o json: %s", r.Stdout+r.Stderr)
	}

	native := func(args ...string) cmdtest.Result {
		return cmdtest.Run(t, cmdtest.Options{New: NewNativeCmd}, append([]string{"hanging", "--bootstrap-server", bs}, args...)...)
	}
	if r := native(); r.Code != 0 || !strings.HasPrefix(r.Stdout, "No hanging transactions (1 partitions scanned, 1 open transactions).") {
		t.Errorf("hanging: %d %s", r.Code, r.Stdout+r.Stderr)
	}
	cmdtest.Eventually(t, 10*time.Second, func() (bool, string) {
		r := native("--max-transaction-timeout", "1ms")
		return r.Code == 1 && strings.Contains(r.Stdout, "abort: kafka-transactions --bootstrap-server "+bs+" abort --topic t --partition 0 --start-offset 0\n"), r.Stdout + r.Stderr
	})
	for _, bad := range [][]string{{"--max-transaction-timeout", "-1s"}, {"--interval", "5s"}, {"--watch", "--interval", "0s"}, {"--watch", "--count", "-1"}} {
		if r := native(bad...); r.Code != 2 {
			t.Errorf("%v: exit %d %s", bad, r.Code, r.Stderr)
		}
	}
	if r := native("--watch", "--interval", "10ms", "--count", "2", "-o", "json"); r.Code != 0 || strings.Count(r.Stdout, "\n") != 2 {
		t.Errorf("--watch --count 2: %d %q", r.Code, r.Stdout)
	}
	// forceTerminateTransaction fences the id, which ends the
	// transaction: prints nothing.
	if r := run("forceTerminateTransaction", "--transactionalId", "app"); r.Code != 0 || r.Stdout+r.Stderr != "" {
		t.Errorf("forceTerminateTransaction: %d %q", r.Code, r.Stdout+r.Stderr)
	}
	cmdtest.Eventually(t, 10*time.Second, func() (bool, string) {
		r := native("--max-transaction-timeout", "1ms")
		return r.Code == 0, r.Stdout + r.Stderr
	})
}
