package status

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/groupsnative"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/status"
	"github.com/spf13/cobra"
)

// TopApplet is `kbox top`.
var TopApplet = cmdutil.Applet{Kind: cmdutil.Command, Alias: "top", Short: topShort, New: NewTopCmd}

const topShort = "Live records/s and bytes/s per topic, partition and broker, consume rate and lag trend per group (no JMX)"

var topFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML}}

type topOptions struct {
	conn       cmdutil.ConnFlags
	format     string
	interval   time.Duration
	iterations int
	duration   time.Duration
	sort       string
	topicRegex string
	groupRegex string
	noGroups   bool
	timeLag    bool
	internal   bool
	rows       int
	groupRows  int
	rawBytes   bool
}

// NewTopCmd builds `kbox top`.
func NewTopCmd(f *cmdutil.Factory) *cobra.Command {
	o := &topOptions{}
	cmd := &cobra.Command{
		Use:   "top",
		Short: topShort,
		Long: `Watch the rate records are written at, per topic, partition and broker,
measured from successive ListOffsets end offsets (records/s) and log-dir size
deltas (bytes/s: the leader replica's log growth; per broker, the growth of
everything its log dirs hold, replication included). No JMX is needed.

Per consumer group (and per group and topic), on the topics watched: the
consume rate, which is the commit rate (how fast the group's committed
offsets advance, the consumption an operator without JMX can observe), the
lag in records at the end of the interval, its change per second (lag/s,
positive while growing), its trend (growing, shrinking, steady) and Burrow's
verdict (OK, WARN, STALL, STOP, REWIND). Rates, trend and verdict are judged
as kbox groups lag --watch judges them: over each partition's window of its
last 10 commits, so that a group committing every 5 s does not look stopped
in one interval and twice as fast in the next. With --time-lag,
the lag in time too: the record at each lagging partition's committed offset
is read to see how long ago it was written. --group-regex keeps only some
groups; --no-groups skips them.

Every --interval a frame is printed: on a terminal, a full-screen view
redrawn in place (topics, brokers, the busiest partitions and the groups,
sorted by --sort: records and bytes order groups by their consume rate, lag
by their lag in records, and topics and partitions by records/s); when
stdout is not a terminal, one line per interval; with -o json, one JSON
object per line per interval, written as it is measured (YAML: one document
per interval). bytes/s is null ("-") when a log shrank in the
interval (retention) or its broker did not answer.

Every frame names the brokers the cluster lists that are down, as kbox status
words them ("broker 3 unreachable (connection refused)": each listed broker gets
a connection of kbox's own and one ApiVersions request per interval); their
partitions have no rate until they are back or led elsewhere.

Sizes on the terminal are in KiB/MiB/GiB (--bytes: byte counts); JSON and the
line form carry byte counts.

It runs until Ctrl-C, or for --iterations frames, or for --duration.`,
		Example: `  # the current profile's cluster, refreshed every 2 s
  kbox top --interval 2s
  # JSON lines for 30 s, topics matching orders.*
  kbox top -o json --duration 30s --topic-regex 'orders.*'
  # the most lagging groups first, with their lag in time
  kbox top --sort lag --group-regex 'billing-.*' --time-lag`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTop(cmdutil.Context(cmd), f, o)
		},
	}
	o.conn.Register(cmd, true)
	fl := cmd.Flags()
	fl.DurationVar(&o.interval, "interval", time.Second, "time between frames")
	fl.IntVar(&o.iterations, "iterations", 0, "stop after N frames (0: no limit)")
	fl.DurationVar(&o.duration, "duration", 0, "stop after this long (0: no limit)")
	fl.StringVar(&o.sort, "sort", status.SortRecords, "order of topics and partitions: "+strings.Join(status.SortOrders, ", "))
	fl.StringVar(&o.topicRegex, "topic-regex", "", "watch only topics matching this regular expression (whole name)")
	fl.StringVar(&o.groupRegex, "group-regex", "", "watch only consumer groups matching this regular expression (whole name)")
	fl.BoolVar(&o.noGroups, "no-groups", false, "do not watch consumer groups (no committed-offset requests)")
	fl.BoolVar(&o.timeLag, "time-lag", false, "also measure each group's lag in time (reads the record at each lagging partition's committed offset)")
	fl.IntVar(&o.groupRows, "groups", 10, "groups shown on a terminal")
	fl.BoolVar(&o.internal, "include-internal", false, "also watch internal topics (__consumer_offsets, ...)")
	fl.IntVar(&o.rows, "partitions", 10, "busiest partitions shown on a terminal")
	fl.BoolVar(&o.rawBytes, "bytes", false, "bytes/s as byte counts on a terminal (default: KiB/MiB/GiB; JSON and the line form hold byte counts)")
	cmdutil.AddOutputFlag(f, cmd, &o.format, topFormats)
	return cmd
}

