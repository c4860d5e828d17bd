package cmdutil

import (
	"errors"
	"fmt"

	"github.com/kboxdev/kbox/pkg/redact"
)

// Exit codes of native commands. Under an Apache applet name the applet
// mirrors the Apache tool's codes instead.
const (
	ExitOK           = 0
	ExitFailure      = 1
	ExitUsage        = 2
	ExitVerifyFailed = 3
)

// ExitError carries an exit code. A nil Err means the message was already
// printed.
type ExitError struct {
	Code int
	Err  error
	// Help: the drop-in printed its help (HelpExit); under the native
	// name the layer follows it with the native subcommands.
	Help bool
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Exit returns an error that makes the program exit with code after
// printing nothing more.
func Exit(code int) error { return &ExitError{Code: code} }

// HelpExit is Exit after a drop-in printed its help.
func HelpExit(code int) error { return &ExitError{Code: code, Help: true} }

// FlagError is a usage error: the message and a hint to --help are printed,
// exit code 2.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// FlagErrorf builds a FlagError.
func FlagErrorf(format string, a ...any) error {
	return &FlagError{Err: fmt.Errorf(format, a...)}
}

// ExitCode maps an error to the exit code and the message to print ("" for
// none).
func ExitCode(err error) (int, string) {
	if err == nil {
		return ExitOK, ""
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err == nil {
			return ee.Code, ""
		}
		return ee.Code, redact.URLs(ee.Err.Error())
	}
	var fe *FlagError
	if errors.As(err, &fe) {
		return ExitUsage, redact.URLs(fe.Error())
	}
	return ExitFailure, redact.URLs(err.Error())
}

// JavaError is a message that must read exactly as the Java tool prints it
// (an exception's message, without the class name).
type JavaError string

func (e JavaError) Error() string { return string(e) }
