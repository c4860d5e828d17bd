package logdirs

import (
	"fmt"
	"strings"
)

// optSpec is one option of the combined Apache (jopt-simple) and native
// parser.
type optSpec struct {
	name   string // canonical long name
	short  string // native short name ("" none)
	hasArg bool
	native bool // a kbox extension, not an Apache option
}

var specs = []optSpec{
	{name: "bootstrap-server", hasArg: true},
	{name: "command-config", hasArg: true},
	{name: "describe"},
	{name: "topic-list", hasArg: true},
	{name: "broker-list", hasArg: true},
	{name: "help"},
	{name: "version"},
	// native extensions
	{name: "output", short: "o", hasArg: true, native: true},
	{name: "profile", hasArg: true, native: true},
	{name: "topic-regex", hasArg: true, native: true},
	{name: "aggregate-into", hasArg: true, native: true},
	{name: "sort-by-size", native: true},
	{name: "top", hasArg: true, native: true},
	{name: "human-readable", short: "H", native: true},
	{name: "health", native: true},
	{name: "skew-threshold", hasArg: true, native: true},
	{name: "skew-min-bytes", hasArg: true, native: true},
	{name: "timeout", hasArg: true, native: true},
}

func lookupLong(name string) (optSpec, bool) {
	for _, s := range specs {
		if s.name == name {
			return s, true
		}
	}
	return optSpec{}, false
}

func lookupShort(name string) (optSpec, bool) {
	for _, s := range specs {
		if s.short != "" && s.short == name {
			return s, true
		}
	}
	return optSpec{}, false
}

// parsed holds every occurrence of every option, like jopt's OptionSet.
type parsed struct {
	vals map[string][]string
	seen map[string]bool
}

func (p *parsed) has(name string) bool { return p.seen[name] }

// single returns the one value of an option, failing like jopt's valueOf
// when it was given more than once.
func (p *parsed) single(name string) (string, bool, error) {
	v := p.vals[name]
	switch len(v) {
	case 0:
		return "", false, nil
	case 1:
		return v[0], true, nil
	}
	return "", false, &joptError{msg: fmt.Sprintf("Found multiple arguments for option %s, but you asked for only one", name)}
}

// joptError is a jopt-simple exception: the Apache tool prints its message
// (and a stack trace, which kbox leaves out) on stderr and exits 1.
type joptError struct{ msg, token string }

func (e *joptError) Error() string { return e.msg }

// parseArgs emulates jopt-simple 5 with abbreviations off: "--name",
// "--name=value", "-name" (a single dash works for long names), an option
// with an argument takes the next token whatever it is, "--" ends options,
// other tokens are ignored. Native short flags (-o, -H) are accepted too.
func parseArgs(args []string) (*parsed, error) {
	p := &parsed{vals: map[string][]string{}, seen: map[string]bool{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue // non-option argument: ignored
		}
		var spec optSpec
		var ok bool
		var name, val string
		var hasVal bool
		if strings.HasPrefix(a, "--") {
			name, val, hasVal = strings.Cut(a[2:], "=")
			spec, ok = lookupLong(name)
			if !ok {
				return nil, &joptError{msg: name + " is not a recognized option", token: "--" + name}
			}
		} else {
			name, val, hasVal = strings.Cut(a[1:], "=")
			spec, ok = lookupLong(name)
			if !ok {
				spec, ok = lookupShort(name)
			}
			if !ok && !hasVal && len(name) > 1 {
				// a native short flag with its value attached: -ojson
				if s, sok := lookupShort(name[:1]); sok && s.hasArg {
					spec, ok, val, hasVal = s, true, name[1:], true
				}
			}
			if !ok {
				// jopt treats it as a cluster of short options; the
				// first one is unknown.
				return nil, &joptError{msg: name[:1] + " is not a recognized option", token: a}
			}
		}
		p.seen[spec.name] = true
		if !spec.hasArg {
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, &joptError{msg: "Option " + spec.name + " requires an argument"}
			}
			i++
			val = args[i]
		}
		p.vals[spec.name] = append(p.vals[spec.name], val)
	}
	return p, nil
}
