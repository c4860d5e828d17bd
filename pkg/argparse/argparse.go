// Package argparse emulates argparse4j 0.7.0, the parser behind Apache
// Kafka's verifiable producer and consumer and kafka-producer-perf-test, so
// that kbox's drop-in applets accept, reject, document and report exactly
// what the Java tools do:
//
//   - long options may be abbreviated to any unique prefix ("--top");
//     an ambiguous prefix is an error naming the candidates;
//   - "--opt value" and "--opt=value"; repeating an option keeps the last value;
//   - -h/--help prints the help on stdout (the Apache tools then exit 1);
//     no arguments at all prints the help and exits 0 (see Run);
//   - errors print the usage and "<prog>: error: <msg>" on stderr, the message
//     wrapped and justified to the format width ($COLUMNS-5, else 75), plus
//     "Did you mean:" candidates for a mistyped option; exit 1;
//   - help text is wrapped and justified exactly like argparse4j (JDK line
//     break rules), with "(default: X)" appended when DefaultHelp is set;
//   - subcommands (AddSubparsers, as kafka-metadata-quorum, kafka-features
//     and kafka-transactions use them): the first non-option argument names
//     the subcommand (a unique prefix will do), whose parser takes every
//     argument after it; usage, help and errors are argparse4j's ("too few
//     arguments", "invalid choice: ...", "ambiguous command: ...", the
//     subcommand's usage led by its parent's required options).
//
// Typical use:
//
//	p := argparse.New("verifiable-producer", "This tool produces ...")
//	p.DefaultHelp = true
//	p.Add(argparse.Arg{Flags: []string{"--topic"}, Metavar: "TOPIC", Required: true, Help: "..."})
//	g := p.AddGroup("Connection Group", "Group of arguments ...", true, true) // mutex, required
//	g.Add(argparse.Arg{Flags: []string{"--bootstrap-server"}, Dest: "bootstrapServer", ...})
//	ns, code, done := p.Run(args, stdout, stderr, os.Getenv)
//	if done { return code }   // help printed or error reported
//	topic, _ := ns.String("topic")
//
// The package never prints except through the writers given to Run and the
// Format* functions' return values.
package argparse

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/kboxdev/kbox/internal/editdist"

	"github.com/kboxdev/kbox/pkg/javafmt"
	"golang.org/x/term"
)

// Type is how an argument's value is converted.
type Type int

// Argument types, as argparse4j's .type(...) and actions.
const (
	String    Type = iota // .type(String.class), store
	Int                   // .type(Integer.class): Java Integer.valueOf
	Long                  // .type(Long.class): Java Long.valueOf
	Double                // .type(Double.class): Java Double.valueOf (a float64)
	StoreTrue             // Arguments.storeTrue(): a flag, default false
	Help                  // Arguments.help(): print help and stop
	Append                // Arguments.append(): each occurrence adds its value (a []string)
	Short                 // .type(Short.class): Java Short.valueOf
	Version               // Kafka's PrintVersionAndExitAction: print the version and stop
)

// Arg describes one optional argument.
type Arg struct {
	Flags    []string // e.g. {"--topic"} or {"-h", "--help"}
	Dest     string   // key in the Namespace; default: first long flag without dashes
	Metavar  string   // default: upper-cased Dest
	Help     string
	Type     Type
	Required bool
	// Default is shown as "(default: X)" when the parser's DefaultHelp is
	// set, and is the value when the option is absent. Use a string, int64
	// or bool; nil means none (StoreTrue defaults to false).
	Default any
	// Choices restricts the converted value (compared after conversion,
	// so "-01" matches -1 for an Int); shown as {a,b,c}.
	Choices []string
	// NArgs "+" takes one or more values (a []string in the Namespace),
	// as argparse4j's .nargs("+"); "" takes exactly one.
	NArgs string
	// Hidden is argparse4j's help(Arguments.SUPPRESS), for kbox's own
	// flags on an Apache tool's parser (-o): parsed, but in no usage,
	// help or "Did you mean", and matched by its exact flag only (never
	// by a prefix), so that the Apache tool's options resolve as in
	// Apache.
	Hidden bool

	group *Group
}

