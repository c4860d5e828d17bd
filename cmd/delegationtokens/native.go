package delegationtokens

import (
	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/dtokens"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
)

var nativeFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML}}

// NewNativeCmd builds the native `kbox delegation-tokens` tree:
// `kbox delegation-tokens list`.
func NewNativeCmd(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{Use: "delegation-tokens", Short: short}
	root.AddCommand(newListCmd(f))
	return root
}

func newListCmd(f *cmdutil.Factory) *cobra.Command {
	var (
		conn     cmdutil.ConnFlags
		format   string
		owners   []string
		showHMAC bool
	)
	cmd := &cobra.Command{
		Use:   "list [--owner PRINCIPAL]... [--show-hmac]",
		Short: "Every delegation token you may see, or those of the owners named",
		Long: `Lists the delegation tokens the broker lets you see: those you own or
renew, and those you may describe (every token on a cluster without an
authorizer); with --owner, those of the owners named only.
kafka-delegation-tokens --describe without --owner-principal lists none
(Apache's tool asks for an empty list of owners).

The HMAC, the token's password, is left out unless --show-hmac.`,
		Example: `  # every token you may see
  kbox delegation-tokens list
  # alice's, as JSON with the HMACs
  kbox delegation-tokens list --owner User:alice --show-hmac -o json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdutil.FlagErrorf("unexpected argument %q (owners are --owner)", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			var ps []dtokens.Principal
			for _, o := range owners {
				p, err := dtokens.ParsePrincipal(o)
				if err != nil {
					return cmdutil.FlagErrorf("--owner: %v", err)
				}
				ps = append(ps, p)
			}
			ctx := cmdutil.Context(cmd)
			cl, err := conn.Connect(ctx, f, kafka.Admin, kafka.Options{})
			if err != nil {
				return err
			}
			defer cl.Close()
			ts, err := dtokens.Describe(ctx, cl.Client, ps)
			if err != nil {
				return cl.Explain(err)
			}
			l := &dtokens.List{Tokens: ts}
			if !showHMAC {
				l.HideHMAC()
			}
			return output.Print(f.IO, output.Format(format), l)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&owners, "owner", nil, "an owner, TYPE:NAME (User:alice); repeatable (default: every token you may see)")
	fl.BoolVar(&showHMAC, "show-hmac", false, "show each token's HMAC (its password)")
	conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &format, nativeFormats)
	return cmd
}
