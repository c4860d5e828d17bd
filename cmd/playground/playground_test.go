package playground_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kboxdev/kbox/cmd/app"
	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/playground"
	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/output"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// TestTour runs the real tour through app.Main and checks every step that
// ran: its header, its command line, and its key output.
func TestTour(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	ios, _, out, errOut := output.Test()
	start := time.Now()
	code := app.Main([]string{"kbox", "playground", "--tour"}, ios, env(map[string]string{"KBOX_CONFIG": cfg, "HOME": dir}))
	elapsed := time.Since(start)
	text := out.String()
	if code != 0 {
		t.Fatalf("tour exit %d\nstdout:\n%s\nstderr:\n%s", code, text, errOut.String())
	}
	if elapsed > time.Minute {
		t.Errorf("tour took %s, want under a minute", elapsed)
	}
	for _, want := range []string{"NOT a real Kafka cluster", "does not replicate", "real disk capacity"} {
		if !strings.Contains(text, want) {
			t.Errorf("banner lacks %q", want)
		}
	}
	// Each step's section: "== N. Title\n$ command line\n...output..." up to
	// the next section.
	sections := regexp.MustCompile(`(?m)^== \d+\. `).Split(text, -1)[1:]
	ran := map[string]string{}
	for _, s := range sections {
		title, body, _ := strings.Cut(s, "\n")
		ran[title] = body
	}
	m := regexp.MustCompile(`Tour complete: (\d+) steps? passed`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no completion line:\n%s", text)
	}
	if n, _ := strconv.Atoi(m[1]); n != len(sections) || n < 1 {
		t.Errorf("completion line counts %s steps, %d sections printed", m[1], len(sections))
	}
	applets := map[string]bool{}
	for _, a := range app.LinkNames() {
		applets[a] = true
	}
	for _, st := range playground.Steps() {
		body, ok := ran[st.Title]
		needApplets := true
		for _, n := range st.Needs {
			if !strings.Contains(n, " ") && !applets[n] {
				needApplets = false
			}
		}
		if !needApplets {
			if ok {
				t.Errorf("step %q ran though an applet it needs is not registered", st.Title)
			}
			continue
		}
		if !ok {
			// Only steps that need a native command may be missing.
			native := false
			for _, n := range st.Needs {
				native = native || strings.Contains(n, " ")
			}
			if !native {
				t.Errorf("step %q did not run although its applets are registered", st.Title)
			}
			continue
		}
		if !strings.HasPrefix(body, "$ "+st.Args[0]+" ") {
			t.Errorf("step %q: command line not printed first: %q", st.Title, firstLine(body))
		}
		if st.Stdout != "" {
			if !strings.Contains(body, "lines written to "+st.Stdout) {
				t.Errorf("step %q: no summary of %s", st.Title, st.Stdout)
			}
			continue
		}
		for _, w := range st.Want {
			if !strings.Contains(body, w) {
				t.Errorf("step %q: output lacks %q:\n%s", st.Title, w, body)
			}
		}
		for _, w := range st.Reject {
			if strings.Contains(body, w) {
				t.Errorf("step %q: output shows %q:\n%s", st.Title, w, body)
			}
		}
	}
	if _, ok := ran["Describe the cluster"]; !ok {
		t.Error("the cluster describe step did not run")
	}
	if _, err := os.Stat(cfg); err == nil {
		t.Error("the tour wrote the user's config file")
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// fakeHost is a program with kafka-topics registered whose create does not
// print what Apache prints; it records every command it ran.
type fakeHost struct {
	mu   sync.Mutex
	runs [][]string
}

func (h *fakeHost) main(args []string, ios *output.IOStreams, _ func(string) string) int {
	h.mu.Lock()
	h.runs = append(h.runs, args)
	h.mu.Unlock()
	line := strings.Join(args, " ")
	switch {
	case line == "kbox cluster describe --help":
		fmt.Fprintln(ios.Out, "Usage:\n  kbox cluster describe [flags]")
		return 0
	case strings.HasSuffix(line, "--help"):
		fmt.Fprintln(ios.Out, "Usage:\n  kbox [flags]")
		return 0
	case strings.HasPrefix(line, "kbox cluster describe"):
		fmt.Fprintln(ios.Out, "Cluster kbox-playground, controller 2, 3 broker(s)")
		return 0
	case strings.Contains(line, "--create"):
		fmt.Fprintln(ios.Out, "Created something else.")
		return 0
	}
	return 0
}

func TestTourNamesTheFailingStepAndSkipsMissingApplets(t *testing.T) {
	h := &fakeHost{}
	ios, _, out, _ := output.Test()
	f := cmdutil.NewFactory(ios, env(map[string]string{"KBOX_CONFIG": filepath.Join(t.TempDir(), "c.yaml")}), "test")
	cmd := playground.NewCmd(f, playground.Host{Main: h.main, Applets: func() []string { return []string{"kafka-topics", "kafka-topics.sh"} }})
	cmd.SetArgs([]string{"--tour", "--brokers", "1"})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.Execute()
	want := `tour step 2 (Create a topic with 3 partitions) failed: the output does not show "Created topic tour-orders."`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q\n%s", err, want, out.String())
	}
	text := out.String()
	if !strings.Contains(text, "== 1. Describe the cluster\n$ kbox cluster describe --bootstrap-server 127.0.0.1:") {
		t.Errorf("step 1 header or command line missing:\n%s", text)
	}
	if strings.Contains(text, "verifiable") || strings.Contains(text, "== 3.") {
		t.Errorf("steps after the failure or of missing applets were printed:\n%s", text)
	}
	for _, r := range h.runs {
		if r[0] == "kafka-verifiable-producer" || r[0] == "kafka-log-dirs" {
			t.Errorf("ran %v, which is not registered", r)
		}
	}
}

func TestServeWritesProfileAndStopsOnCancel(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "kbox", "config.yaml")
	// An existing current profile stays current.
	if err := config.WriteFile(cfg, &config.File{CurrentProfile: "prod", Profiles: map[string]*config.Profile{"prod": {BootstrapServers: []string{"prod:9092"}}}}); err != nil {
		t.Fatal(err)
	}
	ios, _, out, errOut := output.Test()
	var mu sync.Mutex
	ios.Out = lockedWriter{&mu, out}
	ios.ErrOut = lockedWriter{&mu, errOut}
	f := cmdutil.NewFactory(ios, env(map[string]string{"KBOX_CONFIG": cfg}), "test")
	cmd := playground.NewCmd(f, playground.Host{Main: app.Main, Applets: app.LinkNames})
	cmd.SetArgs([]string{"--brokers", "2", "--topic", "orders:4"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()

	t.Cleanup(cancel)
	var file *config.File
	cmdtest.Eventually(t, 10*time.Second, func() (bool, string) {
		var err error
		file, _, err = config.ReadFile(cfg)
		if file != nil && file.Profiles[playground.ProfileName] != nil {
			return true, ""
		}
		return false, fmt.Sprintf("playground profile not written: %s: %v", cfg, err)
	})
	prof := file.Profiles[playground.ProfileName]
	if file.CurrentProfile != "prod" {
		t.Errorf("current profile changed to %q", file.CurrentProfile)
	}
	if len(prof.BootstrapServers) != 2 {
		t.Errorf("profile bootstrap %v, want 2 brokers", prof.BootstrapServers)
	}
	// The profile reaches the playground from a separate invocation.
	ios2, _, out2, errOut2 := output.Test()
	code := app.Main([]string{"kbox", "--profile", "playground", "cluster", "describe", "-o", "json"}, ios2, env(map[string]string{"KBOX_CONFIG": cfg}))
	if code != 0 || !strings.Contains(out2.String(), `"cluster_id":"kbox-playground"`) {
		t.Errorf("describe through the profile: exit %d\n%s%s", code, out2, errOut2)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after cancel")
	}
	mu.Lock()
	text := out.String() + errOut.String()
	mu.Unlock()
	for _, want := range []string{"Bootstrap:  " + strings.Join(prof.BootstrapServers, ","), "does not replicate", "Topics:     orders (4 partitions)", `Profile:    "playground" in ` + cfg, "kbox: playground stopped"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "now the current profile") {
		t.Error("claims to have become the current profile")
	}
	// The listeners are closed.
	if c, err := net.DialTimeout("tcp", prof.BootstrapServers[0], time.Second); err == nil {
		c.Close()
		t.Error("broker still accepts connections after shutdown")
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestBadStartIsOneLineExit1(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--brokers", "0"}, "kbox: error: --brokers must be at least 1, got 0\n"},
		{[]string{"--brokers", "1", "--port", port}, "kbox: error: port " + port + " on 127.0.0.1 is already in use (choose another --port, or omit it for free ports)\n"},
		{[]string{"--topic", "a:zero"}, "kbox: error: --topic: topic \"a\": partitions must be a positive number, got \"zero\"\n"},
	} {
		cfg := filepath.Join(t.TempDir(), "config.yaml")
		ios, _, out, errOut := output.Test()
		code := app.Main(append([]string{"kbox", "playground"}, tc.args...), ios, env(map[string]string{"KBOX_CONFIG": cfg}))
		if code != 1 || errOut.String() != tc.want || out.Len() != 0 {
			t.Errorf("%v: exit %d stdout %q stderr %q, want exit 1 and %q", tc.args, code, out, errOut, tc.want)
		}
		if _, err := os.Stat(cfg); err == nil {
			t.Errorf("%v: profile written although the playground did not start", tc.args)
		}
	}
}

func TestTourRefusesSecurityAndDataDir(t *testing.T) {
	for _, extra := range [][]string{{"--sasl"}, {"--tls"}, {"--data-dir", t.TempDir()}} {
		ios, _, out, errOut := output.Test()
		code := app.Main(append([]string{"kbox", "playground", "--tour"}, extra...), ios, env(map[string]string{"KBOX_CONFIG": filepath.Join(t.TempDir(), "c.yaml")}))
		if code != 2 || out.Len() != 0 || !strings.HasPrefix(errOut.String(), "kbox: error: --tour runs on a fresh, plaintext, in-memory playground") {
			t.Errorf("%v: exit %d stdout %q stderr %q", extra, code, out, errOut)
		}
	}
}

func TestNativeCommandProbe(t *testing.T) {
	// A host whose "verify" exists but has no "check": the step that needs
	// "verify check" must not run.
	var ran []string
	mainFn := func(args []string, ios *output.IOStreams, _ func(string) string) int {
		line := strings.Join(args, " ")
		ran = append(ran, line)
		switch line {
		case "kbox cluster describe --help":
			fmt.Fprintln(ios.Out, "Usage:\n  kbox cluster describe [flags]")
		case "kbox verify check --help":
			// cobra prints the parent's help, mentioning the words elsewhere.
			fmt.Fprintln(ios.Out, "Run kbox verify check later.\n\nUsage:\n  verify [command]")
		default:
			if strings.HasPrefix(line, "kafka-verifiable-producer") {
				fmt.Fprintln(ios.Out, `{"name":"producer_send_success"} {"name":"shutdown_complete"} {"sent":1000,"acked":1000}`)
			}
			if strings.HasPrefix(line, "kafka-verifiable-consumer") {
				fmt.Fprintln(ios.Out, `"name":"partitions_assigned" "name":"records_consumed" "name":"record_data" "name":"offsets_committed" "name":"shutdown_complete"`)
			}
			if strings.HasPrefix(line, "kbox cluster describe") {
				fmt.Fprintln(ios.Out, "Cluster kbox-playground, controller 0")
			}
		}
		return 0
	}
	ios, _, out, _ := output.Test()
	f := cmdutil.NewFactory(ios, env(map[string]string{}), "test")
	cmd := playground.NewCmd(f, playground.Host{Main: mainFn, Applets: func() []string {
		return []string{"kafka-verifiable-producer", "kafka-verifiable-consumer"}
	}})
	cmd.SetArgs([]string{"--tour", "--brokers", "1"})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("tour: %v\n%s", err, out)
	}
	for _, r := range ran {
		if strings.HasPrefix(r, "kbox verify check --producer-log") {
			t.Errorf("ran %q although verify has no check command", r)
		}
	}
	if !strings.Contains(out.String(), "Tour complete: 3 steps passed") {
		t.Errorf("want 3 steps (cluster describe, producer, consumer):\n%s", out)
	}
}