// Group is an argument group; a titled group gets its own help section.
type Group struct {
	Title       string
	Description string
	Mutex       bool
	Required    bool
	p           *Parser
	args        []*Arg
	index       int
}

// Parser is an argparse4j ArgumentParser.
type Parser struct {
	Prog        string
	Description string
	DefaultHelp bool
	args        []*Arg
	groups      []*Group
	index       map[string]*Arg
	// a subcommand's parser: its parent and its name
	parent  *Parser
	command string
	subHelp string // its line in the parent's help
	subs    *Subparsers
}

// Subparsers are a parser's subcommands (argparse4j's addSubparsers()).
type Subparsers struct {
	// Title and Description give the subcommands a section of their own
	// after the optional arguments ("commands:"); without either they are
	// listed under "positional arguments:".
	Title       string
	Description string
	// Metavar names the subcommand in the usage and help instead of
	// {a,b,c} (kafka-transactions' COMMAND).
	Metavar string
	// Help follows the metavar in the help.
	Help string
	// Dest is the Namespace key of the subcommand's name (default
	// "command").
	Dest string

	p    *Parser
	cmds []*Parser
}

// AddSubparsers gives p subcommands, described by s; add them with
// Subparsers.Add.
func (p *Parser) AddSubparsers(s Subparsers) *Subparsers {
	if s.Dest == "" {
		s.Dest = "command"
	}
	ns := s
	ns.p = p
	p.subs = &ns
	return &ns
}

// Add adds the subcommand name with its line of help and returns its
// parser (with -h/--help; set its Description for its own help). Its
// Prog is its parent's: errors read "<prog>: error: ...".
func (s *Subparsers) Add(name, help string) *Parser {
	sp := New(s.p.Prog, "")
	sp.parent, sp.command = s.p, name
	sp.subHelp = help
	s.cmds = append(s.cmds, sp)
	return sp
}

// Command is the subcommand's name ("" for a parser that is none).
func (p *Parser) Command() string { return p.command }

// New returns a parser with argparse4j's automatic -h/--help.
func New(prog, description string) *Parser {
	p := &Parser{Prog: prog, Description: description, index: map[string]*Arg{}}
	p.Add(Arg{Flags: []string{"-h", "--help"}, Type: Help, Help: "show this help message and exit"})
	return p
}

// Add adds an argument and returns it.
func (p *Parser) Add(a Arg) *Arg {
	if a.Dest == "" {
		for _, f := range a.Flags {
			if strings.HasPrefix(f, "--") {
				a.Dest = strings.ReplaceAll(strings.TrimPrefix(f, "--"), "-", "_")
				break
			}
		}
		if a.Dest == "" {
			a.Dest = strings.TrimLeft(a.Flags[0], "-")
		}
	}
	if a.Type == StoreTrue && a.Default == nil {
		a.Default = false
	}
	na := a
	p.args = append(p.args, &na)
	for _, f := range a.Flags {
		p.index[f] = &na
	}
	return &na
}

// AddGroup adds an argument group. Groups with a title or description get
// their own help section; Mutex groups allow one of their arguments,
// Required ones demand one.
func (p *Parser) AddGroup(title, description string, mutex, required bool) *Group {
	g := &Group{Title: title, Description: description, Mutex: mutex, Required: required, p: p, index: len(p.groups)}
	p.groups = append(p.groups, g)
	return g
}

// Add adds an argument to the group (and to the parser).
func (g *Group) Add(a Arg) *Arg {
	na := g.p.Add(a)
	na.group = g
	g.args = append(g.args, na)
	return na
}

func (g *Group) separateHelp() bool { return g.Title != "" || g.Description != "" }

// Namespace holds parsed values by Dest.
type Namespace struct {
	values map[string]any
	given  map[string]bool
}

// Get returns the value of dest (nil when absent and without default).
func (n *Namespace) Get(dest string) any { return n.values[dest] }

