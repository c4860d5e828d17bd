// Package jopt emulates jopt-simple 5.0.4, the option parser behind Apache
// Kafka's kafka-topics, kafka-log-dirs, kafka-consumer-perf-test and
// kafka-e2e-latency, as Kafka configures it (new OptionParser(false): no
// abbreviations). pkg/argparse is its sibling for argparse4j.
//
// The rules, each checked against the real tools (see jopt_test.go):
//   - "--name", "--name=value", and "-name"/"-name=value" for any
//     recognized name; "--" ends the options; "-" and every token that is
//     not an option are non-option arguments, silently kept apart.
//   - An unrecognized "-xyz" is a cluster of one-letter options: the first
//     unrecognized letter fails ("x is not a recognized option").
//   - A flag ignores an attached "=value".
//   - A required argument is the next token, whatever it looks like
//     ("--topic --list" sets topic to "--list").
//   - An optional argument takes the next token only when that token does
//     not look like an option and converts to the argument's type; a number
//     type also takes a negative number. "--name=" attaches "".
//   - Values are converted lazily, when read: conversion errors come before
//     the "multiple arguments" error.
package jopt

import (
	"strings"

	"github.com/kboxdev/kbox/pkg/javafmt"
)

// Arg says whether an option takes an argument.
type Arg int

const (
	NoArg       Arg = iota // accepts()
	RequiredArg            // withRequiredArg()
	OptionalArg            // withOptionalArg()
)

// Type is the argument's ofType(...): it decides whether an optional
// argument is taken and how Int/Long convert it.
type Type int

const (
	String Type = iota
	Integer
	Long
)

// Spec is one option.
type Spec struct {
	Name  string // the long name
	Short string // a one-letter alias ("" none)
	Arg   Arg
	Type  Type
}

// display is how jopt's exceptions name an option: all its names, short
// ones first, joined by "/" ("o/output").
func (s *Spec) display() string {
	if s.Short != "" {
		return s.Short + "/" + s.Name
	}
	return s.Name
}

// Parser is an OptionParser configured with specs.
type Parser struct {
	specs  []Spec
	byName map[string]*Spec
}

// New returns a parser for specs.
func New(specs ...Spec) *Parser {
	p := &Parser{specs: specs, byName: map[string]*Spec{}}
	for i := range p.specs {
		s := &p.specs[i]
		p.byName[s.Name] = s
		if s.Short != "" {
			p.byName[s.Short] = s
		}
	}
	return p
}

// Specs returns the options in declaration order.
func (p *Parser) Specs() []Spec { return p.specs }

// Error is a jopt-simple OptionException raised while parsing. Token is the
// command-line token that caused it.
type Error struct {
	Msg   string
	Token string
}

func (e *Error) Error() string { return e.Msg }

func unrecognized(name, token string) error {
	return &Error{Msg: name + " is not a recognized option", Token: token}
}

// Set is the parsed OptionSet.
type Set struct {
	seen       map[string]bool
	values     map[string][]string
	specs      map[string]*Spec
	NonOptions []string
	// Detected is OptionSet.specs(): the long name of every option
	// detected, in command-line order, repeats included.
	Detected []string
}

