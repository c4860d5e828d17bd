//go:build integration

// Package features_test checks kafka-features against Apache 4.4's
// FeatureCommand on a 1-node KRaft cluster: every read-only and dry-run
// case, error path and help screen in one Apache JVM, over the brokers and
// over the controllers; then one real downgrade and upgrade of a harmless
// feature (group.version 1 → 0 → 1), made in turn by kbox and by Apache,
// each seeing the other's change; and kbox features describe -o json.
package features_test

import (
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
)

var (
	cluster *testbed.Cluster
	kboxBin string
	binDir  string
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "features", Applets: []string{"kafka-features", "kafka-features.sh"}, Brokers: 1, Ready: func(e testbed.Env) error {
		kboxBin, binDir, cluster = e.Kbox, e.BinDir, e.Cluster
		return nil
	}}))
}

func kbox(t *testing.T, path string, args ...string) testbed.Result {
	t.Helper()
	return testbed.Runner{Config: filepath.Join(binDir, "no-config.yaml"), Timeout: 60 * time.Second}.Exec(t, path, args...)
}

// epoch is the finalized features' epoch: the metadata log's offset of
// the last feature change as the node asked saw it, different between
// nodes and runs.
var epoch = regexp.MustCompile(`Epoch: \d+\n`)

func normalize(s string) string { return epoch.ReplaceAllString(s, "Epoch: N\n") }

