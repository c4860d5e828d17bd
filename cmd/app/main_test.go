package app

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/spf13/cobra"
)

// withFakeApplet swaps the applet table for one echo applet during a test.
func withFakeApplet(t *testing.T) {
	t.Helper()
	saved := applets
	applets = append(natives(), cmdutil.Applet{
		Name: "kafka-echo", Alias: "echo", Short: "echo its arguments",
		New: func(f *cmdutil.Factory) *cobra.Command {
			return &cobra.Command{Use: "echo", DisableFlagParsing: true, RunE: func(cmd *cobra.Command, args []string) error {
				f.IO.Out.Write([]byte(f.Invoked + "|" + f.Globals.Profile + "|" + strings.Join(args, " ") + "\n"))
				if len(args) > 0 && args[0] == "--fail" {
					return cmdutil.Exit(7)
				}
				return nil
			}}
		},
	})
	t.Cleanup(func() { applets = saved })
}

func run(t *testing.T, env map[string]string, argv ...string) (int, string, string) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{Main: Main, Env: env, Invoked: argv[0]}, argv[1:]...)
	return r.Code, r.Stdout, r.Stderr
}

func TestDispatch(t *testing.T) {
	withFakeApplet(t)
	cases := []struct {
		argv []string
		want string
		code int
	}{
		{[]string{"/usr/bin/kafka-echo", "--a", "b"}, "kafka-echo||--a b\n", 0},
		{[]string{"kafka-echo.sh", "x"}, "kafka-echo||x\n", 0},
		{[]string{"/opt/kbox", "kafka-echo", "x"}, "kafka-echo||x\n", 0},
		{[]string{"kbox", "echo", "x"}, "kbox echo||x\n", 0},
		{[]string{"kbox", "--profile", "p1", "kafka-echo", "x"}, "kafka-echo|p1|x\n", 0},
		{[]string{"kbox", "--profile=p2", "echo"}, "kbox echo|p2|\n", 0},
		{[]string{"kafka-echo", "--fail"}, "kafka-echo||--fail\n", 7},
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("profiles:\n  p1: {connect-timeout: 1s}\n  p2: {connect-timeout: 1s}\n  envp: {connect-timeout: 1s}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"KBOX_CONFIG": cfg}
	for _, c := range cases {
		code, out, errOut := run(t, env, c.argv...)
		if code != c.code || out != c.want {
			t.Errorf("%v: code %d out %q err %q; want %d %q", c.argv, code, out, errOut, c.code, c.want)
		}
	}
	// KBOX_PROFILE reaches applets invoked by link name.
	env["KBOX_PROFILE"] = "envp"
	if _, out, _ := run(t, env, "kafka-echo"); out != "kafka-echo|envp|\n" {
		t.Errorf("KBOX_PROFILE: %q", out)
	}
}

func TestUnknownApplet(t *testing.T) {
	withFakeApplet(t)
	for _, argv := range [][]string{{"kafka-nope"}, {"kbox", "nope"}, {"kbox", "kafka-nope.sh"}} {
		code, out, errOut := run(t, nil, argv...)
		if code != 1 || out != "" || !strings.Contains(errOut, "unknown applet") || !strings.Contains(errOut, "kafka-echo") {
			t.Errorf("%v: code %d out %q err %q", argv, code, out, errOut)
		}
	}
}

func TestHelpListsApplets(t *testing.T) {
	withFakeApplet(t)
	code, out, _ := run(t, nil, "kbox", "--help")
	if code != 0 || !strings.Contains(out, "echo") || !strings.Contains(out, "cluster") {
		t.Fatalf("help: %d %q", code, out)
	}
}

func TestUsageErrorExit2(t *testing.T) {
	code, _, errOut := run(t, nil, "kbox", "cluster", "describe", "--no-such-flag")
	if code != 2 || !strings.Contains(errOut, "--no-such-flag") {
		t.Fatalf("code %d err %q", code, errOut)
	}
	code, _, errOut = run(t, nil, "kbox", "--profile")
	if code != 2 || !strings.Contains(errOut, "--profile needs a value") {
		t.Fatalf("code %d err %q", code, errOut)
	}
}

func TestInstallLinks(t *testing.T) {
	withFakeApplet(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "kbox")
	if err := os.WriteFile(target, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	n, err := InstallLinks(dir, target, false)
	if err != nil || n != 2 {
		t.Fatalf("n=%d err=%v", n, err)
	}
	var names []string
	for _, name := range []string{"kafka-echo", "kafka-echo.sh"} {
		l, err := os.Readlink(filepath.Join(dir, name))
		if err != nil || l != "kbox" {
			t.Fatalf("%s -> %q (%v): want relative link", name, l, err)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	// Idempotent; a foreign file is refused without --force.
	if _, err := InstallLinks(dir, target, false); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "kafka-echo"))
	os.WriteFile(filepath.Join(dir, "kafka-echo"), []byte("other"), 0o644)
	if _, err := InstallLinks(dir, target, false); err == nil {
		t.Fatal("expected refusal")
	}
	if _, err := InstallLinks(dir, target, true); err != nil {
		t.Fatal(err)
	}
}

func TestProfileCommands(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"KBOX_CONFIG": filepath.Join(dir, "kbox", "config.yaml"), "PW": "very-secret-pw"}
	code, _, errOut := run(t, env, "kbox", "profile", "create", "prod", "--bootstrap-server", "b1:9093", "--sasl-mechanism", "SCRAM-SHA-512", "--sasl-username", "admin", "--password-env", "PW")
	if code != 0 {
		t.Fatalf("create: %d %s", code, errOut)
	}
	code, out, _ := run(t, env, "kbox", "profile", "list")
	if code != 0 || !strings.Contains(out, "prod") || !strings.Contains(out, "SCRAM-SHA-512") {
		t.Fatalf("list: %q", out)
	}
	code, out, _ = run(t, env, "kbox", "-o", "json", "profile", "show", "prod")
	if code != 0 || !strings.Contains(out, `"password_env":"PW"`) || strings.Contains(out, "very-secret-pw") {
		t.Fatalf("show: %q", out)
	}
	// import from a Java properties file with a literal password: show redacts it.
	pf := filepath.Join(dir, "client.properties")
	os.WriteFile(pf, []byte("bootstrap.servers=x:1\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"literal-pw\";\n"), 0o600)
	code, _, errOut = run(t, env, "kbox", "profile", "import", "imp", "--from-properties", pf)
	if code != 0 {
		t.Fatalf("import: %d %s", code, errOut)
	}
	code, out, errOut = run(t, env, "kbox", "profile", "show", "imp")
	if code != 0 || strings.Contains(out+errOut, "literal-pw") || !strings.Contains(out, "[redacted]") || !strings.Contains(errOut, "literal secret") {
		t.Fatalf("show imp: %q %q", out, errOut)
	}
	st, _ := os.Stat(env["KBOX_CONFIG"])
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	if code, _, _ = run(t, env, "kbox", "profile", "use", "imp"); code != 0 {
		t.Fatal("use")
	}
	if code, out, _ = run(t, env, "kbox", "profile", "show"); code != 0 || !strings.Contains(out, "name: imp") {
		t.Fatalf("show current: %q", out)
	}
	if code, _, _ = run(t, env, "kbox", "profile", "delete", "imp"); code != 0 {
		t.Fatal("delete")
	}
	if code, _, errOut = run(t, env, "kbox", "profile", "delete", "imp"); code != 1 || !strings.Contains(errOut, `"imp" not found`) {
		t.Fatalf("delete twice: %d %q", code, errOut)
	}
}
