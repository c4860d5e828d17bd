// Package features is the kafka-features drop-in (kbox features): Apache
// 4.4's FeatureCommand, its argparse4j options and subcommands (describe
// [--node-id], upgrade and downgrade with --metadata, --release-version,
// --feature name=level and --dry-run, disable, version-mapping and
// feature-dependencies), messages, streams and exit codes, over the
// brokers (--bootstrap-server) or the controllers
// (--bootstrap-controller, or a profile's bootstrap-controllers).
// version-mapping and feature-dependencies answer from Apache 4.4's own
// tables (pkg/features) without a connection, as Apache's do.
//
// Deliberate differences from Apache 4.4's tool:
//   - describe --node-id naming no node the cluster lists prints the Java
//     client's TimeoutException at once, where Apache waits for its 60 s
//     API timeout first.
//   - An unreachable bootstrap list fails within kbox's connect timeout
//     with one line (kbox: error: ...), where the Java admin client retries
//     until its API timeout; an update request that fails as a whole (not
//     the cluster's answer) is that one line too, not a line per feature.
//   - Apache prints a parse error's message through printf, as a format:
//     a message with a % in it (an argument like 5%) makes the Java tool
//     fail with a stack trace; kbox prints the message as it is.
//   - A level in feature=level is read as ASCII digits with an optional
//     sign; Java's Short.parseShort also takes other Unicode digits.
//
// The drop-in's parser takes Apache's options plus a hidden -o, before or
// after describe (json|yaml|table: the features as kbox's report,
// features.Description).
package features

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/argparse"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/features"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/quorum"
)

// Applet registers kafka-features (kbox features).
var Applet = cmdutil.Applet{
	Kind:  cmdutil.Apache,
	Name:  "kafka-features",
	Alias: "features",
	Short: "Feature flags: describe them, upgrade, downgrade or disable them, and Apache's version tables",
	Run:   Run,

	ConnOptions:    []string{"bootstrap-server", "bootstrap-controller"},
	AbbrevOptions:  true,
	Controllers:    true,
	ApacheCommands: []string{"describe", "upgrade", "downgrade", "disable", "version-mapping", "feature-dependencies"},
}

var formats = cmdutil.Formats{Default: output.Apache, Allowed: []output.Format{output.Apache, output.Table, output.JSON, output.YAML}}

func newParser() *argparse.Parser {
	p := argparse.New("kafka-features", "This tool manages feature flags in Kafka.")
	g := p.AddGroup("", "", true, false)
	g.Add(argparse.Arg{Flags: []string{"--bootstrap-server"}, Help: "A comma-separated list of host:port pairs to use for establishing the connection to the Kafka cluster."})
	g.Add(argparse.Arg{Flags: []string{"--bootstrap-controller"}, Help: "A comma-separated list of host:port pairs to use for establishing the connection to the KRaft quorum."})
	p.Add(argparse.Arg{Flags: []string{"--command-config"}, Help: "Property file containing configs to be passed to Admin Client."})
	p.Add(argparse.Arg{Flags: []string{"-o", "--output"}, Hidden: true})
	subs := p.AddSubparsers(argparse.Subparsers{})
	d := subs.Add("describe", "Describes the current active feature flags.")
	d.Add(argparse.Arg{Flags: []string{"--node-id"}, Type: argparse.Int, Help: "The node id to which the requests should be sent. If not specified, the requests will be sent to an arbitrary controller/broker."})
	d.Add(argparse.Arg{Flags: []string{"-o", "--output"}, Hidden: true}) // after the subcommand too
	for _, op := range []string{"upgrade", "downgrade"} {
		example := map[string]string{"upgrade": "3.3-IV3", "downgrade": "3.3-IV0"}[op]
		to := map[string]string{"upgrade": "update", "downgrade": "downgrade"}[op]
		s := subs.Add(op, map[string]string{"upgrade": "Upgrade", "downgrade": "Downgrade"}[op]+" one or more feature flags.")
		s.Add(argparse.Arg{Flags: []string{"--metadata"}, Help: "DEPRECATED -- The level to which we should " + op + " the metadata. For example, " + example + "."})
		s.Add(argparse.Arg{Flags: []string{"--release-version"}, Help: "The release version to " + to + " all features to. For example, 3.9-IV0 will set metadata.version=21 and kraft.version=1. Use the version-mapping command to learn which features will be set for any given version."})
		s.Add(argparse.Arg{Flags: []string{"--feature"}, Type: argparse.Append, Help: "A feature " + op + " we should perform, in feature=level format. For example: `metadata.version=5`."})
		if op == "downgrade" {
			s.Add(argparse.Arg{Flags: []string{"--unsafe"}, Type: argparse.StoreTrue, Help: "Perform this downgrade even if it may irreversibly destroy metadata."})
		}
		s.Add(argparse.Arg{Flags: []string{"--dry-run"}, Type: argparse.StoreTrue, Help: "Validate this " + op + ", but do not perform it."})
	}
	dis := subs.Add("disable", "Disable one or more feature flags. This is the same as downgrading the version to zero.")
	dis.Add(argparse.Arg{Flags: []string{"--feature"}, Type: argparse.Append, Help: "A feature flag to disable."})
	dis.Add(argparse.Arg{Flags: []string{"--unsafe"}, Type: argparse.StoreTrue, Help: "Disable this feature flag even if it may irreversibly destroy metadata."})
	dis.Add(argparse.Arg{Flags: []string{"--dry-run"}, Type: argparse.StoreTrue, Help: "Perform a dry-run of this disable operation."})
	vm := subs.Add("version-mapping", "Look up the corresponding features for a given metadata version. Using the command with no --release-version  argument will return the mapping for the latest stable metadata version")
	vm.Add(argparse.Arg{Flags: []string{"--release-version"}, Help: "The release version to use for the corresponding feature mapping. The minimum is " +
		features.LevelName(features.MetadataFeature, 7) + "; the default is " + features.DefaultRelease()})
	fd := subs.Add("feature-dependencies", "Look up dependencies for a given feature version. If the feature is not known or the version not yet defined, an error is thrown. Multiple features can be specified.")
	fd.Add(argparse.Arg{Flags: []string{"--feature"}, Type: argparse.Append, Required: true, Help: "The feature and version to look up dependencies for, in feature=version format. For example: `metadata.version=5`."})
	return p
}

