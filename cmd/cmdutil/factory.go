// Package cmdutil is the command layer every applet and native command
// shares: the Factory (the invocation context: streams, the profile and
// connection resolved once per process, the output decision), the command
// registry's entry type, and the typed errors that map to exit codes.
package cmdutil

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/redact"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Globals are the settings given before the applet or command name
// (`kbox --profile p kafka-topics ...`), by an applet's own --profile
// extension flag, or through the environment.
type Globals struct {
	Profile    string
	ConfigPath string
	Output     string
}

// Factory gives commands their dependencies. Nothing here dials a broker
// until a command asks for a client, so --help and flag errors never do.
// The config file is read once and each profile's secrets are resolved
// once per process, however often a command asks for its connection.
type Factory struct {
	IO      *output.IOStreams
	Getenv  func(string) string
	Globals Globals
	Version string
	// Invoked is the applet name the program was invoked as ("kbox" for
	// native commands).
	Invoked string

	mu       sync.Mutex
	loader   *config.Loader
	warned   map[string]bool
	injected string // the bootstrap list PrepareApache added
	argsConn bool   // under the Apache name, the arguments name the connection
}

// NewFactory returns a Factory bound to the given streams and environment.
func NewFactory(ios *output.IOStreams, getenv func(string) string, version string) *Factory {
	if getenv == nil {
		getenv = os.Getenv
	}
	return &Factory{IO: ios, Getenv: getenv, Version: version, Invoked: "kbox"}
}

// Loader returns the configuration loader of this invocation (one per
// process: the file is read once, a password prompted for at most once).
func (f *Factory) Loader() *config.Loader {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.loader == nil || f.loader.Path != f.Globals.ConfigPath {
		l := &config.Loader{Path: f.Globals.ConfigPath, Getenv: f.Getenv}
		if f.IO.IsStdinTTY() {
			l.ReadSecret = f.IO.ReadSecret
		}
		f.loader = l
	}
	return f.loader
}

// Selection is the profile in effect and the defaults it gives, found
// without resolving secrets. An explicitly selected profile (--profile,
// KBOX_PROFILE) that does not exist is an error naming it.
func (f *Factory) Selection() (*config.Selection, error) {
	return f.Loader().Select(f.Globals.Profile)
}

// Connection resolves the connection for this invocation and prints its
// warnings on stderr (each once per process).
func (f *Factory) Connection(ov config.Overrides) (*config.Connection, error) {
	if ov.Profile == "" {
		ov.Profile = f.Globals.Profile
	}
	if ov.Output == "" {
		ov.Output = f.Globals.Output
	}
	ov.Bootstrap = f.droppedInjected(ov.Bootstrap)
	f.mu.Lock()
	ov.ArgsOnly = ov.ArgsOnly || f.argsConn
	f.mu.Unlock()
	conn, err := f.Loader().Resolve(ov)
	if err != nil {
		return nil, err
	}
	for _, w := range conn.Warnings {
		f.warnOnce(w)
	}
	return conn, nil
}

// Client builds a client for role and reports ignored properties on stderr.
// It does not dial; call Connect on the result to fail fast.
//
// KBOX_CLIENT_LOG=debug|info|warn|error writes the Kafka client's own log
// (franz-go's) to stderr, with timestamps: what an operator needs to see why
// a client waited or retried.
func (f *Factory) Client(conn *config.Connection, role kafka.Role, o kafka.Options) (*kafka.Client, error) {
	if lv := f.Getenv("KBOX_CLIENT_LOG"); lv != "" {
		level, ok := map[string]kgo.LogLevel{"debug": kgo.LogLevelDebug, "info": kgo.LogLevelInfo, "warn": kgo.LogLevelWarn, "error": kgo.LogLevelError}[strings.ToLower(lv)]
		if !ok {
			return nil, fmt.Errorf("KBOX_CLIENT_LOG=%s: want debug, info, warn or error", lv)
		}
		o.Extra = append(append([]kgo.Opt(nil), o.Extra...), kgo.WithLogger(kgo.BasicLogger(redactWriter{f.IO.ErrOut}, level, func() string {
			return time.Now().Format("2006-01-02 15:04:05.000 ")
		})))
	}
	cl, err := kafka.NewClient(conn, role, o)
	if err != nil {
		return nil, err
	}
	for _, ig := range cl.Settings.Ignored {
		f.warnOnce(ig.String())
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

// Connect is the one way a command gets a connected client: the
// connection the overrides name (Connection, its warnings printed once),
// then ConnectedClient in role. The caller closes the client.
func (f *Factory) Connect(ctx context.Context, ov config.Overrides, role kafka.Role, o kafka.Options) (*kafka.Client, error) {
	conn, err := f.Connection(ov)
	if err != nil {
		return nil, err
	}
	return f.ConnectedClient(ctx, conn, role, o)
}

// Warn prints "kbox: warning: ..." on stderr.
func (f *Factory) Warn(format string, a ...any) {
	fmt.Fprintf(f.IO.ErrOut, "kbox: warning: %s\n", oneLine(fmt.Sprintf(format, a...)))
}

// warnOnce prints a warning unless this invocation printed it already (a
// command building several clients from one connection warns once).
func (f *Factory) warnOnce(msg string) {
	f.mu.Lock()
	seen := f.warned[msg]
	if f.warned == nil {
		f.warned = map[string]bool{}
	}
	f.warned[msg] = true
	f.mu.Unlock()
	if !seen {
		f.Warn("%s", msg)
	}
}

// oneLine is a message as kbox prints it: on one line, and without the
// credentials a URL in it may carry (redact.URLs).
func oneLine(s string) string {
	return redact.URLs(strings.Join(strings.Fields(s), " "))
}

// redactWriter writes the client's log without the credentials a URL in
// it may carry (franz-go's BasicLogger writes one line per call).
type redactWriter struct{ w io.Writer }

func (r redactWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, redact.URLs(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