// Given reports whether the option was on the command line.
func (n *Namespace) Given(dest string) bool { return n.given[dest] }

// String returns a string value; ok is false when it is unset.
func (n *Namespace) String(dest string) (string, bool) {
	s, ok := n.values[dest].(string)
	return s, ok
}

// Float returns a Double value; ok is false when it is unset.
func (n *Namespace) Float(dest string) (float64, bool) {
	v, ok := n.values[dest].(float64)
	return v, ok
}

// Int returns an Int or Long value; ok is false when it is unset.
func (n *Namespace) Int(dest string) (int64, bool) {
	v, ok := n.values[dest].(int64)
	return v, ok
}

// Strings returns the values of an NArgs "+" or Append argument.
func (n *Namespace) Strings(dest string) []string {
	v, _ := n.values[dest].([]string)
	return v
}

// Bool returns a StoreTrue value.
func (n *Namespace) Bool(dest string) bool {
	b, _ := n.values[dest].(bool)
	return b
}

// Error is a parse error; Message is argparse4j's exception message.
type Error struct {
	Message string
	// Unrecognized is the option that was not recognised (for "Did you
	// mean"), "" otherwise.
	Unrecognized string
	// UnrecognizedCommand is the subcommand that was not recognised (for
	// "Did you mean"), "" otherwise.
	UnrecognizedCommand string
	// parser raised the error: its usage is printed (a subcommand's).
	parser *Parser
}

func (e *Error) Error() string { return e.Message }

// ErrHelp is returned by Parse when -h/--help was given (as a *HelpError,
// which errors.Is matches to ErrHelp).
var ErrHelp = errors.New("help requested")

// HelpError is -h/--help given to Parser: the parser whose help to print
// (a subcommand's when it followed the subcommand).
type HelpError struct{ Parser *Parser }

func (e *HelpError) Error() string { return ErrHelp.Error() }

// Is makes errors.Is(err, ErrHelp) true.
func (e *HelpError) Is(target error) bool { return target == ErrHelp }

// VersionError is returned by Parse for an argument of type Version (Kafka's
// PrintVersionAndExitAction): the tool prints its version on stdout and
// exits 0, whatever follows.
type VersionError struct{}

func (e *VersionError) Error() string { return "version requested" }

// Errorf builds an Error; tools use it for their own post-parse checks
// (which argparse4j's handleError reports the same way).
func Errorf(format string, a ...any) *Error { return &Error{Message: fmt.Sprintf(format, a...)} }

var negNum = regexp.MustCompile(`^-\d+$|^-\d*\.\d+$`)

func isFlag(s string) bool {
	return strings.HasPrefix(s, "-") && len(s) > 1 && !negNum.MatchString(s)
}

func (a *Arg) textualName() string { return strings.Join(a.Flags, "/") }

func (a *Arg) consumes() bool { return a.Type != StoreTrue && a.Type != Help && a.Type != Version }

func argError(a *Arg, format string, v ...any) *Error {
	return &Error{Message: fmt.Sprintf("argument %s: %s", a.textualName(), fmt.Sprintf(format, v...))}
}

func (p *Parser) resolve(flag string) (*Arg, error) {
	if a, ok := p.index[flag]; ok {
		return a, nil
	}
	var cand []string
	for k, a := range p.index {
		if strings.HasPrefix(k, flag) && !a.Hidden {
			cand = append(cand, k)
		}
	}
	if len(cand) == 0 {
		return nil, nil
	}
	if p.concatShort(flag) {
		cand = append(cand, flag[:2])
	} else if len(cand) == 1 {
		return p.index[cand[0]], nil
	}
	sort.Strings(cand)
	return nil, &Error{Message: fmt.Sprintf("ambiguous option: %s could match %s", flag, strings.Join(cand, ", "))}
}

var shortOpts = regexp.MustCompile(`^-[^-].*`)

func (p *Parser) concatShort(term string) bool {
	if !shortOpts.MatchString(term) {
		return false
	}
	for _, c := range term[1:] {
		a, ok := p.index["-"+string(c)]
		if !ok {
			return false
		}
		if a.consumes() {
			return true
		}
	}
	return true
}

