package dumplog

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
)

// TestApacheCaptures runs the cases of testdata/cases.txt (a name, then
// the arguments, tab-separated) on segment files a test bed wrote (a data
// topic with headers, lz4 transactions and a commit marker; gzip;
// __consumer_offsets; __transaction_state; __cluster_metadata), and on
// synthetic ones (pkg/segment's TestWriteSynthetic: records of every
// group and share coordinator, KRaft metadata and remote log metadata
// type with every field set; producer snapshots; transaction indexes), and
// compares stdout, the first line of stderr and the exit code with what
// Apache 4.4's kafka-dump-log printed (testbed.sh apache, run in this
// directory, captured into testdata/NAME.stdout, .stderr (its first line,
// this directory's absolute path as @PWD@) and .exit).
func TestApacheCaptures(t *testing.T) {
	cases, err := os.ReadFile("testdata/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(cases)), "\n") {
		f := strings.Split(line, "\t")
		name, args := f[0], f[1:]
		t.Run(name, func(t *testing.T) {
			want, _ := os.ReadFile("testdata/" + name + ".stdout")
			wantErr, _ := os.ReadFile("testdata/" + name + ".stderr")
			wd, _ := os.Getwd() // absolute paths in Apache's messages: @PWD@ in the captures
			wantErr = []byte(strings.ReplaceAll(string(wantErr), "@PWD@", wd))
			code, _ := os.ReadFile("testdata/" + name + ".exit")
			r := cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kafka-dump-log"}, args...)
			if r.Stdout != string(want) {
				t.Errorf("stdout differs from Apache's:\n%s", cmdtest.FirstDiff(string(want), r.Stdout))
			}
			if first, _, _ := strings.Cut(r.Stderr, "\n"); first != strings.TrimSuffix(string(wantErr), "\n") {
				t.Errorf("stderr %q, Apache %q", r.Stderr, wantErr)
			}
			if c, _ := strconv.Atoi(strings.TrimSpace(string(code))); r.Code != c {
				t.Errorf("exit %d, Apache %d", r.Code, c)
			}
		})
	}
}

// Usage errors and the help, before any file is read.
func TestOptions(t *testing.T) {
	cases := []struct {
		args []string
		code int
		errL string
	}{
		{nil, 1, title},
		{[]string{"--print-data-log"}, 1, `Missing required argument "[files]"`},
		{[]string{"--bogus"}, 1, `Exception in thread "main" joptsimple.UnrecognizedOptionException: bogus is not a recognized option`},
		{[]string{"--files"}, 1, `Exception in thread "main" joptsimple.OptionMissingRequiredArgumentException: Option files requires an argument`},
		{[]string{"--files", "testdata/00000000000000000000.log", "--max-bytes", "x"}, 1, `Exception in thread "main" joptsimple.OptionArgumentConversionException: Cannot parse argument 'x' of option max-bytes`},
		{[]string{"--files", "testdata/00000000000000000000.log", "--key-decoder-class", "my.Decoder"}, 1, `Exception in thread "main" java.lang.RuntimeException: Failed to load decoder class`},
	}
	for _, c := range cases {
		r := cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kafka-dump-log"}, c.args...)
		if first, _, _ := strings.Cut(r.Stderr, "\n"); r.Code != c.code || first != c.errL {
			t.Errorf("%v: exit %d, stderr %q", c.args, r.Code, first)
		}
	}
}

// The layer adds no bootstrap list to a tool that reads files.
func TestOfflineUnderAProfile(t *testing.T) {
	r := cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kafka-dump-log", Env: map[string]string{"KBOX_BOOTSTRAP_SERVERS": "x.invalid:1"}},
		"--files", "testdata/00000000000000000100.log")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "Dumping testdata/00000000000000000100.log\nLog starting offset: 100\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
}
