// Package exporter is `kbox exporter`: a Prometheus exporter over every
// profile's cluster (pkg/exporter measures and serves).
package exporter

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/groupsnative"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/exporter"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Applet is `kbox exporter`. Like `kbox status` it reads the global
// --profile itself, as a comma-separated list of profiles.
var Applet = cmdutil.Applet{Kind: cmdutil.Command, Alias: "exporter", NoProfile: true, Short: short, New: NewCmd}

const short = "Prometheus exporter: cluster health, topic rates, group lag in records and seconds, disk, no JMX"

// Granularities of the group series.
const (
	granPartition = "partition"
	granTopic     = "topic"
)

type options struct {
	conn         cmdutil.ConnFlags
	server       cmdutil.ServeFlags
	interval     time.Duration
	timeout      time.Duration
	topicAllow   string
	topicDeny    string
	groupAllow   string
	groupDeny    string
	granularity  string
	maxTopics    int
	maxGroups    int
	maxGroupPart int
	noTimeLag    bool
	timeLagWait  time.Duration
	probeTopic   string
	probeEvery   time.Duration
	probeTimeout time.Duration
	duration     time.Duration
}

// NewCmd builds `kbox exporter`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "exporter",
		Short: short,
		Long: `Serve /metrics in the Prometheus text format for every profile's cluster (or
--profile a,b, or one --bootstrap-server: the clusters kbox status checks),
measured without JMX: brokers up and expected, the controller, the KRaft
quorum's lag, under-replicated, under-min-ISR, offline and non-preferred
partitions (per cluster and per topic), per topic the log end offset,
records/s and bytes/s in and the size on disk, per consumer group and topic
(and partition) the committed offset, the lag in records and in seconds (how
long ago the next unconsumed record was written) and Burrow's verdict (OK,
WARN, STALL, STOP, REWIND), per broker and log dir the bytes used, total and
free. With --probe-topic, an end-to-end probe times produce -> ack and
produce -> consume. Every metric has a cluster label; docs/exporter.md lists
them.

One loop per cluster refreshes everything every --interval; a scrape serves
what the last refresh measured and never reaches a cluster, so any number of
Prometheus servers cost the clusters what one does. Rates come from the
growth between two refreshes; verdicts are judged over a window of the last
10 commits each refresh saw (kbox groups lag --watch).

Cost: --topic-allow/--topic-deny and --group-allow/--group-deny select what
is served (whole-name regular expressions); --max-topics, --max-groups and
--max-group-partitions cap the label sets per cluster (the first by name are
kept; kbox_exporter_cardinality_dropped_total counts the others). Group
series are per group and topic; --group-granularity partition adds them per
partition too.

The server listens on loopback only, unless --allow-remote is given: then it
needs an access token (--token-file or KBOX_EXPORTER_TOKEN; Prometheus sends
it with "authorization: credentials_file: ...") and HTTPS (--tls-cert/--tls-key
or --tls-self-signed), or plain HTTP with --plain-http-on-trusted-network. On
loopback a token is optional. /healthz and /readyz (200 once every cluster was
refreshed once) need no token.

Memory: the exporter runs Go's garbage collector at GOGC=50 (its heap grows
to 1.5 times what a refresh keeps rather than 2 times: about 120 MiB of RSS
for 10,000 partitions and 100,000 group partitions), unless GOGC or
GOMEMLIMIT is set in the environment.

The first line on stdout is the metrics URL. Stops on SIGINT/SIGTERM, or
after --duration.`,
		Example: `  # every profile, on 127.0.0.1:9809
  kbox exporter
  # two profiles, a refresh every 30s, no internal topics, lag per partition too
  kbox exporter --profile prod,staging --interval 30s --topic-deny '__.*' --group-granularity partition
  # for a remote Prometheus: HTTPS and a token
  kbox exporter --listen 0.0.0.0:9809 --allow-remote --tls-cert cert.pem --tls-key key.pem --token-file /etc/kbox/exporter-token
  # with the end-to-end probe
  kbox exporter --probe-topic kbox-probe`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmdutil.Context(cmd), f, cmd, o)
		},
	}
	o.conn.Register(cmd, true)
	o.server.Register(cmd, cmdutil.ServeSpec{Name: "kbox exporter", What: "exporter", DefaultListen: "127.0.0.1:9809", TokenEnv: "KBOX_EXPORTER_TOKEN", TokenOptional: true})
	fl := cmd.Flags()
	fl.DurationVar(&o.interval, "interval", 15*time.Second, "time between two refreshes of a cluster (at least 1s)")
	fl.DurationVar(&o.timeout, "timeout", 30*time.Second, "time limit of one refresh of a cluster")
	fl.StringVar(&o.topicAllow, "topic-allow", "", "serve only topics whose whole name matches this regular expression")
	fl.StringVar(&o.topicDeny, "topic-deny", "", "do not serve topics whose whole name matches this regular expression")
	fl.StringVar(&o.groupAllow, "group-allow", "", "serve only consumer groups whose whole name matches this regular expression")
	fl.StringVar(&o.groupDeny, "group-deny", "", "do not serve consumer groups whose whole name matches this regular expression")
	fl.StringVar(&o.granularity, "group-granularity", granTopic, "group series per topic (topic), or per topic and per partition (partition)")
	fl.IntVar(&o.maxTopics, "max-topics", 5000, "serve at most this many topics per cluster (0: no cap)")
	fl.IntVar(&o.maxGroups, "max-groups", 5000, "serve at most this many consumer groups per cluster (0: no cap)")
	fl.IntVar(&o.maxGroupPart, "max-group-partitions", 10000, "serve at most this many group partitions per cluster (0: no cap)")
	fl.BoolVar(&o.noTimeLag, "no-time-lag", false, "do not measure the lag in seconds (it reads the record at each lagging committed offset whose timestamp is not known yet)")
	fl.DurationVar(&o.timeLagWait, "time-lag-timeout", 5*time.Second, "time limit of the record reads of the lag in seconds, per refresh")
	fl.StringVar(&o.probeTopic, "probe-topic", "", "run the end-to-end probe on this topic (created when missing: one partition per broker)")
	fl.DurationVar(&o.probeEvery, "probe-interval", time.Second, "time between two probe rounds (one record per partition)")
	fl.DurationVar(&o.probeTimeout, "probe-timeout", 10*time.Second, "a probe record not consumed back within this time counts as lost")
	fl.DurationVar(&o.duration, "duration", 0, "stop after this long (0: until SIGINT/SIGTERM)")
	return cmd
}

