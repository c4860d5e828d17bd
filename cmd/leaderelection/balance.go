package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/reassign"
)

// runBalance is kbox elect-leaders --preview / --execute.
func runBalance(ctx context.Context, f *cmdutil.Factory, s *jopt.Set) error {
	oflag, _, err := s.Value("output")
	if err != nil {
		return &cmdutil.FlagError{Err: errors.New("flag --output given more than once")}
	}
	format, err := f.Output(oflag, cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML}})
	if err != nil {
		return &cmdutil.FlagError{Err: err}
	}
	if s.Has("preview") == s.Has("execute") {
		return &cmdutil.FlagError{Err: errors.New("give one of --preview and --execute")}
	}
	for _, o := range []string{"election-type", "all-topic-partitions", "path-to-json-file", "partition"} {
		if s.Has(o) {
			return &cmdutil.FlagError{Err: fmt.Errorf("--%s cannot be used with --preview or --execute (they elect preferred leaders of every partition, or of --topic)", o)}
		}
	}
	var ov config.Overrides
	for name, dst := range map[string]*string{"bootstrap-server": &ov.Bootstrap, "command-config": &ov.CommandConfig} {
		v, _, err := s.Value(name)
		if err != nil {
			return &cmdutil.FlagError{Err: fmt.Errorf("flag --%s given more than once", name)}
		}
		*dst = v
	}
	topics := s.Values("topic")
	cl, err := f.Connect(ctx, ov, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer cl.Close()
	svc := &reassign.Service{Client: cl.Client, Admin: cl.Admin()}
	brokers, err := svc.Brokers(ctx)
	if err != nil {
		return cl.Explain(err)
	}
	ids := reassign.BrokerIDs(brokers)
	before, err := svc.Leaders(ctx, topics...)
	if err != nil {
		return cl.Explain(err)
	}
	bal := reassign.Preview(before, ids)
	failed := 0
	if s.Has("execute") {
		if bal, failed, err = execute(ctx, svc, bal, ids, topics); err != nil {
			return cl.Explain(err)
		}
	}
	if err := printBalance(f, format, bal); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d partition(s) could not be elected", failed)
	}
	return nil
}

// execute elects the electable partitions of bal and reads the leaders
// back (waiting up to 10 s for the brokers' metadata to show them).
func execute(ctx context.Context, svc *reassign.Service, bal *reassign.LeaderBalance, ids []int32, topics []string) (*reassign.LeaderBalance, int, error) {
	var tps []reassign.TP
	for _, m := range bal.Partitions {
		if m.Electable {
			tps = append(tps, reassign.TP{Topic: m.Topic, Partition: m.Partition})
		}
	}
	errs := map[reassign.TP]string{}
	if len(tps) > 0 {
		res, err := svc.Elect(ctx, reassign.Preferred, tps, 30000)
		if err != nil {
			return nil, 0, err
		}
		for _, r := range res {
			if r.Err != nil && !r.NotNeeded() {
				errs[r.TP] = r.Err.JavaString()
			}
		}
	}
	var after []reassign.PartitionLeader
	deadline := time.Now().Add(10 * time.Second)
	for {
		var err error
		if after, err = svc.Leaders(ctx, topics...); err != nil {
			return nil, 0, err
		}
		if settled(after, tps, errs) || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	now := reassign.Preview(after, ids)
	leader := map[reassign.TP]int32{}
	for _, p := range after {
		leader[p.TP] = p.Leader
	}
	out := &reassign.LeaderBalance{Executed: true, Partitions: bal.Partitions, Brokers: bal.Brokers}
	for i := range out.Brokers {
		out.Brokers[i].After = 0
		for _, c := range now.Brokers {
			if c.Broker == out.Brokers[i].Broker {
				out.Brokers[i].After = c.Before
			}
		}
	}
	failed := 0
	for i := range out.Partitions {
		m := &out.Partitions[i]
		tp := reassign.TP{Topic: m.Topic, Partition: m.Partition}
		ok := leader[tp] == m.Preferred
		m.Elected = &ok
		m.Error = errs[tp]
		if m.Electable && !ok {
			failed++
		}
	}
	return out, failed, nil
}

func settled(ps []reassign.PartitionLeader, elected []reassign.TP, errs map[reassign.TP]string) bool {
	want := map[reassign.TP]bool{}
	for _, tp := range elected {
		if _, failed := errs[tp]; !failed {
			want[tp] = true
		}
	}
	for _, p := range ps {
		if want[p.TP] && len(p.Replicas) > 0 && p.Leader != p.Replicas[0] {
			return false
		}
	}
	return true
}

func printBalance(f *cmdutil.Factory, format output.Format, b *reassign.LeaderBalance) error {
	if format != output.Table {
		return output.Print(f.IO, format, b)
	}
	if len(b.Partitions) == 0 {
		fmt.Fprintln(f.IO.Out, "Every partition is led by its preferred replica.")
	} else if err := output.WriteTable(f.IO, b.PartitionHeader(), b.PartitionRows()); err != nil {
		return err
	}
	fmt.Fprintln(f.IO.Out)
	return output.WriteTable(f.IO, b.Header(), b.Rows())
}
