package ui

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
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
	env := map[string]string{"KBOX_CONFIG": filepath.Join(dir, "none.yaml")}
	empty := filepath.Join(dir, "empty")
	blank := filepath.Join(dir, "blank")
	good := filepath.Join(dir, "token")
	_ = os.WriteFile(empty, nil, 0o600)
	_ = os.WriteFile(blank, []byte(" \n\t\n"), 0o600)
	_ = os.WriteFile(good, []byte("file-token-0123456789\n"), 0o600)
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"--listen", "0.0.0.0:0"}, "", "not a loopback address: add --allow-remote"},
		{[]string{"--listen", ":0"}, "", "not a loopback address"},
		{[]string{"--listen", "nonsense"}, "", "want host:port"},
		{[]string{"--listen", "127.0.0.1:0", "--token", "short"}, "", "at least 16"},
		{[]string{"--token", ""}, "", "--token: the token is empty or white space only"},
		{[]string{"--token", "   "}, "", "--token: the token is empty or white space only"},
		{[]string{"--token", "0123456789 abcdef"}, "", "printable ASCII characters only"},
		{nil, "    ", "KBOX_UI_TOKEN: the token is empty or white space only"},
		{[]string{"--token-file", empty}, "", "the token is empty or white space only"},
		{[]string{"--token-file", blank}, "", "the token is empty or white space only"},
		{[]string{"--token-file", filepath.Join(dir, "missing")}, "", "--token-file: open"},
		{[]string{"--token-file", good, "--token", "0123456789abcdef0"}, "", "--token and --token-file: give one"},
		{[]string{"--unsafe-no-token", "--token-file", good}, "", "cannot be combined"},
		{[]string{"--listen", "0.0.0.0:0", "--allow-remote"}, "", "--allow-remote serves HTTPS: give --tls-cert/--tls-key or --tls-self-signed"},
		{[]string{"--listen", "0.0.0.0:0", "--allow-remote", "--plain-http-on-trusted-network", "--unsafe-no-token"}, "", "--unsafe-no-token is for loopback only"},
		{[]string{"--plain-http-on-trusted-network"}, "", "goes with --allow-remote and no TLS"},
		{[]string{"--tls-cert", good}, "", "--tls-cert and --tls-key go together"},
		{[]string{"--tls-cert", good, "--tls-key", good}, "", "--tls-cert/--tls-key: "},
		{[]string{"--tls-cert", good, "--tls-key", good, "--tls-self-signed"}, "", "give one"},
		{[]string{"--interval", "10ms"}, "", "at least 1s"},
		{[]string{"--duration", "-1s"}, "", "must not be negative"},
	} {
		e := map[string]string{"KBOX_CONFIG": env["KBOX_CONFIG"], "KBOX_UI_TOKEN": tc.env}
		code, _, errOut := kbox(t, e, append(append([]string{"--listen", "127.0.0.1:0", "--duration", "1ms"}, tc.args...), "--bootstrap-server", bs)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	firstLine := func(out string) string { return strings.TrimSpace(strings.SplitN(out, "\n", 2)[0]) }
	// Loopback: a token is generated and printed once, in the URL.
	code, out, errOut := kbox(t, env, "--listen", "127.0.0.1:0", "--duration", "200ms", "--bootstrap-server", bs)
	if code != 0 || !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{48}$`).MatchString(firstLine(out)) || strings.Count(out, "token=") != 1 {
		t.Fatalf("exit %d, out %q, err %q", code, out, errOut)
	}
	// The token from a file (or KBOX_UI_TOKEN): in the URL, no warning;
	// --token warns that ps shows it.
	code, out, errOut = kbox(t, env, "--listen", "127.0.0.1:0", "--duration", "200ms", "--token-file", good, "--bootstrap-server", bs)
	if code != 0 || !strings.HasSuffix(firstLine(out), "/?token=file-token-0123456789") || strings.Contains(errOut, "warning") {
		t.Fatalf("--token-file: exit %d, out %q, err %q", code, out, errOut)
	}
	code, out, errOut = kbox(t, map[string]string{"KBOX_CONFIG": env["KBOX_CONFIG"], "KBOX_UI_TOKEN": "env-token-0123456789"}, "--listen", "127.0.0.1:0", "--duration", "200ms", "--bootstrap-server", bs)
	if code != 0 || !strings.HasSuffix(firstLine(out), "/?token=env-token-0123456789") || strings.Contains(errOut, "warning") {
		t.Fatalf("KBOX_UI_TOKEN: exit %d, out %q, err %q", code, out, errOut)
	}
	code, out, errOut = kbox(t, env, "--listen", "127.0.0.1:0", "--duration", "200ms", "--token", "flag-token-0123456789", "--bootstrap-server", bs)
	if code != 0 || !strings.HasSuffix(firstLine(out), "/?token=flag-token-0123456789") || !strings.Contains(errOut, "kbox: warning: --token on the command line is visible to every user of this host") {
		t.Fatalf("--token: exit %d, out %q, err %q", code, out, errOut)
	}
	// --unsafe-no-token: no token in the URL, and a warning.
	code, out, errOut = kbox(t, env, "--listen", "127.0.0.1:0", "--duration", "200ms", "--unsafe-no-token", "--bootstrap-server", bs)
	if code != 0 || strings.Contains(out, "token") || !strings.Contains(errOut, "any user of this host") {
		t.Fatalf("--unsafe-no-token: exit %d, out %q, err %q", code, out, errOut)
	}
	// Remote: HTTPS with a certificate made at start, its fingerprint
	// printed; the URL names this host, not 0.0.0.0 or [::].
	for _, listen := range []string{"0.0.0.0:0", "[::]:0", ":0"} {
		code, out, errOut = kbox(t, env, "--listen", listen, "--allow-remote", "--tls-self-signed", "--duration", "200ms", "--bootstrap-server", bs)
		u, err := url.Parse(firstLine(out))
		if code != 0 || err != nil || u.Scheme != "https" || u.Query().Get("token") == "" || u.Hostname() == "" || net.ParseIP(u.Hostname()) != nil && net.ParseIP(u.Hostname()).IsUnspecified() ||
			!regexp.MustCompile(`(?m)^TLS certificate SHA-256 fingerprint: ([0-9A-F]{2}:){31}[0-9A-F]{2}$`).MatchString(out) {
			t.Fatalf("--listen %s --allow-remote --tls-self-signed: exit %d, out %q, err %q", listen, code, out, errOut)
		}
	}
	code, out, errOut = kbox(t, env, "--listen", "0.0.0.0:0", "--allow-remote", "--plain-http-on-trusted-network", "--duration", "200ms", "--bootstrap-server", bs)
	if code != 0 || !strings.HasPrefix(out, "http://") || strings.HasPrefix(out, "http://0.0.0.0") {
		t.Fatalf("--plain-http-on-trusted-network: exit %d, out %q, err %q", code, out, errOut)
	}
}
