package consumergroups

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/pkg/groups"
)

func runArgs(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{Cmd: Run, Invoked: "kafka-consumer-groups"}, args...)
	return r.Stdout, r.Stderr, r.Code
}

// Outputs captured from Apache's kafka-consumer-groups 4.4.0; nothing here
// reaches a broker (127.0.0.1:1 is never dialled: every case fails first).
func TestArgErrors(t *testing.T) {
	const b = "127.0.0.1:1"
	usage := func(msg string) string { return msg + "\n" + apacheHelp }
	cases := []struct {
		args   []string
		stdout string
		stderr string
		code   int
	}{
		{nil, "", usage(title), 1},
		{[]string{"--help"}, "", usage(title), 1},
		{[]string{"--version"}, "4.4.0\n", "", 0},
		{[]string{"--bootstrap-server", b, "--list", "--foo"}, "", "Exception in thread \"main\" joptsimple.UnrecognizedOptionException: foo is not a recognized option\n", 1},
		{[]string{"--bootstrap-server"}, "", "Exception in thread \"main\" joptsimple.OptionMissingRequiredArgumentException: Option bootstrap-server requires an argument\n", 1},
		{[]string{"--bootstrap-server", b, "--list", "--members"}, "", "Exception in thread \"main\" joptsimple.UnavailableOptionException: Option(s) [members] are unavailable given other options on the command line\n", 1},
		{[]string{"--bootstrap-server", b, "--list", "--state", "--verbose"}, "", "Exception in thread \"main\" joptsimple.UnavailableOptionException: Option(s) [verbose] are unavailable given other options on the command line\n", 1},
		{[]string{"--list"}, "", usage(`Missing required argument "[bootstrap-server]"`), 1},
		{[]string{"--bootstrap-server", b}, "", usage("Command must include exactly one action: --list, --describe, --delete, --reset-offsets, --delete-offsets, --validate-regex"), 1},
		{[]string{"--bootstrap-server", b, "--describe"}, "", usage("Option [describe] takes one of these options: [group], [all-groups]"), 1},
		{[]string{"--bootstrap-server", b, "--describe", "--group", "a", "--members", "--state"}, "", usage("Option [describe] takes at most one of these options: [members], [offsets], [state]"), 1},
		{[]string{"--bootstrap-server", b, "--describe", "--group", "a", "--state", "x"}, "", usage("Option [describe] does not take a value for [state]"), 1},
		{[]string{"--bootstrap-server", b, "--list", "--group", "a"}, "", usage(`Option "[group]" can't be used with option "[list]"`), 1},
		{[]string{"--bootstrap-server", b, "--describe", "--group", "a", "--all-groups"}, "", usage(`Option "[group]" can't be used with option "[all-groups]"`), 1},
		{[]string{"--bootstrap-server", b, "--delete", "--group", "g", "--topic", "t"}, "", usage("The consumer does not support topic-specific offset deletion from a consumer group."), 1},
		{[]string{"--bootstrap-server", b, "--delete-offsets", "--group", "g"}, "", usage("Option [delete-offsets] takes the following options: [topic], [group]"), 1},
		{[]string{"--bootstrap-server", b, "--reset-offsets", "--group", "g", "--all-topics", "--to-earliest", "--execute", "--dry-run"}, "", usage("Option [reset-offsets] only accepts one of [execute] and [dry-run]"), 1},
		{[]string{"--bootstrap-server", b, "--reset-offsets", "--group", "g", "--all-topics", "--to-earliest", "--to-latest", "--dry-run"}, "", usage(`Option "[to-earliest]" can't be used with option "[to-latest]"`), 1},
		{[]string{"--bootstrap-server", b, "--reset-offsets", "--all-topics", "--to-earliest"}, "", missingExecuteWarning + "\n" + usage("Option [reset-offsets] takes one of these options: [group], [all-groups]"), 1},
		{[]string{"--validate-regex", "a(b"}, "The regular expression `a(b` is invalid: missing closing ).\n", "", 0},
		{[]string{"--validate-regex", "a.*b"}, "The regular expression `a.*b` is valid.\n", "", 0},
		{[]string{"--bootstrap-server", b, "--list", "--command-config", "/nonexistent/x"}, "\nError: Executing consumer group command failed due to java.nio.file.NoSuchFileException: /nonexistent/x\n", "", 0},
	}
	for _, c := range cases {
		out, errs, code := runArgs(t, c.args...)
		if out != c.stdout || errs != c.stderr || code != c.code {
			t.Errorf("%q:\ncode %d (want %d)\nstdout %q\nwant   %q\nstderr %q\nwant   %q", c.args, code, c.code, out, c.stdout, head(errs), head(c.stderr))
		}
	}
}

