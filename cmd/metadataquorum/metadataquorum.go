// Package metadataquorum is the kafka-metadata-quorum drop-in (kbox
// quorum): Apache 4.4's MetadataQuorumCommand, its argparse4j options and
// subcommands (describe --status|--replication [--human-readable],
// add-controller [--dry-run], remove-controller -i ID -d DIR [--dry-run]),
// messages, streams and exit codes, over the brokers (--bootstrap-server)
// or the controllers (--bootstrap-controller, or a profile's
// bootstrap-controllers); and the native `kbox quorum status`, the quorum
// as a table, JSON or YAML.
//
// Deliberate differences from Apache 4.4's tool:
//   - Stack traces are left out: where Apache prints an exception's
//     message and then its Java stack trace, kbox prints the message only
//     (a malformed bootstrap list: "Failed to create new KafkaAdminClient").
//   - An unreachable bootstrap list fails within kbox's connect timeout
//     with one line (kbox: error: ...), where the Java admin client retries
//     until its 60 s API timeout.
//   - A remove-controller or add-controller the cluster refuses reports
//     the answer of the node that handled it: over --bootstrap-server
//     kbox sends it to one broker, which forwards it to the active
//     controller, and over --bootstrap-controller to the active controller;
//     Apache's admin client may pick a controller that is not the leader
//     (then NotLeaderOrFollowerException), so the exception named may
//     differ.
//
// Tested against Apache's tool on the test bed: test/integration/quorum on
// a static quorum (kraft.version 0: describe, and add-controller and
// remove-controller in their dry runs and refusals), test/integration/
// quorumdyn on a dynamic one (kraft.version 1), where a controller-only
// node is added and removed for real by each tool in turn, over the
// controllers and over the brokers, with the refusals only a dynamic quorum
// gives (DuplicateVoterException, VoterNotFoundException).
//
// The drop-in's parser takes Apache's options plus a hidden -o, before or
// after describe (json|yaml|table: the describe result as kbox's report,
// quorum.Info, with the cluster id).
package metadataquorum

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/argparse"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/quorum"
	"github.com/twmb/franz-go/pkg/kerr"
)

// Applet registers kafka-metadata-quorum (kbox quorum).
var Applet = cmdutil.Applet{
	Kind:   cmdutil.Apache,
	Name:   "kafka-metadata-quorum",
	Alias:  "quorum",
	Short:  short,
	Run:    Run,
	Native: NewNativeCmd,

	ConnOptions:    []string{"bootstrap-server", "bootstrap-controller"},
	AbbrevOptions:  true,
	Controllers:    true,
	ApacheCommands: []string{"describe", "add-controller", "remove-controller"},
}

const short = "The KRaft metadata quorum: its leader, voters and lag; add or remove controllers"

var formats = cmdutil.Formats{Default: output.Apache, Allowed: []output.Format{output.Apache, output.Table, output.JSON, output.YAML}}

