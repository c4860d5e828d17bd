package status_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/cmd/app"
	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

type run struct {
	code        int
	out, errOut string
}

func kbox(t *testing.T, env map[string]string, args ...string) run {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{Main: app.Main, Env: env}, args...)
	return run{r.Code, r.Stdout, r.Stderr}
}

func setup(t *testing.T) (map[string]string, string) {
	t.Helper()
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(2), kfake.ClusterID("cmd-status"), kfake.SeedTopics(2, "orders"))
	bs := strings.Join(c.ListenAddrs(), ",")
	path := filepath.Join(t.TempDir(), "config.yaml")
	f := &config.File{CurrentProfile: "a", Profiles: map[string]*config.Profile{
		"a":    {BootstrapServers: c.ListenAddrs()},
		"b":    {BootstrapServers: c.ListenAddrs(), ExpectedBrokers: 3},
		"dead": {BootstrapServers: []string{"127.0.0.1:1"}, ConnectTimeout: "2s"},
	}}
	if err := config.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"KBOX_CONFIG": path}, bs
}

func TestStatusCommand(t *testing.T) {
	env, bs := setup(t)

	// Every profile, by name; dead is unreachable and b expects 3 brokers.
	r := kbox(t, env, "status", "-o", "json", "--sample", "0")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", r.code, r.out, r.errOut)
	}
	var rep struct {
		Healthy  bool `json:"healthy"`
		Clusters []struct {
			Name      string   `json:"name"`
			Healthy   bool     `json:"healthy"`
			Reachable bool     `json:"reachable"`
			Problems  []string `json:"problems"`
		} `json:"clusters"`
	}
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Clusters) != 3 || rep.Clusters[0].Name != "a" || rep.Clusters[1].Name != "b" || rep.Clusters[2].Name != "dead" {
		t.Fatalf("clusters %+v", rep.Clusters)
	}
	if !rep.Clusters[0].Healthy || rep.Clusters[1].Healthy || rep.Clusters[1].Problems[0] != "2 of 3 brokers up" || rep.Clusters[2].Reachable {
		t.Fatalf("report %+v", rep)
	}

	// --profile a (one healthy cluster): exit 0, a table.
	if r := kbox(t, env, "--profile", "a", "status", "--sample", "0"); r.code != 0 || !strings.Contains(r.out, "\na ") || strings.Contains(r.out, "dead") {
		t.Fatalf("--profile a: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	// --profile a,b after the command name too.
	if r := kbox(t, env, "status", "--profile", "a,b", "-o", "yaml", "--sample", "0"); r.code != 1 || !strings.Contains(r.out, "name: b") || strings.Contains(r.out, "dead") {
		t.Fatalf("--profile a,b: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	// An address instead of profiles.
	if r := kbox(t, env, "status", "--bootstrap-server", bs, "--sample", "0", "-o", "json"); r.code != 0 || !strings.Contains(r.out, `"name":"`+bs+`"`) {
		t.Fatalf("--bootstrap-server: exit %d\n%s%s", r.code, r.out, r.errOut)
	}

	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"status", "--profile", "a,nope"}, 1, `profile "nope" not found`},
		{[]string{"status", "--timeout", "0s"}, 2, "--timeout 0s: must be positive"},
		{[]string{"status", "--sample", "20s"}, 2, "must be shorter than --timeout"},
		{[]string{"status", "-o", "csv"}, 2, "csv"},
		{[]string{"status", "--profile", "a,b", "--bootstrap-server", bs}, 2, "give at most one --profile"},
	} {
		r := kbox(t, env, c.args...)
		if r.code != c.code || !strings.Contains(r.errOut, c.msg) || strings.Count(strings.TrimSpace(r.errOut), "\n") > 1 {
			t.Errorf("%v: exit %d, want %d with %q\n%s", c.args, r.code, c.code, c.msg, r.errOut)
		}
	}
}

