package ui

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/twmb/franz-go/pkg/kfake"
)

func kbox(env map[string]string, args ...string) (int, string, string) {
	ios, _, out, errOut := output.Test()
	fac := cmdutil.NewFactory(ios, func(k string) string { return env[k] }, "test")
	cmd := NewCmd(fac)
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.Execute()
	code := 0
	if err != nil {
		code = 1
		if _, ok := err.(*cmdutil.FlagError); ok {
			code = 2
		}
		errOut.WriteString(err.Error())
	}
	return code, out.String(), errOut.String()
}

func TestFlags(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	bs := strings.Join(c.ListenAddrs(), ",")
	env := map[string]string{"KBOX_CONFIG": filepath.Join(t.TempDir(), "none.yaml")}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "0.0.0.0:0"}, "not a loopback address: add --allow-remote"},
		{[]string{"--listen", ":0"}, "not a loopback address"},
		{[]string{"--listen", "nonsense"}, "want host:port"},
		{[]string{"--listen", "127.0.0.1:0", "--token", "short"}, "at least 16"},
		{[]string{"--interval", "10ms"}, "at least 1s"},
		{[]string{"--duration", "-1s"}, "must not be negative"},
	} {
		code, _, errOut := kbox(env, append(tc.args, "--bootstrap-server", bs)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	// A run bounded by --duration prints the URL first, then stops.
	code, out, errOut := kbox(env, "--listen", "127.0.0.1:0", "--duration", "200ms", "--bootstrap-server", bs)
	if code != 0 || !strings.HasPrefix(out, "http://127.0.0.1:") || strings.Contains(out, "token") {
		t.Fatalf("exit %d, out %q, err %q", code, out, errOut)
	}
	// Remote with no token: one is generated and printed once, in the URL.
	code, out, _ = kbox(env, "--listen", "0.0.0.0:0", "--allow-remote", "--duration", "200ms", "--bootstrap-server", bs)
	if code != 0 || !strings.Contains(out, "/?token=") || strings.Count(out, "token=") != 1 {
		t.Fatalf("--allow-remote: exit %d, out %q", code, out)
	}
	u := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	if _, err := http.NewRequest(http.MethodGet, u, nil); err != nil {
		t.Fatalf("URL %q: %v", u, err)
	}
}
