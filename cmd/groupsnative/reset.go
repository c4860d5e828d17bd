package groupsnative

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kadm"
)

type resetOpts struct {
	conn      cmdutil.ConnFlags
	out       string
	groups    []string
	all       bool
	topics    []string
	allTopics bool

	toEarliest, toLatest, toCurrent bool
	toOffset, shiftBy               int64
	toDatetime, byDuration          string
	fromFile                        string

	execute, dryRun bool
	savePlan, plan  string
	allowStale      bool

	now func() time.Time
}

func newResetCmd(f *cmdutil.Factory) *cobra.Command {
	o := &resetOpts{now: time.Now}
	cmd := &cobra.Command{
		Use:   "reset [GROUP...]",
		Short: "Reset committed offsets as a plan: a diff by default, --execute to commit it",
		Long: `Reset committed offsets as a plan.

kbox plans the reset and prints a diff per partition: the committed offset, the
new one, and how many records the group will skip or read again. Nothing is
committed without --execute (--dry-run is the default). --save-plan FILE writes
the plan as JSON, with the committed offsets it was computed from; --plan FILE
replays a saved plan. A replay refuses, changing nothing, when a partition's
committed offset is no longer the one the plan was computed from (the group
moved on since the plan was reviewed): it prints each such partition with its
offset then and now. --allow-stale applies the plan's new offsets anyway. A
plan that does not record its offsets (no current_offset: written by hand) is
refused the same way unless --allow-stale.

Only groups without members (Empty) can be reset: an active group is refused
with its state, and nothing is committed for any group of the plan. A group
that does not exist (Dead) is noted: executing creates it with the offsets.

Exactly one specification: --to-earliest, --to-latest, --to-current,
--to-offset N, --shift-by N, --to-datetime T, --by-duration D or --from-file F;
with --topic T[:P,...] (repeatable) or --all-topics, except for --from-file.`,
		Example: `  # what would a rewind by 1000 records do?
  kbox groups reset orders-app --topic orders --shift-by -1000
  # back to one hour ago, saved for review, then applied
  kbox groups reset orders-app --all-topics --by-duration 1h --save-plan rewind.json
  kbox groups reset --plan rewind.json --execute
  # to a point in time, given in UTC
  kbox groups reset orders-app --topic orders:0,1 --to-datetime 2026-01-02T03:04:05Z --execute`,
		RunE: func(cmd *cobra.Command, args []string) error {
			fl := cmd.Flags()
			return runReset(cmdutil.Context(cmd), f, o, args, fl.Changed("to-offset"), fl.Changed("shift-by"))
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&o.groups, "group", nil, "a group to reset (repeatable; also as arguments)")
	fl.BoolVar(&o.all, "all-groups", false, "every consumer group")
	fl.StringArrayVar(&o.topics, "topic", nil, "topic to reset, T or T:P,P (repeatable)")
	fl.BoolVar(&o.allTopics, "all-topics", false, "every partition the group has committed")
	fl.BoolVar(&o.toEarliest, "to-earliest", false, "to the log start")
	fl.BoolVar(&o.toLatest, "to-latest", false, "to the log end")
	fl.BoolVar(&o.toCurrent, "to-current", false, "to the committed offset (the log end where none)")
	fl.Int64Var(&o.toOffset, "to-offset", 0, "to this offset (clamped to the log)")
	fl.Int64Var(&o.shiftBy, "shift-by", 0, "move by N records, back when negative (clamped to the log)")
	fl.StringVar(&o.toDatetime, "to-datetime", "", "to the first record at or after this time: RFC 3339 (2026-01-02T03:04:05Z) or Apache's YYYY-MM-DDTHH:mm:SS[.sss] (local time)")
	fl.StringVar(&o.byDuration, "by-duration", "", "to the first record written this long ago: 90m, 2h, or ISO 8601 (PT1H30M, P1DT2H)")
	fl.StringVar(&o.fromFile, "from-file", "", "to the offsets of a CSV file: topic,partition,offset or group,topic,partition,offset lines")
	fl.BoolVar(&o.execute, "execute", false, "commit the new offsets")
	fl.BoolVar(&o.dryRun, "dry-run", false, "only show the plan (the default)")
	fl.StringVar(&o.savePlan, "save-plan", "", "write the plan as JSON to this file")
	fl.StringVar(&o.plan, "plan", "", "replay a plan saved with --save-plan (no specification or scope)")
	fl.BoolVar(&o.allowStale, "allow-stale", false, "with --plan, apply the plan even if the committed offsets moved since it was computed")
	o.conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &o.out, viewFormats)
	return cmd
}

