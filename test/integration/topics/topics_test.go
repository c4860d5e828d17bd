//go:build integration

// Package topics_test runs kbox's kafka-topics and Apache's kafka-topics.sh
// (Kafka 4.4.0, via testbed.sh) side by side on a 3-broker cluster and
// compares stdout, stderr and exit codes byte for byte.
package topics_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/kboxdev/kbox/pkg/topics"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

var (
	cluster *testbed.Cluster
	applet  string // path of a "kafka-topics" link to kbox
	cfgDir  string
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "topics", Applets: []string{"kafka-topics"}, Brokers: 3, Ready: func(e testbed.Env) error {
		applet, cfgDir, cluster = filepath.Join(e.BinDir, "kafka-topics"), e.Dir, e.Cluster
		return setup()
	}}))
}

func admin() (*kadm.Client, func(), error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...))
	if err != nil {
		return nil, nil, err
	}
	return kadm.NewClient(cl), cl.Close, nil
}

// setup creates the fixed topics the read-only cases look at, and
// __consumer_offsets (by looking up a group coordinator).
func setup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	adm, done, err := admin()
	if err != nil {
		return err
	}
	defer done()
	retention := "86400000"
	compact := "compact"
	minISR := "2"
	mk := []struct {
		name string
		p    int32
		rf   int16
		cfg  map[string]*string
	}{
		{"fixed-a", 3, 3, nil},
		{"fixed-b", 2, 2, map[string]*string{"retention.ms": &retention, "cleanup.policy": &compact}},
		{"fixed.c_d", 1, 1, nil},
		{"fixed-min", 2, 3, map[string]*string{"min.insync.replicas": &minISR}},
	}
	for _, t := range mk {
		if _, err := adm.CreateTopic(ctx, t.p, t.rf, t.cfg, t.name); err != nil {
			return fmt.Errorf("create %s: %w", t.name, err)
		}
	}
	for i := 1; i <= 12; i++ {
		if _, err := adm.CreateTopic(ctx, 1, 1, nil, fmt.Sprintf("many-%d", i)); err != nil {
			return err
		}
	}
	for {
		res := adm.FindGroupCoordinators(ctx, "kbox-topics-it")
		if len(res) > 0 && !res.AllFailed() {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("__consumer_offsets not ready")
		case <-time.After(500 * time.Millisecond):
		}
	}
	return waitStable(ctx, adm)
}

// waitStable waits until every partition has its full ISR.
func waitStable(ctx context.Context, adm *kadm.Client) error {
	for {
		md, err := adm.Metadata(ctx)
		ok := err == nil
		if ok {
			for _, t := range md.Topics {
				for _, p := range t.Partitions {
					if len(p.ISR) != len(p.Replicas) || p.Leader < 0 {
						ok = false
					}
				}
			}
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster not stable: %v", err)
		case <-time.After(500 * time.Millisecond):
		}
	}
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
	out, errs, code, err := cluster.Apache(nil, "kafka-topics", args...)
	if err != nil {
		t.Fatalf("run apache: %v\n%s", err, errs)
	}
	return result{stdout: out, stderr: errs, code: code}
}

// runApacheBatch runs Apache's kafka-topics once per case, all in one JVM
// (testbed.ApacheBatch: a JVM start costs seconds on a loaded machine),
// and returns the results in order. Use it for command lines that do not
// change what the others see.
func runApacheBatch(t *testing.T, cmds [][]string) []result {
	t.Helper()
	rs, err := cluster.ApacheBatch("kafka-topics", cmds)
	if err != nil {
		t.Fatalf("run apache: %v", err)
	}
	out := make([]result, len(rs))
	for i, r := range rs {
		out[i] = result{stdout: r.Stdout, stderr: r.Stderr, code: r.Code}
	}
	return out
}

func argsOf(cases []tcase) [][]string {
	cmds := make([][]string, len(cases))
	for i, c := range cases {
		cmds[i] = c.args
	}
	return cmds
}

// stderr comparison modes.
const (
	exact     = iota // byte for byte (usage errors, warnings)
	firstLine        // Apache adds a Java stack trace after the message
	noStderr         // Apache logs a log4j ERROR with a stack trace; kbox prints nothing
)

var comboRe = regexp.MustCompile(`"\[\[config\], \[bootstrap-server\]\]"`)

// normalize removes Apache's per-JVM randomness: Set.of iteration order in
// the "Option combination" message.
func normalize(s string) string {
	return comboRe.ReplaceAllString(s, `"[[bootstrap-server], [config]]"`)
}

