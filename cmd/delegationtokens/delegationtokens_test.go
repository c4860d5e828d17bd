package delegationtokens

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
)

func runArgs(t *testing.T, args ...string) cmdtest.Result {
	t.Helper()
	return cmdtest.Run(t, cmdtest.Options{Cmd: Run, Invoked: "kafka-delegation-tokens"}, args...)
}

// Apache 4.4's messages (captured with testbed.sh apache-batch; the first
// line of stderr where Apache adds a stack trace), all before any
// connection: the bootstrap address is never dialled.
func TestApacheValidation(t *testing.T) {
	cc := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(cc, []byte("security.protocol=SASL_SSL\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conn := []string{"--bootstrap-server", "127.0.0.1:1", "--command-config", cc}
	usage := func(msg string) string { return msg + "\n" + apacheHelp }
	title := "This tool helps to create, renew, expire, or describe delegation tokens."
	one := "Command must include exactly one action: --create, --renew, --expire or --describe"
	npeLong := `Cannot invoke "java.lang.Long.longValue()" because the return value of "joptsimple.OptionSet.valueOf(joptsimple.OptionSpec)" is null` + "\n"
	badPrincipal := "expected a string in format principalType:principalName but got bad\n"
	cases := []struct {
		args     []string
		out, err string
	}{
		{nil, "", usage(title)},
		{[]string{"--help"}, "", usage(title)},
		{[]string{"--bootstrap-server", "x:1"}, "", usage(one)},
		{[]string{"--create", "--renew"}, "", usage(one)},
		{[]string{"--create"}, "", usage(`Missing required argument "[bootstrap-server]"`)},
		{[]string{"--create", "--bootstrap-server", "x:1"}, "", usage(`Missing required argument "[command-config]"`)},
		{append([]string{"--create"}, conn...), "", usage(`Missing required argument "[max-life-time-period]"`)},
		{append([]string{"--renew"}, conn...), "", usage(`Missing required argument "[hmac]"`)},
		{append([]string{"--renew", "--hmac", "x"}, conn...), "", usage(`Missing required argument "[renew-time-period]"`)},
		{append([]string{"--expire", "--hmac", "x"}, conn...), "", usage(`Missing required argument "[expiry-time-period]"`)},
		{append([]string{"--create", "--max-life-time-period", "1", "--hmac", "x"}, conn...), "", usage(`Option "[create]" can't be used with option "[hmac]"`)},
		{append([]string{"--renew", "--hmac", "x", "--renew-time-period", "1", "--owner-principal", "User:a"}, conn...), "", usage(`Option "[renew]" can't be used with option "[owner-principal]"`)},
		{append([]string{"--expire", "--hmac", "x", "--expiry-time-period", "1", "--renew-time-period", "3"}, conn...), "", usage(`Option "[expire]" can't be used with option "[renew-time-period]"`)},
		{append([]string{"--describe", "--hmac", "x"}, conn...), "", usage(`Option "[describe]" can't be used with option "[hmac]"`)},
		{[]string{"--describe", "--bootstrap-server", "x:1", "--command-config", "/nonexistent/file"}, "", "/nonexistent/file\n"},
		{append([]string{"--describe", "--owner-principal", "bad"}, conn...), "", badPrincipal},
		{append([]string{"--create", "--max-life-time-period"}, conn...), "", npeLong},
		{append([]string{"--create", "--max-life-time-period=abc"}, conn...), "", "Cannot parse argument 'abc' of option max-life-time-period\n"},
		{append([]string{"--create", "--max-life-time-period", "1", "--max-life-time-period", "2"}, conn...), "", "Found multiple arguments for option max-life-time-period, but you asked for only one\n"},
		{append([]string{"--create", "--max-life-time-period", "-1", "--renewer-principal", "bad"}, conn...), "", badPrincipal},
		{append([]string{"--create", "--max-life-time-period", "-1", "--owner-principal", "bad"}, conn...), "Calling create token operation with renewers :[] , max-life-time-period :-1\n", badPrincipal},
		{append([]string{"--renew", "--hmac", "--renew-time-period", "1"}, conn...), "Calling renew token operation with hmac :null , renew-time-period :1\n", `Cannot invoke "String.getBytes(java.nio.charset.Charset)" because "src" is null` + "\n"},
		{append([]string{"--renew", "--hmac", "!!!!", "--renew-time-period", "1"}, conn...), "Calling renew token operation with hmac :!!!! , renew-time-period :1\n", "Illegal base64 character 21\n"},
		{append([]string{"--renew", "--hmac", "a", "--renew-time-period", "1"}, conn...), "Calling renew token operation with hmac :a , renew-time-period :1\n", "Input byte[] should at least have 2 bytes for base64 bytes\n"},
		{append([]string{"--renew", "--hmac", "YWJj", "--renew-time-period"}, conn...), "", npeLong},
		{[]string{"--bogus"}, "", "bogus is not a recognized option\n"},
		{[]string{"--describe", "--bootstrap-server"}, "", "Option bootstrap-server requires an argument\n"},
	}
	for _, c := range cases {
		r := runArgs(t, c.args...)
		if r.Code != 1 || r.Stdout != c.out || r.Stderr != c.err {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %.300q\nwant   %q\n       %.300q", c.args, r.Code, r.Stdout, r.Stderr, c.out, c.err)
		}
	}
	if r := runArgs(t, "--version"); r.Code != 0 || !strings.HasPrefix(r.Stdout, "4.4.0") {
		t.Errorf("--version: %d %q", r.Code, r.Stdout)
	}
}

// -o is kbox's, for --create and --describe only; an HMAC never reaches
// an error of kbox's.
func TestOutputFlag(t *testing.T) {
	cc := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(cc, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := runArgs(t, "--renew", "--hmac", "c2VjcmV0LWhtYWM=", "--renew-time-period", "1", "--bootstrap-server", "x:1", "--command-config", cc, "-o", "json")
	if r.Code != 2 || !strings.Contains(r.Stderr, "-o/--output goes with --create or --describe") || strings.Contains(r.Stderr+r.Stdout, "c2VjcmV0") {
		t.Errorf("renew -o json: %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	// KBOX_OUTPUT (which counts under the native name) leaves --renew alone:
	// it gets as far as the connection.
	r = cmdtest.Run(t, cmdtest.Options{Cmd: Run, Invoked: "kbox delegation-tokens", Env: map[string]string{"KBOX_OUTPUT": "json"}},
		"--renew", "--hmac", "YWJj", "--renew-time-period", "1", "--bootstrap-server", "127.0.0.1:1", "--command-config", cc)
	if r.Code != 1 || r.Stdout != "Calling renew token operation with hmac :YWJj , renew-time-period :1\n" || !strings.Contains(r.Stderr, "127.0.0.1:1") {
		t.Errorf("renew under KBOX_OUTPUT=json: %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	r = runArgs(t, "--describe", "--bootstrap-server", "x:1", "--command-config", cc, "-o", "csv")
	if r.Code == 0 || !strings.Contains(r.Stderr, `unknown output format "csv"`) {
		t.Errorf("describe -o csv: %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
}

// Under the native name --help ends with kbox's options.
func TestNativeHelp(t *testing.T) {
	r := cmdtest.Run(t, cmdtest.Options{Cmd: Run, Invoked: "kbox delegation-tokens"}, "--help")
	if r.Code != 1 || !strings.HasSuffix(r.Stderr, nativeHelp) || !strings.Contains(r.Stderr, apacheHelp) {
		t.Errorf("%d %q", r.Code, r.Stderr)
	}
}

// kbox delegation-tokens list checks its owners before it connects.
func TestNativeListBadOwner(t *testing.T) {
	r := cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kbox delegation-tokens"}, "list", "--owner", "bad", "--bootstrap-server", "127.0.0.1:1")
	if r.Code != 2 || !strings.Contains(r.Stderr, "--owner: expected a string in format principalType:principalName but got bad") {
		t.Errorf("%d %q %q", r.Code, r.Stdout, r.Stderr)
	}
}
