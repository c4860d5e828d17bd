package groupsnative

import (
	"context"
	"fmt"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
)

var viewFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.Wide, output.JSON, output.YAML}}

// admin connects the admin client of a native command.
func admin(ctx context.Context, f *cmdutil.Factory, flags *cmdutil.ConnFlags) (*kafka.Client, *groups.Client, error) {
	cl, _, err := clients(ctx, f, flags, false)
	if err != nil {
		return nil, nil, err
	}
	return cl, groups.New(cl.Client), nil
}

func newListCmd(f *cmdutil.Factory) *cobra.Command {
	var conn cmdutil.ConnFlags
	var out string
	var states, types []string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List consumer groups with their type and state",
		Example: `  kbox groups list
  kbox groups list --state Empty -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, s := range states {
				if !validState(s) {
					return cmdutil.FlagErrorf("--state %q: want one of %v", s, groups.States)
				}
			}
			for _, t := range types {
				if t != "classic" && t != "consumer" && t != "Classic" && t != "Consumer" {
					return cmdutil.FlagErrorf("--type %q: want classic or consumer", t)
				}
			}
			ctx := cmdutil.Context(cmd)
			cl, c, err := admin(ctx, f, &conn)
			if err != nil {
				return err
			}
			defer cl.Close()
			ls, err := c.List(ctx, groups.ListFilter{States: states, Types: types})
			if err != nil {
				return cl.Explain(err)
			}
			return output.Print(f.IO, output.Format(out), groups.NewGroupList(ls))
		},
	}
	cmd.Flags().StringArrayVar(&states, "state", nil, "only groups in this state (repeatable): Stable, Empty, PreparingRebalance, ...")
	cmd.Flags().StringArrayVar(&types, "type", nil, "only groups of this type (repeatable): classic or consumer")
	conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &out, viewFormats)
	return cmd
}

func validState(s string) bool {
	for _, n := range groups.States {
		if equalFold(n, s) {
			return true
		}
	}
	return false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// groupArgs gathers the groups of a command: arguments, --group, or with
// --all-groups every consumer group.
func groupArgs(ctx context.Context, c *groups.Client, args, flagged []string, all bool) ([]string, error) {
	names := append(append([]string(nil), args...), flagged...)
	if all {
		ls, err := c.List(ctx, groups.ListFilter{})
		if err != nil {
			return nil, err
		}
		for _, l := range ls {
			names = append(names, l.Group)
		}
	}
	return names, nil
}

func checkGroupArgs(args, flagged []string, all bool) error {
	n := len(args) + len(flagged)
	if all && n > 0 {
		return cmdutil.FlagErrorf("give groups or --all-groups, not both")
	}
	if !all && n == 0 {
		return cmdutil.FlagErrorf("name at least one group (argument or --group), or --all-groups")
	}
	return nil
}

func newDescribeCmd(f *cmdutil.Factory) *cobra.Command {
	var conn cmdutil.ConnFlags
	var out string
	var flagged []string
	var all bool
	cmd := &cobra.Command{
		Use:   "describe [GROUP...]",
		Short: "Describe groups: state, members and each partition's committed offset, log end and lag",
		Example: `  kbox groups describe orders-app
  kbox groups describe --all-groups -o wide`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkGroupArgs(args, flagged, all); err != nil {
				return err
			}
			ctx := cmdutil.Context(cmd)
			cl, c, err := admin(ctx, f, &conn)
			if err != nil {
				return err
			}
			defer cl.Close()
			names, err := groupArgs(ctx, c, args, flagged, all)
			if err != nil {
				return cl.Explain(err)
			}
			gs, err := c.Offsets(ctx, names)
			if err != nil {
				return cl.Explain(err)
			}
			d := groups.NewDescription(gs)
			if err := output.Print(f.IO, output.Format(out), d); err != nil {
				return err
			}
			failed := 0
			for _, g := range d.Groups {
				if g.Error != "" {
					failed++
					if out != string(output.JSON) && out != string(output.YAML) {
						f.Warn("group %s: %s", g.Group.Group, g.Error)
					}
				}
			}
			if failed > 0 {
				return cmdutil.Exit(cmdutil.ExitFailure)
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&flagged, "group", nil, "a group to describe (repeatable; also as arguments)")
	cmd.Flags().BoolVar(&all, "all-groups", false, "every consumer group")
	conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &out, viewFormats)
	return cmd
}

func newDeleteCmd(f *cmdutil.Factory) *cobra.Command {
	var conn cmdutil.ConnFlags
	var out string
	var flagged []string
	cmd := &cobra.Command{
		Use:     "delete GROUP...",
		Short:   "Delete groups (their committed offsets go with them); a group with members is refused",
		Example: `  kbox groups delete old-app other-app`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkGroupArgs(args, flagged, false); err != nil {
				return err
			}
			ctx := cmdutil.Context(cmd)
			cl, c, err := admin(ctx, f, &conn)
			if err != nil {
				return err
			}
			defer cl.Close()
			rs, err := c.Delete(ctx, append(append([]string(nil), args...), flagged...))
			if err != nil {
				return cl.Explain(err)
			}
			rep := groups.NewDeleteReport(rs)
			if err := output.Print(f.IO, output.Format(out), rep); err != nil {
				return err
			}
			if n := rep.Failed(); n > 0 {
				if out != string(output.JSON) && out != string(output.YAML) {
					for _, g := range rep.Groups {
						if !g.Deleted {
							fmt.Fprintf(f.IO.ErrOut, "kbox: error: group %s not deleted: %s\n", g.Group, g.Error)
						}
					}
					fmt.Fprintf(f.IO.ErrOut, "kbox: error: %d of %d group(s) not deleted\n", n, len(rep.Groups))
				}
				return cmdutil.Exit(cmdutil.ExitFailure)
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&flagged, "group", nil, "a group to delete (repeatable; also as arguments)")
	conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &out, viewFormats)
	return cmd
}