// Parse parses args. It returns a *HelpError (errors.Is ErrHelp) for
// -h/--help, or an *Error.
func (p *Parser) Parse(args []string) (*Namespace, error) {
	ns := &Namespace{values: map[string]any{}, given: map[string]bool{}}
	if err := p.parse(args, ns); err != nil {
		return nil, err
	}
	return ns, nil
}

// parse parses args into ns; errors name the parser that raised them.
func (p *Parser) parse(args []string, ns *Namespace) error {
	err := p.parseArgs(args, ns)
	var pe *Error
	if errors.As(err, &pe) && pe.parser == nil {
		pe.parser = p
	}
	return err
}

func (p *Parser) parseArgs(args []string, ns *Namespace) error {
	for _, a := range p.args {
		if a.Default != nil {
			ns.values[a.Dest] = normDefault(a.Default)
		}
	}
	used := map[*Arg]bool{}
	groupUsed := make([]*Arg, len(p.groups))
	checkMutex := func(a *Arg) error {
		if a.group == nil || !a.group.Mutex {
			return nil
		}
		u := groupUsed[a.group.index]
		if u == nil {
			groupUsed[a.group.index] = a
		} else if u != a {
			return argError(a, "not allowed with argument %s", u.textualName())
		}
		return nil
	}
	consumedSep, subUsed := false, false
	for i := 0; i < len(args); {
		term := args[i]
		if !consumedSep && term == "--" {
			consumedSep = true
			i++
			continue
		}
		if !consumedSep && !isFlag(term) && p.subs != nil {
			sp, err := p.subs.lookup(term)
			if err != nil {
				return err
			}
			subUsed = true
			if err := sp.parse(args[i+1:], ns); err != nil {
				return err
			}
			ns.values[p.subs.Dest] = sp.command
			break
		}
		if consumedSep || !isFlag(term) {
			return &Error{Message: fmt.Sprintf("unrecognized arguments: '%s'", strings.Join(args[i:], " "))}
		}
		flag, embedded, hasEmbedded := strings.Cut(term, "=")
		a, err := p.resolve(flag)
		if err != nil {
			return err
		}
		i++
		if a == nil {
			hasEmbedded = false
			if !shortOpts.MatchString(term) {
				return &Error{Message: fmt.Sprintf("unrecognized arguments: '%s'", term), Unrecognized: term}
			}
			// possibly concatenated short options
			found := false
			for k := 1; k < len(term); k++ {
				sf := "-" + string(term[k])
				sa, ok := p.index[sf]
				if !ok {
					return &Error{Message: fmt.Sprintf("unrecognized arguments: '%s'", term), Unrecognized: term}
				}
				if sa.consumes() {
					a, flag, found = sa, sf, true
					if len(term) > k+1 {
						embedded, hasEmbedded = term[k+1:], true
					}
					break
				}
				if err := checkMutex(sa); err != nil {
					return err
				}
				if err := p.run(ns, sa, nil); err != nil {
					return err
				}
				used[sa] = true
			}
			if !found {
				continue
			}
		}
		if err := checkMutex(a); err != nil {
			return err
		}
		if !a.consumes() {
			if hasEmbedded {
				return argError(a, "ignore implicit argument '%s'", embedded)
			}
			if err := p.run(ns, a, nil); err != nil {
				return err
			}
			used[a] = true
			continue
		}
		if a.NArgs == "+" {
			var vals []string
			if hasEmbedded {
				vals = append(vals, embedded)
			} else {
				for i < len(args) && !isFlag(args[i]) && !(args[i] == "--" && !consumedSep) {
					vals = append(vals, args[i])
					i++
				}
			}
			if len(vals) < 1 {
				return argError(a, "expected 1 argument(s)")
			}
			for _, v := range vals {
				v := v
				if err := p.run(ns, a, &v); err != nil {
					return err
				}
			}
			ns.values[a.Dest] = vals
			used[a] = true
			continue
		}
		var val string
		if hasEmbedded {
			val = embedded
		} else {
			if i >= len(args) || (isFlag(args[i]) || (args[i] == "--" && !consumedSep)) {
				return argError(a, "expected one argument")
			}
			val = args[i]
			i++
		}
		if err := p.run(ns, a, &val); err != nil {
			return err
		}
		used[a] = true
	}
	return p.checkGiven(subUsed, used, groupUsed)
}

