package groupsnative

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// run executes `kbox groups ARGS` (the native tree) and returns stdout,
// stderr and the exit code as app.Main would.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{New: NewNativeCmd}, args...)
	return r.Stdout, r.Stderr, r.Code
}

func TestFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"lag", "--sort", "size"}, `--sort "size": want lag, time or name`},
		{[]string{"lag", "--count", "3"}, "--count needs --watch"},
		{[]string{"lag", "--watch", "--interval", "10ms"}, "must be at least 100ms"},
		{[]string{"lag", "--group-regex", "("}, "--group-regex"},
		{[]string{"lag", "-o", "csv"}, `unknown output format "csv"`},
		{[]string{"reset", "g", "--topic", "t"}, "give one reset specification"},
		{[]string{"reset", "g", "--topic", "t", "--to-earliest", "--to-latest"}, "one reset specification at a time, not --to-earliest and --to-latest"},
		{[]string{"reset", "g", "--to-earliest"}, "give the scope"},
		{[]string{"reset", "g", "--to-earliest", "--topic", "t", "--all-topics"}, "give the scope"},
		{[]string{"reset", "--to-earliest", "--all-topics"}, "name at least one group"},
		{[]string{"reset", "g", "--all-groups", "--to-earliest", "--all-topics"}, "not both"},
		{[]string{"reset", "g", "--all-topics", "--to-offset", "-1"}, "must not be negative"},
		{[]string{"reset", "g", "--all-topics", "--by-duration", "soon"}, "want a duration"},
		{[]string{"reset", "g", "--all-topics", "--to-datetime", "yesterday"}, "--to-datetime"},
		{[]string{"reset", "g", "--all-topics", "--to-earliest", "--execute", "--dry-run"}, "exclude each other"},
		{[]string{"reset", "g", "--plan", "p.json"}, "--plan replays a saved plan"},
		{[]string{"reset", "g", "--topic", "t:x", "--to-earliest"}, "Invalid partition 'x'"},
		{[]string{"describe"}, "name at least one group"},
		{[]string{"delete"}, "name at least one group"},
		{[]string{"list", "--state", "Sleeping"}, `--state "Sleeping"`},
	} {
		_, errOut, code := run(t, c.args...)
		if code != cmdutil.ExitUsage || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q on one line", c.args, code, errOut, c.want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"90m": 90 * time.Minute, "PT1H30M": 90 * time.Minute, "P1DT2H": 26 * time.Hour, "PT0.5S": 500 * time.Millisecond, "p2d": 48 * time.Hour,
	} {
		if got, err := parseDuration(in); err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"P", "PT", "-5m", "0s", "PT0S", "x"} {
		if _, err := parseDuration(in); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
	tm, err := parseDatetime("2026-01-02T03:04:05.678+01:00")
	if err != nil || tm.UnixMilli() != time.Date(2026, 1, 2, 2, 4, 5, 678e6, time.UTC).UnixMilli() {
		t.Errorf("offset time: %v %v", tm, err)
	}
	tm, err = parseDatetime("2026-01-02T03:04:05")
	if err != nil || !tm.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)) {
		t.Errorf("local time: %v %v", tm, err)
	}
}

// fake starts kfake with topic t (2 partitions, 10 records each) and an
// Empty group g committed at 5 on both.
func fake(t *testing.T) (string, *kadm.Client) {
	t.Helper()
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.SeedTopics(2, "t"))
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	var recs []*kgo.Record
	for i := 0; i < 20; i++ {
		recs = append(recs, &kgo.Record{Topic: "t", Partition: int32(i % 2), Value: []byte("v")})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	adm := kadm.NewClient(cl)
	var os kadm.Offsets
	os.AddOffset("t", 0, 5, -1)
	os.AddOffset("t", 1, 5, -1)
	if err := adm.CommitAllOffsets(context.Background(), "g", os); err != nil {
		t.Fatal(err)
	}
	return strings.Join(c.ListenAddrs(), ","), adm
}

func committedAt(t *testing.T, adm *kadm.Client, group string) map[int32]int64 {
	t.Helper()
	rs, err := adm.FetchOffsets(context.Background(), group)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]int64{}
	rs.Each(func(o kadm.OffsetResponse) { out[o.Partition] = o.At })
	return out
}

