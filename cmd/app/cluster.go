package app

import (
	"context"
	"fmt"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/cluster"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
)

func newClusterCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Inspect the cluster",
	}
	cmd.AddCommand(newClusterDescribeCmd(f))
	return cmd
}

type clusterDescribeOptions struct {
	bootstrap     string
	commandConfig string
}

func newClusterDescribeCmd(f *cmdutil.Factory) *cobra.Command {
	var o clusterDescribeOptions
	cmd := &cobra.Command{
		Use:   "describe",
		Short: "Show the cluster id, controller and brokers",
		Example: `  # the cluster of the current profile
  kbox cluster describe
  # a cluster given by address, as JSON
  kbox cluster describe --bootstrap-server 127.0.0.1:9092 -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return clusterDescribeRun(cmd.Context(), f, o)
		},
	}
	cmd.Flags().StringVar(&o.bootstrap, "bootstrap-server", "", "comma-separated broker addresses (overrides the profile)")
	cmd.Flags().StringVar(&o.commandConfig, "command-config", "", "Java client properties file (security settings)")
	return cmd
}

func clusterDescribeRun(ctx context.Context, f *cmdutil.Factory, o clusterDescribeOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	conn, err := f.Connection(config.Overrides{Bootstrap: o.bootstrap, CommandConfig: o.commandConfig})
	if err != nil {
		return err
	}
	format := output.Table
	if conn.Output != "" && conn.Output != string(output.Apache) {
		format, err = output.ParseFormat(conn.Output, output.Table, output.JSON, output.YAML)
		if err != nil {
			return &cmdutil.FlagError{Err: err}
		}
	}
	cl, err := f.ConnectedClient(ctx, conn, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer cl.Close()
	d, err := cluster.Describe(ctx, cl.Client)
	if err != nil {
		return cl.Explain(err)
	}
	if format == output.Table {
		fmt.Fprintln(f.IO.Out, d.Summary())
	}
	return output.Print(f.IO, format, d)
}
