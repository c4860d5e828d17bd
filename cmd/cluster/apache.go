package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/argparse"
	"github.com/kboxdev/kbox/pkg/cluster"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
)

// The formats of -o on the drop-in: Apache's text, or the native views of
// the same result (cluster-id, list-endpoints, api-versions).
var apacheFormats = cmdutil.Formats{Default: output.Apache, Allowed: []output.Format{output.Apache, output.Table, output.JSON, output.YAML}}

// The help texts of kafka-cluster's options (Apache 4.4's ClusterTool).
const (
	helpBootstrap  = "A list of host/port pairs to use for establishing the connection to the Kafka cluster."
	helpController = "A list of host/port pairs to use for establishing the connection to the KRaft controllers."
	helpConfig     = "(DEPRECATED) A property file containing configurations for the Admin client. This option will be removed in a future version. Use --command-config instead."
	helpCmdConfig  = "Config properties file for the Admin client."
)

// newParser is kafka-cluster's argparse4j parser: five subcommands, each
// with the connection options (one of --bootstrap-server and
// --bootstrap-controller), --config and --command-config; kbox's -o is a
// hidden option of the subcommands that print a result.
func newParser() *argparse.Parser {
	p := argparse.New("kafka-cluster", "The Kafka cluster tool.")
	p.DefaultHelp = true
	subs := p.AddSubparsers(argparse.Subparsers{Dest: "command"})
	add := func(name, help string) *argparse.Parser {
		s := subs.Add(name, help)
		g := s.AddGroup("", "", true, true)
		g.Add(argparse.Arg{Flags: []string{"--bootstrap-server", "-b"}, Help: helpBootstrap})
		g.Add(argparse.Arg{Flags: []string{"--bootstrap-controller", "-C"}, Help: helpController})
		s.Add(argparse.Arg{Flags: []string{"--config"}, Help: helpConfig})
		s.Add(argparse.Arg{Flags: []string{"--command-config", "-c"}, Help: helpCmdConfig})
		return s
	}
	output := func(s *argparse.Parser) {
		s.Add(argparse.Arg{Flags: []string{"-o", "--output"}, Hidden: true})
	}
	output(add("cluster-id", "Get information about the ID of a cluster."))
	add("unregister", "Unregister a broker.").
		Add(argparse.Arg{Flags: []string{"--id", "-i"}, Type: argparse.Int, Required: true, Help: "The ID of the broker to unregister."})
	add("unregister-controller", "Unregister a controller.").
		Add(argparse.Arg{Flags: []string{"--id", "-i"}, Type: argparse.Int, Required: true, Help: "The ID of the controller to unregister."})
	le := add("list-endpoints", "List endpoints")
	le.Add(argparse.Arg{Flags: []string{"--include-fenced-brokers"}, Type: argparse.StoreTrue, Help: "Whether to include fenced brokers when listing broker endpoints"})
	output(le)
	output(add("api-versions", "Get information about the api versions of the brokers or controllers."))
	return p
}

// request is a parsed kafka-cluster invocation.
type request struct {
	command     string
	bootstrap   string
	controllers bool // --bootstrap-controller
	file        string
	id          int32
	fenced      bool
	format      output.Format
}

// Run is the kafka-cluster drop-in (Apache's ClusterTool).
func Run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	p := newParser()
	width := argparse.FormatWidth(f.Getenv)
	ns, err := p.Parse(args)
	var he *argparse.HelpError
	switch {
	case errors.As(err, &he): // parseArgsOrFail: help on stdout, exit 1
		io.WriteString(f.IO.Out, he.Parser.FormatHelp(width))
		if he.Parser == p {
			return cmdutil.HelpExit(1) // the layer lists the native subcommands
		}
		return cmdutil.Exit(1)
	case err != nil:
		io.WriteString(f.IO.ErrOut, p.FormatError(err, width))
		if len(args) == 0 {
			return cmdutil.HelpExit(1) // too few arguments: the native subcommands follow
		}
		return cmdutil.Exit(1)
	}
	r, err := readRequest(f, ns)
	if err != nil {
		return err
	}
	return r.run(ctx, f)
}

