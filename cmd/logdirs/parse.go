package logdirs

import "github.com/kboxdev/kbox/pkg/jopt"

// parser is LogDirsCommand's jopt-simple option set, plus kbox's native
// extensions (which also take -o, -H and --bytes).
var parser = jopt.New(
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "command-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "describe"},
	jopt.Spec{Name: "topic-list", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "broker-list", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
	// native extensions
	jopt.Spec{Name: "output", Short: "o", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "profile", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "topic-regex", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "aggregate-into", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "sort-by-size"},
	jopt.Spec{Name: "top", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "human-readable", Short: "H"},
	jopt.Spec{Name: "bytes"},
	jopt.Spec{Name: "health"},
	jopt.Spec{Name: "skew-threshold", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "skew-min-bytes", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "timeout", Arg: jopt.RequiredArg},
)

// parsed holds every occurrence of every option, like jopt's OptionSet.
type parsed struct{ *jopt.Set }

func (p *parsed) has(name string) bool { return p.Has(name) }

// single returns the one value of an option, failing like jopt's valueOf
// when it was given more than once.
func (p *parsed) single(name string) (string, bool, error) {
	return p.Value(name)
}

// parseArgs parses LogDirsCommand's argv (see pkg/jopt for the rules); a
// *jopt.Error is a jopt exception: the Apache tool prints its message (and a
// stack trace, which kbox leaves out) on stderr and exits 1.
func parseArgs(args []string) (*parsed, error) {
	s, err := parser.Parse(args)
	if err != nil {
		return nil, err
	}
	return &parsed{s}, nil
}
