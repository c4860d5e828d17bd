package consumergroups

import (
	"errors"
	"fmt"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/jopt"
)

// parser is ConsumerGroupCommandOptions' jopt-simple option set (Kafka 4.4).
var parser = jopt.New(
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "group", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "topic", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "all-topics"},
	jopt.Spec{Name: "list"},
	jopt.Spec{Name: "describe"},
	jopt.Spec{Name: "all-groups"},
	jopt.Spec{Name: "delete"},
	jopt.Spec{Name: "timeout", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "command-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "reset-offsets"},
	jopt.Spec{Name: "delete-offsets"},
	jopt.Spec{Name: "dry-run"},
	jopt.Spec{Name: "execute"},
	jopt.Spec{Name: "export"},
	jopt.Spec{Name: "to-offset", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "from-file", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "to-datetime", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "by-duration", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "to-earliest"},
	jopt.Spec{Name: "to-latest"},
	jopt.Spec{Name: "to-current"},
	jopt.Spec{Name: "shift-by", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "members"},
	jopt.Spec{Name: "verbose"},
	jopt.Spec{Name: "offsets"},
	jopt.Spec{Name: "state", Arg: jopt.OptionalArg},
	jopt.Spec{Name: "type", Arg: jopt.OptionalArg},
	jopt.Spec{Name: "validate-regex", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
)

// availableIf is jopt's availableIf: an option that is only allowed with
// one of the listed options.
var availableIf = []struct {
	opt   string
	allow []string
}{
	{"members", []string{"describe"}},
	{"verbose", []string{"describe"}},
	{"offsets", []string{"describe"}},
	{"state", []string{"describe", "list"}},
	{"type", []string{"list"}},
}

type parsed struct{ *jopt.Set }

func (p *parsed) has(name string) bool { return p.Has(name) }

// JavaException is an exception that escapes main in Apache's tool: the
// JVM prints `Exception in thread "main" CLASS: MSG` (and a stack trace)
// on stderr and exits 1.
type JavaException struct{ Class, Msg string }

func (e *JavaException) Error() string {
	return fmt.Sprintf("Exception in thread \"main\" %s: %s", e.Class, e.Msg)
}

// parseArgs is the options' constructor: the parse, then jopt's
// availableIf check (both outside Apache's try, so uncaught).
func parseArgs(args []string) (*parsed, error) {
	s, err := parser.Parse(args)
	if err != nil {
		return nil, errors.New(cmdutil.JoptException(err))
	}
	p := &parsed{s}
	for _, a := range availableIf {
		if !p.has(a.opt) {
			continue
		}
		ok := false
		for _, o := range a.allow {
			ok = ok || p.has(o)
		}
		if !ok {
			return nil, &JavaException{Class: "joptsimple.UnavailableOptionException",
				Msg: fmt.Sprintf("Option(s) [%s] are unavailable given other options on the command line", a.opt)}
		}
	}
	return p, nil
}

// UsageError is CommandLineUtils.printUsageAndExit: the message and the
// option table on stderr, exit 1.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

var resetScenarios = []string{"to-offset", "to-datetime", "by-duration", "to-earliest", "to-latest", "to-current", "shift-by", "from-file"}

// checkInvalid is CommandLineUtils.checkInvalidArgs.
func (p *parsed) checkInvalid(used string, invalid []string) error {
	if !p.has(used) {
		return nil
	}
	for _, o := range invalid {
		if p.has(o) {
			return usagef(`Option "[%s]" can't be used with option "[%s]"`, used, o)
		}
	}
	return nil
}

func minus(all []string, drop ...string) []string {
	var out []string
	for _, a := range all {
		keep := true
		for _, d := range drop {
			keep = keep && a != d
		}
		if keep {
			out = append(out, a)
		}
	}
	return out
}

// checkArgs is ConsumerGroupCommandOptions.checkArgs (after help and
// version). warn receives the stderr warning Apache prints on the way.
// Apache names option sets in Set.of order, which varies from run to run;
// kbox uses one fixed order.
func (p *parsed) checkArgs(warn func(string)) error {
	if !p.has("validate-regex") && !p.has("bootstrap-server") {
		return usagef(`Missing required argument "[bootstrap-server]"`)
	}
	const scope = "[group], [all-groups]"
	if p.has("describe") {
		if !p.has("group") && !p.has("all-groups") {
			return usagef("Option [describe] takes one of these options: %s", scope)
		}
		n := 0
		for _, o := range []string{"members", "offsets", "state"} {
			if p.has(o) {
				n++
			}
		}
		if n > 1 {
			return usagef("Option [describe] takes at most one of these options: [members], [offsets], [state]")
		}
		if p.has("state") && len(p.Values("state")) > 0 {
			return usagef("Option [describe] does not take a value for [state]")
		}
	}
	if p.has("delete") {
		if !p.has("group") && !p.has("all-groups") {
			return usagef("Option [delete] takes one of these options: %s", scope)
		}
		if p.has("topic") {
			return usagef("The consumer does not support topic-specific offset deletion from a consumer group.")
		}
	}
	if p.has("delete-offsets") && (!p.has("group") || !p.has("topic")) {
		return usagef("Option [delete-offsets] takes the following options: [topic], [group]")
	}
	if p.has("reset-offsets") {
		if p.has("dry-run") && p.has("execute") {
			return usagef("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
		}
		if !p.has("dry-run") && !p.has("execute") {
			warn(missingExecuteWarning)
		}
		if !p.has("group") && !p.has("all-groups") {
			return usagef("Option [reset-offsets] takes one of these options: %s", scope)
		}
		for _, s := range resetScenarios {
			if err := p.checkInvalid(s, minus(resetScenarios, s)); err != nil {
				return err
			}
		}
	}
	if err := p.checkInvalid("group", []string{"all-groups"}); err != nil {
		return err
	}
	if err := p.checkInvalid("group", []string{"list"}); err != nil {
		return err
	}
	return p.checkInvalid("topic", []string{"list", "describe"})
}

const missingExecuteWarning = "WARN: No action will be performed as the --execute option is missing. In version 5.0, this command will require either --dry-run or --execute to be specified. You should add the --dry-run option explicitly if you are scripting this command and want to keep the current default behavior without prompting."

var actions = []string{"list", "describe", "delete", "reset-offsets", "delete-offsets", "validate-regex"}