func compare(t *testing.T, a, k result, mode int) {
	t.Helper()
	if a.code != k.code {
		t.Errorf("exit code: apache %d, kbox %d\napache stdout:\n%s\napache stderr:\n%s\nkbox stdout:\n%s\nkbox stderr:\n%s", a.code, k.code, a.stdout, head(a.stderr, 5), k.stdout, k.stderr)
	}
	if normalize(a.stdout) != normalize(k.stdout) {
		t.Errorf("stdout differs\napache:\n%q\nkbox:\n%q", a.stdout, k.stdout)
	}
	switch mode {
	case exact:
		if normalize(a.stderr) != normalize(k.stderr) {
			t.Errorf("stderr differs\napache:\n%q\nkbox:\n%q", head(a.stderr, 3), head(k.stderr, 3))
		}
	case firstLine:
		if head(a.stderr, 1) != k.stderr {
			t.Errorf("stderr first line differs\napache:\n%q\nkbox:\n%q", head(a.stderr, 1), k.stderr)
		}
	case noStderr:
		if k.stderr != "" {
			t.Errorf("kbox printed on stderr: %q", k.stderr)
		}
		if a.code != 0 && !strings.Contains(a.stderr, " ERROR ") {
			t.Errorf("expected a log4j ERROR line from Apache, got %q", head(a.stderr, 2))
		}
	}
}

func head(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "")
}

type tcase struct {
	name string
	args []string
	mode int
}

func bs(args ...string) []string {
	return append([]string{"--bootstrap-server", cluster.Bootstrap}, args...)
}