func TestDifferential(t *testing.T) {
	bs, bc := cluster.Bootstrap, cluster.ControllerBootstrap
	if bc == "" {
		t.Fatal("the test bed names no controller listeners")
	}
	dir := t.TempDir()
	props := filepath.Join(dir, "client.properties")
	if err := os.WriteFile(props, []byte("request.timeout.ms=20000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := func(args ...string) []string { return append([]string{"--bootstrap-server", bs}, args...) }
	c := func(args ...string) []string { return append([]string{"--bootstrap-controller", bc}, args...) }
	cases := [][]string{
		b("describe"),
		c("describe"),
		b("describe", "--node-id", "1"),
		c("describe", "--node-id", "1"),
		b("--command-config", props, "desc"),
		b("upgrade", "--feature", "metadata.version=33", "--dry-run"),
		c("upgrade", "--feature", "kraft.version=1", "--dry-run"),
		b("upgrade", "--release-version", "4.4", "--dry-run"),
		c("upgrade", "--release-version", "4.4-IV2", "--dry-run"),
		b("upgrade", "--metadata", "4.4", "--dry-run"),
		b("downgrade", "--feature", "group.version=0", "--dry-run"),
		c("downgrade", "--feature", "group.version=0", "--unsafe", "--dry-run"),
		b("downgrade", "--release-version", "3.9", "--dry-run"),
		b("disable", "--feature", "group.version", "--feature", "streams.version", "--dry-run"),
		b("up", "--feature", "group.version=1", "--dry"),
		// The cluster's refusals (one line per feature, then the count).
		b("upgrade", "--feature", "foo=1", "--dry-run"),
		c("upgrade", "--feature", "metadata.version=99", "--dry-run"),
		b("upgrade", "--metadata", "4.5-IV0", "--dry-run"),
		b("downgrade", "--feature", "group.version=2", "--dry-run"),
		b("downgrade", "--feature", "group.version=2"), // refused: nothing changes
		// The tool's checks, before any request.
		b("upgrade"),
		b("disable"),
		b("disable", "--feature", "a", "--feature", "a"),
		b("upgrade", "--feature", "x"),
		b("upgrade", "--feature", "x=a"),
		b("upgrade", "--feature", "x=1", "--feature", "x=2"),
		b("upgrade", "--release-version", "4.4", "--feature", "x=2"),
		b("upgrade", "--release-version", "9.9"),
		b("upgrade", "--metadata", "4.4", "--feature", "metadata.version=3"),
		b("upgrade", "--feature", "=3", "--dry-run"),
		b("disable", "--feature", " "),
		b("describe", "--node-id", "-1"),
		b("--command-config", filepath.Join(dir, "missing.properties"), "describe"),
		{"--bootstrap-server", "bad", "describe"},
		// Offline subcommands (no bootstrap needed).
		{"version-mapping"},
		{"version-mapping", "--release-version", "3.3"},
		{"version-mapping", "--release-version", "4.0.1"},
		{"version-mapping", "--release-version", "4.5-IV0"},
		{"version-mapping", "--release-version", "3.2"},
		{"version-mapping", "--release-version", ""},
		b("feature-dependencies", "--feature", "eligible.leader.replicas.version=1", "--feature", "metadata.version=33", "--feature", "group.version=1"),
		{"feature-dependencies", "--feature", " share.version = +2 "},
		{"feature-dependencies", "--feature", "group.version=1", "--feature", "metadata.version=3"},
		{"feature-dependencies", "--feature", "group.version=5"},
		{"feature-dependencies", "--feature", "nope=5"},
		{"feature-dependencies", "--feature", "x"},
		// Parse errors and help.
		{},
		{"--help"},
		b("describe", "--help"),
		b("upgrade", "-h"),
		b("downgrade", "--help"),
		b("disable", "--help"),
		{"version-mapping", "--help"},
		{"feature-dependencies", "--help"},
		{"describe"},
		b(),
		b("bogus"),
		b("describe", "--bogus"),
		b("describe", "--node-id", "x"),
		{"feature-dependencies"},
		{"--bootstrap-server", bs, "--bootstrap-controller", bc, "describe"},
	}
	want, err := cluster.ApacheBatch("kafka-features", cases)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(binDir, "kafka-features")
	for i, args := range cases {
		w := want[i]
		got := kbox(t, link, args...)
		if got.Code != w.Code || normalize(got.Stdout) != normalize(w.Stdout) || got.Stderr != w.Stderr {
			t.Errorf("%q:\nkbox   exit %d\nstdout %q\nstderr %.400q\napache exit %d\nstdout %q\nstderr %.400q", args, got.Code, got.Stdout, got.Stderr, w.Code, w.Stdout, w.Stderr)
		}
		if i == 0 && (w.Code != 0 || !strings.Contains(w.Stdout, "Feature: metadata.version                          SupportedMinVersion: 3.3-IV3")) {
			t.Errorf("the features are not what Apache sees: %q", w.Stdout)
		}
	}
	// The .sh link and kbox's own names are the same tool.
	for _, argv := range [][]string{{filepath.Join(binDir, "kafka-features.sh")}, {kboxBin, "kafka-features"}, {kboxBin, "features"}} {
		got := kbox(t, argv[0], append(argv[1:], "--bootstrap-controller", bc, "describe")...)
		if got.Code != 0 || normalize(got.Stdout) != normalize(want[1].Stdout) {
			t.Errorf("%v: %s", argv, got)
		}
	}
}

type description struct {
	Epoch    *int64 `json:"epoch"`
	Features []struct {
		Name             string  `json:"name"`
		SupportedMax     int16   `json:"supported_max"`
		Finalized        int16   `json:"finalized"`
		FinalizedVersion *string `json:"finalized_version"`
	} `json:"features"`
}

func describe(t *testing.T, args ...string) map[string]int16 {
	t.Helper()
	r := kbox(t, kboxBin, append(append([]string{"features"}, args...), "describe", "-o", "json")...)
	if r.Code != 0 {
		t.Fatalf("%v: %s", args, r)
	}
	var d description
	if err := json.Unmarshal([]byte(r.Stdout), &d); err != nil || d.Epoch == nil {
		t.Fatalf("%v: %v\n%s", args, err, r.Stdout)
	}
	out := map[string]int16{}
	for _, f := range d.Features {
		out[f.Name] = f.Finalized
		if (f.Name == "metadata.version") != (f.FinalizedVersion != nil) {
			t.Errorf("%s: finalized_version %v", f.Name, f.FinalizedVersion)
		}
	}
	return out
}

// A real change, made by each tool and seen by the other: kbox downgrades
// group.version to 0 and Apache upgrades it back; then Apache downgrades
// and kbox upgrades. Each tool's line is the other's.
func TestDowngradeUpgrade(t *testing.T) {
	bs := []string{"--bootstrap-server", cluster.Bootstrap}
	if got := describe(t, bs...)["group.version"]; got != 1 {
		t.Fatalf("group.version is %d before the test, want 1", got)
	}
	link := filepath.Join(binDir, "kafka-features")
	apache := func(args ...string) testbed.Result {
		t.Helper()
		out, errOut, code, err := cluster.Apache(nil, "kafka-features", append(append([]string(nil), bs...), args...)...)
		if err != nil {
			t.Fatal(err)
		}
		return testbed.Result{Stdout: out, Stderr: errOut, Code: code}
	}
	down := []string{"downgrade", "--feature", "group.version=0"}
	up := []string{"upgrade", "--feature", "group.version=1"}
	k := kbox(t, link, append(append([]string(nil), bs...), down...)...)
	if k.Code != 0 || k.Stdout != "group.version was downgraded to 0.\n" || k.Stderr != "" {
		t.Fatalf("kbox downgrade: %s", k)
	}
	waitLevel(t, 0, "--bootstrap-controller", cluster.ControllerBootstrap)
	a := apache(up...)
	if a.Code != 0 || a.Stdout != "group.version was upgraded to 1.\n" {
		t.Fatalf("apache upgrade: %+v", a)
	}
	waitLevel(t, 1, bs...)
	a = apache(down...)
	if a.Code != k.Code || a.Stdout != k.Stdout || a.Stderr != k.Stderr {
		t.Errorf("apache downgrade %+v, kbox's was %s", a, k)
	}
	waitLevel(t, 0, bs...)
	k = kbox(t, link, append([]string{"--bootstrap-controller", cluster.ControllerBootstrap}, up...)...)
	if k.Code != 0 || k.Stdout != "group.version was upgraded to 1.\n" || k.Stderr != "" {
		t.Errorf("kbox upgrade: %s", k)
	}
	waitLevel(t, 1, bs...)
}

// waitLevel waits until describe shows group.version at level.
func waitLevel(t *testing.T, level int16, args ...string) {
	t.Helper()
	cmdtest.Eventually(t, 30*time.Second, func() (bool, string) {
		got := describe(t, args...)["group.version"]
		return got == level, fmt.Sprintf("group.version %d, want %d", got, level)
	})
}

// describe --node-id naming no node: the Java client's timeout message,
// at once (Apache waits 60 s for it: not run here).
func TestUnknownNode(t *testing.T) {
	r := kbox(t, filepath.Join(binDir, "kafka-features"), "--bootstrap-server", cluster.Bootstrap, "describe", "--node-id", "7")
	if r.Code != 1 || r.Stdout != "" || r.Stderr != "org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: describeFeatures\n" || r.Took > 20*time.Second {
		t.Errorf("%s", r)
	}
}

// A profile that names only the controllers: the drop-in gets
// --bootstrap-controller from it, under both names.
func TestControllersProfile(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("current-profile: ctl\nprofiles:\n  ctl:\n    bootstrap-controllers: ["+cluster.ControllerBootstrap+"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := testbed.Runner{Config: cfg, Timeout: 60 * time.Second}
	for _, argv := range [][]string{{kboxBin, "features", "describe"}, {filepath.Join(binDir, "kafka-features"), "--profile", "ctl", "describe"}} {
		r := run.Exec(t, argv[0], argv[1:]...)
		if r.Code != 0 || !strings.Contains(r.Stdout, "Feature: metadata.version                          SupportedMinVersion: 3.3-IV3") {
			t.Errorf("%v: %s", argv, r)
		}
	}
}

// kbox's tables of metadata versions and features (pkg/features) are
// Apache 4.4's: version-mapping for every release name and version from
// 3.0 to 4.9 (IV0 to IV4), and feature-dependencies for every level near
// each feature's range, in one Apache JVM.
func TestOfflineTables(t *testing.T) {
	var cases [][]string
	for major := 3; major <= 4; major++ {
		for minor := 0; minor <= 9; minor++ {
			rel := fmt.Sprintf("%d.%d", major, minor)
			cases = append(cases, []string{"version-mapping", "--release-version", rel})
			for iv := 0; iv <= 4; iv++ {
				cases = append(cases, []string{"version-mapping", "--release-version", fmt.Sprintf("%s-IV%d", rel, iv)})
			}
		}
	}
	// The features are the ones Apache's version-mapping names.
	latest, err := cluster.ApacheBatch("kafka-features", [][]string{{"version-mapping"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(latest[0].Stdout), "\n") {
		name, _, _ := strings.Cut(l, "=")
		names = append(names, name)
	}
	if len(names) < 5 || names[0] != "metadata.version" {
		t.Fatalf("version-mapping: %+v", latest[0])
	}
	for _, name := range names {
		top := 6
		if name == "metadata.version" {
			top = 40
		}
		for level := -1; level <= top; level++ {
			cases = append(cases, []string{"feature-dependencies", "--feature", fmt.Sprintf("%s=%d", name, level)})
		}
	}
	want, err := cluster.ApacheBatch("kafka-features", cases)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(binDir, "kafka-features")
	ok := 0
	for i, args := range cases {
		w := want[i]
		got := kbox(t, link, args...)
		if got.Code != w.Code || got.Stdout != w.Stdout || got.Stderr != w.Stderr {
			t.Errorf("%q:\nkbox   exit %d\nstdout %q\nstderr %.300q\napache exit %d\nstdout %q\nstderr %.300q", args, got.Code, got.Stdout, got.Stderr, w.Code, w.Stdout, w.Stderr)
		}
		if w.Code == 0 {
			ok++
		}
	}
	t.Logf("%d cases, %d answered (exit 0) by Apache", len(cases), ok)
}
