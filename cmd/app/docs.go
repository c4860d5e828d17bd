package app

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// genManApplet and genCompletionsApplet write what a package installs
// besides the binary (make dist). Hidden: they are for packagers.
var (
	genManApplet = cmdutil.Applet{Kind: cmdutil.Command, Alias: "gen-man", NoProfile: true, Hidden: true,
		Short: "Write the man pages (kbox.1, kbox-COMMAND.1, kafka-APPLET.1) to DIR"} // New: set in init
	genCompletionsApplet = cmdutil.Applet{Kind: cmdutil.Command, Alias: "gen-completions", NoProfile: true, Hidden: true,
		Short: "Write bash, zsh and fish completion files for kbox and its applet links to DIR"} // New: set in init
)

func newGenManCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "gen-man DIR",
		Short: genManApplet.Short,
		Long: `Write the man pages to DIR: kbox.1, one kbox-COMMAND.1 per native command
(kbox-topics.1, kbox-perf-produce.1, ...) and one per Apache applet under its
Apache name (kafka-topics.1; packages link kafka-topics.sh.1 to it). The
applets' pages hold the Apache-compatible option table the applet prints.
The date is SOURCE_DATE_EPOCH's when set.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			n, err := GenMan(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "wrote %d man pages in %s\n", n, args[0])
			return nil
		},
	}
}

func newGenCompletionsCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "gen-completions DIR",
		Short: genCompletionsApplet.Short,
		Long: `Write shell completion files to DIR: bash/kbox (which also completes every
applet link name: kafka-topics, kafka-topics.sh, ...), zsh/_kbox (the same
for zsh) and fish/kbox.fish. They are "kbox completion SHELL" with the link
names added; packages install bash/kbox under each link name too, for
bash-completion's on-demand loading.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := GenCompletions(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "wrote bash, zsh and fish completions in %s\n", args[0])
			return nil
		},
	}
}

// docRoot is the command tree as `kbox --help` shows it, with the default
// completion command (cobra adds it at Execute time), built on a Factory
// that prints into buffers.
func docRoot() *cobra.Command {
	ios, _, _, _ := output.Test()
	root := newRoot(cmdutil.NewFactory(ios, func(string) string { return "" }, Version), "")
	root.InitDefaultCompletionCmd()
	walk(root, func(c *cobra.Command) { c.DisableAutoGenTag = true })
	return root
}

// appletHelp is the usage an Apache applet prints (its option table, as the
// Apache tool prints it): the longer of what it prints for --help and for no
// arguments (jopt tools print the description with --help, argparse tools
// print the same either way, kafka-e2e-latency only without arguments).
// invoked is the name it is run under ("kbox topics" adds kbox's
// extensions to some tables).
func appletHelp(a cmdutil.Applet, invoked string) string {
	best := ""
	for _, args := range [][]string{{"--help"}, {}} { // (nil would be os.Args)
		if s := appletOutput(a, invoked, args); len(s) > len(best) {
			best = s
		}
	}
	// A log4j line the tool prints before its usage (the deprecation WARN
	// of kafka-replica-verification) is not usage, and its time would make
	// every generated page differ.
	return log4jLine.ReplaceAllString(best, "")
}

// appletOutput is what applet a, run as invoked with args, prints (stdout
// then stderr), without a cluster.
func appletOutput(a cmdutil.Applet, invoked string, args []string) string {
	ios, _, out, errOut := output.Test()
	f := cmdutil.NewFactory(ios, func(string) string { return "" }, Version)
	f.Invoked = invoked
	cmd := a.Command(f)
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetContext(context.Background())
	_ = cmd.Execute() // usage exits non-zero in most Apache tools
	return out.String() + errOut.String()
}

// log4jLine is one log4j line as the drop-ins print it.
var log4jLine = regexp.MustCompile(`(?m)^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] [A-Z]+ .*\n`)

