package cmdutil

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Kind says how a registry entry is reached.
type Kind int

const (
	// Apache is a drop-in for an Apache script: reachable through a link
	// named Name (with or without .sh), as `kbox Name` and as `kbox Alias`.
	// It parses the Apache tool's flags itself.
	Apache Kind = iota
	// Group is a native command group (`kbox perf ...`): `kbox Alias` only.
	Group
	// Command is a native command with no subcommands (`kbox version`).
	Command
)

// Applet is one entry of the command registry (cmd/app/applets.go): every
// Apache drop-in, native group and native command is one. The registry
// drives argv[0] dispatch, `kbox --help`, `kbox install-links` and the tests.
type Applet struct {
	Kind  Kind
	Name  string // the Apache script name, e.g. "kafka-topics"; "" for native entries
	Alias string // the native name, e.g. "topics": `kbox topics`
	Short string // one line for the applet list and --help
	// New builds a native entry's command.
	New func(f *Factory) *cobra.Command
	// Run is an Apache drop-in: it parses the Apache tool's arguments
	// itself (the layer builds its command with flag parsing off).
	Run func(ctx context.Context, f *Factory, args []string) error
	// Native, for a drop-in, builds the native subcommands of its native
	// name: `kbox ALIAS SUB ...`, where SUB names one of the tree's
	// subcommands (or is "help"), runs SUB like any native command (the
	// profile check, the -o decision, flag errors as exit 2). Anything
	// else, and every argument under the link name, is the Apache tool's.
	Native func(f *Factory) *cobra.Command
	// ConnOptions, for a drop-in, are the long options (without "--") by
	// which the Apache tool's arguments say where to connect: the
	// servers, not a properties file that may hold them (except where the
	// tool itself takes a file or property instead of --bootstrap-server,
	// as kafka-producer-perf-test does). When the arguments give one, the
	// layer adds no bootstrap list; under the Apache name, the config
	// file's current profile and KBOX_BOOTSTRAP_SERVERS then do not apply
	// either (an explicit --profile or KBOX_PROFILE still does). When the
	// arguments give none, the layer adds `--bootstrap-server LIST` from
	// the profile or KBOX_BOOTSTRAP_SERVERS (PrepareApache).
	ConnOptions []string
	// Offline, for a drop-in, says that the tool reads local files and
	// never connects (kafka-dump-log): it has no ConnOptions and the layer
	// adds no bootstrap list to its arguments.
	Offline bool
	// ConnShort, for a drop-in, are the short forms of ConnOptions
	// (kafka-cluster's "-b", "-C"): given, they name the connection too.
	ConnShort []string
	// ConnAfterCommand, for a drop-in with ApacheCommands, says its
	// connection options belong to the subcommands (kafka-cluster
	// cluster-id --bootstrap-server ...): the layer adds the profile's
	// --bootstrap-server after the subcommand's name, not before it.
	ConnAfterCommand bool
	// AbbrevOptions: the tool's parser takes a unique prefix of a long
	// option (argparse4j); Apache's jopt-simple tools take full names only.
	AbbrevOptions bool
	// Controllers: the drop-in works over the KRaft controllers
	// (--bootstrap-controller), so a profile that has
	// bootstrap-controllers and no bootstrap-servers gives it
	// `--bootstrap-controller LIST` (PrepareApache).
	Controllers bool
	// ApacheCommands, for a drop-in whose Apache tool has subcommands
	// (argparse4j subparsers: kafka-transactions list|describe|...), are
	// their names. Under `kbox ALIAS` a first argument that names a native
	// subcommand goes to Native and anything else to Run, so no native
	// subcommand may be named like one of them or like a prefix of one
	// (argparse4j takes a unique prefix): CheckNames. An invocation whose
	// first argument names one gets the profile's bootstrap list as a
	// named invocation does (PrepareApache).
	ApacheCommands []string
	// Complete, for a drop-in, completes its arguments in shells.
	Complete func(ctx context.Context, f *Factory, args []string, toComplete string) ([]string, cobra.ShellCompDirective)
	// NoProfile marks native entries that must work whatever profile is
	// selected (profile management, version, install-links): the layer does
	// not check the selected profile before running them.
	NoProfile bool
	// Hidden marks native entries for packagers and tests (gen-man,
	// gen-completions): not listed in help or the applet list.
	Hidden bool
}