func TestResetPlanOnKfake(t *testing.T) {
	bs, adm := fake(t)
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.json")

	// Dry run by default: a diff, nothing committed, the plan saved.
	out, errOut, code := run(t, "reset", "g", "--topic", "t", "--shift-by", "3", "--save-plan", planFile, "--bootstrap-server", bs)
	if code != 0 || !strings.Contains(out, "skip 3") || !strings.Contains(errOut, "Dry run: 2 partition(s), 6 record(s) would be skipped, 0 replayed") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, out, errOut)
	}
	if got := committedAt(t, adm, "g"); got[0] != 5 || got[1] != 5 {
		t.Fatalf("a dry run committed: %v", got)
	}
	// Execute another spec: to the log start.
	out, _, code = run(t, "reset", "g", "--topic", "t:1", "--to-earliest", "--execute", "-o", "json", "--bootstrap-server", bs)
	var p groups.Plan
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil || !p.Executed || p.Groups[0].Partitions[0].RecordsReplayed != 5 {
		t.Fatalf("execute: exit %d %s", code, out)
	}
	if got := committedAt(t, adm, "g"); got[0] != 5 || got[1] != 0 {
		t.Fatalf("after --to-earliest on t:1: %v", got)
	}
	// The saved plan was computed from (5, 5); t-1 is at 0 now: the
	// replay refuses with the diff and commits nothing.
	out, errOut, code = run(t, "reset", "--plan", planFile, "--execute", "--bootstrap-server", bs)
	if code != 1 || out != "" || !strings.Contains(errOut, "the plan is stale: the committed offsets of 1 partition(s) moved since it was computed") ||
		!strings.Contains(errOut, "GROUP  TOPIC  PARTITION  OFFSET-THEN  OFFSET-NOW\ng      t      1          5            0\n") || !strings.Contains(errOut, "--allow-stale") {
		t.Fatalf("stale replay: exit %d\n%s\n%s", code, out, errOut)
	}
	if got := committedAt(t, adm, "g"); got[0] != 5 || got[1] != 0 {
		t.Fatalf("a refused replay committed: %v", got)
	}
	// --allow-stale: its new offsets (8, 8), against 5 and 0 now.
	out, errOut, code = run(t, "reset", "--plan", planFile, "--execute", "--allow-stale", "--bootstrap-server", bs)
	if code != 0 || !strings.Contains(out, "skip 8") || !strings.Contains(errOut, "kbox: warning: "+planFile+": the plan is stale") ||
		!strings.Contains(errOut, "Committed new offsets for 2 partition(s): 11 record(s) skipped") {
		t.Fatalf("replay: exit %d\n%s\n%s", code, out, errOut)
	}
	if got := committedAt(t, adm, "g"); got[0] != 8 || got[1] != 8 {
		t.Fatalf("after replay: %v", got)
	}
	// A --topic the cluster does not have is named.
	if _, errOut, code = run(t, "reset", "g", "--topic", "nosuch", "--to-latest", "--bootstrap-server", bs); code != 1 || errOut != "kbox: error: topic nosuch not found\n" {
		t.Errorf("unknown topic: exit %d %q", code, errOut)
	}
	// --allow-stale goes with --plan only.
	if _, errOut, code = run(t, "reset", "g", "--topic", "t", "--to-latest", "--allow-stale", "--bootstrap-server", bs); code != 2 || !strings.Contains(errOut, "--allow-stale goes with --plan") {
		t.Errorf("--allow-stale without --plan: exit %d %q", code, errOut)
	}
	// A plan that does not record the offsets it was computed from (no
	// current_offset: written by hand) is refused unless --allow-stale.
	if err := os.WriteFile(planFile, []byte(`{"format_version":1,"spec":"to-offset","groups":[{"group":"g","state":"Empty","partitions":[{"topic":"t","partition":0,"new_offset":2}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = run(t, "reset", "--plan", planFile, "--execute", "--bootstrap-server", bs)
	if code != 1 || !strings.Contains(errOut, "it does not record the committed offsets of 1 partition(s)") || !strings.Contains(errOut, "not recorded  8") {
		t.Fatalf("unrecorded plan: exit %d\n%s", code, errOut)
	}
	if _, _, code = run(t, "reset", "--plan", planFile, "--execute", "--allow-stale", "--bootstrap-server", bs); code != 0 {
		t.Fatalf("unrecorded plan with --allow-stale: exit %d", code)
	}
	if got := committedAt(t, adm, "g"); got[0] != 2 || got[1] != 8 {
		t.Fatalf("after the hand-written plan: %v", got)
	}
	// A bad plan file is one clear error.
	if err := os.WriteFile(planFile, []byte(`{"format_version":9}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = run(t, "reset", "--plan", planFile, "--bootstrap-server", bs)
	if code != 1 || !strings.Contains(errOut, "format_version 9") {
		t.Errorf("bad plan: exit %d %q", code, errOut)
	}
	// (A group that does not exist: test/integration/groupsnative, where
	// the broker answers DescribeGroups as Kafka does.)
}

func TestLagAndViewsOnKfake(t *testing.T) {
	bs, _ := fake(t)
	out, errOut, code := run(t, "lag", "--bootstrap-server", bs, "-o", "json")
	var rep groups.LagReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Groups) != 1 || rep.Groups[0].Lag != 10 || rep.Groups[0].TimeLagMs == nil {
		t.Fatalf("lag: exit %d\n%s\n%s", code, out, errOut)
	}
	out, _, code = run(t, "lag", "--bootstrap-server", bs, "--watch", "--interval", "100ms", "--count", "2")
	// g lags without members and commits nothing: STOP; two samples
	// without a commit show no trend.
	if code != 0 || strings.Count(out, "GROUP") != 2 || !strings.Contains(out, "sample 2, rates over") || !strings.Contains(out, "unknown  -    STOP") {
		t.Fatalf("watch table: exit %d\n%s", code, out)
	}
	out, _, code = run(t, "lag", "--bootstrap-server", bs, "--watch", "--interval", "100ms", "--count", "2", "-o", "yaml")
	if code != 0 || strings.Count(out, "\n---\n") != 2 || !strings.Contains(out, "sample: 2\n") || !strings.Contains(out, "verdict: STOP") {
		t.Fatalf("watch yaml: exit %d\n%s", code, out)
	}
	out, _, code = run(t, "lag", "--bootstrap-server", bs, "--watch", "--interval", "100ms", "--count", "2", "-o", "json")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[1], `{"time":`) {
		t.Fatalf("watch json lines: exit %d\n%s", code, out)
	}
	// A group that does not exist is an error naming it.
	for _, args := range [][]string{{"lag", "nosuch"}, {"lag", "nosuch", "--watch", "--interval", "100ms", "--count", "2"}} {
		out, errOut, code = run(t, append(args, "--bootstrap-server", bs)...)
		if code != 1 || out != "" || errOut != "kbox: error: group nosuch not found\n" {
			t.Errorf("%v: exit %d\n%q\n%q", args, code, out, errOut)
		}
	}
	out, _, code = run(t, "list", "--bootstrap-server", bs)
	if code != 0 || !strings.Contains(out, "g      Classic  Empty") {
		t.Errorf("list: exit %d\n%s", code, out)
	}
	out, errOut, code = run(t, "describe", "g", "nosuch", "--bootstrap-server", bs, "-o", "json")
	var d groups.Description
	if code != 1 || json.Unmarshal([]byte(out), &d) != nil || len(d.Groups) != 2 || len(d.Groups[0].Partitions) != 2 || d.Groups[1].State != "Dead" {
		t.Errorf("describe: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = run(t, "delete", "g", "nosuch", "--bootstrap-server", bs)
	if code != 1 || !strings.Contains(out, "g       deleted") || !strings.Contains(out, "nosuch  not deleted: the group does not exist") ||
		!strings.Contains(errOut, "kbox: error: group nosuch not deleted: the group does not exist\n") {
		t.Errorf("delete: exit %d\n%s\n%s", code, out, errOut)
	}
}