// TestDifferentialReadOnly: argument errors and read-only actions on the
// same cluster state.
func TestDifferentialReadOnly(t *testing.T) {
	adm, done, err := admin()
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	td, err := adm.ListTopics(context.Background(), "fixed-a")
	if err != nil {
		t.Fatal(err)
	}
	// The id as users see it in --describe (Java's Uuid.toString: URL-safe
	// base64 without padding), not kadm's standard-base64 String().
	idA := topics.TopicIDString(td["fixed-a"].ID)
	cases := []tcase{
		{"no-args", nil, exact},
		{"help", []string{"--help"}, exact},
		{"version", []string{"--version"}, exact},
		{"two-actions", bs("--list", "--describe"), exact},
		{"no-action", bs("--topic", "x"), exact},
		{"unknown-option", bs("--lis"), firstLine},
		{"missing-argument", []string{"--list", "--topic"}, firstLine},
		{"no-bootstrap", []string{"--list"}, firstLine},
		{"create-no-topic", bs("--create"), exact},
		{"alter-no-partitions", bs("--alter", "--topic", "fixed-a"), exact},
		{"alter-config", bs("--alter", "--topic", "fixed-a", "--partitions", "5", "--config", "a=b"), exact},
		{"list-partitions", bs("--list", "--partitions", "3"), exact},
		{"describe-rf", bs("--describe", "--replication-factor", "2"), exact},
		{"list-assignment", bs("--list", "--replica-assignment", "1"), exact},
		{"create-assignment-partitions", bs("--create", "--topic", "x", "--replica-assignment", "1", "--partitions", "2"), exact},
		{"create-assignment-rf", bs("--create", "--topic", "x", "--replica-assignment", "1", "--replication-factor", "1"), exact},
		{"overrides-with-report", bs("--describe", "--topics-with-overrides", "--under-replicated-partitions"), exact},
		{"report-with-list", bs("--list", "--under-min-isr-partitions"), exact},
		{"overrides-with-list", bs("--list", "--topics-with-overrides"), exact},
		{"if-exists-create", bs("--create", "--topic", "x", "--if-exists"), exact},
		{"if-not-exists-list", bs("--list", "--if-not-exists"), exact},
		{"exclude-internal-create", bs("--create", "--topic", "x", "--exclude-internal"), exact},
		{"describe-if-exists-no-topic", bs("--describe", "--if-exists"), exact},
		{"delete-config-warning", bs("--describe", "--topic", "fixed-b", "--delete-config", "x"), exact},
		{"topic-and-topic-id", bs("--describe", "--if-exists", "--topic", "fixed-b", "--topic-id", idA), exact},
		{"create-partitions-abc", bs("--create", "--topic", "x", "--partitions", "abc"), noStderr},
		{"create-partitions-twice", bs("--create", "--topic", "x", "--partitions", "1", "--partitions", "2"), noStderr},
		{"create-partitions-0", bs("--create", "--topic", "x", "--partitions", "0"), noStderr},
		{"create-rf-0", bs("--create", "--topic", "x.y", "--replication-factor", "0"), noStderr},
		{"create-rf-4", bs("--create", "--topic", "x", "--replication-factor", "4"), noStderr},
		{"create-unknown-config", bs("--create", "--topic", "x", "--config", "foo=bar"), noStderr},
		{"create-bad-config-type", bs("--create", "--topic", "x", "--config", "retention.ms=abc"), noStderr},
		{"create-bad-config-bool", bs("--create", "--topic", "x", "--config", "preallocate=maybe"), noStderr},
		{"create-bad-config-enum", bs("--create", "--topic", "x", "--config", "cleanup.policy=zap"), noStderr},
		{"create-config-no-equals", bs("--create", "--topic", "x", "--config", "retention.ms"), noStderr},
		{"create-bad-name", bs("--create", "--topic", "bad name"), noStderr},
		{"create-too-long-name", bs("--create", "--topic", strings.Repeat("a", 250)), noStderr},
		{"create-dot-name", bs("--create", "--topic", ".."), noStderr},
		{"create-existing", bs("--create", "--topic", "fixed-a"), noStderr},
		{"create-existing-collision", bs("--create", "--topic", "fixed.c_d"), noStderr},
		{"create-existing-if-not-exists", bs("--create", "--topic", "fixed-a", "--if-not-exists"), exact},
		{"create-assignment-duplicate", bs("--create", "--topic", "x", "--replica-assignment", "1:1"), noStderr},
		{"create-assignment-uneven", bs("--create", "--topic", "x", "--replica-assignment", "1:2,3"), noStderr},
		{"create-assignment-not-int", bs("--create", "--topic", "x", "--replica-assignment", "1:x"), noStderr},
		{"describe-missing", bs("--describe", "--topic", "nope"), noStderr},
		{"describe-missing-if-exists", bs("--describe", "--topic", "nope", "--if-exists"), exact},
		{"describe-bad-topic-id", bs("--describe", "--topic-id", "abc"), noStderr},
		{"describe-topic-id-std-base64", bs("--describe", "--topic-id", "oKUzvhJoR/CDnOfOI5G27A=="), noStderr},
		{"alter-missing", bs("--alter", "--topic", "nope", "--partitions", "3"), noStderr},
		{"alter-missing-if-exists", bs("--alter", "--topic", "nope", "--partitions", "3", "--if-exists"), exact},
		{"alter-decrease", bs("--alter", "--topic", "fixed-a", "--partitions", "2"), noStderr},
		{"alter-same", bs("--alter", "--topic", "fixed-a", "--partitions", "3"), noStderr},
		{"delete-missing", bs("--delete", "--topic", "nope"), noStderr},
		{"delete-missing-if-exists", bs("--delete", "--topic", "nope", "--if-exists"), exact},
		{"list-bad-regex", bs("--list", "--topic", "["), noStderr},
		{"list", bs("--list"), exact},
		{"list-exclude-internal", bs("--list", "--exclude-internal"), exact},
		{"list-regex", bs("--list", "--topic", "fixed-.*"), exact},
		{"list-commas", bs("--list", "--topic", "fixed-a, many-1,'many-2'"), exact},
		{"list-internal-regex-excluded", bs("--list", "--topic", "__.*", "--exclude-internal"), exact},
		{"list-empty", bs("--list", "--topic", "nope"), exact},
		{"list-positional-ignored", bs("--list", "stray", "--topic=fixed-b"), exact},
		{"describe-all", bs("--describe"), exact},
		{"describe-exclude-internal", bs("--describe", "--exclude-internal"), exact},
		{"describe-regex", bs("--describe", "--topic", "many-.*|fixed-b"), exact},
		{"describe-overrides", bs("--describe", "--topics-with-overrides"), exact},
		{"describe-internal", bs("--describe", "--topic", "__consumer_offsets"), exact},
		{"describe-topic-id", bs("--describe", "--topic-id", idA), exact},
		{"describe-page-size-1", bs("--describe", "--topic", "fixed-.*", "--partition-size-limit-per-response", "1"), exact},
		{"describe-healthy-filters", bs("--describe", "--under-replicated-partitions", "--unavailable-partitions", "--under-min-isr-partitions"), exact},
		{"describe-at-min-isr", bs("--describe", "--at-min-isr-partitions"), exact},
	}
	apache := runApacheBatch(t, argsOf(cases))
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := apache[i]
			k := runKbox(t, c.args...)
			compare(t, a, k, c.mode)
		})
	}
}

