package cmdutil

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kboxdev/kbox/pkg/output"
)

func TestPrologue(t *testing.T) {
	tool := ApacheTool{Title: "Title.", Options: "OPTIONS\n", Extensions: "\nEXT\n"}
	bare := tool
	bare.Bare = "Bare."
	exc := tool
	exc.ParseError = func(err error) string { return "X: " + err.Error() }
	withUsage := tool
	withUsage.ParseUsage = true
	cases := []struct {
		name    string
		tool    ApacheTool
		invoked string
		args    []string // "--help", "--version" are parsed options
		perr    error
		done    bool
		code    int // -1: nil error
		help    bool
		out     string
		errOut  string
	}{
		{"parse error", tool, "kafka-x", []string{"--bad"}, errors.New("bad is not a recognized option"), true, 1, false, "", "bad is not a recognized option\n"},
		{"parse error formatted", exc, "kafka-x", []string{"--bad"}, errors.New("bad"), true, 1, false, "", "X: bad\n"},
		{"parse error with usage", withUsage, "kafka-x", []string{"--bad"}, errors.New("bad"), true, 1, false, "", "bad\nOPTIONS\n"},
		{"no args", tool, "kafka-x", nil, nil, true, 1, true, "", "Title.\nOPTIONS\n"},
		{"no args, bare title", bare, "kafka-x", nil, nil, true, 1, false, "", "Bare.\nOPTIONS\n"},
		{"no args, bare title, native name", bare, "kbox x", nil, nil, true, 1, false, "", "Bare.\nOPTIONS\n"},
		{"help", tool, "kafka-x", []string{"--help"}, nil, true, 1, true, "", "Title.\nOPTIONS\n"},
		{"help, kbox with the Apache name", tool, "kafka-x", []string{"--help", "--version"}, nil, true, 1, true, "", "Title.\nOPTIONS\n"},
		{"help, native name", tool, "kbox x", []string{"--help"}, nil, true, 1, true, "", "Title.\nOPTIONS\n\nEXT\n"},
		{"version", tool, "kbox x", []string{"--version", "--list"}, nil, true, -1, false, ApacheVersion + "\n", ""},
		{"on", tool, "kafka-x", []string{"--list"}, nil, false, -1, false, "", ""},
	}
	for _, c := range cases {
		ios, _, out, errOut := output.Test()
		f := NewFactory(ios, func(string) string { return "" }, "test")
		f.Invoked = c.invoked
		has := func(n string) bool {
			if c.perr != nil {
				t.Errorf("%s: has(%q) called after a parse error", c.name, n)
			}
			return slices.Contains(c.args, "--"+n)
		}
		done, err := c.tool.Prologue(f, c.args, c.perr, has)
		var ee *ExitError
		switch {
		case done != c.done:
			t.Errorf("%s: done %v", c.name, done)
		case c.code < 0 && err != nil:
			t.Errorf("%s: err %v", c.name, err)
		case c.code >= 0 && (!errors.As(err, &ee) || ee.Code != c.code || ee.Help != c.help):
			t.Errorf("%s: err %#v, want exit %d help %v", c.name, err, c.code, c.help)
		}
		if out.String() != c.out || errOut.String() != c.errOut {
			t.Errorf("%s:\nstdout %q want %q\nstderr %q want %q", c.name, out, c.out, errOut, c.errOut)
		}
	}
}

func TestRequireAndCommandConfig(t *testing.T) {
	ios, _, _, errOut := output.Test()
	f := NewFactory(ios, func(string) string { return "" }, "test")
	tool := ApacheTool{Options: "OPTIONS\n", Unreadable: "%s (No such file or directory)"}
	has := func(n string) bool { return n == "a" }
	if err := tool.Require(f, has, "a"); err != nil || errOut.Len() != 0 {
		t.Errorf("Require(a): %v %q", err, errOut)
	}
	err := tool.Require(f, has, "a", "b", "c")
	if code, _ := ExitCode(err); code != 1 || errOut.String() != "Missing required argument \"[b]\"\nOPTIONS\n" {
		t.Errorf("Require(a, b, c): exit %d stderr %q", code, errOut)
	}

	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.properties")
	if err := os.WriteFile(ok, []byte("a=b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.properties")
	if err := tool.CommandConfig(missing, false); err != nil {
		t.Errorf("not given: %v", err)
	}
	if err := tool.CommandConfig(ok, true); err != nil {
		t.Errorf("readable: %v", err)
	}
	if err := tool.CommandConfig(missing, true); err == nil || err.Error() != missing+" (No such file or directory)" {
		t.Errorf("missing: %v", err)
	}
	tool.Unreadable = ""
	if err := tool.CommandConfig(missing, true); err == nil || err.Error() != missing {
		t.Errorf("missing, default message: %v", err)
	}
}

func TestJoptException(t *testing.T) {
	for msg, want := range map[string]string{
		"x is not a recognized option":     `Exception in thread "main" joptsimple.UnrecognizedOptionException: x is not a recognized option`,
		"Option x requires an argument":    `Exception in thread "main" joptsimple.OptionMissingRequiredArgumentException: Option x requires an argument`,
		"Option(s) [x] are unavailable...": `Exception in thread "main" joptsimple.OptionException: Option(s) [x] are unavailable...`,
	} {
		if got := JoptException(errors.New(msg)); got != want {
			t.Errorf("%q: %q, want %q", msg, got, want)
		}
	}
}