// Command builds the entry's cobra command.
func (a Applet) Command(f *Factory) *cobra.Command {
	if a.Run == nil {
		return a.New(f)
	}
	cmd := &cobra.Command{
		Use:                a.Display(),
		Short:              a.Short,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.Run(Context(cmd), f, args)
		},
	}
	if a.Complete != nil {
		cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return a.Complete(Context(cmd), f, args, toComplete)
		}
	}
	return cmd
}

// Context is the command's context, or context.Background() for a command
// run without one (a RunE called directly by a test).
func Context(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// NativeSub reports whether name is one of the subcommands of the
// entry's native tree (Native), or "help" when it has one.
func (a Applet) NativeSub(f *Factory, name string) bool {
	if a.Native == nil || name == "" {
		return false
	}
	if name == "help" {
		return true
	}
	for _, c := range a.Native(f).Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return true
		}
	}
	return false
}

// CheckNames reports a native subcommand (or alias) of the entry that
// would take an invocation of one of its Apache subcommands from Run: one
// named like an Apache subcommand or like a prefix of one.
func (a Applet) CheckNames(f *Factory) error {
	if a.Native == nil || len(a.ApacheCommands) == 0 {
		return nil
	}
	for _, c := range a.Native(f).Commands() {
		for _, n := range append([]string{c.Name()}, c.Aliases...) {
			for _, ac := range a.ApacheCommands {
				if strings.HasPrefix(ac, n) {
					return fmt.Errorf("%s: native subcommand %q would shadow the Apache subcommand %q under kbox %s", a.Name, n, ac, a.Alias)
				}
			}
		}
	}
	return nil
}

// namesApacheCommand reports whether args start with one of the Apache
// tool's subcommands (or a prefix of one, as argparse4j takes them).
func (a Applet) namesApacheCommand(args []string) bool {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") || args[0] == "" {
		return false
	}
	for _, c := range a.ApacheCommands {
		if strings.HasPrefix(c, args[0]) {
			return true
		}
	}
	return false
}

// WriteNativeHelp writes the list of the entry's native subcommands that
// follows a drop-in's Apache help under its native name (`kbox groups
// --help`): one line each, its name and Short. Nothing for an entry
// without a native tree.
func (a Applet) WriteNativeHelp(f *Factory, w io.Writer) {
	if a.Native == nil {
		return
	}
	var subs []*cobra.Command
	width := 0
	for _, c := range a.Native(f).Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		subs = append(subs, c)
		width = max(width, len(c.Name()))
	}
	fmt.Fprintf(w, "\nNative subcommands (details: kbox %s SUBCOMMAND --help):\n", a.Alias)
	for _, c := range subs {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name(), c.Short)
	}
}

// Display is the name an entry is listed under: the native name.
func (a Applet) Display() string {
	if a.Alias != "" {
		return a.Alias
	}
	return a.Name
}

// ApacheVersion is the Apache Kafka version whose tools the drop-ins
// follow (their --version output, texts and exit codes).
const ApacheVersion = "4.4.0"

// ExecuteNative runs a native command tree on its own, as the layer's root
// runs it (flag errors are FlagErrors, exit 2; errors and usage are not
// printed by cobra): for the unit tests of a drop-in's native tree.
func ExecuteNative(ctx context.Context, f *Factory, cmd *cobra.Command, args []string) error {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &FlagError{Err: err} })
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(cmd)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetArgs(args)
	cmd.SetIn(f.IO.In)
	cmd.SetOut(f.IO.Out)
	cmd.SetErr(f.IO.ErrOut)
	return cmd.ExecuteContext(ctx)
}