var topicIDRe = regexp.MustCompile(`TopicId: [A-Za-z0-9_-]{22}`)

// TestDifferentialMutations runs each mutation twice, once per tool, on
// topics named ap-* and kb-*, and compares the outputs with the names (and
// topic ids) made equal. The state left behind is checked with Apache's
// own --describe.
func TestDifferentialMutations(t *testing.T) {
	type mcase struct {
		name   string
		pre    []string // Apache args run first for each topic ({T})
		args   []string // the action under test ({T})
		after  []string // Apache args whose output is compared afterwards
		filter func(string) string
		mode   int
	}
	firstLineOnly := func(s string) string { return head(s, 1) }
	cases := []mcase{
		{name: "create-with-configs", args: []string{"--create", "--topic", "{T}-cfg", "--partitions", "3", "--replication-factor", "2", "--config", "retention.ms=1000", "--config", "cleanup.policy = compact"},
			after: []string{"--describe", "--topic", "{T}-cfg"}, filter: firstLineOnly},
		{name: "create-collision-warning", args: []string{"--create", "--topic", "{T}.with_dot", "--partitions", "1", "--replication-factor", "1"}},
		{name: "create-assignment", args: []string{"--create", "--topic", "{T}-asg", "--replica-assignment", "1:2,2:3,3:1"},
			after: []string{"--describe", "--topic", "{T}-asg"}},
		{name: "create-if-not-exists-new", args: []string{"--create", "--topic", "{T}-ine", "--if-not-exists", "--partitions", "2"}},
		{name: "alter-increase", pre: []string{"--create", "--topic", "{T}-inc", "--partitions", "1", "--replication-factor", "1"},
			args: []string{"--alter", "--topic", "{T}-inc", "--partitions", "4"}, after: []string{"--describe", "--topic", "{T}-inc"}, filter: firstLineOnly},
		{name: "alter-assignment", pre: []string{"--create", "--topic", "{T}-alt", "--replica-assignment", "1:2,2:3"},
			args: []string{"--alter", "--topic", "{T}-alt", "--partitions", "4", "--replica-assignment", "1:2,2:3,3:1,1:3"}, after: []string{"--describe", "--topic", "{T}-alt"}},
		{name: "alter-assignment-short", pre: []string{"--create", "--topic", "{T}-als", "--replica-assignment", "1:2,2:3"},
			args: []string{"--alter", "--topic", "{T}-als", "--partitions", "5", "--replica-assignment", "1:2,2:3,3:1"}, mode: noStderr},
		{name: "alter-regex", pre: []string{"--create", "--topic", "{T}-rx1", "--partitions", "1"},
			args: []string{"--alter", "--topic", "{T}-rx.*", "--partitions", "2"}, after: []string{"--describe", "--topic", "{T}-rx1"}, filter: firstLineOnly},
		{name: "delete", pre: []string{"--create", "--topic", "{T}-del", "--partitions", "1"},
			args: []string{"--delete", "--topic", "{T}-del"}, after: []string{"--list", "--topic", "{T}-del"}},
		{name: "delete-regex", pre: []string{"--create", "--topic", "{T}-dr1", "--partitions", "1"},
			args: []string{"--delete", "--topic", "{T}-dr1,{T}-dr2|{T}-dr3"}, after: []string{"--list", "--topic", "{T}-dr.*"}},
	}
	prefixes := []string{"ap", "kb"}
	sub := func(args []string, prefix string) []string {
		out := make([]string, len(args))
		for j, a := range args {
			out[j] = strings.ReplaceAll(a, "{T}", prefix)
		}
		return bs(out...)
	}
	// Apache's setup of every case and prefix in one JVM (a JVM start
	// costs seconds; the cases' topics are distinct).
	var pres [][]string
	for _, c := range cases {
		if c.pre != nil {
			for _, prefix := range prefixes {
				pres = append(pres, sub(c.pre, prefix))
			}
		}
	}
	for _, r := range runApacheBatch(t, pres) {
		if r.code != 0 {
			t.Fatalf("pre: %+v", r)
		}
	}
	// The actions, Apache's one JVM each, kbox's after it.
	res := make([][2]result, len(cases))
	for ci, c := range cases {
		for i, prefix := range prefixes {
			if i == 0 {
				res[ci][i] = runApache(t, sub(c.args, prefix)...)
			} else {
				res[ci][i] = runKbox(t, sub(c.args, prefix)...)
			}
			res[ci][i].stdout = strings.ReplaceAll(strings.ReplaceAll(res[ci][i].stdout, prefix+"-", "T-"), prefix+".", "T.")
		}
	}
	// The state left behind, with Apache's --describe or --list for every
	// case and prefix in one JVM.
	var afters [][]string
	for _, c := range cases {
		if c.after != nil {
			for _, prefix := range prefixes {
				afters = append(afters, sub(c.after, prefix))
			}
		}
	}
	time.Sleep(300 * time.Millisecond)
	ars := runApacheBatch(t, afters)
	for ci, c := range cases {
		var after [2]string
		if c.after != nil {
			for i, prefix := range prefixes {
				r := ars[0]
				ars = ars[1:]
				s := topicIDRe.ReplaceAllString(r.stdout, "TopicId: X")
				if c.filter != nil {
					s = c.filter(s)
				}
				after[i] = strings.ReplaceAll(s, prefix+"-", "T-")
				after[i] = strings.ReplaceAll(after[i], prefix+".", "T.")
			}
		}
		t.Run(c.name, func(t *testing.T) {
			compare(t, res[ci][0], res[ci][1], c.mode)
			if after[0] != after[1] {
				t.Errorf("state after the action differs\napache:\n%s\nkbox:\n%s", after[0], after[1])
			}
		})
	}
}

