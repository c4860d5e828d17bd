package exporter

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/twmb/franz-go/pkg/kfake"
)

func kbox(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{New: NewCmd, Env: env}, args...)
	return r.Code, r.Stdout, r.ErrOut + r.Msg
}

func TestFlags(t *testing.T) {
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(1))
	bs := strings.Join(c.ListenAddrs(), ",")
	dir := t.TempDir()
	good := filepath.Join(dir, "token")
	_ = os.WriteFile(good, []byte("file-token-0123456789\n"), 0o600)
	env := map[string]string{"KBOX_CONFIG": filepath.Join(dir, "none.yaml")}
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"--interval", "10ms"}, "", "--interval 10ms: must be at least 1s"},
		{[]string{"--timeout", "0s"}, "", "--timeout 0s: must be positive"},
		{[]string{"--group-granularity", "broker"}, "", "want partition or topic"},
		{[]string{"--max-groups", "-1"}, "", "must not be negative"},
		{[]string{"--topic-deny", "a("}, "", `--topic-deny "a(": error parsing regexp`},
		{[]string{"--group-allow", "[z-a]"}, "", `--group-allow "[z-a]"`},
		{[]string{"--probe-interval", "1ms"}, "", "at least 10ms"},
		{[]string{"--listen", "0.0.0.0:0"}, "", "not a loopback address: add --allow-remote"},
		{[]string{"--listen", "0.0.0.0:0", "--allow-remote", "--tls-self-signed"}, "", "--allow-remote needs an access token: give --token-file or KBOX_EXPORTER_TOKEN"},
		{[]string{"--listen", "0.0.0.0:0", "--allow-remote", "--token-file", good}, "", "--allow-remote serves HTTPS"},
		{[]string{"--token", "short"}, "", "at least 16"},
		{nil, "   ", "KBOX_EXPORTER_TOKEN: the token is empty or white space only"},
		{[]string{"--unsafe-no-token"}, "", "unknown flag: --unsafe-no-token"},
	} {
		e := map[string]string{"KBOX_CONFIG": env["KBOX_CONFIG"], "KBOX_EXPORTER_TOKEN": tc.env}
		code, _, errOut := kbox(t, e, append(append([]string{"--listen", "127.0.0.1:0", "--duration", "1ms"}, tc.args...), "--bootstrap-server", bs)...)
		if (code != 2 && !strings.Contains(tc.want, "unknown flag")) || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	// Loopback, no token: the metrics URL, without any token.
	code, out, errOut := kbox(t, env, "--listen", "127.0.0.1:0", "--duration", "100ms", "--bootstrap-server", bs)
	if code != 0 || !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/metrics\n$`).MatchString(out) {
		t.Fatalf("exit %d, out %q, err %q", code, out, errOut)
	}
	// Remote with a token from a file and a self-signed certificate: the
	// token is never printed.
	code, out, errOut = kbox(t, env, "--listen", "0.0.0.0:0", "--allow-remote", "--tls-self-signed", "--token-file", good, "--duration", "100ms", "--bootstrap-server", bs)
	if code != 0 || !strings.HasPrefix(out, "https://") || strings.Contains(out+errOut, "file-token") || !strings.Contains(out, "TLS certificate SHA-256 fingerprint: ") {
		t.Fatalf("remote: exit %d, out %q, err %q", code, out, errOut)
	}
}

// The command serves kfake's metrics on the URL it prints, with the token
// it was given.
func TestServes(t *testing.T) {
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.SeedTopics(2, "orders"))
	env := map[string]string{"KBOX_CONFIG": filepath.Join(t.TempDir(), "none.yaml"), "KBOX_EXPORTER_TOKEN": "env-token-0123456789"}
	ios, _, _, _ := output.Test()
	pr, pw := io.Pipe()
	ios.Out = pw
	fac := cmdutil.NewFactory(ios, func(k string) string { return env[k] }, "test")
	cmd := NewCmd(fac)
	cmd.SetArgs([]string{"--listen", "127.0.0.1:0", "--interval", "1s", "--duration", "20s", "--bootstrap-server", strings.Join(c.ListenAddrs(), ",")})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx); pw.Close() }()
	t.Cleanup(func() { cancel(); <-done })
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	u := strings.TrimSpace(line)
	series := `kbox_topic_partitions{cluster="` + c.ListenAddrs()[0] + `",topic="orders"} 2`
	cmdtest.Eventually(t, 15*time.Second, func() (bool, string) {
		req, _ := http.NewRequest("GET", u, nil)
		req.Header.Set("Authorization", "Bearer env-token-0123456789")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", u, resp.StatusCode, b)
		}
		return strings.Contains(string(b), series), "no orders series:\n" + string(b)
	})
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("without the token: %d", resp.StatusCode)
	}
}

// The exporter sets GOGC=50 unless the environment sets GOGC or
// GOMEMLIMIT.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, c := range []struct {
		gogc, limit string
		want        int
	}{{"", "", gcPercent}, {"200", "", 100}, {"", "1GiB", 100}} {
		t.Setenv("GOGC", c.gogc)
		t.Setenv("GOMEMLIMIT", c.limit)
		debug.SetGCPercent(100)
		if tuned := tuneGC(); tuned != (c.want == gcPercent) {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: tuned %v", c.gogc, c.limit, tuned)
		}
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: GC percent %d, want %d", c.gogc, c.limit, got, c.want)
		}
	}
}