func newParser() *argparse.Parser {
	p := argparse.New("kafka-metadata-quorum", "This tool describes kraft metadata quorum status.")
	g := p.AddGroup("", "", true, true)
	g.Add(argparse.Arg{Flags: []string{"--bootstrap-server"}, Help: "A comma-separated list of host:port pairs to use for establishing the connection to the Kafka cluster."})
	g.Add(argparse.Arg{Flags: []string{"--bootstrap-controller"}, Help: "A comma-separated list of host:port pairs to use for establishing the connection to the Kafka controllers."})
	p.Add(argparse.Arg{Flags: []string{"--command-config"}, Help: "Property file containing configs to be passed to Admin Client. For add-controller, the file is used to specify the controller properties as well."})
	p.Add(argparse.Arg{Flags: []string{"-o", "--output"}, Hidden: true})
	subs := p.AddSubparsers(argparse.Subparsers{})
	d := subs.Add("describe", "Describe the metadata quorum info")
	d.AddGroup("Status", "", false, false).Add(argparse.Arg{Flags: []string{"--status"}, Type: argparse.StoreTrue, Help: "A short summary of the quorum status and the other provides detailed information about the status of replication."})
	r := d.AddGroup("Replication", "", false, false)
	r.Add(argparse.Arg{Flags: []string{"--replication"}, Type: argparse.StoreTrue, Help: "Detailed information about the status of replication"})
	r.Add(argparse.Arg{Flags: []string{"--human-readable"}, Type: argparse.StoreTrue, Help: "Human-readable output"})
	d.Add(argparse.Arg{Flags: []string{"-o", "--output"}, Hidden: true}) // after the subcommand too
	a := subs.Add("add-controller", "Add a controller to the KRaft controller cluster")
	a.Add(argparse.Arg{Flags: []string{"--dry-run"}, Type: argparse.StoreTrue, Help: "True if we should print what would be done, but not do it."})
	rm := subs.Add("remove-controller", "Remove a controller from the KRaft controller cluster")
	rm.Add(argparse.Arg{Flags: []string{"--controller-id", "-i"}, Type: argparse.Int, Required: true, Help: "The id of the controller to remove."})
	rm.Add(argparse.Arg{Flags: []string{"--controller-directory-id", "-d"}, Required: true, Help: "The directory ID of the controller to remove."})
	rm.Add(argparse.Arg{Flags: []string{"--dry-run"}, Type: argparse.StoreTrue, Help: "True if we should print what would be done, but not do it."})
	rm.Add(argparse.Arg{Flags: []string{"--unregister"}, Type: argparse.StoreTrue, Help: "If set, also unregister the controller after successfully removing it from the voter set."})
	return p
}

// terse is the tool's TerseException: the message on stderr, exit 1.
func terse(f *cmdutil.Factory, msg string) error {
	fmt.Fprintln(f.IO.ErrOut, msg)
	return cmdutil.Exit(1)
}

// invocation is one parsed run of the tool.
type invocation struct {
	f          *cmdutil.Factory
	ns         *argparse.Namespace
	format     output.Format
	bs         string
	controller bool
	cc         string
	client     *kafka.Client // for Explain
}

// Run is kafka-metadata-quorum.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	p := newParser()
	width := argparse.FormatWidth(f.Getenv)
	ns, err := p.Parse(args)
	var he *argparse.HelpError
	switch {
	case errors.As(err, &he):
		_, _ = io.WriteString(f.IO.Out, he.Parser.FormatHelp(width))
		return cmdutil.HelpExit(0) // HelpScreenException: exit 0
	case err != nil:
		_, _ = io.WriteString(f.IO.ErrOut, p.FormatError(err, width))
		return cmdutil.Exit(1)
	}
	out, _ := ns.String("output")
	format, err := f.Output(out, formats)
	if err != nil {
		return err
	}
	in := &invocation{f: f, ns: ns, format: format}
	in.cc, _ = ns.String("command_config")
	if in.cc != "" {
		if _, err := os.Stat(in.cc); err != nil {
			return terse(f, "Properties file "+in.cc+" does not exist.")
		}
	}
	bs, hasBS := ns.String("bootstrap_server")
	bc, hasBC := ns.String("bootstrap_controller")
	in.bs, in.controller = bs, !hasBS && hasBC
	if in.controller {
		in.bs = bc
	}
	if !hasBS && !hasBC {
		return terse(f, "You must specify either --bootstrap-controller or --bootstrap-server.")
	}
	if msg := cmdutil.ValidateBootstrap(in.bs, true); msg != "" {
		return terse(f, "Failed to create new KafkaAdminClient")
	}
	switch cmd, _ := ns.String("command"); cmd {
	case "describe":
		return in.describe(ctx)
	case "add-controller":
		return in.addController(ctx)
	default:
		return in.removeController(ctx)
	}
}

// connect builds the admin client and the quorum target.
func (in *invocation) connect(ctx context.Context, quiet bool) (quorum.Target, func(), error) {
	return in.connectWith(ctx, config.Overrides{Bootstrap: in.bs, CommandConfig: in.cc, Controllers: in.controller}, quiet)
}