// TestDifferentialHealthFilters stops broker 3 so that partitions are really
// under-replicated, under min ISR and unavailable, and compares the report
// options (alone and combined) and the Leader: none lines.
func TestDifferentialHealthFilters(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	adm, done, err := admin()
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	// A partition that lives only on broker 3 becomes unavailable.
	for _, a := range [][]string{
		bs("--create", "--topic", "hf-only3", "--replica-assignment", "3,3"),
		bs("--create", "--topic", "hf-rf2", "--replica-assignment", "1:3,3:2"),
	} {
		if r := runApache(t, a...); r.code != 0 {
			t.Fatalf("create: %+v", r)
		}
	}
	if err := waitStable(ctx, adm); err != nil {
		t.Fatal(err)
	}
	if err := cluster.StopBroker(3, false); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := cluster.StartBroker(3); err != nil {
			t.Errorf("restart broker 3: %v", err)
		}
	}()
	// Wait until the controller has fenced broker 3 and shrunk the ISRs.
	for {
		r := runKbox(t, bs("--describe", "--topic", "hf-only3")...)
		if strings.Contains(r.stdout, "Leader: none") && !strings.Contains(runKbox(t, bs("--describe", "--topic", "hf-rf2")...).stdout, "Isr: 1,3") {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("broker 3 never left the ISRs: %s", r.stdout)
		case <-time.After(time.Second):
		}
	}
	// Bootstrap through brokers 1 and 2 only: Apache's admin client would
	// otherwise log a WARN about the stopped broker's address on stderr.
	live := strings.Join(strings.Split(cluster.Bootstrap, ",")[:2], ",")
	bs := func(args ...string) []string { return append([]string{"--bootstrap-server", live}, args...) }
	cases := []tcase{
		{"under-replicated", bs("--describe", "--under-replicated-partitions"), exact},
		{"unavailable", bs("--describe", "--unavailable-partitions"), exact},
		{"under-min-isr", bs("--describe", "--under-min-isr-partitions"), exact},
		{"at-min-isr", bs("--describe", "--at-min-isr-partitions"), exact},
		{"union", bs("--describe", "--unavailable-partitions", "--at-min-isr-partitions"), exact},
		{"union-regex", bs("--describe", "--topic", "hf-.*|fixed-min", "--under-replicated-partitions", "--under-min-isr-partitions"), exact},
		{"leader-none", bs("--describe", "--topic", "hf-only3"), exact},
		{"describe-degraded", bs("--describe", "--topic", "hf-rf2,fixed-a"), exact},
	}
	apache := runApacheBatch(t, argsOf(cases))
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := apache[i]
			k := runKbox(t, c.args...)
			compare(t, a, k, c.mode)
			if a.stdout == "" && c.name != "at-min-isr" {
				t.Errorf("expected some partitions in the report, got none")
			}
		})
	}
}