// spec validates the flags and builds the reset specification (nil with
// --plan).
func (o *resetOpts) spec(args []string, toOffset, shiftBy bool) (*groups.ResetSpec, error) {
	if o.execute && o.dryRun {
		return nil, cmdutil.FlagErrorf("--execute and --dry-run exclude each other")
	}
	var kinds []string
	add := func(on bool, name string) {
		if on {
			kinds = append(kinds, name)
		}
	}
	add(o.toEarliest, "--to-earliest")
	add(o.toLatest, "--to-latest")
	add(o.toCurrent, "--to-current")
	add(toOffset, "--to-offset")
	add(shiftBy, "--shift-by")
	add(o.toDatetime != "", "--to-datetime")
	add(o.byDuration != "", "--by-duration")
	add(o.fromFile != "", "--from-file")
	if o.allowStale && o.plan == "" {
		return nil, cmdutil.FlagErrorf("--allow-stale goes with --plan")
	}
	if o.plan != "" {
		if len(kinds) > 0 || len(o.topics) > 0 || o.allTopics || len(args) > 0 || len(o.groups) > 0 || o.all {
			return nil, cmdutil.FlagErrorf("--plan replays a saved plan: give no groups, scope or specification with it")
		}
		if o.savePlan != "" {
			return nil, cmdutil.FlagErrorf("--plan and --save-plan exclude each other")
		}
		return nil, nil
	}
	if err := checkGroupArgs(args, o.groups, o.all); err != nil {
		return nil, err
	}
	switch len(kinds) {
	case 0:
		return nil, cmdutil.FlagErrorf("give one reset specification: --to-earliest, --to-latest, --to-current, --to-offset, --shift-by, --to-datetime, --by-duration or --from-file")
	case 1:
	default:
		return nil, cmdutil.FlagErrorf("one reset specification at a time, not %s", strings.Join(kinds, " and "))
	}
	spec := &groups.ResetSpec{Topics: o.topics, AllTopics: o.allTopics}
	if o.fromFile == "" {
		if len(o.topics) > 0 == o.allTopics {
			return nil, cmdutil.FlagErrorf("give the scope: --topic T[:P,...] (repeatable) or --all-topics")
		}
		for _, t := range o.topics {
			if _, _, err := groups.ParseTopicArg(t); err != nil {
				return nil, cmdutil.FlagErrorf("--topic: %v", err)
			}
		}
	}
	switch {
	case o.toEarliest:
		spec.Kind = groups.ToEarliest
	case o.toLatest:
		spec.Kind = groups.ToLatest
	case o.toCurrent:
		spec.Kind = groups.ToCurrent
	case toOffset:
		if o.toOffset < 0 {
			return nil, cmdutil.FlagErrorf("--to-offset %d: must not be negative", o.toOffset)
		}
		spec.Kind, spec.Offset = groups.ToOffset, o.toOffset
	case shiftBy:
		spec.Kind, spec.Offset = groups.ShiftBy, o.shiftBy
	case o.toDatetime != "":
		t, err := parseDatetime(o.toDatetime)
		if err != nil {
			return nil, cmdutil.FlagErrorf("--to-datetime %q: %v", o.toDatetime, err)
		}
		spec.Kind, spec.TimestampMs = groups.ToDatetime, t.UnixMilli()
	case o.byDuration != "":
		d, err := parseDuration(o.byDuration)
		if err != nil {
			return nil, cmdutil.FlagErrorf("--by-duration %q: %v", o.byDuration, err)
		}
		spec.Kind, spec.TimestampMs = groups.ByDuration, o.now().Add(-d).UnixMilli()
	case o.fromFile != "":
		spec.Kind = groups.FromFile
	}
	return spec, nil
}