// manDescription is an applet page's DESCRIPTION: the one line, where else
// it is reachable, and the Apache option table as a literal block.
func manDescription(a cmdutil.Applet, invoked string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s.\n\n", strings.TrimSuffix(a.Short, "."))
	fmt.Fprintf(&b, "A drop-in for Apache Kafka %s's **%s.sh**: it accepts the same options, "+
		"prints the same output and exits with the same codes. It is kbox itself, reached through a "+
		"link named **%s** or **%s.sh**, or as **kbox %s** (see **kbox-%s(1)**).\n\n",
		cmdutil.ApacheVersion, a.Name, a.Name, a.Name, a.Display(), a.Display())
	b.WriteString("kbox adds **--profile NAME** (a connection profile, see **kbox-profile(1)**); " +
		"the profile's bootstrap servers are used when no **--bootstrap-server** is given.\n\n")
	if invoked == a.Name {
		fmt.Fprintf(&b, "The Apache-compatible options, as %s prints them:\n\n", invoked)
	} else {
		fmt.Fprintf(&b, "Its usage, as **%s** prints it (under the name **%s** it prints Apache's; see **%s(1)**):\n\n", invoked, a.Name, a.Name)
	}
	help := strings.ReplaceAll(appletHelp(a, invoked), "\t", "    ")
	for _, l := range strings.Split(strings.TrimRight(help, "\n"), "\n") {
		b.WriteString("    " + strings.TrimRight(l, " ") + "\n")
	}
	return b.String()
}

// hideHelpFlag keeps cobra's -h/--help out of a drop-in's page: the
// applet parses its own --help, listed in its option table.
func hideHelpFlag(c *cobra.Command) {
	c.Flags().Bool("help", false, "")
	_ = c.Flags().MarkHidden("help")
}

// GenMan writes every man page to dir and returns how many it wrote.
func GenMan(dir string) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	header := &doc.GenManHeader{Section: "1", Source: "kbox " + Version, Manual: "kbox manual"}
	root := docRoot()
	for _, a := range Applets() {
		c, _, err := root.Find([]string{a.Display()})
		if err != nil || c == root {
			return 0, fmt.Errorf("gen-man: %s is not in the command tree", a.Display())
		}
		c.Use = a.Display() + " [OPTIONS]"
		c.Long = manDescription(a, "kbox "+a.Display())
		hideHelpFlag(c)
	}
	if err := doc.GenManTree(root, header, dir); err != nil {
		return 0, err
	}
	for _, a := range Applets() {
		// A page of its own under the Apache name, as the link runs it.
		c := &cobra.Command{Use: a.Name + " [OPTIONS]", Short: a.Short, DisableFlagParsing: true,
			DisableAutoGenTag: true, Long: manDescription(a, a.Name), Run: func(*cobra.Command, []string) {}}
		hideHelpFlag(c)
		var b bytes.Buffer
		h := *header
		if err := doc.GenMan(c, &h, &b); err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(dir, a.Name+".1"), b.Bytes(), 0o644); err != nil {
			return 0, err
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".1") {
			n++
		}
	}
	return n, nil
}

// GenCompletions writes bash/kbox, zsh/_kbox and fish/kbox.fish under dir.
// The bash and zsh scripts register the applet link names too: cobra's
// scripts call the word being completed (${words[0]} __complete ...), and a
// link answers __complete as "kbox APPLET" (see Main).
func GenCompletions(dir string) error {
	root := docRoot()
	names := strings.Join(LinkNames(), " ")
	gen := func(shell, file string, write func(*bytes.Buffer) error, edit func(string) (string, error)) error {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			return err
		}
		s, err := edit(b.String())
		if err != nil {
			return fmt.Errorf("gen-completions %s: %v", shell, err)
		}
		p := filepath.Join(dir, shell, file)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(s), 0o644)
	}
	// replace replaces old, which must occur exactly n times.
	replace := func(s, old, new string, n int) (string, error) {
		if c := strings.Count(s, old); c != n {
			return "", fmt.Errorf("cobra's script has %d copies of %q, expected %d", c, old, n)
		}
		return strings.ReplaceAll(s, old, new), nil
	}
	if err := gen("bash", "kbox", func(b *bytes.Buffer) error { return root.GenBashCompletionV2(b, true) },
		func(s string) (string, error) {
			return replace(s, "-F __start_kbox kbox\n", "-F __start_kbox kbox "+names+"\n", 2)
		}); err != nil {
		return err
	}
	if err := gen("zsh", "_kbox", func(b *bytes.Buffer) error { return root.GenZshCompletion(b) }, func(s string) (string, error) {
		s, err := replace(s, "#compdef kbox\n", "#compdef kbox "+names+"\n", 1)
		if err != nil {
			return "", err
		}
		return replace(s, "compdef _kbox kbox\n", "compdef _kbox kbox "+names+"\n", 1)
	}); err != nil {
		return err
	}
	return gen("fish", "kbox.fish", func(b *bytes.Buffer) error { return root.GenFishCompletion(b, true) },
		func(s string) (string, error) { return s, nil })
}
