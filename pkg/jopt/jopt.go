// Package jopt emulates the jopt-simple 5.0.4 option parser of the Apache
// tools (kafka-consumer-perf-test, kafka-e2e-latency, ...): the options they
// accept and the exception messages they print.
package jopt

import (
	"fmt"
	"strconv"
	"strings"
)

// Error is a message that must read exactly as the Java tool prints it.
type Error string

func (e Error) Error() string { return string(e) }

// Spec describes the consumer perf test's jopt-simple options.
type Spec struct {
	Arg      int // 0 none, 1 required, 2 optional
	Multiple bool
}

// Set is a parsed jopt-simple command line.
type Set struct {
	Values map[string][]string
	Has    map[string]bool
}

type parseError struct{ msg string }

func (e *parseError) Error() string { return e.msg }

// Parse parses args like jopt-simple 5.0.4 without abbreviations.
// Non-option arguments are ignored, as the Apache tool does.
func Parse(args []string, spec map[string]Spec) (*Set, error) {
	s := &Set{Values: map[string][]string{}, Has: map[string]bool{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		var name string
		if strings.HasPrefix(a, "--") {
			name = a[2:]
		} else {
			name = a[1:]
		}
		val, hasVal := "", false
		if k, v, ok := strings.Cut(name, "="); ok {
			name, val, hasVal = k, v, true
		}
		sp, ok := spec[name]
		if !ok {
			return nil, &parseError{name + " is not a recognized option"}
		}
		s.Has[name] = true
		switch sp.Arg {
		case 0:
			if hasVal {
				return nil, &parseError{fmt.Sprintf("Option %s does not take an argument", name)}
			}
		case 1:
			if !hasVal {
				if i+1 >= len(args) || (strings.HasPrefix(args[i+1], "-") && len(args[i+1]) > 1 && isOption(args[i+1])) {
					return nil, &parseError{fmt.Sprintf("Option %s requires an argument", name)}
				}
				i++
				val = args[i]
			}
			s.Values[name] = append(s.Values[name], val)
		case 2:
			if !hasVal && i+1 < len(args) && !(strings.HasPrefix(args[i+1], "-") && isOption(args[i+1])) {
				i++
				val, hasVal = args[i], true
			}
			if hasVal {
				s.Values[name] = append(s.Values[name], val)
			}
		}
	}
	return s, nil
}

// isOption reports whether a token looks like an option to jopt
// (negative numbers are arguments).
func isOption(a string) bool {
	if _, err := strconv.ParseFloat(a, 64); err == nil {
		return false
	}
	return true
}

// One returns the single value of an option, or jopt's error when given
// several times.
func (s *Set) One(name string) (string, bool, error) {
	v := s.Values[name]
	switch len(v) {
	case 0:
		return "", false, nil
	case 1:
		return v[0], true, nil
	}
	return "", false, Error(fmt.Sprintf("Found multiple arguments for option %s, but you asked for only one", name))
}