func runTop(ctx context.Context, f *cmdutil.Factory, o *topOptions) error {
	if o.interval <= 0 {
		return cmdutil.FlagErrorf("--interval %s: must be positive", o.interval)
	}
	if o.iterations < 0 {
		return cmdutil.FlagErrorf("--iterations %d: must not be negative", o.iterations)
	}
	if o.duration < 0 {
		return cmdutil.FlagErrorf("--duration %s: must not be negative", o.duration)
	}
	if o.rows < 0 {
		return cmdutil.FlagErrorf("--partitions %d: must not be negative", o.rows)
	}
	if o.groupRows < 0 {
		return cmdutil.FlagErrorf("--groups %d: must not be negative", o.groupRows)
	}
	if o.noGroups && (o.groupRegex != "" || o.timeLag) {
		return cmdutil.FlagErrorf("--no-groups cannot be combined with --group-regex or --time-lag")
	}
	if !slices.Contains(status.SortOrders, o.sort) {
		return cmdutil.FlagErrorf("--sort %q: want one of %s", o.sort, strings.Join(status.SortOrders, ", "))
	}
	var re *regexp.Regexp
	if o.topicRegex != "" {
		r, err := regexp.Compile("^(?:" + o.topicRegex + ")$")
		if err != nil {
			return cmdutil.FlagErrorf("--topic-regex %q: %s", o.topicRegex, oneLine(err.Error()))
		}
		re = r
	}
	var gre *regexp.Regexp
	if o.groupRegex != "" {
		r, err := regexp.Compile("^(?:" + o.groupRegex + ")$")
		if err != nil {
			return cmdutil.FlagErrorf("--group-regex %q: %s", o.groupRegex, oneLine(err.Error()))
		}
		gre = r
	}
	keep := func(t string) bool {
		if !o.internal && strings.HasPrefix(t, "__") {
			return false
		}
		return re == nil || re.MatchString(t)
	}
	conn, err := o.conn.Connection(f, nil)
	if err != nil {
		return err
	}
	defer cmdutil.CancelOnInterrupt(ctx)()
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	cl, err := f.ConnectedClient(ctx, conn, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer cl.Close()
	s := &status.Sampler{Client: cl.Client, Keep: keep, Groups: !o.noGroups, GroupRegex: gre}
	if o.timeLag {
		reader, err := groupsnative.NewReader(f, conn)
		if err != nil {
			return err
		}
		defer reader.Close()
		s.Reader = reader.Client
		// The record lookups must not hold the next frame back much.
		s.TimeLagTimeout = min(max(o.interval/2, 500*time.Millisecond), 5*time.Second)
	}
	frames := output.NewFrames(f.IO, output.Format(o.format))

	prev, err := s.Sample(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return cl.Explain(err)
	}
	tick := time.NewTicker(o.interval)
	defer tick.Stop()
	for n := 0; o.iterations == 0 || n < o.iterations; {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		cur, err := s.Sample(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			// One failed sample (a broker restarting) is reported and
			// the next interval measured from the last good sample.
			f.Warn("sample failed: %s", cl.Explain(err))
			continue
		}
		if ctx.Err() != nil {
			return nil // stopped while the groups were sampled
		}
		fr := status.Frame(prev, cur, o.sort)
		prev = cur
		n++
		if err := printFrame(f, frames, fr, o); err != nil {
			return err
		}
	}
	return nil
}

// printFrame writes one frame through the watch's frame printer: a JSON
// line, a YAML document, one summary line when piped, or on a terminal the
// full-screen view in place of the last.
func printFrame(f *cmdutil.Factory, frames *output.Frames, fr *status.TopFrame, o *topOptions) error {
	return frames.Print(fr, func(out io.Writer) error {
		if !frames.Screen() {
			_, err := fmt.Fprintln(out, fr.Line(5))
			return err
		}
		return drawScreen(f, out, fr, o)
	})
}

// drawScreen is the terminal's full-screen frame.
func drawScreen(f *cmdutil.Factory, out io.Writer, fr *status.TopFrame, o *topOptions) error {
	rows, groupRows := o.rows, o.groupRows
	fmt.Fprintf(out, "kbox top  %s  every %s  total %s records/s, %s/s\n", fr.Time.Format("15:04:05"), output.Duration(time.Duration(fr.IntervalMs)*time.Millisecond), fmt.Sprintf("%.1f", fr.RecordsPerSec), bytesStr(fr.BytesPerSec, o.rawBytes))
	for _, p := range fr.Problems {
		fmt.Fprintln(out, p)
	}
	fmt.Fprintln(out)
	h, r := fr.TopicTable(o.rawBytes)
	if err := output.WriteTable(f.IO, h, r); err != nil {
		return err
	}
	fmt.Fprintln(out)
	h, r = fr.BrokerTable(o.rawBytes)
	if err := output.WriteTable(f.IO, h, r); err != nil {
		return err
	}
	if rows > 0 {
		fmt.Fprintln(out)
		h, r = fr.PartitionTable(rows, o.rawBytes)
		if err := output.WriteTable(f.IO, h, r); err != nil {
			return err
		}
	}
	if fr.GroupsError != "" {
		_, err := fmt.Fprintf(out, "\ngroups: %s\n", fr.GroupsError)
		return err
	}
	if groupRows > 0 && len(fr.Groups) > 0 {
		fmt.Fprintln(out)
		h, r = fr.GroupTable(groupRows)
		return output.WriteTable(f.IO, h, r)
	}
	return nil
}

func bytesStr(v *float64, raw bool) string {
	if v == nil {
		return "-"
	}
	if raw {
		return fmt.Sprintf("%.0f B", *v)
	}
	return output.Bytes(int64(*v + 0.5))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
