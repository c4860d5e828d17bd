package cluster

import (
	"context"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/cluster"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
)

func newIDCmd(f *cmdutil.Factory) *cobra.Command {
	var conn cmdutil.ConnFlags
	var format string
	cmd := &cobra.Command{
		Use:   "id",
		Short: "Show the cluster id",
		Example: `  kbox cluster id
  kbox cluster id --bootstrap-server 127.0.0.1:9092 -o json
  kbox cluster id --bootstrap-controller 127.0.0.1:9093`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withClient(cmdutil.Context(cmd), f, &conn, func(ctx context.Context, cl *kafka.Client) error {
				id, err := cluster.ClusterID(ctx, cl.Client, cl.Controllers)
				if err != nil {
					return cl.Explain(err)
				}
				return output.Print(f.IO, output.Format(format), id)
			})
		},
	}
	conn.Register(cmd, false)
	conn.RegisterController(cmd)
	cmdutil.AddOutputFlag(f, cmd, &format, describeFormats)
	return cmd
}

func newEndpointsCmd(f *cmdutil.Factory) *cobra.Command {
	var conn cmdutil.ConnFlags
	var format string
	var fenced bool
	cmd := &cobra.Command{
		Use:   "endpoints",
		Short: "List the brokers' endpoints and whether they are fenced",
		Example: `  kbox cluster endpoints
  kbox cluster endpoints --include-fenced -o json
  kbox cluster endpoints --bootstrap-controller 127.0.0.1:9093 -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withClient(cmdutil.Context(cmd), f, &conn, func(ctx context.Context, cl *kafka.Client) error {
				if fenced && cl.Controllers { // the controllers list no brokers, fenced or not
					return cmdutil.FlagErrorf("--include-fenced lists brokers: give --bootstrap-server, not --bootstrap-controller")
				}
				e, err := cluster.ListEndpoints(ctx, cl.Client, cl.Controllers, fenced)
				if err != nil {
					return cl.Explain(err)
				}
				return output.Print(f.IO, output.Format(format), e)
			})
		},
	}
	cmd.Flags().BoolVar(&fenced, "include-fenced", false, "also list fenced brokers")
	conn.Register(cmd, false)
	conn.RegisterController(cmd)
	cmdutil.AddOutputFlag(f, cmd, &format, describeFormats)
	return cmd
}

// withClient connects with the command's flags and runs fn.
func withClient(ctx context.Context, f *cmdutil.Factory, flags *cmdutil.ConnFlags, fn func(context.Context, *kafka.Client) error) error {
	cl, err := flags.Connect(ctx, f, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer cl.Close()
	return fn(ctx, cl)
}
