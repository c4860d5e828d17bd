// Package cluster is `kbox cluster`: the cluster id, controller and brokers.
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

// Applet is the `kbox cluster` group.
var Applet = cmdutil.Applet{Kind: cmdutil.Group, Alias: "cluster", Short: "Inspect the cluster", New: NewCmd}

// NewCmd builds `kbox cluster`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Inspect the cluster",
	}
	cmd.AddCommand(newDescribeCmd(f))
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
	conn, err := flags.Connection(f, nil)
	if err != nil {
		return err
	}
	cl, err := f.ConnectedClient(ctx, conn, kafka.Admin, kafka.Options{})
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
