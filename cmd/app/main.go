// Package app is kbox's entry point: multi-call dispatch, the native command
// tree, and the mapping of errors to exit codes.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/playground"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
)

// Main runs kbox with the given argv and returns the exit code.
//
// The path of one invocation: argv[0] (a link name) or the first argument
// picks a registry entry (applets.go); global flags before it fill the
// Factory's Globals; an Apache drop-in gets its --profile extension taken
// out of its arguments and the profile's bootstrap servers put in when it
// has none (prepareApache); the entry's command runs with the Factory,
// which resolves the profile and connection once and decides -o before any
// work; finish maps the returned error to a message and an exit code.
func Main(args []string, ios *output.IOStreams, getenv func(string) string) int {
	f := cmdutil.NewFactory(ios, getenv, Version)
	// The one signal watch: its context is every command's.
	ctx, stop := cmdutil.WithInterrupts(context.Background())
	defer stop()
	f.Globals.Profile = f.Getenv("KBOX_PROFILE")
	if len(args) == 0 {
		args = []string{"kbox"}
	}
	base := filepath.Base(args[0])
	if a, ok := lookupApplet(trimName(base)); ok && trimName(base) == a.Name {
		if len(args) > 1 && (args[1] == cobra.ShellCompRequestCmd || args[1] == cobra.ShellCompNoDescRequestCmd) {
			// A shell completing a link name (kafka-topics <TAB>) asks the
			// link; it completes as "kbox ALIAS".
			args = append([]string{"kbox", args[1], a.Display()}, args[2:]...)
			base = "kbox"
		} else {
			f.Invoked = a.Name
			return runApplet(ctx, f, a, args[1:])
		}
	}
	if strings.HasPrefix(trimName(base), "kafka-") {
		fmt.Fprintf(ios.ErrOut, "kbox: unknown applet %q\n", trimName(base))
		printAppletList(ios.ErrOut)
		return cmdutil.ExitFailure
	}

	rest, err := parseGlobals(args[1:], &f.Globals)
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "kbox: error: %v\n", err)
		return cmdutil.ExitUsage
	}
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		if a, ok := lookupApplet(rest[0]); ok {
			f.Invoked = a.Name
			if rest[0] == a.Alias {
				f.Invoked = "kbox " + a.Alias
				// `kbox groups [--profile P] lag ...`: the drop-in's native
				// tree; the layer's global flags may stand before SUB.
				g := f.Globals
				if sub, err := parseGlobals(rest[1:], &g); err == nil && len(sub) > 0 && a.NativeSub(f, sub[0]) {
					f.Globals = g
					args := append([]string{a.Alias}, sub...)
					if sub[0] == "help" {
						args = append([]string{"help", a.Alias}, sub[1:]...)
					}
					root := newRoot(f, a.Alias)
					root.SetArgs(args)
					return finish(f, root.ExecuteContext(ctx))
				}
			}
			return runApplet(ctx, f, a, rest[1:])
		}
	}
	root := newRoot(f, "")
	// cobra's completion commands (completion, __complete) are added at
	// Execute time, so Find does not know them yet.
	isCompletion := len(rest) > 0 && (rest[0] == cobra.ShellCompRequestCmd || rest[0] == cobra.ShellCompNoDescRequestCmd || rest[0] == "completion")
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") && !isCompletion {
		if c, _, err := root.Find(rest); err != nil || c == root {
			fmt.Fprintf(ios.ErrOut, "kbox: unknown applet or command %q\n", rest[0])
			printAppletList(ios.ErrOut)
			return cmdutil.ExitFailure
		}
	}
	root.SetArgs(rest)
	return finish(f, root.ExecuteContext(ctx))
}

// runApplet runs an Apache drop-in: the command layer takes kbox's
// --profile extension out of the arguments, checks the selected profile
// (an unknown one is one error naming it, before any work) and gives the
// applet the profile's bootstrap servers when its arguments name none.
// After the help of a drop-in with a native tree, under its native name,
// it lists the native subcommands.
func runApplet(ctx context.Context, f *cmdutil.Factory, a cmdutil.Applet, args []string) int {
	args, err := f.PrepareApache(a, args)
	if err != nil {
		return finish(f, err)
	}
	cmd := a.Command(f)
	cmd.SetArgs(args)
	cmd.SetIn(f.IO.In)
	cmd.SetOut(f.IO.Out)
	cmd.SetErr(f.IO.ErrOut)
	cmd.SilenceErrors = true
	cmd.SilenceUsage = true
	err = cmd.ExecuteContext(ctx)
	var ee *cmdutil.ExitError
	if errors.As(err, &ee) && ee.Help && f.Invoked == "kbox "+a.Alias {
		// `kbox groups --help`: Apache's help, then the native subcommands.
		a.WriteNativeHelp(f, f.IO.ErrOut)
	}
	return finish(f, err)
}

func finish(f *cmdutil.Factory, err error) int {
	code, msg := cmdutil.ExitCode(err)
	if msg != "" {
		f.IO.Progress().Clear()
		fmt.Fprintf(f.IO.ErrOut, "kbox: error: %s\n", msg)
		if code == cmdutil.ExitUsage {
			fmt.Fprintln(f.IO.ErrOut, "kbox: hint: run with --help for usage")
		}
	}
	return code
}