// fail is the tool's catch-all: the exception's message on stderr, exit 1.
func fail(f *cmdutil.Factory, msg string) error {
	fmt.Fprintln(f.IO.ErrOut, msg)
	return cmdutil.Exit(1)
}

// commandLine is an ArgumentParserException: printed without a newline.
func commandLine(f *cmdutil.Factory, msg string) error {
	fmt.Fprintf(f.IO.ErrOut, "Command line error: %s. Type --help for help.", msg)
	return cmdutil.Exit(1)
}

// invocation is one parsed run of the tool.
type invocation struct {
	f          *cmdutil.Factory
	ns         *argparse.Namespace
	bs         string
	controller bool
	cc         string
	client     *kafka.Client // for Explain
}

// Run is kafka-features.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	p := newParser()
	ns, err := p.Parse(args)
	var he *argparse.HelpError
	switch {
	case errors.As(err, &he):
		_, _ = io.WriteString(f.IO.Out, he.Parser.FormatHelp(argparse.FormatWidth(f.Getenv)))
		return cmdutil.HelpExit(0) // HelpScreenException: exit 0
	case err != nil:
		return commandLine(f, err.Error())
	}
	out, _ := ns.String("output")
	format, err := f.Output(out, formats)
	if err != nil {
		return err
	}
	cmd, _ := ns.String("command")
	if format != output.Apache && cmd != "describe" {
		return cmdutil.FlagErrorf("-o applies to describe only")
	}
	switch cmd {
	case "version-mapping":
		rv, ok := ns.String("release_version")
		if !ok {
			rv = features.DefaultRelease()
		}
		if err := features.VersionMapping(f.IO.Out, rv); err != nil {
			return fail(f, err.Error())
		}
		return nil
	case "feature-dependencies":
		if err := features.Dependencies(f.IO.Out, ns.Strings("feature")); err != nil {
			return fail(f, err.Error())
		}
		return nil
	}
	in := &invocation{f: f, ns: ns}
	in.cc, _ = ns.String("command_config")
	if in.cc != "" {
		if _, err := os.Stat(in.cc); err != nil {
			return fail(f, in.cc) // Utils.loadProps: NoSuchFileException's message
		}
	}
	bs, hasBS := ns.String("bootstrap_server")
	bc, hasBC := ns.String("bootstrap_controller")
	in.bs, in.controller = bs, !hasBS && hasBC
	if in.controller {
		in.bs = bc
	}
	if !hasBS && !hasBC {
		return commandLine(f, "You must specify either --bootstrap-controller or --bootstrap-server.")
	}
	if msg := cmdutil.ValidateBootstrap(in.bs, true); msg != "" {
		return fail(f, "Failed to create new KafkaAdminClient")
	}
	switch cmd {
	case "describe":
		return in.describe(ctx, format)
	case "disable":
		return in.disable(ctx)
	default:
		return in.upgradeOrDowngrade(ctx, cmd)
	}
}

// connect builds the admin client and the target of its requests.
func (in *invocation) connect(ctx context.Context) (quorum.Target, func(), error) {
	conn, err := in.f.Connection(config.Overrides{Bootstrap: in.bs, CommandConfig: in.cc, Controllers: in.controller})
	if err != nil {
		return quorum.Target{}, nil, err
	}
	defaults := config.NewProperties()
	defaults.Set("client.id", "adminclient-1")
	newClient := func(c *config.Connection) (*kafka.Client, error) {
		return in.f.Client(c, kafka.Admin, kafka.Options{Defaults: defaults})
	}
	t, cl, err := quorum.Connect(ctx, conn, newClient)
	if err != nil {
		return quorum.Target{}, nil, err
	}
	in.client = cl
	return t, cl.Close, nil
}

// failed reports a request's failure: kbox's one line.
func (in *invocation) failed(err error) error {
	var nn *features.NoNodeError
	if errors.As(err, &nn) {
		return fail(in.f, err.Error())
	}
	if in.client != nil {
		return in.client.Explain(err)
	}
	return err
}

func (in *invocation) describe(ctx context.Context, format output.Format) error {
	var node *int32
	if id, ok := in.ns.Int("node_id"); ok {
		if id < 0 {
			return fail(in.f, fmt.Sprintf("Invalid node id %d: must be non-negative.", id))
		}
		n := int32(id)
		node = &n
	}
	t, closeFn, err := in.connect(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	md, err := features.Describe(ctx, t, node, cmdutil.ApacheVersion)
	if err != nil {
		return in.failed(err)
	}
	if format != output.Apache {
		return output.Print(in.f.IO, format, md.Describe())
	}
	return md.WriteApache(in.f.IO.Out)
}
