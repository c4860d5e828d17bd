package topics

import (
	"fmt"
	"strconv"
	"strings"
)

// optSpec is one jopt-simple option of TopicCommand.
type optSpec struct {
	name   string
	hasArg bool
	native bool // a kbox extension, not in Apache's parser
}

var specs = []optSpec{
	{name: "bootstrap-server", hasArg: true},
	{name: "command-config", hasArg: true},
	{name: "list"},
	{name: "create"},
	{name: "delete"},
	{name: "alter"},
	{name: "describe"},
	{name: "topic", hasArg: true},
	{name: "topic-id", hasArg: true},
	{name: "config", hasArg: true},
	{name: "delete-config", hasArg: true},
	{name: "partitions", hasArg: true},
	{name: "replication-factor", hasArg: true},
	{name: "replica-assignment", hasArg: true},
	{name: "under-replicated-partitions"},
	{name: "unavailable-partitions"},
	{name: "under-min-isr-partitions"},
	{name: "at-min-isr-partitions"},
	{name: "topics-with-overrides"},
	{name: "if-exists"},
	{name: "if-not-exists"},
	{name: "exclude-internal"},
	{name: "partition-size-limit-per-response", hasArg: true},
	{name: "help"},
	{name: "version"},
	// kbox extensions.
	{name: "output", hasArg: true, native: true},
	{name: "dry-run", native: true},
	{name: "disable-rack-aware", native: true},
	{name: "profile", hasArg: true, native: true},
}

func lookupSpec(name string) (optSpec, bool) {
	for _, s := range specs {
		if s.name == name {
			return s, true
		}
	}
	return optSpec{}, false
}

// parsed is jopt's OptionSet: which options were seen and their values.
type parsed struct {
	nargs  int
	seen   map[string]bool
	values map[string][]string
}

func (p *parsed) has(name string) bool { return p.seen[name] }

// ParseError is a jopt-simple parse exception: Apache prints the message
// and a Java stack trace on stderr and exits 1.
type ParseError struct{ Msg string }

func (e *ParseError) Error() string { return e.Msg }

// parseArgs emulates jopt-simple 5.0.4 with OptionParser(false): long
// options only (no abbreviations), "--name value" and "--name=value",
// a required argument is the next token whatever it looks like, "--" ends
// the options, stray positional arguments are ignored.
func parseArgs(args []string) (*parsed, error) {
	p := &parsed{nargs: len(args), seen: map[string]bool{}, values: map[string][]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return p, nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			s, ok := lookupSpec(name)
			if !ok {
				return nil, &ParseError{Msg: name + " is not a recognized option"}
			}
			if !s.hasArg {
				if hasVal {
					return nil, &ParseError{Msg: "Option " + name + " does not accept an argument"}
				}
				p.seen[name] = true
				continue
			}
			if !hasVal {
				if i+1 >= len(args) {
					return nil, &ParseError{Msg: "Option " + name + " requires an argument"}
				}
				i++
				val = args[i]
			}
			p.seen[name] = true
			p.values[name] = append(p.values[name], val)
		case a == "-o":
			if i+1 >= len(args) {
				return nil, &ParseError{Msg: "Option o requires an argument"}
			}
			i++
			p.seen["output"] = true
			p.values["output"] = append(p.values["output"], args[i])
		case strings.HasPrefix(a, "-o") && len(a) > 2:
			p.seen["output"] = true
			p.values["output"] = append(p.values["output"], strings.TrimPrefix(a[2:], "="))
		case strings.HasPrefix(a, "-") && len(a) > 1:
			return nil, &ParseError{Msg: string(a[1]) + " is not a recognized option"}
		}
	}
	return p, nil
}

// single is OptionSet.valueOf: the value, or jopt's error for repeats.
func (p *parsed) single(name string) (*string, error) {
	v := p.values[name]
	switch len(v) {
	case 0:
		return nil, nil
	case 1:
		return &v[0], nil
	}
	return nil, fmt.Errorf("Found multiple arguments for option %s, but you asked for only one", name)
}

// integer is valueOf for an Integer-typed option.
func (p *parsed) integer(name string) (*int, error) {
	s, err := p.single(name)
	if err != nil || s == nil {
		return nil, err
	}
	n, err := strconv.ParseInt(*s, 10, 32)
	if err != nil || strings.HasPrefix(*s, "+") && len(*s) == 1 {
		return nil, fmt.Errorf("Cannot parse argument '%s' of option %s", *s, name)
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
