// Package output holds the I/O streams every command writes through and the
// printers for kbox's native formats (table, wide, json, yaml). It is the only
// package that imports go-pretty.
package output

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the streams a command reads and writes. Commands never touch
// os.Stdout or os.Stderr directly, so tests can capture everything.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// outTTY, errTTY and inTTY are decided once at construction.
	outTTY bool
	errTTY bool
	inTTY  bool
	inFd   int

	progress *Progress
	secret   func(prompt string) (string, error) // tests: a terminal that answers prompts
}

// System returns streams bound to the process's stdin, stdout and stderr.
func System() *IOStreams {
	return &IOStreams{
		In:     os.Stdin,
		Out:    os.Stdout,
		ErrOut: os.Stderr,
		outTTY: term.IsTerminal(int(os.Stdout.Fd())),
		errTTY: term.IsTerminal(int(os.Stderr.Fd())),
		inTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		inFd:   int(os.Stdin.Fd()),
	}
}

// Test returns streams backed by buffers, for tests.
func Test() (ios *IOStreams, in *bytes.Buffer, out *bytes.Buffer, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, inFd: -1}, in, out, errOut
}

// IsStdoutTTY reports whether stdout is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.outTTY }

// SetSecretReader makes stdin a terminal that answers password prompts
// with read (tests).
func (s *IOStreams) SetSecretReader(read func(prompt string) (string, error)) {
	s.secret = read
	s.inTTY = true
}

// IsStderrTTY reports whether stderr is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.errTTY }

// SetStderrTTY overrides terminal detection (tests).
func (s *IOStreams) SetStderrTTY(v bool) { s.errTTY = v }

// IsStdinTTY reports whether stdin is a terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.inTTY }

// SetStdoutTTY overrides terminal detection (tests).
func (s *IOStreams) SetStdoutTTY(v bool) { s.outTTY = v }

// ReadSecret reads one line from the terminal without echo. It fails when
// stdin is not a terminal.
func (s *IOStreams) ReadSecret(prompt string) (string, error) {
	if s.secret != nil {
		return s.secret(prompt)
	}
	if !s.inTTY {
		return "", errNotTTY
	}
	_, _ = io.WriteString(s.ErrOut, prompt)
	b, err := term.ReadPassword(s.inFd)
	_, _ = io.WriteString(s.ErrOut, "\n")
	if err != nil {
		return "", err
	}
	return string(b), nil
}

type notTTYError struct{}

func (notTTYError) Error() string { return "stdin is not a terminal" }

var errNotTTY = notTTYError{}