// parseGlobals consumes the global flags that precede a command or applet
// name: --profile, --config, -o/--output.
func parseGlobals(args []string, g *cmdutil.Globals) ([]string, error) {
	for len(args) > 0 {
		a := args[0]
		name, val, hasVal := strings.Cut(a, "=")
		var dst *string
		switch name {
		case "--profile":
			dst = &g.Profile
		case "--config":
			dst = &g.ConfigPath
		case "-o", "--output":
			dst = &g.Output
		default:
			return args, nil
		}
		if !hasVal {
			if len(args) < 2 {
				return nil, fmt.Errorf("flag %s needs a value", name)
			}
			val = args[1]
			args = args[1:]
		}
		*dst = val
		args = args[1:]
	}
	return args, nil
}

func printAppletList(w io.Writer) {
	fmt.Fprintln(w, "Applets (run as a link of that name, or as kbox APPLET):")
	for _, a := range Applets() {
		fmt.Fprintf(w, "  %-28s %s (kbox %s)\n", a.Name, a.Short, a.Display())
	}
	fmt.Fprintln(w, "Native commands (kbox COMMAND):")
	for _, a := range natives() {
		if a.Hidden {
			continue
		}
		fmt.Fprintf(w, "  %-28s %s\n", a.Alias, a.Short)
	}
}

// The cobra groups of `kbox --help`.
const (
	groupApplets = "applets"
	groupNative  = "native"
)

// annotationNoProfile marks commands that run whatever profile is selected.
const annotationNoProfile = "kbox/no-profile"

// newRoot builds the cobra tree of every registry entry; the drop-in whose
// alias is native stands there as its native tree (Applet.Native).
func newRoot(f *cmdutil.Factory, native string) *cobra.Command {
	root := &cobra.Command{
		Use:   "kbox",
		Short: "Kafka admin, diagnostic, verification and load-test tools in one binary",
		Long: `kbox replaces Apache Kafka's admin and diagnostic scripts with one static binary.

Invoked through a link named like an Apache script (kafka-topics, kafka-topics.sh,
kafka-log-dirs, ...) it accepts that script's flags and prints its output exactly.
Invoked as "kbox APPLET ..." it is the same program.`,
		Version:       Version,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
		// The selected profile is checked once, before any command's work:
		// an unknown --profile or KBOX_PROFILE is one error naming it.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			for c := cmd; c != nil; c = c.Parent() {
				if c.Annotations[annotationNoProfile] != "" {
					return nil
				}
			}
			if cmd == cmd.Root() || strings.HasPrefix(cmd.Name(), "__") || cmd.Name() == "help" {
				return nil
			}
			_, err := f.Selection()
			return err
		},
	}
	root.SetVersionTemplate(fmt.Sprintf("kbox %s (commit %s)\n", Version, Commit))
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	pf := root.PersistentFlags()
	pf.StringVar(&f.Globals.Profile, "profile", f.Globals.Profile, "connection profile to use (default: $KBOX_PROFILE, then current-profile)")
	pf.StringVar(&f.Globals.ConfigPath, "config", f.Globals.ConfigPath, "config file (default: $KBOX_CONFIG, $XDG_CONFIG_HOME/kbox/config.yaml or ~/.config/kbox/config.yaml)")
	pf.StringVarP(&f.Globals.Output, "output", "o", f.Globals.Output, "output format (each command lists its own)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &cmdutil.FlagError{Err: err} })

	root.AddGroup(&cobra.Group{ID: groupApplets, Title: "Apache-compatible applets (also run as links named kafka-NAME, with or without .sh):"})
	root.AddGroup(&cobra.Group{ID: groupNative, Title: "Native commands:"})
	for _, a := range applets {
		cmd := a.Command(f)
		if a.Native != nil && a.Alias == native {
			cmd = a.Native(f)
		}
		cmd.Use = a.Display()
		cmd.Short = a.Short
		cmd.Hidden = cmd.Hidden || a.Hidden
		if a.Kind == cmdutil.Apache {
			cmd.Aliases = append(cmd.Aliases, a.Name)
			cmd.GroupID = groupApplets
		} else {
			cmd.GroupID = groupNative
		}
		if a.NoProfile {
			if cmd.Annotations == nil {
				cmd.Annotations = map[string]string{}
			}
			cmd.Annotations[annotationNoProfile] = "true"
		}
		root.AddCommand(cmd)
	}
	walk(root, func(c *cobra.Command) {
		c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &cmdutil.FlagError{Err: err} })
		if c.HasSubCommands() && c.Args == nil {
			c.Args = cobra.NoArgs
		}
	})
	return root
}

func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, s := range c.Commands() {
		walk(s, fn)
	}
}

// playgroundApplet is completed in init: its command runs Main itself.
// (install-links, which reads the registry, is completed there too.)
var playgroundApplet = cmdutil.Applet{Kind: cmdutil.Group, Alias: "playground", NoProfile: true,
	Short: "Run an in-memory Kafka-compatible playground cluster (or --tour of kbox)"}

func init() {
	for i := range applets {
		switch applets[i].Alias {
		case "playground":
			applets[i].New = func(f *cmdutil.Factory) *cobra.Command {
				return playground.NewCmd(f, playground.Host{Main: Main, Applets: LinkNames})
			}
		case "install-links":
			applets[i].New = newInstallLinksCmd
		case "version":
			applets[i].New = newVersionCmd
		case "gen-man":
			applets[i].New = newGenManCmd
		case "gen-completions":
			applets[i].New = newGenCompletionsCmd
		}
	}
}
