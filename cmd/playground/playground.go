// Package playground is the `kbox playground` command: an in-process,
// Kafka-compatible cluster on loopback to try kbox against, and the guided
// tour that runs every landed applet against it.
package playground

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/output"
	pg "github.com/kboxdev/kbox/pkg/playground"
	"github.com/spf13/cobra"
)

// ProfileName is the profile `kbox playground` writes.
const ProfileName = "playground"

// Host is what the command needs from the program that embeds it: the
// program's entry point (the tour runs applets through it, as a user would)
// and the registered applet names.
type Host struct {
	Main    func(args []string, ios *output.IOStreams, getenv func(string) string) int
	Applets func() []string
}

type options struct {
	brokers int
	port    int
	dataDir string
	sasl    bool
	tls     bool
	topics  []string
	tour    bool
}

// NewCmd returns the `kbox playground` command.
func NewCmd(f *cmdutil.Factory, h Host) *cobra.Command {
	o := options{brokers: 3}
	cmd := &cobra.Command{
		Use:   "playground",
		Short: "Run an in-memory Kafka-compatible playground cluster (or --tour of kbox)",
		Long: `Start an in-process, Kafka-compatible cluster (franz-go's kfake) on 127.0.0.1
to try kbox commands against. It writes a "playground" profile, so from another
terminal "kbox --profile playground kafka-topics --list" works, and serves until
Ctrl-C or SIGTERM.

It is a playground, not a Kafka cluster: data is not replicated and lives in
memory unless --data-dir is given.

With --tour it starts a playground, runs every kbox applet against it as a user
would (printing each command line before its output), checks what each step
shows, and exits.`,
		Example: `  # three brokers on free ports, profile "playground"
  kbox playground
  # fixed ports 19092-19094, data kept between runs, two topics
  kbox playground --port 19092 --data-dir ~/.kbox-playground --topic orders:6 --topic audit
  # SASL/SCRAM over TLS (user and CA printed on start)
  kbox playground --brokers 1 --sasl --tls --data-dir /tmp/pg
  # the guided tour (also: make demo)
  kbox playground --tour`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmdutil.Context(cmd)
			defer cmdutil.CancelOnInterrupt(ctx)()
			if o.tour {
				return runTour(ctx, f, h, o)
			}
			return serve(ctx, f, o)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&o.brokers, "brokers", o.brokers, fmt.Sprintf("number of brokers (1 to %d)", pg.MaxBrokers))
	fl.IntVar(&o.port, "port", 0, "first broker port: brokers listen on P, P+1, ... (default: free ports)")
	fl.StringVar(&o.dataDir, "data-dir", "", "keep topics and data in this directory between runs (default: memory only)")
	fl.BoolVar(&o.sasl, "sasl", false, "require SASL/SCRAM-SHA-512 (user "+pg.SASLUser+", password printed once)")
	fl.BoolVar(&o.tls, "tls", false, "serve TLS with a self-signed CA written to the data directory")
	fl.StringArrayVar(&o.topics, "topic", nil, "create topic NAME[:PARTITIONS] at start (repeatable)")
	fl.BoolVar(&o.tour, "tour", false, "run the guided tour of kbox against a fresh playground, then exit")
	return cmd
}

func (o options) playgroundOptions() (pg.Options, error) {
	po := pg.Options{Brokers: o.brokers, Port: o.port, DataDir: o.dataDir, SASL: o.sasl, TLS: o.tls}
	for _, s := range o.topics {
		t, err := pg.ParseTopic(s)
		if err != nil {
			return pg.Options{}, fmt.Errorf("--topic: %v", err)
		}
		po.Topics = append(po.Topics, t)
	}
	if err := po.Validate(); err != nil {
		return pg.Options{}, err
	}
	return po, nil
}

