package topics

import (
	"fmt"

	"github.com/kboxdev/kbox/pkg/jopt"
)

// parser is TopicCommand's jopt-simple option set, plus kbox's extensions.
var parser = jopt.New(
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "command-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "list"},
	jopt.Spec{Name: "create"},
	jopt.Spec{Name: "delete"},
	jopt.Spec{Name: "alter"},
	jopt.Spec{Name: "describe"},
	jopt.Spec{Name: "topic", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "topic-id", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "delete-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "partitions", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "replication-factor", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "replica-assignment", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "under-replicated-partitions"},
	jopt.Spec{Name: "unavailable-partitions"},
	jopt.Spec{Name: "under-min-isr-partitions"},
	jopt.Spec{Name: "at-min-isr-partitions"},
	jopt.Spec{Name: "topics-with-overrides"},
	jopt.Spec{Name: "if-exists"},
	jopt.Spec{Name: "if-not-exists"},
	jopt.Spec{Name: "exclude-internal"},
	jopt.Spec{Name: "partition-size-limit-per-response", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
	// kbox extensions.
	jopt.Spec{Name: "output", Short: "o", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "dry-run"},
	jopt.Spec{Name: "disable-rack-aware"},
	jopt.Spec{Name: "bytes"},
	jopt.Spec{Name: "profile", Arg: jopt.RequiredArg},
)

// parsed is jopt's OptionSet of a TopicCommand command line.
type parsed struct{ *jopt.Set }

func (p *parsed) has(name string) bool { return p.Has(name) }

// parseArgs parses TopicCommand's argv (see pkg/jopt for the rules).
// A jopt error is returned as is: Apache prints its message and a Java
// stack trace on stderr and exits 1.
func parseArgs(args []string) (*parsed, error) {
	s, err := parser.Parse(args)
	if err != nil {
		return nil, err
	}
	return &parsed{s}, nil
}

// single is OptionSet.valueOf: the value, or jopt's error for repeats.
func (p *parsed) single(name string) (*string, error) {
	v, ok, err := p.Value(name)
	if err != nil || !ok {
		return nil, err
	}
	return &v, nil
}

// integer is valueOf for an Integer-typed option.
func (p *parsed) integer(name string) (*int, error) {
	n, ok, err := p.Int(name)
	if err != nil || !ok {
		return nil, err
	}
	v := int(n)
	return &v, nil
}

// UsageError is printUsageAndExit: message and option table on stderr,
// exit 1.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// IllegalArgError is an IllegalArgumentException thrown while checking the
// arguments: Apache prints its message (and a stack trace) on stderr.
type IllegalArgError struct{ Msg string }

func (e *IllegalArgError) Error() string { return e.Msg }

var actions = []string{"create", "list", "alter", "describe", "delete"}

// allTopicLevel is the order kbox reports a conflicting action in (Apache
// iterates a Set.of, but only one action can be present at that point).
var allTopicLevel = []string{"alter", "create", "describe", "list", "delete"}

var reportOpts = []string{"under-replicated-partitions", "under-min-isr-partitions", "at-min-isr-partitions", "unavailable-partitions"}

func invalidOptions(add []string, remove ...string) []string {
	var out []string
	for _, a := range allTopicLevel {
		keep := true
		for _, r := range remove {
			if r == a {
				keep = false
			}
		}
		if keep {
			out = append(out, a)
		}
	}
	return append(out, add...)
}

func (p *parsed) checkInvalid(used string, invalid []string) error {
	if !p.has(used) {
		return nil
	}
	for _, o := range invalid {
		if p.has(o) {
			return &UsageError{Msg: fmt.Sprintf("Option \"[%s]\" can't be used with option \"[%s]\"", used, o)}
		}
	}
	return nil
}

// checkArgs is TopicCommandOptions.checkArgs (Kafka 4.4) after help and
// version: returns the stdout/stderr notices to print before going on.
// haveBootstrap says whether a bootstrap server is known from somewhere
// (--bootstrap-server, or kbox's profile/environment).
func (p *parsed) checkArgs(haveBootstrap bool) (stdoutNotes, stderrNotes []string, err error) {
	n := 0
	for _, a := range actions {
		if p.has(a) {
			n++
		}
	}
	if n != 1 {
		return nil, nil, &UsageError{Msg: "Command must include exactly one action: --list, --describe, --create, --alter or --delete"}
	}
	if p.has("delete-config") {
		stderrNotes = append(stderrNotes, "delete-config option is no longer supported and deprecated since version 4.0. The config will be fully removed in future releases.")
	}
	// checkRequiredArgs
	if !haveBootstrap {
		return nil, stderrNotes, &IllegalArgError{Msg: "--bootstrap-server must be specified"}
	}
	if p.has("describe") && p.has("if-exists") {
		if !p.has("topic") && !p.has("topic-id") {
			return nil, stderrNotes, &UsageError{Msg: "--topic or --topic-id is required to describe a topic"}
		}
		if p.has("topic") && p.has("topic-id") {
			stdoutNotes = append(stdoutNotes, "Only topic id will be used when both --topic and --topic-id are specified and topicId is not Uuid.ZERO_UUID")
		}
	}
	if !p.has("list") && !p.has("describe") && !p.has("topic") {
		return stdoutNotes, stderrNotes, &UsageError{Msg: `Missing required argument "[topic]"`}
	}
	if p.has("alter") {
		if p.has("config") {
			return stdoutNotes, stderrNotes, &UsageError{Msg: `Option combination "[[bootstrap-server], [config]]" can't be used with option "[alter]" (To alter topic configurations, the kafka-configs tool can be used.)`}
		}
		if !p.has("partitions") {
			return stdoutNotes, stderrNotes, &UsageError{Msg: `Missing required argument "[partitions]"`}
		}
	}
	// checkInvalidArgs
	checks := []struct {
		used    string
		invalid []string
	}{
		{"config", invalidOptions(nil, "alter", "create")},
		{"partitions", invalidOptions(nil, "alter", "create")},
		{"replication-factor", invalidOptions(nil, "create")},
		{"replica-assignment", invalidOptions(nil, "alter", "create")},
	}
	for _, c := range checks {
		if err := p.checkInvalid(c.used, c.invalid); err != nil {
			return stdoutNotes, stderrNotes, err
		}
	}
	if p.has("create") {
		if err := p.checkInvalid("replica-assignment", []string{"partitions", "replication-factor"}); err != nil {
			return stdoutNotes, stderrNotes, err
		}
	}
	for _, r := range reportOpts {
		if err := p.checkInvalid(r, invalidOptions([]string{"topics-with-overrides"}, "describe", r)); err != nil {
			return stdoutNotes, stderrNotes, err
		}
	}
	later := []struct {
		used    string
		invalid []string
	}{
		{"topics-with-overrides", invalidOptions(reportOpts, "describe")},
		{"if-exists", invalidOptions(nil, "alter", "delete", "describe")},
		{"if-not-exists", invalidOptions(nil, "create")},
		{"exclude-internal", invalidOptions(nil, "list", "describe")},
	}
	for _, c := range later {
		if err := p.checkInvalid(c.used, c.invalid); err != nil {
			return stdoutNotes, stderrNotes, err
		}
	}
	return stdoutNotes, stderrNotes, nil
}