func (o *options) validate() (exporter.Options, error) {
	var eo exporter.Options
	switch {
	case o.duration < 0:
		return eo, cmdutil.FlagErrorf("--duration %s: must not be negative", o.duration)
	case o.interval < time.Second:
		return eo, cmdutil.FlagErrorf("--interval %s: must be at least 1s", o.interval)
	case o.timeout <= 0:
		return eo, cmdutil.FlagErrorf("--timeout %s: must be positive", o.timeout)
	case o.timeLagWait <= 0:
		return eo, cmdutil.FlagErrorf("--time-lag-timeout %s: must be positive", o.timeLagWait)
	case o.granularity != granPartition && o.granularity != granTopic:
		return eo, cmdutil.FlagErrorf("--group-granularity %q: want partition or topic", o.granularity)
	case o.maxTopics < 0 || o.maxGroups < 0 || o.maxGroupPart < 0:
		return eo, cmdutil.FlagErrorf("--max-topics, --max-groups and --max-group-partitions must not be negative")
	case o.probeEvery < 10*time.Millisecond:
		return eo, cmdutil.FlagErrorf("--probe-interval %s: must be at least 10ms", o.probeEvery)
	case o.probeTimeout <= 0:
		return eo, cmdutil.FlagErrorf("--probe-timeout %s: must be positive", o.probeTimeout)
	}
	var err error
	re := func(flag, expr string) *regexp.Regexp {
		if err != nil {
			return nil
		}
		r, e := exporter.WholeName(expr)
		if e != nil {
			err = cmdutil.FlagErrorf("%s %q: %s", flag, expr, strings.Join(strings.Fields(e.Error()), " "))
		}
		return r
	}
	eo.Topics = exporter.Filter{Allow: re("--topic-allow", o.topicAllow), Deny: re("--topic-deny", o.topicDeny)}
	eo.Groups = exporter.Filter{Allow: re("--group-allow", o.groupAllow), Deny: re("--group-deny", o.groupDeny)}
	if err != nil {
		return eo, err
	}
	eo.Interval, eo.Timeout, eo.TimeLagTimeout = o.interval, o.timeout, o.timeLagWait
	eo.GroupPartitions = o.granularity == granPartition
	eo.MaxTopics, eo.MaxGroups, eo.MaxGroupPartitions = o.maxTopics, o.maxGroups, o.maxGroupPart
	eo.Probe = exporter.ProbeOptions{Topic: o.probeTopic, Interval: o.probeEvery, Timeout: o.probeTimeout}
	return eo, nil
}