// checkGiven is the end of a parse: the subcommand, then the required
// options (the last one missing is named), then the required groups.
func (p *Parser) checkGiven(subUsed bool, used map[*Arg]bool, groupUsed []*Arg) error {
	if p.subs != nil && !subUsed {
		return &Error{Message: "too few arguments"}
	}
	var missing *Error
	for _, a := range p.args {
		if a.Required && !used[a] {
			missing = &Error{Message: fmt.Sprintf("argument %s is required", a.textualName())}
		}
	}
	if missing != nil {
		return missing
	}
	for i, g := range p.groups {
		if g.Mutex && g.Required && groupUsed[i] == nil {
			var sb strings.Builder
			for _, a := range g.args {
				sb.WriteString(a.textualName() + " ")
			}
			return &Error{Message: fmt.Sprintf("one of the arguments %sis required", sb.String())}
		}
	}
	return nil
}

// lookup finds the subcommand name names: itself, or the one command it
// is a prefix of.
func (s *Subparsers) lookup(name string) (*Parser, error) {
	var cand []*Parser
	for _, c := range s.cmds {
		if c.command == name {
			return c, nil
		}
		if strings.HasPrefix(c.command, name) {
			cand = append(cand, c)
		}
	}
	switch len(cand) {
	case 1:
		return cand[0], nil
	case 0:
		quoted := make([]string, len(s.cmds))
		for i, c := range s.cmds {
			quoted[i] = "'" + c.command + "'"
		}
		return nil, &Error{Message: fmt.Sprintf("invalid choice: '%s' (choose from %s)", name, strings.Join(quoted, ", ")), UnrecognizedCommand: name}
	}
	names := make([]string, len(cand))
	for i, c := range cand {
		names[i] = c.command
	}
	sort.Strings(names)
	return nil, &Error{Message: fmt.Sprintf("ambiguous command: %s could match %s", name, strings.Join(names, ", "))}
}

func (s *Subparsers) shortSyntax() string {
	if s.Metavar != "" {
		return s.Metavar
	}
	names := make([]string, len(s.cmds))
	for i, c := range s.cmds {
		names[i] = c.command
	}
	return "{" + strings.Join(names, ",") + "}"
}

func normDefault(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int32:
		return int64(x)
	}
	return v
}

func (p *Parser) run(ns *Namespace, a *Arg, val *string) error {
	switch a.Type {
	case Help:
		return &HelpError{Parser: p}
	case Version:
		return &VersionError{}
	case StoreTrue:
		ns.values[a.Dest] = true
		ns.given[a.Dest] = true
		return nil
	}
	var v any
	switch a.Type {
	case Append:
		prev, _ := ns.values[a.Dest].([]string)
		ns.values[a.Dest] = append(append([]string(nil), prev...), *val)
		ns.given[a.Dest] = true
		return nil
	case Int, Long:
		bits, tname := 32, "Integer"
		if a.Type == Long {
			bits, tname = 64, "Long"
		}
		n, err := javafmt.ParseInt(*val, bits)
		if err != nil {
			return argError(a, "could not convert '%s' to %s (%s)", *val, tname, err.Error())
		}
		v = n
	case Short:
		n, err := javafmt.ParseInt(*val, 32)
		if err == nil && (n < -32768 || n > 32767) {
			err = &javafmt.NumberFormatError{Msg: `Value out of range. Value:"` + *val + `" Radix:10`}
		}
		if err != nil {
			return argError(a, "could not convert '%s' to Short (%s)", *val, err.Error())
		}
		v = n
	case Double:
		f, err := javafmt.ParseDouble(*val)
		if err != nil {
			return argError(a, "could not convert '%s' to Double (%s)", *val, err.Error())
		}
		v = f
	default:
		v = *val
	}
	if len(a.Choices) > 0 {
		canon := fmt.Sprint(v)
		ok := false
		for _, c := range a.Choices {
			if c == canon {
				ok = true
			}
		}
		if !ok {
			return argError(a, "invalid choice: '%s' (choose from %s)", *val, "{"+strings.Join(a.Choices, ",")+"}")
		}
	}
	ns.values[a.Dest] = v
	ns.given[a.Dest] = true
	return nil
}