// Parse parses args.
func (p *Parser) Parse(args []string) (*Set, error) {
	s := &Set{seen: map[string]bool{}, values: map[string][]string{}, specs: map[string]*Spec{}}
	for i := range p.specs {
		s.specs[p.specs[i].Name] = &p.specs[i]
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		var sp *Spec
		var val *string
		switch {
		case a == "--":
			s.NonOptions = append(s.NonOptions, args[i+1:]...)
			return s, nil
		case strings.HasPrefix(a, "--"):
			name, v, hasVal := strings.Cut(a[2:], "=")
			if sp = p.byName[name]; sp == nil {
				return nil, unrecognized(name, "--"+name)
			}
			if hasVal {
				val = &v
			}
		case strings.HasPrefix(a, "-") && a != "-":
			name, v, hasVal := strings.Cut(a[1:], "=")
			if sp = p.byName[name]; sp != nil {
				if hasVal {
					val = &v
				}
				break
			}
			// A cluster of one-letter options; one that takes an argument
			// takes the rest of the token.
			cluster := []rune(a[1:])
			for _, c := range cluster {
				cs := p.byName[string(c)]
				if cs == nil {
					return nil, unrecognized(string(c), a)
				}
				if cs.Arg != NoArg {
					break
				}
			}
			for j, c := range cluster {
				cs := p.byName[string(c)]
				if cs.Arg != NoArg && j+1 < len(cluster) {
					rest := string(cluster[j+1:])
					sp, val = cs, &rest
					break
				}
				if j == len(cluster)-1 {
					sp = cs
					break
				}
				s.seen[cs.Name] = true
				s.Detected = append(s.Detected, cs.Name)
			}
		default:
			s.NonOptions = append(s.NonOptions, a)
			continue
		}
		s.seen[sp.Name] = true
		s.Detected = append(s.Detected, sp.Name)
		switch {
		case sp.Arg == NoArg:
			// a flag ignores an attached argument
		case val != nil:
			s.values[sp.Name] = append(s.values[sp.Name], *val)
		case sp.Arg == RequiredArg:
			if i+1 >= len(args) {
				return nil, &Error{Msg: "Option " + sp.display() + " requires an argument", Token: a}
			}
			i++
			s.values[sp.Name] = append(s.values[sp.Name], args[i])
		case i+1 < len(args):
			next := args[i+1]
			conv := convertible(next, sp.Type)
			if conv && (!looksLikeOption(next) || sp.Type != String) {
				i++
				s.values[sp.Name] = append(s.values[sp.Name], next)
			}
		}
	}
	return s, nil
}

// looksLikeOption is OptionParser.looksLikeAnOption: a short or long
// option token ("-" alone and "--" alone do not count as long options, but
// "--" is a short option token).
func looksLikeOption(a string) bool {
	return strings.HasPrefix(a, "-") && a != "-"
}

func convertible(a string, t Type) bool {
	switch t {
	case Integer:
		_, err := convert(a, t)
		return err == nil || a == ""
	case Long:
		_, err := convert(a, t)
		return err == nil || a == ""
	}
	return true
}

func convert(a string, t Type) (int64, error) {
	bits := 32
	if t == Long {
		bits = 64
	}
	return javafmt.ParseInt(a, bits)
}

// Has is OptionSet.has: the option was given (with or without a value).
func (s *Set) Has(name string) bool { return s.seen[name] }

// Values is OptionSet.valuesOf for a String option: every value given.
func (s *Set) Values(name string) []string { return s.values[name] }

// display names an option as jopt's exceptions do.
func (s *Set) display(name string) string {
	if sp := s.specs[name]; sp != nil {
		return sp.display()
	}
	return name
}

// multiple is MultipleArgumentsForOptionException's message.
func (s *Set) multiple(name string) error {
	return &Error{Msg: "Found multiple arguments for option " + s.display(name) + ", but you asked for only one"}
}

// Value is OptionSet.valueOf for a String option: ok is false when no
// value was given; more than one value is an error.
func (s *Set) Value(name string) (v string, ok bool, err error) {
	vs := s.values[name]
	switch len(vs) {
	case 0:
		return "", false, nil
	case 1:
		return vs[0], true, nil
	}
	return "", false, s.multiple(name)
}

// Int is OptionSet.valueOf for an Integer or Long option (by its Spec's
// Type): every value is converted first ("Cannot parse argument 'x' of
// option n"), then more than one value is an error.
func (s *Set) Int(name string) (v int64, ok bool, err error) {
	vs := s.values[name]
	var n int64
	for _, x := range vs {
		t := String
		if sp := s.specs[name]; sp != nil {
			t = sp.Type
		}
		if n, err = convert(x, t); err != nil {
			return 0, false, &Error{Msg: "Cannot parse argument '" + x + "' of option " + s.display(name)}
		}
	}
	switch len(vs) {
	case 0:
		return 0, false, nil
	case 1:
		return n, true, nil
	}
	return 0, false, s.multiple(name)
}

// PadLines right-pads every line of a help table with spaces to width
// columns, as jopt's BuiltinHelpFormatter does (trailing spaces already
// there are replaced; longer lines are kept).
func PadLines(text string, width int) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(text, "\n") {
		body := strings.TrimRight(strings.TrimSuffix(l, "\n"), " ")
		if body == "" && !strings.HasSuffix(l, "\n") {
			break
		}
		b.WriteString(body)
		b.WriteString(strings.Repeat(" ", max(0, width-len(body))))
		if strings.HasSuffix(l, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}
