package getoffsets

import (
	"fmt"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/offsets"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
)

var nativeFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML}}

// NewNativeCmd builds the native `kbox offsets` tree: `kbox offsets get`.
func NewNativeCmd(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{Use: "offsets", Short: short}
	root.AddCommand(newGetCmd(f))
	return root
}

// now is the clock of --ago (a variable for the tests).
var now = time.Now

func newGetCmd(f *cmdutil.Factory) *cobra.Command {
	var (
		conn              cmdutil.ConnFlags
		format            string
		topic, parts      string
		at, ago, timeName string
		excludeInternal   bool
	)
	cmd := &cobra.Command{
		Use:   "get [--topic REGEX] [--partitions LIST] (--at TIME | --ago DURATION | --time POSITION)",
		Short: "The offset at a point in time on every partition (or the earliest, latest, ...)",
		Long: `Looks up, on every partition of the topics --topic selects (a regex, as
kafka-get-offsets takes it; every topic when absent), the offset of the
first record written at or after a point in time, or one of Kafka's
positions. A partition with no record that late has no offset (- in the
table, null in JSON). TIMESTAMP is the timestamp of the record found.

--at takes a date and time in local time (2026-11-30T14:05, seconds
optional, 'T' or a space), with a zone when it ends in one
(2026-11-30T14:05Z, 2026-11-30T14:05+01:00), a date (midnight), or Unix
milliseconds. --ago is a duration back from now (15m, 2h30m, 1d).
--time is latest (the default), earliest, max-timestamp, earliest-local,
latest-tiered or earliest-pending-upload.`,
		Example: `  # the offsets at 14:05 local time on every partition of orders
  kbox offsets get --topic orders --at 2026-11-30T14:05
  # fifteen minutes ago, as JSON
  kbox offsets get --topic orders --ago 15m -o json
  # the earliest offsets of partitions 0 and 1
  kbox offsets get --topic orders --partitions 0,1 --time earliest`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdutil.FlagErrorf("unexpected argument %q (the topic is --topic)", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			n := 0
			for _, v := range []string{at, ago, timeName} {
				if v != "" {
					n++
				}
			}
			if n > 1 {
				return cmdutil.FlagErrorf("give one of --at, --ago and --time")
			}
			req := offsets.Request{Time: offsets.Latest, ExcludeInternal: excludeInternal}
			switch {
			case at != "":
				t, err := offsets.ParseAt(at, time.Local)
				if err != nil {
					return cmdutil.FlagErrorf("%v", err)
				}
				req.Time = t.UnixMilli()
			case ago != "":
				d, err := offsets.ParseAgo(ago)
				if err != nil {
					return cmdutil.FlagErrorf("%v", err)
				}
				req.Time = now().Add(-d).UnixMilli()
			case timeName != "":
				v, err := offsets.ParseTimeName(timeName)
				if err != nil {
					return cmdutil.FlagErrorf("%v", err)
				}
				req.Time = v
			}
			var tp, pp *string
			if cmd.Flags().Changed("topic") {
				tp = &topic
			}
			if cmd.Flags().Changed("partitions") {
				pp = &parts
			}
			filter, err := offsets.NewTopicPartitions(tp, pp)
			if err != nil {
				return cmdutil.FlagErrorf("%v", err)
			}
			req.Filter = filter
			ctx := cmdutil.Context(cmd)
			cl, err := conn.Connect(ctx, f, kafka.Admin, kafka.Options{})
			if err != nil {
				return err
			}
			defer cl.Close()
			rep, err := offsets.List(ctx, cl.Client, req)
			if err == offsets.ErrNoMatch {
				return fmt.Errorf("no partition matches --topic and --partitions")
			}
			if err != nil {
				return cl.Explain(err)
			}
			if err := output.Print(f.IO, output.Format(format), rep); err != nil {
				return err
			}
			if s := rep.Skipped(); len(s) > 0 {
				return fmt.Errorf("%d partition(s) could not be looked up", len(s))
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&topic, "topic", "", "topics, a regex matched whole (default: every topic)")
	fl.StringVar(&parts, "partitions", "", "comma-separated partition ids (default: all)")
	fl.StringVar(&at, "at", "", "a point in time: 2026-11-30T14:05 (local), with a zone, a date, or Unix ms")
	fl.StringVar(&ago, "ago", "", "a duration back from now: 15m, 2h30m, 1d")
	fl.StringVar(&timeName, "time", "", "latest|earliest|max-timestamp|earliest-local|latest-tiered|earliest-pending-upload (default latest)")
	fl.BoolVar(&excludeInternal, "exclude-internal-topics", false, "leave out internal topics")
	conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &format, nativeFormats)
	return cmd
}
