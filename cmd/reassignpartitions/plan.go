package reassignpartitions

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/reassign"
)

func newPlanCmd(f *cmdutil.Factory) *cobra.Command {
	var (
		conn          cmdutil.ConnFlags
		format        string
		remove, add   int32
		topics        []string
		write         string
		disableRacked bool
		skipBlocked   bool
	)
	cmd := &cobra.Command{
		Use:   "plan --remove-broker ID | --add-broker ID",
		Short: "Least-movement, rack-aware plan to empty or fill one broker",
		Long: `Proposes the fewest replica moves that take every replica off a broker
(--remove-broker, before decommissioning it) or give a new broker its share
(--add-broker): one replica per moved partition, to the least loaded broker
in a rack the partition does not use yet when there is one. Prints the
diff of replica sets and the bytes each move copies (the leader's size);
--write FILE saves the plan for kafka-reassign-partitions --execute or
kbox reassign execute --plan FILE.

A partition whose replicas already use every other broker cannot leave
the broker: --remove-broker then fails and lists every such partition;
--skip-blocked plans the others and names the ones left out.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (remove >= 0) == (add >= 0) {
				return &cmdutil.FlagError{Err: errors.New("give one of --remove-broker and --add-broker")}
			}
			if skipBlocked && remove < 0 {
				return &cmdutil.FlagError{Err: errors.New("--skip-blocked goes with --remove-broker")}
			}
			ctx := cmd.Context()
			cl, err := conn.Connect(ctx, f, kafka.Admin, kafka.Options{})
			if err != nil {
				return err
			}
			defer cl.Close()
			svc := &reassign.Service{Client: cl.Client, Admin: cl.Admin()}
			brokers, err := svc.Brokers(ctx)
			if err != nil {
				return cl.Explain(err)
			}
			if disableRacked {
				for i := range brokers {
					brokers[i].Rack = ""
				}
			}
			ls, err := svc.Leaders(ctx, topics...)
			if err != nil {
				return cl.Explain(err)
			}
			assign := map[reassign.TP][]int32{}
			leader := map[reassign.TP]int32{}
			for _, l := range ls {
				assign[l.TP] = l.Replicas
				leader[l.TP] = l.Leader
			}
			dirs, err := svc.ReplicaDirs(ctx, reassign.SortedTPs(assign))
			if err != nil {
				return cl.Explain(err)
			}
			sizes := map[reassign.TP]int64{}
			for tp := range assign {
				sizes[tp] = dirs[reassign.Replica{Topic: tp.Topic, Partition: tp.Partition, Broker: leader[tp]}].Size
			}
			var p *reassign.BrokerPlan
			if remove >= 0 {
				p, err = reassign.PlanRemove(assign, sizes, brokers, remove)
			} else {
				p, err = reassign.PlanAdd(assign, sizes, brokers, add)
			}
			if err != nil {
				return err
			}
			if !skipBlocked {
				if err := p.Err(); err != nil {
					return err
				}
			}
			if write != "" {
				if err := os.WriteFile(write, []byte(p.JSON()+"\n"), 0o644); err != nil {
					return err
				}
			}
			if err := output.Print(f.IO, output.Format(format), p); err != nil {
				return err
			}
			if line := p.BlockedLine(); line != "" && output.Format(format) == output.Table {
				fmt.Fprintln(f.IO.ErrOut, line)
			}
			if write != "" && output.Format(format) == output.Table {
				fmt.Fprintf(f.IO.ErrOut, "Plan written to %s.\n", write)
			}
			return nil
		},
	}
	conn.Register(cmd, false)
	cmd.Flags().Int32Var(&remove, "remove-broker", -1, "broker to empty")
	cmd.Flags().Int32Var(&add, "add-broker", -1, "broker to fill")
	cmd.Flags().StringArrayVar(&topics, "topic", nil, "only this topic (repeatable; default: all)")
	cmd.Flags().StringVar(&write, "write", "", "write the plan (reassignment JSON) to this file")
	cmd.Flags().BoolVar(&disableRacked, "disable-rack-aware", false, "ignore racks")
	cmd.Flags().BoolVar(&skipBlocked, "skip-blocked", false, "with --remove-broker: plan the partitions that can move, leave out the blocked ones")
	cmdutil.AddOutputFlag(f, cmd, &format, statusFormats)
	return cmd
}