// connectWith connects with the overrides ov; quiet: without warnings
// about properties the client ignores.
func (in *invocation) connectWith(ctx context.Context, ov config.Overrides, quiet bool) (quorum.Target, func(), error) {
	conn, err := in.f.Connection(ov)
	if err != nil {
		return quorum.Target{}, nil, err
	}
	defaults := config.NewProperties()
	defaults.Set("client.id", "adminclient-1")
	newClient := func(c *config.Connection) (*kafka.Client, error) {
		if quiet { // add-controller's file is a server's: its properties are not the client's business
			return kafka.NewClient(c, kafka.Admin, kafka.Options{Defaults: defaults})
		}
		return in.f.Client(c, kafka.Admin, kafka.Options{Defaults: defaults})
	}
	t, cl, err := quorum.Connect(ctx, conn, newClient)
	if err != nil {
		return quorum.Target{}, nil, err
	}
	in.client = cl
	return t, cl.Close, nil
}

// failed prints a request's failure: the cluster's answer as Java's
// exception text (ExecutionException's message), else kbox's one line.
func (in *invocation) failed(err error) error {
	var qe *quorum.QuorumError
	var ce *quorum.ClockError
	switch {
	case errors.As(err, &qe), errors.As(err, &ce):
		return terse(in.f, err.Error())
	}
	if in.client != nil {
		return in.client.Explain(err)
	}
	return err
}

func (in *invocation) describe(ctx context.Context) error {
	status, repl := in.ns.Bool("status"), in.ns.Bool("replication")
	human := in.ns.Bool("human_readable")
	switch {
	case status && repl:
		return terse(in.f, "Only one of --status or --replication should be specified with describe sub-command")
	case status && human:
		return terse(in.f, "The option --human-readable is only supported along with --replication")
	case !status && !repl:
		return terse(in.f, "One of --status or --replication must be specified with describe sub-command")
	}
	t, closeFn, err := in.connect(ctx, false)
	if err != nil {
		return err
	}
	defer closeFn()
	info, err := quorum.DescribeInfo(ctx, t, status || in.format != output.Apache)
	if err != nil {
		return in.failed(err)
	}
	if in.format != output.Apache {
		return output.Print(in.f.IO, in.format, info)
	}
	if status {
		return info.WriteStatus(in.f.IO.Out)
	}
	rows, err := info.ReplicationRows(human, time.Now())
	if err != nil {
		return in.failed(err)
	}
	return quorum.WriteTable(in.f.IO.Out, quorum.ReplicationHeader, rows)
}

func (in *invocation) removeController(ctx context.Context) error {
	id, _ := in.ns.Int("controller_id")
	dirText, _ := in.ns.String("controller_directory_id")
	if id < 0 {
		return terse(in.f, fmt.Sprintf("Invalid negative --controller-id: %d", id))
	}
	dir, err := quorum.ParseUUID(dirText)
	if err != nil {
		return terse(in.f, "Failed to parse --controller-directory-id: "+err.Error())
	}
	dry, unregister := in.ns.Bool("dry_run"), in.ns.Bool("unregister")
	// With --unregister, a refusal says how to unregister by hand.
	hint := func(what string, err error) error {
		var qe *quorum.QuorumError
		if !errors.As(err, &qe) {
			return in.failed(err)
		}
		return terse(in.f, fmt.Sprintf("Failed to %s %d: %s. To unregister the controller from the cluster, run `kafka-cluster.sh unregister-controller --id %d`.", what, id, qe.Text(), id))
	}
	var t quorum.Target
	if !dry {
		var closeFn func()
		t, closeFn, err = in.connect(ctx, false)
		if err != nil {
			return err
		}
		defer closeFn()
		if err := quorum.RemoveVoter(ctx, t, int32(id), dir); err != nil {
			var qe *quorum.QuorumError
			if unregister && errors.As(err, &qe) && (qe.Code == kerr.UnsupportedVersion.Code || qe.Code == kerr.VoterNotFound.Code) {
				return hint("remove KRaft voter", err)
			}
			return in.failed(err)
		}
	}
	verb := "Removed"
	if dry {
		verb = "DRY RUN of removing"
	}
	fmt.Fprintf(in.f.IO.Out, "%s KRaft controller %d with directory id %s\n", verb, id, quorum.UUID(dir))
	if !unregister {
		return nil
	}
	verb = "Unregistered"
	if dry {
		verb = "DRY RUN of unregistering"
	} else if err := quorum.UnregisterController(ctx, t, int32(id)); err != nil {
		return hint("unregister controller", err)
	}
	fmt.Fprintf(in.f.IO.Out, "%s KRaft controller %d\n", verb, id)
	return nil
}