// FormatWidth is argparse4j's format width: terminal columns ($COLUMNS, else
// the width of /dev/tty) minus 5; 75 when unknown or too small.
func FormatWidth(getenv func(string) string) int {
	if getenv == nil {
		getenv = os.Getenv
	}
	cols := -1
	if c, ok := lookup(getenv, "COLUMNS"); ok {
		if n, err := javafmt.ParseInt(c, 32); err == nil {
			cols = int(n)
		}
	} else if f, err := os.Open("/dev/tty"); err == nil {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil {
			cols = w
		}
		f.Close()
	}
	w := cols - 5
	if w <= 0 {
		return 75
	}
	return w
}

// lookup distinguishes an unset variable from an empty one when getenv is
// os.Getenv; other getenv functions treat "" as unset.
func lookup(getenv func(string) string, k string) (string, bool) {
	v := getenv(k)
	if v != "" {
		return v, true
	}
	return "", false
}

func (a *Arg) metavar() string {
	if !a.consumes() {
		return ""
	}
	if a.Metavar != "" {
		return a.Metavar
	}
	if len(a.Choices) > 0 {
		return "{" + strings.Join(a.Choices, ",") + "}"
	}
	return strings.ToUpper(a.Dest)
}

func (a *Arg) metavarFormatted() string {
	mv := a.metavar()
	if mv != "" && a.NArgs == "+" {
		return mv + " [" + mv + " ...]"
	}
	return mv
}

func (a *Arg) shortSyntax(brackets bool) string {
	s := a.Flags[0]
	if mv := a.metavarFormatted(); mv != "" {
		s += " " + mv
	}
	if brackets && !a.Required {
		s = "[" + s + "]"
	}
	return s
}

func (g *Group) mutexUsage(opts []string) []string {
	switch n := len(g.args); {
	case n > 1:
		open, close := "[", "]"
		if g.Required {
			open, close = "(", ")"
		}
		opts = append(opts, open+g.args[0].shortSyntax(false))
		for _, a := range g.args[1 : n-1] {
			opts = append(opts, "|", a.shortSyntax(false))
		}
		opts = append(opts, "|", g.args[n-1].shortSyntax(false)+close)
	case n == 1:
		opts = append(opts, g.args[0].shortSyntax(!g.Required))
	}
	return opts
}

// upperUsage adds what a subcommand's usage shows of p, its parent: p's
// own parent's, p's command, and p's required options and groups.
func (p *Parser) upperUsage(opts []string) []string {
	if p.parent != nil {
		opts = p.parent.upperUsage(opts)
		opts = append(opts, p.command)
	}
	for _, a := range p.args {
		if a.Required && !a.Hidden && (a.group == nil || !a.group.Mutex) {
			opts = append(opts, a.shortSyntax(true))
		}
	}
	for _, g := range p.groups {
		if g.Mutex && g.Required {
			opts = g.mutexUsage(opts)
		}
	}
	return opts
}