func runReset(ctx context.Context, f *cmdutil.Factory, o *resetOpts, args []string, toOffset, shiftBy bool) error {
	spec, err := o.spec(args, toOffset, shiftBy)
	if err != nil {
		return err
	}
	var saved *groups.Plan
	if o.plan != "" {
		fh, err := os.Open(o.plan)
		if err != nil {
			return err
		}
		saved, err = groups.ReadPlan(fh)
		fh.Close()
		if err != nil {
			return fmt.Errorf("%s: %v", o.plan, err)
		}
	}
	cl, c, err := admin(ctx, f, &o.conn)
	if err != nil {
		return err
	}
	defer cl.Close()

	var plan *groups.Plan
	var drifts []groups.Drift
	if saved != nil {
		plan, drifts, err = replayPlan(ctx, c, saved, o.now())
	} else {
		spec.Groups, err = groupArgs(ctx, c, args, o.groups, o.all)
		if err == nil && spec.Kind == groups.FromFile {
			spec.File, err = readOffsetsCSV(o.fromFile, spec.Groups)
		}
		if err == nil {
			var rp *groups.ResetPlan
			if rp, err = c.PlanReset(ctx, *spec); err == nil {
				plan = groups.NewPlan(rp, o.now())
			}
		}
	}
	if err != nil {
		var ae *groups.ArgError
		if errors.As(err, &ae) {
			return cmdutil.FlagErrorf("%s", ae.Msg)
		}
		return cl.Explain(err)
	}
	if len(drifts) > 0 {
		if !o.allowStale {
			fmt.Fprintf(f.IO.ErrOut, "kbox: error: %s: the plan is stale: %s; nothing committed\n", o.plan, driftSummary(drifts, saved.Created))
			writeDrifts(f, drifts)
			fmt.Fprintln(f.IO.ErrOut, "kbox: hint: plan the reset again, or add --allow-stale to apply the plan's new offsets anyway")
			return cmdutil.Exit(cmdutil.ExitFailure)
		}
		f.Warn("%s: the plan is stale: %s; applying it anyway (--allow-stale), from the offsets committed now", o.plan, driftSummary(drifts, saved.Created))
		writeDrifts(f, drifts)
	}
	refused := plan.Refused()
	if o.savePlan != "" && !refused {
		if err := os.WriteFile(o.savePlan, plan.Marshal(), 0o644); err != nil {
			return err
		}
	}
	if o.execute && !refused {
		if err := c.ApplyReset(ctx, plan.ResetPlan()); err != nil {
			return fmt.Errorf("commit the new offsets: %v", cl.Explain(err))
		}
		plan.Executed = true
	}
	format := output.Format(o.out)
	if err := output.Print(f.IO, format, plan); err != nil {
		return err
	}
	for _, g := range plan.Groups {
		if g.Reason != "" && !g.Refused {
			fmt.Fprintf(f.IO.ErrOut, "kbox: note: %s\n", g.Reason)
		}
	}
	if refused {
		for _, g := range plan.Groups {
			if g.Refused {
				fmt.Fprintf(f.IO.ErrOut, "kbox: error: %s\n", g.Reason)
			}
		}
		fmt.Fprintln(f.IO.ErrOut, "kbox: error: nothing committed, nothing saved")
		return cmdutil.Exit(cmdutil.ExitFailure)
	}
	n, skipped, replayed := plan.Totals()
	switch {
	case plan.Executed:
		fmt.Fprintf(f.IO.ErrOut, "Committed new offsets for %d partition(s): %d record(s) skipped, %d replayed.\n", n, skipped, replayed)
	default:
		fmt.Fprintf(f.IO.ErrOut, "Dry run: %d partition(s), %d record(s) would be skipped, %d replayed; nothing committed (add --execute to apply).\n", n, skipped, replayed)
	}
	if o.savePlan != "" {
		fmt.Fprintf(f.IO.ErrOut, "Plan saved to %s (replay: kbox groups reset --plan %s --execute).\n", o.savePlan, o.savePlan)
	}
	return nil
}

// driftSummary says in words how a saved plan drifted.
func driftSummary(ds []groups.Drift, created time.Time) string {
	moved, unrecorded := 0, 0
	for _, d := range ds {
		if d.Unrecorded {
			unrecorded++
		} else {
			moved++
		}
	}
	var parts []string
	if moved > 0 {
		parts = append(parts, fmt.Sprintf("the committed offsets of %d partition(s) moved since it was computed (%s)", moved, created.UTC().Format(time.RFC3339)))
	}
	if unrecorded > 0 {
		parts = append(parts, fmt.Sprintf("it does not record the committed offsets of %d partition(s) it was computed from (no current_offset)", unrecorded))
	}
	return strings.Join(parts, "; ")
}

