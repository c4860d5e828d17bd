// Package cmdutil holds what every command shares: the Factory that hands
// out streams, configuration and clients lazily, the applet type, and the
// typed errors that map to exit codes.
package cmdutil

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
)

// Globals are the settings given before the applet or command name
// (`kbox --profile p kafka-topics ...`) or through the environment.
type Globals struct {
	Profile    string
	ConfigPath string
	Output     string
}

// Factory gives commands their dependencies. Nothing here dials a broker
// until a command asks for a client, so --help and flag errors never do.
type Factory struct {
	IO      *output.IOStreams
	Getenv  func(string) string
	Globals Globals
	Version string
	// Invoked is the applet name the program was invoked as ("kbox" for
	// native commands).
	Invoked string
}

// NewFactory returns a Factory bound to the given streams and environment.
func NewFactory(ios *output.IOStreams, getenv func(string) string, version string) *Factory {
	if getenv == nil {
		getenv = os.Getenv
	}
	return &Factory{IO: ios, Getenv: getenv, Version: version, Invoked: "kbox"}
}

// Loader returns the configuration loader.
func (f *Factory) Loader() *config.Loader {
	l := &config.Loader{Path: f.Globals.ConfigPath, Getenv: f.Getenv}
	if f.IO.IsStdinTTY() {
		l.ReadSecret = f.IO.ReadSecret
	}
	return l
}

// Connection resolves the connection for this invocation and prints its
// warnings on stderr.
func (f *Factory) Connection(ov config.Overrides) (*config.Connection, error) {
	if ov.Profile == "" {
		ov.Profile = f.Globals.Profile
	}
	if ov.Output == "" {
		ov.Output = f.Globals.Output
	}
	conn, err := f.Loader().Resolve(ov)
	if err != nil {
		return nil, err
	}
	for _, w := range conn.Warnings {
		f.Warn("%s", w)
	}
	return conn, nil
}

// Client builds a client for role and reports ignored properties on stderr.
// It does not dial; call Connect on the result to fail fast.
func (f *Factory) Client(conn *config.Connection, role kafka.Role, o kafka.Options) (*kafka.Client, error) {
	cl, err := kafka.NewClient(conn, role, o)
	if err != nil {
		return nil, err
	}
	for _, ig := range cl.Settings.Ignored {
		f.Warn("%s", ig.String())
	}
	return cl, nil
}

// ConnectedClient is Client followed by Connect, closing the client on failure.
func (f *Factory) ConnectedClient(ctx context.Context, conn *config.Connection, role kafka.Role, o kafka.Options) (*kafka.Client, error) {
	cl, err := f.Client(conn, role, o)
	if err != nil {
		return nil, err
	}
	if err := cl.Connect(ctx); err != nil {
		cl.Close()
		return nil, err
	}
	return cl, nil
}

// Warn prints "kbox: warning: ..." on stderr.
func (f *Factory) Warn(format string, a ...any) {
	fmt.Fprintf(f.IO.ErrOut, "kbox: warning: %s\n", oneLine(fmt.Sprintf(format, a...)))
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