// readRequest checks what argparse4j leaves to ClusterTool, in its order:
// --config with --command-config, the deprecation notice, the file,
// --include-fenced-brokers with --bootstrap-controller.
func readRequest(f *cmdutil.Factory, ns *argparse.Namespace) (*request, error) {
	r := &request{}
	r.command, _ = ns.String("command")
	out, _ := ns.String("output")
	format, err := f.Output(out, apacheFormats)
	if err != nil {
		return nil, err
	}
	r.format = format
	old, _ := ns.String("config")
	file, _ := ns.String("command_config")
	if old != "" && file != "" {
		return nil, javaFailure(f, "--config and --command-config cannot be specified together.")
	}
	if old != "" {
		fmt.Fprintln(f.IO.Out, "Option --config has been deprecated and will be removed in a future version. Use --command-config instead.")
		file = old
	}
	if file != "" {
		if _, err := config.LoadPropertiesFile(file); err != nil {
			return nil, javaFailure(f, file) // NoSuchFileException's message: the path
		}
	}
	r.file = file
	r.bootstrap, _ = ns.String("bootstrap_server")
	if c, ok := ns.String("bootstrap_controller"); ok && c != "" {
		r.bootstrap, r.controllers = c, true
	}
	if id, ok := ns.Int("id"); ok {
		r.id = int32(id)
	}
	r.fenced = ns.Bool("include_fenced_brokers")
	if r.fenced && r.controllers {
		return nil, javaFailure(f, "The option --include-fenced-brokers is only supported with --bootstrap-server option")
	}
	return r, nil
}

// javaFailure is ClusterTool's catch-all: the exception's message on
// stderr (its stack trace left out), exit 1.
func javaFailure(f *cmdutil.Factory, msg string) error {
	fmt.Fprintln(f.IO.ErrOut, msg)
	return cmdutil.Exit(1)
}

func (r *request) run(ctx context.Context, f *cmdutil.Factory) error {
	conn, err := f.Connection(config.Overrides{Bootstrap: r.bootstrap, CommandConfig: r.file})
	if err != nil {
		return err
	}
	cl, err := connect(ctx, f, conn, r.controllers)
	if err != nil {
		return err
	}
	defer cl.Close()
	switch r.command {
	case "cluster-id":
		id, err := cluster.ClusterID(ctx, cl.Client, r.controllers)
		if err != nil {
			return failure(f, cl, err)
		}
		if r.format != output.Apache {
			return output.Print(f.IO, r.format, id)
		}
		if id.ClusterID == "" {
			fmt.Fprintln(f.IO.Out, "No cluster ID found. The Kafka version is probably too old.")
			return nil
		}
		fmt.Fprintf(f.IO.Out, "Cluster ID: %s\n", id.ClusterID)
	case "unregister", "unregister-controller":
		if r.controllers {
			// Over the controllers, the active one must handle it.
			addr, err := cluster.ActiveController(ctx, cl.Client)
			if err != nil {
				return failure(f, cl, err)
			}
			c := *conn
			c.Bootstrap = []string{addr}
			active, err := f.Client(&c, kafka.Admin, kafka.Options{})
			if err != nil {
				return err
			}
			defer active.Close()
			return r.unregister(ctx, f, active)
		}
		return r.unregister(ctx, f, cl)
	case "list-endpoints":
		e, err := cluster.ListEndpoints(ctx, cl.Client, r.controllers, r.fenced)
		if err != nil {
			return failure(f, cl, err)
		}
		return output.Print(f.IO, r.format, e)
	case "api-versions":
		return apiVersions(ctx, f, cl, r, conn)
	}
	return nil
}

func (r *request) unregister(ctx context.Context, f *cmdutil.Factory, cl *kafka.Client) error {
	what, call := "Broker", cluster.UnregisterBroker
	if r.command == "unregister-controller" {
		what, call = "Controller", cluster.UnregisterController
	}
	if err := call(ctx, cl.Client, r.id); err != nil {
		var ae *cluster.APIError
		if errors.As(err, &ae) && ae.Code == 35 { // UNSUPPORTED_VERSION
			fmt.Fprintf(f.IO.Out, "The target cluster does not support the %s unregistration API.\n", strings.ToLower(what))
			return nil
		}
		return failure(f, cl, err)
	}
	fmt.Fprintf(f.IO.Out, "%s %d is no longer registered.\n", what, r.id)
	return nil
}

// connect builds the admin client: over the brokers it fails fast as
// every drop-in does; the controllers answer no Metadata request, so over
// them the first request is the check.
func connect(ctx context.Context, f *cmdutil.Factory, conn *config.Connection, controllers bool) (*kafka.Client, error) {
	if controllers {
		return f.Client(conn, kafka.Admin, kafka.Options{})
	}
	return f.ConnectedClient(ctx, conn, kafka.Admin, kafka.Options{})
}

// failure prints what ClusterTool prints for a failed request: the
// ExecutionException's message (the cause's toString) on stderr, exit 1;
// an error with no Java counterpart is kbox's one line.
func failure(f *cmdutil.Factory, cl *kafka.Client, err error) error {
	var ae *cluster.APIError
	if errors.As(err, &ae) {
		return javaFailure(f, ae.JavaString())
	}
	return cl.Explain(err)
}