func head(s string) string {
	if i := strings.Index(s, "\nOption "); i >= 0 {
		return s[:i] + "\n<usage>"
	}
	return s
}

func TestHelpTable(t *testing.T) {
	if !strings.HasPrefix(apacheHelp, "Option                                  Description") || !strings.Contains(apacheHelp, "--validate-regex <String: regex>") {
		t.Errorf("apache_help.txt is not the captured option table")
	}
}

func TestParseDateTime(t *testing.T) {
	base := time.Date(2020, 1, 2, 3, 4, 5, 6e6, time.UTC).UnixMilli()
	ok := map[string]int64{
		"2020-01-02T03:04:05.006":       base,
		"2020-01-02T03:04:05.006Z":      base,
		"2020-01-02T03:04:05.006+02:00": base - 2*3600e3,
		"2020-01-02T03:04:05.006-0130":  base + 90*60e3,
		"2020-01-02T03:04:05.006+05":    base - 5*3600e3,
	}
	for in, want := range ok {
		got, err := parseDateTime(in)
		if err != nil || got != want {
			t.Errorf("%s: %d %v, want %d", in, got, err, want)
		}
	}
	bad := map[string]string{
		"yesterday":               "java.text.ParseException: Error parsing timestamp. It does not contain a 'T' according to ISO8601 format",
		"2020-01-02T":             "java.text.ParseException: Error parsing timestamp. It does not contain a 'T' according to ISO8601 format",
		"2020-13-02T03:04:05.006": `java.text.ParseException: Unparseable date: "2020-13-02T03:04:05.006Z"`,
		"2020-02-30T03:04:05.006": `java.text.ParseException: Unparseable date: "2020-02-30T03:04:05.006Z"`,
		"2020-01-02T03:04:05":     `java.text.ParseException: Unparseable date: "2020-01-02T03:04:05Z"`,
	}
	for in, want := range bad {
		if _, err := parseDateTime(in); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

func TestParseResetCSV(t *testing.T) {
	tp := func(t string, p int32) groups.TopicPartition { return groups.TopicPartition{Topic: t, Partition: p} }
	got, err := parseResetCSV("orders,0,5\norders,1,7\n\n", []string{"g"})
	want := map[string]map[groups.TopicPartition]int64{"g": {tp("orders", 0): 5, tp("orders", 1): 7}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("old format: %v %v", got, err)
	}
	got, err = parseResetCSV("a,orders,0,5\nb,other,1,7\n", []string{"a"})
	want = map[string]map[groups.TopicPartition]int64{"a": {tp("orders", 0): 5}, "b": {tp("other", 1): 7}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("group format: %v %v", got, err)
	}
	if _, err := parseResetCSV("orders,0,5\n", []string{"a", "b"}); err == nil {
		t.Errorf("three columns for several groups: no error")
	}
}

func TestAssignmentString(t *testing.T) {
	tps := []groups.TopicPartition{{Topic: "other", Partition: 0}, {Topic: "orders", Partition: 10}, {Topic: "orders", Partition: 2}}
	if got := assignmentString(tps); got != "orders:2,10;other:0" {
		t.Errorf("got %q", got)
	}
	if got := assignmentString(nil); got != "-" {
		t.Errorf("empty: %q", got)
	}
}