// A profile whose password-env variable is unset shows as not checked,
// with its reason, and the other profiles are checked.
func TestStatusBrokenProfile(t *testing.T) {
	env, _ := setup(t)
	file, _, err := config.ReadFile(env["KBOX_CONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	file.Profiles["broken"] = &config.Profile{BootstrapServers: file.Profiles["a"].BootstrapServers,
		SASL: &config.SASL{Mechanism: "PLAIN", Username: "u", PasswordEnv: "KBOX_TEST_UNSET_PW"}}
	if err := config.WriteFile(env["KBOX_CONFIG"], file); err != nil {
		t.Fatal(err)
	}
	r := kbox(t, env, "status", "--profile", "a,broken", "--sample", "0")
	if r.code != 1 || !regexp.MustCompile(`(?m)^a +ok `).MatchString(r.out) || !regexp.MustCompile(`(?m)^broken +NOT CHECKED `).MatchString(r.out) ||
		!strings.Contains(r.out, "broken: not checked: profile broken: password-env KBOX_TEST_UNSET_PW is not set") {
		t.Fatalf("exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	r = kbox(t, env, "status", "--profile", "broken,a", "--sample", "0", "-o", "json")
	if r.code != 1 || !strings.Contains(r.out, `"error":"profile broken: password-env KBOX_TEST_UNSET_PW is not set"`) || !strings.Contains(r.out, `"name":"a","healthy":true`) {
		t.Fatalf("-o json: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
}

func TestTopCommand(t *testing.T) {
	env, bs := setup(t)
	r := kbox(t, env, "top", "--bootstrap-server", bs, "-o", "json", "--interval", "50ms", "--iterations", "3")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.errOut)
	}
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), r.out)
	}
	for _, l := range lines {
		var f struct {
			RecordsPerSec *float64 `json:"records_per_sec"`
			Topics        []struct {
				Topic string `json:"topic"`
			} `json:"topics"`
		}
		if err := json.Unmarshal([]byte(l), &f); err != nil || f.RecordsPerSec == nil || len(f.Topics) != 1 || f.Topics[0].Topic != "orders" {
			t.Fatalf("line %q: %v", l, err)
		}
	}
	// Groups: readers, committed on orders, in every frame unless left
	// out by --group-regex or --no-groups; --time-lag reads records.
	commitGroup(t, bs, "readers")
	groupsOf := func(args ...string) []string {
		t.Helper()
		r := kbox(t, env, append([]string{"top", "--bootstrap-server", bs, "-o", "json", "--interval", "50ms", "--iterations", "1"}, args...)...)
		var f struct {
			Groups []struct {
				Group     string `json:"group"`
				Lag       *int64 `json:"lag"`
				TimeLagMs *int64 `json:"time_lag_ms"`
			} `json:"groups"`
		}
		if err := json.Unmarshal([]byte(r.out), &f); r.code != 0 || err != nil || f.Groups == nil {
			t.Fatalf("top %v: exit %d, %v\n%s%s", args, r.code, err, r.out, r.errOut)
		}
		var names []string
		for _, g := range f.Groups {
			if g.Lag == nil || *g.Lag != 1 || g.TimeLagMs == nil || *g.TimeLagMs < 0 {
				t.Fatalf("top %v: group %+v, want lag 1 and a time lag", args, g)
			}
			names = append(names, g.Group)
		}
		return names
	}
	if g := groupsOf("--time-lag"); len(g) != 1 || g[0] != "readers" {
		t.Fatalf("groups %v, want readers", g)
	}
	if g := groupsOf("--group-regex", "read"); len(g) != 0 {
		t.Fatalf("--group-regex read (whole name): groups %v", g)
	}
	if g := groupsOf("--no-groups"); len(g) != 0 {
		t.Fatalf("--no-groups: groups %v", g)
	}
	// Not a terminal, table format: one line per interval.
	r = kbox(t, env, "--profile", "a", "top", "--interval", "50ms", "--iterations", "2", "--topic-regex", "ord.*")
	if n := strings.Count(r.out, "\n"); r.code != 0 || n != 2 || !strings.Contains(r.out, " orders=0.0/") || !strings.Contains(r.out, " group:readers=") {
		t.Fatalf("line mode: exit %d, %d lines\n%s%s", r.code, n, r.out, r.errOut)
	}
	// --duration bounds the run (long enough for a first frame on a loaded
	// machine, where connecting alone took over 300 ms).
	if r := kbox(t, env, "--profile", "a", "top", "--interval", "50ms", "--duration", "2s", "-o", "json"); r.code != 0 || strings.Count(r.out, "\n") < 1 {
		t.Fatalf("--duration: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"top", "--sort", "size"}, `--sort "size"`},
		{[]string{"top", "--interval", "0s"}, "--interval 0s"},
		{[]string{"top", "--topic-regex", "("}, "--topic-regex"},
		{[]string{"top", "--iterations", "-1"}, "--iterations -1"},
		{[]string{"top", "--group-regex", "("}, "--group-regex"},
		{[]string{"top", "--groups", "-1"}, "--groups -1"},
		{[]string{"top", "--no-groups", "--time-lag"}, "--no-groups cannot"},
	} {
		if r := kbox(t, env, c.args...); r.code != 2 || !strings.Contains(r.errOut, c.msg) {
			t.Errorf("%v: exit %d\n%s", c.args, r.code, r.errOut)
		}
	}
}

// On a terminal top clears the screen and redraws every interval: the
// totals line, topics, brokers and the busiest partitions.
func TestTopScreen(t *testing.T) {
	env, bs := setup(t)
	commitGroup(t, bs, "readers")
	ios, _, out, errOut := output.Test()
	ios.SetStdoutTTY(true)
	code := app.Main([]string{"kbox", "top", "--bootstrap-server", bs, "--interval", "50ms", "--iterations", "2", "--sort", "name"}, ios, func(k string) string { return env[k] })
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	s := out.String()
	if n := strings.Count(s, "\x1b[H\x1b[2J"); n != 2 {
		t.Fatalf("%d redraws, want 2:\n%q", n, s)
	}
	for _, want := range []string{"kbox top ", "records/s", "TOPIC", "BROKER", "PARTITION", "orders", "GROUP", "COMMITTED/S", "LAG/S", "readers"} {
		if !strings.Contains(s, want) {
			t.Fatalf("screen lacks %q:\n%s", want, s)
		}
	}
}

// commitGroup writes two records to orders-0 and commits group at offset
// 1 there (lag 1).
func commitGroup(t *testing.T, bs, group string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bs, ",")...), kgo.DefaultProduceTopic("orders"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("a")}, &kgo.Record{Value: []byte("b")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	var o kadm.Offsets
	o.AddOffset("orders", 0, 1, -1)
	if err := kadm.NewClient(cl).CommitAllOffsets(ctx, group, o); err != nil {
		t.Fatal(err)
	}
}