func run(ctx context.Context, f *cmdutil.Factory, cmd *cobra.Command, o *options) error {
	eo, err := o.validate()
	if err != nil {
		return err
	}
	sv, err := o.server.Resolve(f, cmd, o.timeout)
	if err != nil {
		return err
	}
	clusters, err := cmdutil.Clusters(f, &o.conn, "serves")
	if err != nil {
		return err
	}
	for _, c := range clusters {
		if c.Err != nil {
			// A profile that did not resolve: served as unreachable.
			eo.Clusters = append(eo.Clusters, exporter.Cluster{Name: c.Name, Err: c.Err})
			continue
		}
		eo.Clusters = append(eo.Clusters, cluster(f, o, c.Name, c.Conn, c.ExpectedBrokers))
	}
	eo.Version = f.Version
	tuneGC()
	exp, err := exporter.New(eo)
	if err != nil {
		return err
	}
	ln, base, _, err := sv.Listen()
	if err != nil {
		return err
	}
	fmt.Fprintln(f.IO.Out, base+"/metrics")
	if sv.Fingerprint != "" {
		fmt.Fprintf(f.IO.Out, "TLS certificate SHA-256 fingerprint: %s\n", sv.Fingerprint)
	}
	fmt.Fprintf(f.IO.ErrOut, "kbox exporter: %d cluster(s), a refresh every %s; stop with Ctrl-C\n", len(eo.Clusters), o.interval)

	runCtx, cancelRun := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		exp.Run(runCtx)
	}()
	defer func() { cancelRun(); <-ran }()
	return sv.Serve(ctx, ln, exp.Handler(exporter.HandlerOptions{Token: sv.Token, Remote: !sv.Loopback}), o.duration)
}

// gcPercent is the exporter's GOGC: a refresh of 100,000 group partitions
// allocates about 70 MB that is garbage by the next one, on top of the
// ~45 MB of windows and samples it keeps; at 50 the heap peaks near 1.5
// times that instead of 2 times, for a little more collection (the
// windows hold no pointers: they are not scanned).
const gcPercent = 50

// tuneGC sets the garbage collector's target to gcPercent unless the
// environment sets GOGC or GOMEMLIMIT (the user's choice wins); it
// reports whether it did.
func tuneGC() bool {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(gcPercent)
	return true
}

// cluster is one connection as the exporter uses it: an admin client, the
// reader of the lag in seconds (kbox groups lag's), and the probe's
// clients.
func cluster(f *cmdutil.Factory, o *options, name string, conn *config.Connection, expected int) exporter.Cluster {
	c := exporter.Cluster{
		Name:            name,
		ExpectedBrokers: expected,
		Connect: func(ctx context.Context) (*kgo.Client, error) {
			cl, err := f.ConnectedClient(ctx, conn, kafka.Admin, kafka.Options{})
			if err != nil {
				return nil, err
			}
			return cl.Client, nil
		},
		ProbeClients: func(ctx context.Context, prodOpts, consOpts []kgo.Opt) (*kgo.Client, *kgo.Client, func(), error) {
			prod, err := f.ConnectedClient(ctx, conn, kafka.Producer, kafka.Options{Extra: prodOpts})
			if err != nil {
				return nil, nil, nil, err
			}
			cons, err := f.ConnectedClient(ctx, conn, kafka.Consumer, kafka.Options{Extra: consOpts,
				Tune: func(s *kafka.Settings) { s.GroupID = "" }})
			if err != nil {
				prod.Close()
				return nil, nil, nil, err
			}
			return prod.Client, cons.Client, func() { prod.Close(); cons.Close() }, nil
		},
	}
	if !o.noTimeLag {
		c.Reader = func(context.Context) (*kgo.Client, func(), error) {
			r, err := groupsnative.NewReader(f, conn)
			if err != nil {
				return nil, nil, err
			}
			return r.Client, r.Close, nil
		}
	}
	return c
}