// TestNativeExtras checks kbox's own options on the same cluster: dry runs
// change nothing, -o json is valid and complete, and --disable-rack-aware
// places replicas with Kafka's classic round-robin.
func TestNativeExtras(t *testing.T) {
	// --dry-run: validated by the broker, nothing created.
	r := runKbox(t, bs("--create", "--topic", "nx-dry", "--partitions", "2", "--dry-run")...)
	if r.code != 0 || !strings.Contains(r.stdout, "Dry run: topic nx-dry would be created with 2 partition(s)") {
		t.Errorf("create --dry-run: %+v", r)
	}
	if r := runKbox(t, bs("--create", "--topic", "nx-dry", "--replication-factor", "9", "--dry-run")...); r.code != 1 || !strings.Contains(r.stdout, "Error while executing topic command : Unable to replicate") {
		t.Errorf("invalid create --dry-run: %+v", r)
	}
	if r := runKbox(t, bs("--alter", "--topic", "fixed-b", "--partitions", "5", "--dry-run")...); r.code != 0 || !strings.Contains(r.stdout, "would go from 2 to 5 partition(s)") {
		t.Errorf("alter --dry-run: %+v", r)
	}
	if r := runKbox(t, bs("--delete", "--topic", "fixed-b", "--dry-run")...); r.code != 0 || !strings.Contains(r.stdout, "Dry run: topic fixed-b would be deleted") {
		t.Errorf("delete --dry-run: %+v", r)
	}
	if r := runApache(t, bs("--describe", "--topic", "fixed-b")...); !strings.Contains(r.stdout, "PartitionCount: 2\t") {
		t.Errorf("a dry run changed fixed-b: %s", r.stdout)
	}
	if r := runApache(t, bs("--list", "--topic", "nx-dry")...); r.stdout != "\n" {
		t.Errorf("a dry run created nx-dry: %q", r.stdout)
	}

	// -o json
	r = runKbox(t, bs("--describe", "--topic", "fixed-a", "-o", "json")...)
	var doc struct {
		Topics []struct {
			Name           string `json:"name"`
			PartitionCount int    `json:"partition_count"`
			Partitions     []struct {
				Leader *int32  `json:"leader"`
				ISR    []int32 `json:"isr"`
			} `json:"partitions"`
		} `json:"topics"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Topics) != 1 || doc.Topics[0].PartitionCount != 3 || len(doc.Topics[0].Partitions) != 3 || doc.Topics[0].Partitions[0].Leader == nil {
		t.Errorf("-o json: %v %s", err, r.stdout)
	}
	if r := runKbox(t, bs("--describe", "--topic", "fixed-a", "-o", "wide")...); r.code != 0 || !strings.Contains(r.stdout, "HIGH-WATERMARK") || strings.Count(r.stdout, "\nfixed-a ") != 3 {
		t.Errorf("-o wide: %+v", r)
	}

	// --disable-rack-aware: plain placement, leaders rotate over 1,2,3 and
	// each partition's followers are distinct.
	if r := runKbox(t, bs("--create", "--topic", "nx-plain", "--partitions", "6", "--replication-factor", "2", "--disable-rack-aware")...); r.code != 0 || r.stdout != "Created topic nx-plain.\n" {
		t.Fatalf("create --disable-rack-aware: %+v", r)
	}
	if r := runKbox(t, bs("--alter", "--topic", "nx-plain", "--partitions", "9", "--disable-rack-aware")...); r.code != 0 || r.stdout != "" {
		t.Fatalf("alter --disable-rack-aware: %+v", r)
	}
	time.Sleep(300 * time.Millisecond)
	r = runApache(t, bs("--describe", "--topic", "nx-plain")...)
	re := regexp.MustCompile(`Partition: (\d+)\tLeader: \d+\tReplicas: (\d),(\d)\t`)
	ms := re.FindAllStringSubmatch(r.stdout, -1)
	if len(ms) != 9 {
		t.Fatalf("describe nx-plain: %s", r.stdout)
	}
	for i, m := range ms {
		if m[2] == m[3] {
			t.Errorf("partition %s has a duplicate replica: %v", m[1], m)
		}
		if i > 0 && i%3 != 0 {
			prev := ms[i-1][2][0] - '0'
			if cur := m[2][0] - '0'; cur != prev%3+1 {
				t.Errorf("first replicas do not rotate: partition %d starts at %d after %d\n%s", i, cur, prev, r.stdout)
			}
		}
	}
}
