// Package status is `kbox status`: the health of every profile's cluster
// on one screen (or as JSON/YAML for monitoring), and `kbox top`: live
// produce rates per topic, partition and broker without JMX.
package status

import (
	"context"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/groupsnative"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/status"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Applet is `kbox status`. It is NoProfile for the layer: it reads the
// global --profile itself, as a comma-separated list of profiles.
var Applet = cmdutil.Applet{Kind: cmdutil.Command, Alias: "status", NoProfile: true, Short: short, New: NewCmd}

const short = "Health of every profile's cluster at a glance (exit 1 when any is unhealthy)"

// formats: NoProfile, as no one profile's output default applies to a
// view of several.
var formats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML}, NoProfile: true}

type options struct {
	conn    cmdutil.ConnFlags
	format  string
	timeout time.Duration
	sample  time.Duration
}

// NewCmd builds `kbox status`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "status",
		Short: short,
		Long: `Check every cluster of the config file's profiles concurrently, each within
--timeout, and print one row per cluster: reachable or not (and why), brokers up
against brokers expected, the active controller, under-replicated,
under-min-ISR, offline and non-preferred-leader partitions, disk used per
broker (from log-dir volume sizes), and produce/consume rates in records/s from
two samples of end offsets and committed offsets --sample apart (no JMX), and
the consumer group furthest behind, in records and in time (how long ago its
oldest unconsumed record was written; JSON: the 5 most lagging groups), and
the group with the worst verdict one sample can give (WORST-GROUP: STOP for a
lagging group without members; kbox groups lag --watch judges a window).

Brokers expected: the profile's expected-brokers when set, else every broker the
cluster has registered (fenced ones included) or that holds a replica.

Brokers up: every broker the cluster lists (metadata, and the fenced ones the
controller has registered) gets a connection of kbox's own and one ApiVersions
request, all at once, each within 3s (at most half of --timeout). A broker that
does not answer is down and a reason: "broker 3 unreachable (connection
refused)". A killed broker is listed, unfenced, until the controller's session
timeout ends; it is down from the first check after the kill. Disk used is the
fullest log-dir volume of each broker.

Which clusters: --profile a,b (or KBOX_PROFILE) selects profiles by name; with
neither, every profile of the config file. --bootstrap-server checks one
cluster given by address instead. --command-config and -X apply to every
cluster checked.

A cluster is unhealthy when it is unreachable, has no active controller, fewer
brokers up than expected, a listed broker down (unreachable or fenced), offline,
under-min-ISR or under-replicated
partitions, or a broker disk at least 90% full. The reasons follow the table
(in JSON: "problems"). Exit status: 0 when every cluster is healthy, 1 when any
is not (or on an error), 2 on a usage error.`,
		Example: `  # every profile
  kbox status
  # two profiles, as JSON for a monitoring script
  kbox status --profile prod,staging -o json
  # one cluster by address, no rate sampling
  kbox status --bootstrap-server 127.0.0.1:9092 --sample 0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmdutil.Context(cmd), f, o)
		},
	}
	o.conn.Register(cmd, true)
	fl := cmd.Flags()
	fl.DurationVar(&o.timeout, "timeout", 15*time.Second, "per-cluster time limit (connect, checks and sampling)")
	fl.DurationVar(&o.sample, "sample", time.Second, "time between the two offset samples rates come from (0: no rates)")
	cmdutil.AddOutputFlag(f, cmd, &o.format, formats)
	return cmd
}

func run(ctx context.Context, f *cmdutil.Factory, o *options) error {
	if o.timeout <= 0 {
		return cmdutil.FlagErrorf("--timeout %s: must be positive", o.timeout)
	}
	if o.sample < 0 {
		return cmdutil.FlagErrorf("--sample %s: must not be negative", o.sample)
	}
	if o.sample >= o.timeout {
		return cmdutil.FlagErrorf("--sample %s: must be shorter than --timeout %s", o.sample, o.timeout)
	}
	targets, err := buildTargets(f, o)
	if err != nil {
		return err
	}
	if p := f.IO.Progress(); p.Enabled() {
		p.Update("checking %d cluster(s)...", len(targets))
		defer p.Clear()
	}
	rep := status.NewReport(status.CheckAll(ctx, targets, o.timeout))
	f.IO.Progress().Clear()
	format := output.Format(o.format)
	if err := output.Print(f.IO, format, rep); err != nil {
		return err
	}
	if format == output.Table {
		if err := rep.WriteProblems(f.IO.Out); err != nil {
			return err
		}
	}
	if !rep.Healthy {
		return cmdutil.Exit(1)
	}
	return nil
}

// buildTargets resolves every selected cluster's connection before any
// check starts.
func buildTargets(f *cmdutil.Factory, o *options) ([]status.Target, error) {
	clusters, err := cmdutil.Clusters(f, &o.conn, "checks")
	if err != nil {
		return nil, err
	}
	out := make([]status.Target, 0, len(clusters))
	for _, c := range clusters {
		if c.Err != nil {
			out = append(out, status.Target{Name: c.Name, Err: c.Err})
			continue
		}
		out = append(out, target(f, o, c.Name, c.Conn, c.ExpectedBrokers))
	}
	return out, nil
}

func target(f *cmdutil.Factory, o *options, name string, conn *config.Connection, expected int) status.Target {
	t := status.Target{
		Name:    name,
		Options: status.Options{ExpectedBrokers: expected, Sample: o.sample},
		Connect: func(ctx context.Context) (*kgo.Client, func(), error) {
			cl, err := f.ConnectedClient(ctx, conn, kafka.Admin, kafka.Options{})
			if err != nil {
				return nil, nil, err
			}
			return cl.Client, cl.Close, nil
		},
	}
	// The most lagging groups' lag in time: read with the reader kbox
	// groups lag uses, connected only when some group lags.
	t.Options.Reader = func(context.Context) (*kgo.Client, func(), error) {
		r, err := groupsnative.NewReader(f, conn)
		if err != nil {
			return nil, nil, err
		}
		return r.Client, r.Close, nil
	}
	return t
}
