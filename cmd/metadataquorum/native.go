package metadataquorum

import (
	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/quorum"
	"github.com/spf13/cobra"
)

var nativeFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML}}

// NewNativeCmd builds the native `kbox quorum` tree: `kbox quorum status`.
func NewNativeCmd(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{Use: "quorum", Short: short}
	root.AddCommand(newStatusCmd(f))
	return root
}

func newStatusCmd(f *cmdutil.Factory) *cobra.Command {
	var (
		conn   cmdutil.ConnFlags
		format string
	)
	cmd := &cobra.Command{
		Use:   "status [--bootstrap-controller LIST]",
		Short: "The quorum's leader, epoch, high watermark and every voter's and observer's lag",
		Long: `Describes the KRaft metadata quorum: the cluster id, the leader (the active
controller), its epoch, the high watermark, the largest follower lag, and
per voter and observer its directory id, endpoints, log end offset, lag
behind the leader and the times of its last fetch and last catch-up.

It asks the brokers (--bootstrap-server, the profile's bootstrap-servers)
or, with --bootstrap-controller or a profile that has bootstrap-controllers
and no bootstrap-servers, the controllers directly.`,
		Example: `  kbox quorum status
  kbox quorum status --bootstrap-controller ctl1:9093 -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ov, err := conn.Resolve(f, nil)
			if err != nil {
				return err
			}
			ctx := cmdutil.Context(cmd)
			in := &invocation{f: f, bs: ov.Bootstrap, controller: ov.Controllers, cc: ov.CommandConfig}
			t, closeFn, err := in.connectWith(ctx, ov, false)
			if err != nil {
				return err
			}
			defer closeFn()
			info, err := quorum.DescribeInfo(ctx, t, true)
			if err != nil {
				return in.client.Explain(err)
			}
			return output.Print(f.IO, output.Format(format), info)
		},
	}
	conn.Register(cmd, true)
	conn.RegisterController(cmd)
	cmdutil.AddOutputFlag(f, cmd, &format, nativeFormats)
	return cmd
}