// serve starts a playground, announces it, writes the profile and serves
// until ctx is done.
func serve(ctx context.Context, f *cmdutil.Factory, o options) error {
	po, err := o.playgroundOptions()
	if err != nil {
		return err
	}
	p, err := pg.Start(po)
	if err != nil {
		return err
	}
	defer p.Close()

	path := f.Loader().ConfigPath()
	becameCurrent, err := writeProfile(path, profileFor(p))
	if err != nil {
		return fmt.Errorf("playground started but its profile could not be written: %v", err)
	}
	writeBanner(f.IO.Out, p, po)
	cur := ""
	if becameCurrent {
		cur = " (now the current profile)"
	}
	fmt.Fprintf(f.IO.Out, "Profile:    %q in %s%s\n", ProfileName, path, cur)
	fmt.Fprintf(f.IO.Out, "\nTry, from another terminal:\n")
	fmt.Fprintf(f.IO.Out, "  kbox --profile %s cluster describe\n", ProfileName)
	fmt.Fprintf(f.IO.Out, "  kbox --profile %s kafka-topics --list\n", ProfileName)
	fmt.Fprintf(f.IO.Out, "\nServing until Ctrl-C or SIGTERM.\n")

	<-ctx.Done()
	p.Close()
	fmt.Fprintln(f.IO.ErrOut, "kbox: playground stopped")
	return nil
}

func writeBanner(w io.Writer, p *pg.Playground, po pg.Options) {
	fmt.Fprintln(w, "kbox playground: an in-process, Kafka-compatible cluster (franz-go kfake) for trying kbox.")
	fmt.Fprintln(w, "This is NOT a real Kafka cluster: it does not replicate data between brokers,")
	if p.Persistent() {
		fmt.Fprintln(w, "and every broker serves every partition from one process. It cannot show:")
	} else {
		fmt.Fprintln(w, "and keeps all data in memory, lost on exit. It cannot show:")
	}
	for _, l := range pg.Limitations {
		fmt.Fprintf(w, "  - %s\n", l)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Bootstrap:  %s\n", p.Bootstrap())
	fmt.Fprintf(w, "Brokers:    %d (cluster id %s)\n", p.Brokers(), p.ClusterID())
	if p.Persistent() {
		fmt.Fprintf(w, "Data:       kept in %s\n", po.DataDir)
	} else {
		fmt.Fprintln(w, "Data:       in memory only")
	}
	switch {
	case p.SASL() && p.PasswordCreated:
		fmt.Fprintf(w, "SASL:       %s user %s, password %s (shown once; also in %s)\n", pg.SASLMechanism, pg.SASLUser, p.Password, p.PasswordFile)
	case p.SASL():
		fmt.Fprintf(w, "SASL:       %s user %s, password in %s\n", pg.SASLMechanism, pg.SASLUser, p.PasswordFile)
	}
	if p.TLS() {
		fmt.Fprintf(w, "TLS:        CA certificate %s\n", p.CAFile)
	}
	if len(po.Topics) > 0 {
		var names []string
		for _, t := range po.Topics {
			names = append(names, fmt.Sprintf("%s (%d partitions)", t.Name, t.Partitions))
		}
		fmt.Fprintf(w, "Topics:     %s\n", strings.Join(names, ", "))
	}
}

// profileFor builds the profile that reaches p.
func profileFor(p *pg.Playground) *config.Profile {
	prof := &config.Profile{BootstrapServers: p.Addrs()}
	if p.TLS() {
		prof.TLS = &config.TLS{Enabled: true, CAFile: p.CAFile}
	}
	if p.SASL() {
		prof.SASL = &config.SASL{Mechanism: pg.SASLMechanism, Username: pg.SASLUser, PasswordFile: p.PasswordFile}
	}
	return prof
}

// writeProfile writes or replaces the playground profile, making it current
// only when no profile is current. It reports whether it became current.
func writeProfile(path string, prof *config.Profile) (bool, error) {
	file, _, err := config.ReadFile(path)
	if err != nil {
		return false, err
	}
	file.Profiles[ProfileName] = prof
	becameCurrent := false
	if file.CurrentProfile == "" {
		file.CurrentProfile = ProfileName
		becameCurrent = true
	}
	return becameCurrent, config.WriteFile(path, file)
}
