package groupsnative

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kgo"
)

// NativeShort describes the native subcommands.
const NativeShort = "Consumer groups: list, describe, lag in time with --watch, resets as a plan, delete"

// NewNativeCmd builds the native `kbox groups` tree. Its subcommand names
// are NativeNames.
func NewNativeCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "groups", Short: NativeShort, SilenceUsage: true, SilenceErrors: true}
	cmd.AddCommand(newListCmd(f), newDescribeCmd(f), newLagCmd(f), newResetCmd(f), newDeleteCmd(f))
	return cmd
}

var lagFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.Wide, output.JSON, output.YAML}}

type lagOpts struct {
	conn        cmdutil.ConnFlags
	out         string
	groups      []string
	groupRegex  string
	topicRegex  string
	onlyLagging bool
	sort        string
	watch       bool
	interval    time.Duration
	count       int
	noTime      bool
	timeTimeout time.Duration
}

func newLagCmd(f *cmdutil.Factory) *cobra.Command {
	o := &lagOpts{}
	cmd := &cobra.Command{
		Use:   "lag [GROUP...]",
		Short: "Lag in records and in time per group, topic and partition; --watch for rates and an ETA",
		Long: `Lag in records and in time per group, topic and partition.

The time lag of a partition is how long ago the next unconsumed record (the one
at the group's committed offset) was written: its timestamp against now. A
partition whose committed offset is its log-end offset is "caught up".

With --watch, kbox samples again every --interval and keeps, per partition, a
window of the last 10 commits it saw (a sample in which the committed offset
had moved). From the windows it prints, per group and topic (per partition
with -o wide), the produce rate (log-end offsets), the consume rate (committed
offsets), the lag trend, an estimated time to catch up (only while the window
shows the lag shrinking), and Burrow's verdict:

  OK      caught up, or nothing below applies
  WARN    the lag never decreased over the window (at least 3 commits)
  STALL   the committed offset has not moved, with lag, for more than twice
          the longest gap between two commits of the window
  STOP    no commit, with lag, for longer than the window spans
  REWIND  the committed offset went back within the window

A group's verdict is its worst partition's. A sample taken between two commits
adds nothing to the trend. Without --watch there is one sample: the verdict is
OK when caught up, STOP when lagging in a group without members, else "-".
A named group that does not exist is an error (exit 1).`,
		Example: `  # every group's lag, largest first
  kbox groups lag --sort lag
  # one partition per row, with committed and log-end offsets
  kbox groups lag orders-app -o wide
  # watch the lagging groups of orders topics every 10 s
  kbox groups lag --only-lagging --topic-regex 'orders.*' --watch --interval 10s
  # five samples as JSON lines
  kbox groups lag --watch --interval 2s --count 5 -o json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.groups = append(o.groups, args...)
			return runLag(cmdutil.Context(cmd), f, o)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&o.groups, "group", nil, "a group to show (repeatable; also as arguments); default every group")
	fl.StringVar(&o.groupRegex, "group-regex", "", "only groups whose whole name matches this regular expression")
	fl.StringVar(&o.topicRegex, "topic-regex", "", "only topics whose whole name matches this regular expression")
	fl.BoolVar(&o.onlyLagging, "only-lagging", false, "only partitions (and groups) with lag")
	fl.StringVar(&o.sort, "sort", groups.SortName, "group order: lag (most records behind first), time (largest time lag first) or name")
	fl.BoolVar(&o.watch, "watch", false, "sample again every --interval: rates, trend and ETA (until interrupted or --count samples)")
	fl.DurationVar(&o.interval, "interval", 5*time.Second, "time between samples with --watch")
	fl.IntVar(&o.count, "count", 0, "with --watch, stop after this many samples (0: until interrupted)")
	fl.BoolVar(&o.noTime, "no-time-lag", false, "do not read records to measure lag in time")
	fl.DurationVar(&o.timeTimeout, "time-lag-timeout", 5*time.Second, "how long to wait for the records that give the time lag")
	o.conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &o.out, lagFormats)
	return cmd
}

func compileRegex(flag, s string) (*regexp.Regexp, error) {
	if s == "" {
		return nil, nil
	}
	re, err := regexp.Compile("^(?:" + s + ")$")
	if err != nil {
		return nil, cmdutil.FlagErrorf("%s %q: %v", flag, s, err)
	}
	return re, nil
}

func (o *lagOpts) validate() (greg, treg *regexp.Regexp, err error) {
	if !groups.ValidSort(o.sort) {
		return nil, nil, cmdutil.FlagErrorf("--sort %q: want lag, time or name", o.sort)
	}
	if o.watch && o.interval < 100*time.Millisecond {
		return nil, nil, cmdutil.FlagErrorf("--interval %v: must be at least 100ms", o.interval)
	}
	if o.count < 0 {
		return nil, nil, cmdutil.FlagErrorf("--count %d: must not be negative", o.count)
	}
	if o.count > 0 && !o.watch {
		return nil, nil, cmdutil.FlagErrorf("--count needs --watch")
	}
	if o.timeTimeout <= 0 {
		return nil, nil, cmdutil.FlagErrorf("--time-lag-timeout must be positive")
	}
	if greg, err = compileRegex("--group-regex", o.groupRegex); err != nil {
		return nil, nil, err
	}
	if treg, err = compileRegex("--topic-regex", o.topicRegex); err != nil {
		return nil, nil, err
	}
	return greg, treg, nil
}

// clients connects the admin client and, unless time lag is off, the
// reader: a consumer without a group that reads single records.
func clients(ctx context.Context, f *cmdutil.Factory, flags *cmdutil.ConnFlags, withReader bool) (*kafka.Client, *kafka.Client, error) {
	conn, err := flags.Connection(f, nil)
	if err != nil {
		return nil, nil, err
	}
	adm, err := f.ConnectedClient(ctx, conn, kafka.Admin, kafka.Options{})
	if err != nil {
		return nil, nil, err
	}
	if !withReader {
		return adm, nil, nil
	}
	reader, err := NewReader(f, conn)
	if err != nil {
		adm.Close()
		return nil, nil, err
	}
	return adm, reader, nil
}

// NewReader connects the client groups.Lag reads records with to measure
// lag in time: a consumer without a group (kbox status uses it too).
func NewReader(f *cmdutil.Factory, conn *config.Connection) (*kafka.Client, error) {
	return f.Client(conn, kafka.Consumer, kafka.Options{
		Tune: func(s *kafka.Settings) { s.GroupID = "" },
		Extra: []kgo.Opt{
			kgo.FetchMaxWait(500 * time.Millisecond),
			kgo.FetchMaxPartitionBytes(64 << 10),
			// A committed offset below the log start: the group resumes
			// at the earliest record (what it will read next, with the
			// usual auto.offset.reset=earliest).
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		},
	})
}

func runLag(ctx context.Context, f *cmdutil.Factory, o *lagOpts) error {
	greg, treg, err := o.validate()
	if err != nil {
		return err
	}
	adm, reader, err := clients(ctx, f, &o.conn, !o.noTime)
	if err != nil {
		return err
	}
	defer adm.Close()
	req := groups.LagRequest{Groups: o.groups, GroupRegex: greg, TopicRegex: treg, TimeLagTimeout: o.timeTimeout}
	if reader != nil {
		defer reader.Close()
		req.Reader = reader.Client
	}
	format := output.Format(o.out)
	if !o.watch {
		rep, err := groups.Lag(ctx, adm.Client, req)
		if err != nil {
			return adm.Explain(err)
		}
		missing := dropMissing(rep, o.groups)
		if len(missing) == 0 || len(rep.Groups) > 0 {
			rep.Filter(o.onlyLagging, o.sort)
			if err := output.Print(f.IO, format, rep); err != nil {
				return err
			}
		}
		if err := notFound(missing); err != nil {
			return err
		}
		if len(o.groups) > 0 {
			// A group asked for by name whose offsets could not be read.
			for _, g := range rep.Groups {
				if g.Error != "" {
					return fmt.Errorf("group %s: %s", g.Group, g.Error)
				}
			}
		}
		return nil
	}

	defer cmdutil.CancelOnInterrupt(ctx)()
	var s groups.Sampler
	frames := output.NewFrames(f.IO, format)
	frames.Gap = true
	tick := time.NewTicker(o.interval)
	defer tick.Stop()
	failures := 0
	for n := 1; ; {
		rep, err := groups.Lag(ctx, adm.Client, req)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil // interrupted
		case err != nil:
			// A watch rides out a failed sample (a coordinator moving, a
			// broker restarting); three in a row end it.
			failures++
			if failures >= 3 {
				return adm.Explain(err)
			}
			f.Warn("sample failed, retrying at the next interval: %v", adm.Explain(err))
			select {
			case <-ctx.Done():
				return nil
			case <-tick.C:
			}
			continue
		}
		failures = 0
		// A named group that does not exist (or no longer does) ends the
		// watch.
		if missing := dropMissing(rep, o.groups); len(missing) > 0 {
			return notFound(missing)
		}
		ws := s.Add(rep)
		ws.Filter(o.onlyLagging, o.sort)
		if err := printSample(f, frames, format, ws); err != nil {
			return err
		}
		if o.count > 0 && n >= o.count {
			return nil
		}
		n++
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// dropMissing removes from the report the named groups that do not exist
// (no group and no committed offsets) and returns their names.
func dropMissing(rep *groups.LagReport, named []string) []string {
	if len(named) == 0 {
		return nil
	}
	var missing []string
	kept := rep.Groups[:0]
	for _, g := range rep.Groups {
		if g.Missing() {
			missing = append(missing, g.Group)
			continue
		}
		kept = append(kept, g)
	}
	rep.Groups = kept
	return missing
}

// notFound is the error naming the groups that do not exist (nil when none).
func notFound(missing []string) error {
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("group %s not found", missing[0])
	}
	return fmt.Errorf("groups %s not found", strings.Join(missing, ", "))
}

// printSample writes one watch sample through the watch's frame printer: a
// JSON line, a YAML document, or a table under a line naming the sample (on
// a terminal, in place of the previous one).
func printSample(f *cmdutil.Factory, frames *output.Frames, format output.Format, ws *groups.WatchSample) error {
	return frames.Print(ws, func(w io.Writer) error {
		head := fmt.Sprintf("%s  sample %d", ws.Time.Local().Format("15:04:05"), ws.Sample)
		if ws.IntervalSec != nil {
			head += fmt.Sprintf(", rates over %.1fs", *ws.IntervalSec)
		} else {
			head += ", rates from the next sample"
		}
		fmt.Fprintln(w, head)
		if format == output.Wide {
			return output.Print(f.IO, output.Wide, ws)
		}
		return output.Print(f.IO, output.Table, ws)
	})
}
