// Package cluster is the kafka-cluster drop-in (kbox cluster): Apache's
// ClusterTool, its argparse4j subcommands cluster-id, unregister,
// unregister-controller, list-endpoints and api-versions, with its
// messages, streams and exit codes (-o table|json|yaml shows cluster-id,
// list-endpoints and api-versions natively); and the native `kbox
// cluster describe|id|endpoints`.
//
// Deliberate differences from Apache 4.4's tool:
//   - Stack traces are left out: where ClusterTool prints an exception's
//     message and then its stack trace, kbox prints the message line.
//   - The Java admin client's own log4j ERROR line for a failed
//     unregistration is not printed; the tool's line is.
//   - An unreachable --bootstrap-server fails within kbox's connect
//     timeout with one line (kbox: error: ...), where the Java admin
//     client retries until its API timeout.
package cluster

import (
	"context"
	"fmt"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/cluster"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
)

// Applet registers kafka-cluster (kbox cluster).
var Applet = cmdutil.Applet{
	Kind: cmdutil.Apache, Name: "kafka-cluster", Alias: "cluster",
	Short: "Inspect the cluster: its id, endpoints, API versions; unregister nodes",
	Run:   Run, Native: NewCmd,

	ConnOptions:      []string{"bootstrap-server", "bootstrap-controller"},
	ConnShort:        []string{"-b", "-C"},
	ConnAfterCommand: true,
	AbbrevOptions:    true,
	ApacheCommands:   []string{"cluster-id", "unregister", "unregister-controller", "list-endpoints", "api-versions"},
}

// NewCmd builds the native `kbox cluster` subcommands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Inspect the cluster",
	}
	cmd.AddCommand(newDescribeCmd(f), newIDCmd(f), newEndpointsCmd(f))
	return cmd
}

var describeFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML}}

func newDescribeCmd(f *cmdutil.Factory) *cobra.Command {
	var conn cmdutil.ConnFlags
	var format string
	cmd := &cobra.Command{
		Use:   "describe",
		Short: "Show the cluster id, controller and brokers",
		Example: `  # the cluster of the current profile
  kbox cluster describe
  # a cluster given by address, as JSON
  kbox cluster describe --bootstrap-server 127.0.0.1:9092 -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return describe(cmdutil.Context(cmd), f, &conn, output.Format(format))
		},
	}
	conn.Register(cmd, false)
	cmdutil.AddOutputFlag(f, cmd, &format, describeFormats)
	return cmd
}

func describe(ctx context.Context, f *cmdutil.Factory, flags *cmdutil.ConnFlags, format output.Format) error {
	cl, err := flags.Connect(ctx, f, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer cl.Close()
	d, err := cluster.Describe(ctx, cl.Client, cl.Admin())
	if err != nil {
		return cl.Explain(err)
	}
	if format == output.Table {
		fmt.Fprintln(f.IO.Out, d.Summary())
	}
	return output.Print(f.IO, format, d)
}