// FormatUsage returns the "usage: ..." lines.
func (p *Parser) FormatUsage(width int) string {
	var b strings.Builder
	prog := "usage: " + p.Prog
	b.WriteString(prog)
	indent := strings.Repeat(" ", 30)
	var offset int
	var first, subsequent string
	if javaLen(prog) > len(indent) {
		b.WriteString("\n")
		offset = 6
		first, subsequent = indent[:6], indent[:6]
	} else {
		offset = javaLen(prog)
		subsequent = indent[:offset]
	}
	var opts []string
	if p.parent != nil {
		opts = p.parent.upperUsage(opts)
		opts = append(opts, p.command)
	}
	for _, a := range p.args {
		if !a.Hidden && (a.group == nil || !a.group.Mutex) {
			opts = append(opts, a.shortSyntax(true))
		}
	}
	for _, g := range p.groups {
		if g.Mutex {
			opts = g.mutexUsage(opts)
		}
	}
	if p.subs != nil {
		opts = append(opts, p.subs.shortSyntax(), "...")
	}
	cur := offset + len(first)
	b.WriteString(first)
	isFirst := true
	for _, s := range opts {
		if !isFirst && cur+javaLen(s)+1 > width {
			b.WriteString("\n" + subsequent + " " + s)
			cur = len(subsequent) + 1 + javaLen(s)
		} else {
			b.WriteString(" " + s)
			cur += 1 + javaLen(s)
			isFirst = false
		}
	}
	b.WriteString("\n")
	return b.String()
}

// helpTitle is every flag, each with the metavar ("--controller-id
// CONTROLLER_ID, -i CONTROLLER_ID").
func (a *Arg) helpTitle() string {
	mv := a.metavarFormatted()
	titles := make([]string, len(a.Flags))
	for i, f := range a.Flags {
		titles[i] = f
		if mv != "" {
			titles[i] += " " + mv
		}
	}
	return strings.Join(titles, ", ")
}

func (p *Parser) writeArgHelp(b *strings.Builder, a *Arg, width int) {
	help := a.Help
	if p.DefaultHelp && a.Default != nil {
		if help != "" {
			help += " "
		}
		help += fmt.Sprintf("(default: %v)", a.Default)
	}
	writeHelpLine(b, "  "+a.helpTitle(), help, width)
}

// writeHelpLine writes a help entry: its title, then its help wrapped at
// column 25, on the title's line when the title ends by column 23.
func writeHelpLine(b *strings.Builder, title, help string, width int) {
	b.WriteString(title)
	if help == "" {
		b.WriteString("\n")
		return
	}
	ind := 25
	if tw := javaLen(title); tw <= 23 {
		ind -= tw
	} else {
		b.WriteString("\n")
	}
	b.WriteString(strings.Repeat(" ", ind))
	b.WriteString(Wrap(help, width, 25, "", strings.Repeat(" ", 25)))
	b.WriteString("\n")
}

// writeSubparsersHelp lists the subcommands: the metavar (or {a,b,c}),
// then each subcommand with its help.
func (s *Subparsers) writeHelp(b *strings.Builder, width int) {
	writeHelpLine(b, "  "+s.shortSyntax(), s.Help, width)
	for _, c := range s.cmds {
		writeHelpLine(b, "    "+c.command, c.subHelp, width)
	}
}

// FormatHelp returns the full help text, as printHelp writes it.
func (p *Parser) FormatHelp(width int) string {
	var b strings.Builder
	b.WriteString(p.FormatUsage(width))
	if p.Description != "" {
		b.WriteString("\n" + Wrap(p.Description, width, 0, "", "") + "\n")
	}
	var plain []*Arg
	for _, a := range p.args {
		if !a.Hidden && (a.group == nil || !a.group.separateHelp()) {
			plain = append(plain, a)
		}
	}
	untitled := p.subs != nil && p.subs.Title == "" && p.subs.Description == ""
	if untitled {
		b.WriteString("\npositional arguments:\n")
		p.subs.writeHelp(&b, width)
	}
	if len(plain) > 0 {
		b.WriteString("\noptional arguments:\n")
		for _, a := range plain {
			p.writeArgHelp(&b, a, width)
		}
	}
	if p.subs != nil && !untitled {
		b.WriteString("\n")
		title := p.subs.Title
		if title == "" {
			title = p.subs.shortSyntax()
		}
		b.WriteString(title + ":\n")
		if p.subs.Description != "" {
			b.WriteString("  " + Wrap(p.subs.Description, width, 2, "", "  ") + "\n\n")
		}
		p.subs.writeHelp(&b, width)
	}
	for _, g := range p.groups {
		if !g.separateHelp() {
			continue
		}
		b.WriteString("\n")
		if g.Title != "" {
			b.WriteString(g.Title + ":\n")
		}
		if g.Description != "" {
			b.WriteString("  " + Wrap(g.Description, width, 2, "", "  ") + "\n\n")
		}
		for _, a := range g.args {
			if !a.Hidden {
				p.writeArgHelp(&b, a, width)
			}
		}
	}
	return b.String()
}