// writeDrifts prints the drifted partitions on stderr: offset then, and now.
func writeDrifts(f *cmdutil.Factory, ds []groups.Drift) {
	tw := tabwriter.NewWriter(f.IO.ErrOut, 0, 0, 2, ' ', 0)
	for _, r := range append([][]string{groups.DriftHeader()}, groups.DriftRows(ds)...) {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
}

// replayPlan checks a saved plan against the groups now: their states
// (an active group is refused) and their committed offsets (the diff is
// from what is committed now to the plan's new offsets). The drifts are
// the partitions whose committed offset is no longer the one the plan was
// computed from.
func replayPlan(ctx context.Context, c *groups.Client, saved *groups.Plan, now time.Time) (*groups.Plan, []groups.Drift, error) {
	ds, err := c.Describe(ctx, saved.GroupNames())
	if err != nil {
		return nil, nil, err
	}
	state := map[string]string{}
	for _, d := range ds {
		var nf *groups.ErrGroupNotFound
		switch {
		case d.Err == nil:
			state[d.Group] = d.State
		case errors.As(d.Err, &nf):
			state[d.Group] = "Dead"
		default:
			return nil, nil, fmt.Errorf("group %s: %v", d.Group, d.Err)
		}
	}
	plan := *saved
	plan.Groups = nil
	plan.Executed = false
	plan.Created = now
	committed := map[string]map[groups.TopicPartition]int64{}
	for _, g := range saved.Groups {
		g.State, g.Reason, g.Refused = state[g.Group], "", false
		switch g.State {
		case "Empty":
		case "Dead":
			g.Reason = fmt.Sprintf("group %s does not exist: executing the plan creates it with these offsets", g.Group)
		default:
			g.Refused, g.Reason = true, groups.RefusalReason(g.Group, g.State)
		}
		rs, err := c.Adm.FetchOffsets(ctx, g.Group)
		if err != nil {
			return nil, nil, fmt.Errorf("group %s: %w", g.Group, err)
		}
		m := map[groups.TopicPartition]int64{}
		rs.Each(func(or kadm.OffsetResponse) {
			if or.Err == nil && or.At >= 0 {
				m[groups.TopicPartition{Topic: or.Topic, Partition: or.Partition}] = or.At
			}
		})
		committed[g.Group] = m
		plan.Groups = append(plan.Groups, g)
	}
	drifts := plan.Drifts(committed)
	plan.Rebase(committed)
	return &plan, drifts, nil
}

// readOffsetsCSV reads --from-file: "topic,partition,offset" lines (for
// every group) or "group,topic,partition,offset" lines.
func readOffsetsCSV(path string, names []string) (map[string]map[groups.TopicPartition]int64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	out := map[string]map[groups.TopicPartition]int64{}
	put := func(g string, tp groups.TopicPartition, off int64) {
		if out[g] == nil {
			out[g] = map[groups.TopicPartition]int64{}
		}
		out[g][tp] = off
	}
	sc := bufio.NewScanner(fh)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		fs := strings.Split(s, ",")
		var group string
		switch len(fs) {
		case 3:
		case 4:
			group, fs = fs[0], fs[1:]
		default:
			return nil, cmdutil.FlagErrorf("--from-file %s line %d: want topic,partition,offset or group,topic,partition,offset", path, line)
		}
		p, err1 := strconv.ParseInt(fs[1], 10, 32)
		off, err2 := strconv.ParseInt(fs[2], 10, 64)
		if fs[0] == "" || err1 != nil || err2 != nil || p < 0 || off < 0 {
			return nil, cmdutil.FlagErrorf("--from-file %s line %d: bad line %q", path, line, s)
		}
		tp := groups.TopicPartition{Topic: fs[0], Partition: int32(p)}
		if group != "" {
			put(group, tp, off)
			continue
		}
		for _, g := range names {
			put(g, tp, off)
		}
	}
	return out, sc.Err()
}

// parseDuration reads a Go duration (90m, 1h30m) or an ISO 8601 one as
// Java's Duration.parse reads it (PT1H30M, P1DT2H; what Apache's
// --by-duration takes: javafmt.ParseDuration); it must be positive.
func parseDuration(s string) (time.Duration, error) {
	if u := strings.ToUpper(s); strings.HasPrefix(u, "P") || strings.HasPrefix(u, "-P") || strings.HasPrefix(u, "+P") {
		d, err := javafmt.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("want a duration such as 90m, 2h or PT1H30M")
		}
		if d <= 0 {
			return 0, fmt.Errorf("must be positive")
		}
		return d, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("want a duration such as 90m, 2h or PT1H30M")
	}
	if d <= 0 {
		return 0, fmt.Errorf("must be positive")
	}
	return d, nil
}

// parseDatetime reads RFC 3339, or Apache's layout without a zone
// (local time), with or without milliseconds.
func parseDatetime(s string) (time.Time, error) {
	for _, l := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000Z07:00", "2006-01-02T15:04:05.000Z0700"} {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	for _, l := range []string{"2006-01-02T15:04:05.000", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(l, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("want 2026-01-02T03:04:05Z, 2026-01-02T03:04:05.000+01:00 or 2026-01-02T03:04:05.000 (local time)")
}
