package app_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/cmd/app"
	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/twmb/franz-go/pkg/kfake"
	"gopkg.in/yaml.v3"
)

func startKfake(t *testing.T, id string, brokers int) *kfake.Cluster {
	t.Helper()
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(brokers), kfake.ClusterID(id))
	return c
}

type run struct {
	code        int
	out, errOut string
}

func kbox(t *testing.T, env map[string]string, args ...string) run {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{Main: app.Main, Env: env}, args...)
	return run{r.Code, r.Stdout, r.Stderr}
}

// writeProfiles writes a config file with the given profiles and returns
// an environment pointing at it.
func writeProfiles(t *testing.T, current string, profiles map[string]string) map[string]string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	f := &config.File{CurrentProfile: current, Profiles: map[string]*config.Profile{}}
	for name, bs := range profiles {
		f.Profiles[name] = &config.Profile{BootstrapServers: config.SplitList(bs)}
	}
	if err := config.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"KBOX_CONFIG": path}
}

func TestClusterDescribeFormats(t *testing.T) {
	c := startKfake(t, "fmt-cluster", 3)
	addrs := c.ListenAddrs()
	env := writeProfiles(t, "", nil)
	bs := strings.Join(addrs, ",")

	r := kbox(t, env, "cluster", "describe", "--bootstrap-server", bs)
	if r.code != 0 || r.errOut != "" {
		t.Fatalf("table: exit %d stderr %q", r.code, r.errOut)
	}
	lines := strings.Split(strings.TrimRight(r.out, "\n"), "\n")
	if len(lines) != 5 || lines[0] != "Cluster fmt-cluster, controller 2, 3 broker(s)" {
		t.Fatalf("table output:\n%s", r.out)
	}
	if strings.Join(strings.Fields(lines[1]), " ") != "BROKER ADDRESS RACK ROLE" {
		t.Errorf("header %q", lines[1])
	}
	for i, a := range addrs {
		want := []string{string(rune('0' + i)), a, "krack"}
		if i == 2 {
			want = append(want, "controller")
		}
		if got := strings.Fields(lines[2+i]); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("row %d = %q, want %q", i, got, want)
		}
	}

	type broker struct {
		ID   int32  `json:"id" yaml:"id"`
		Host string `json:"host" yaml:"host"`
		Port int32  `json:"port" yaml:"port"`
		Rack string `json:"rack" yaml:"rack"`
	}
	type desc struct {
		ClusterID  string   `json:"cluster_id" yaml:"cluster_id"`
		Controller int32    `json:"controller" yaml:"controller"`
		Brokers    []broker `json:"brokers" yaml:"brokers"`
	}
	check := func(name string, d desc) {
		if d.ClusterID != "fmt-cluster" || d.Controller != 2 || len(d.Brokers) != 3 {
			t.Errorf("%s: %+v", name, d)
			return
		}
		for i, b := range d.Brokers {
			if b.ID != int32(i) || b.Host != "127.0.0.1" || !strings.HasSuffix(addrs[i], ":"+itoa(b.Port)) || b.Rack != "krack" {
				t.Errorf("%s: broker %d = %+v, want %s", name, i, b, addrs[i])
			}
		}
	}

	r = kbox(t, env, "cluster", "describe", "--bootstrap-server", bs, "-o", "json")
	var dj desc
	if r.code != 0 || json.Unmarshal([]byte(r.out), &dj) != nil || strings.Count(r.out, "\n") != 1 {
		t.Fatalf("json: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	check("json", dj)

	r = kbox(t, env, "-o", "yaml", "cluster", "describe", "--bootstrap-server", bs)
	var dy desc
	if r.code != 0 || yaml.Unmarshal([]byte(r.out), &dy) != nil || !strings.HasPrefix(r.out, "cluster_id: fmt-cluster\n") {
		t.Fatalf("yaml: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	check("yaml", dy)

	// KBOX_OUTPUT selects the format too; the flag beats it.
	env2 := map[string]string{"KBOX_CONFIG": env["KBOX_CONFIG"], "KBOX_OUTPUT": "json"}
	if r = kbox(t, env2, "cluster", "describe", "--bootstrap-server", bs); r.code != 0 || !strings.HasPrefix(r.out, `{"cluster_id":"fmt-cluster"`) {
		t.Errorf("KBOX_OUTPUT=json: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	if r = kbox(t, env2, "cluster", "describe", "--bootstrap-server", bs, "-o", "yaml"); r.code != 0 || !strings.HasPrefix(r.out, "cluster_id: fmt-cluster\n") {
		t.Errorf("-o yaml over KBOX_OUTPUT=json: exit %d\n%s%s", r.code, r.out, r.errOut)
	}

	// An unknown format is a usage error, exit 2, before any dial.
	r = kbox(t, env, "cluster", "describe", "--bootstrap-server", bs, "-o", "csv")
	if r.code != 2 || r.out != "" || !strings.HasPrefix(r.errOut, "kbox: error: unknown output format \"csv\"") {
		t.Errorf("-o csv: exit %d stdout %q stderr %q", r.code, r.out, r.errOut)
	}
}

func itoa(n int32) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// clusterOf returns the cluster id a describe reached.
func clusterOf(t *testing.T, r run) string {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	first, _, _ := strings.Cut(r.out, ",")
	return strings.TrimPrefix(first, "Cluster ")
}

func TestProfileSelectionAndPrecedence(t *testing.T) {
	a := startKfake(t, "cluster-a", 1)
	b := startKfake(t, "cluster-b", 1)
	c := startKfake(t, "cluster-c", 1)
	env := writeProfiles(t, "a", map[string]string{
		"a": a.ListenAddrs()[0],
		"b": b.ListenAddrs()[0],
	})
	withEnv := func(k, v string) map[string]string {
		m := map[string]string{"KBOX_CONFIG": env["KBOX_CONFIG"]}
		if k != "" {
			m[k] = v
		}
		return m
	}
	cAddr := c.ListenAddrs()[0]
	for _, tc := range []struct {
		name      string
		env       map[string]string
		pre, post []string // arguments before and after "cluster describe"
		want      string
	}{
		{"current profile", withEnv("", ""), nil, nil, "cluster-a"},
		{"--profile", withEnv("", ""), []string{"--profile", "b"}, nil, "cluster-b"},
		{"--profile=", withEnv("", ""), []string{"--profile=b"}, nil, "cluster-b"},
		{"--profile after the command", withEnv("", ""), nil, []string{"--profile", "b"}, "cluster-b"},
		{"KBOX_PROFILE", withEnv("KBOX_PROFILE", "b"), nil, nil, "cluster-b"},
		{"--profile beats KBOX_PROFILE", withEnv("KBOX_PROFILE", "b"), []string{"--profile", "a"}, nil, "cluster-a"},
		{"flag bootstrap beats the profile", withEnv("", ""), []string{"--profile", "b"}, []string{"--bootstrap-server", cAddr}, "cluster-c"},
		{"flag bootstrap beats KBOX_BOOTSTRAP_SERVERS", withEnv("KBOX_BOOTSTRAP_SERVERS", b.ListenAddrs()[0]), nil, []string{"--bootstrap-server", cAddr}, "cluster-c"},
		{"KBOX_BOOTSTRAP_SERVERS beats the profile", withEnv("KBOX_BOOTSTRAP_SERVERS", b.ListenAddrs()[0]), nil, nil, "cluster-b"},
	} {
		args := append(append(append([]string{}, tc.pre...), "cluster", "describe"), tc.post...)
		if got := clusterOf(t, kbox(t, tc.env, args...)); got != tc.want {
			t.Errorf("%s (kbox %s): reached %s, want %s", tc.name, strings.Join(args, " "), got, tc.want)
		}
	}

	r := kbox(t, env, "--profile", "nope", "cluster", "describe")
	if r.code != 1 || !strings.HasPrefix(r.errOut, `kbox: error: profile "nope" not found in `) || strings.Count(r.errOut, "\n") != 1 {
		t.Errorf("unknown profile: exit %d stderr %q", r.code, r.errOut)
	}
}

func TestUnreachableAddressIsOneLine(t *testing.T) {
	// Start and stop a cluster to get a loopback port nobody listens on.
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	addr := c.ListenAddrs()[0]
	c.Close()

	env := writeProfiles(t, "", nil)
	start := time.Now()
	r := kbox(t, env, "cluster", "describe", "--bootstrap-server", addr)
	elapsed := time.Since(start)
	want := "kbox: error: cannot connect to " + addr + ": connection refused\n"
	if r.code != 1 || r.errOut != want || r.out != "" {
		t.Errorf("exit %d stdout %q stderr %q, want exit 1 and %q", r.code, r.out, r.errOut, want)
	}
	if elapsed > 5*time.Second {
		t.Errorf("took %s to fail, want a few seconds at most", elapsed)
	}

	// No bootstrap at all.
	r = kbox(t, env, "cluster", "describe")
	if r.code != 1 || !strings.HasPrefix(r.errOut, "kbox: error: no bootstrap servers") || strings.Count(r.errOut, "\n") != 1 {
		t.Errorf("no bootstrap: exit %d stderr %q", r.code, r.errOut)
	}
}