// FormatError returns what handleError writes on stderr for err: the
// usage, the justified "<prog>: error: <msg>" line and, for a mistyped
// option, the "Did you mean:" candidates.
// An error a subcommand's parser raised is reported with that parser's
// usage (argparse4j's handleError).
func (p *Parser) FormatError(err error, width int) string {
	var pe *Error
	if errors.As(err, &pe) && pe.parser != nil && pe.parser != p {
		return pe.parser.FormatError(err, width)
	}
	var b strings.Builder
	b.WriteString(p.FormatUsage(width))
	b.WriteString(Wrap(fmt.Sprintf("%s: error: %s\n", p.Prog, err.Error()), width, 0, "", ""))
	if pe != nil && pe.Unrecognized != "" {
		body := strings.TrimLeft(pe.Unrecognized, "-")
		if len(body) >= 2 {
			var subjects []subject
			for _, a := range p.args {
				if a.Hidden {
					continue
				}
				for _, f := range a.Flags {
					if fb := strings.TrimLeft(f, "-"); len(fb) > 1 {
						subjects = append(subjects, subject{f, fb})
					}
				}
			}
			b.WriteString(candidates(body, subjects))
		}
	}
	if pe != nil && pe.UnrecognizedCommand != "" && p.subs != nil {
		var subjects []subject
		for _, c := range p.subs.cmds {
			subjects = append(subjects, subject{c.command, c.command})
		}
		b.WriteString(candidates(pe.UnrecognizedCommand, subjects))
	}
	return b.String()
}

// subject is a "Did you mean" candidate: what is printed, and the body
// compared (a flag without its dashes).
type subject struct{ name, body string }

func candidates(body string, subjects []subject) string {
	type cand struct {
		sim  int
		subj string
	}
	var cs []cand
	for _, s := range subjects {
		if strings.HasPrefix(s.body, body) {
			cs = append(cs, cand{0, s.name})
		} else {
			cs = append(cs, cand{editdist.Weighted(body, s.body, 0, 2, 1, 4), s.name})
		}
	}
	if len(cs) == 0 {
		return ""
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].sim != cs[j].sim {
			return cs[i].sim < cs[j].sim
		}
		return cs[i].subj < cs[j].subj
	})
	th := cs[0].sim
	if th >= 7 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nDid you mean:\n")
	for _, c := range cs {
		if c.sim > th {
			break
		}
		b.WriteString("\t" + c.subj + "\n")
	}
	return b.String()
}

// Run follows the Apache tools' main(): no arguments prints the help on
// stdout (exit 0); --help prints it (exit 1); a parse error prints the
// usage and error on stderr (exit 1). done reports that the caller must
// exit with code; otherwise ns holds the parsed values.
func (p *Parser) Run(args []string, stdout, stderr io.Writer, getenv func(string) string) (ns *Namespace, code int, done bool) {
	width := FormatWidth(getenv)
	if len(args) == 0 {
		_, _ = io.WriteString(stdout, p.FormatHelp(width))
		return nil, 0, true
	}
	ns, err := p.Parse(args)
	var he *HelpError
	if errors.As(err, &he) {
		_, _ = io.WriteString(stdout, he.Parser.FormatHelp(width))
		return nil, 1, true
	}
	if err != nil {
		_, _ = io.WriteString(stderr, p.FormatError(err, width))
		return nil, 1, true
	}
	return ns, 0, false
}
