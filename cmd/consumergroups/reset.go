package consumergroups

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/twmb/franz-go/pkg/kerr"
)

// tpHash is TopicPartition.hashCode.
func tpHash(topic string, partition int32) int32 {
	return 31*(31+partition) + javafmt.StringHash(topic)
}

// hashOrderTPs returns partitions in the iteration order of a
// HashMap<TopicPartition, ?> filled in the given order.
func hashOrderTPs(ps []groups.PartitionReset) []groups.PartitionReset {
	hashes := make([]int32, len(ps))
	for i, p := range ps {
		hashes[i] = tpHash(p.Topic, p.Partition)
	}
	out := make([]groups.PartitionReset, 0, len(ps))
	for _, i := range javafmt.HashOrder(hashes, javafmt.HashMapCapacity(-1, len(ps))) {
		out = append(out, ps[i])
	}
	return out
}

// hashOrderGroups returns the plan's groups in the order of Apache's
// HashMap<String, ?> of groups.
func hashOrderGroups(gs []groups.GroupReset) []groups.GroupReset {
	names := make([]string, len(gs))
	by := map[string]groups.GroupReset{}
	for i, g := range gs {
		names[i] = g.Group
		by[g.Group] = g
	}
	var out []groups.GroupReset
	for _, n := range javafmt.HashMapOrder(names, -1) {
		out = append(out, by[n])
	}
	return out
}

// resetKind picks the spec in the order prepareOffsetsToReset tests them.
func (r *runner) resetKind() groups.ResetKind {
	for _, k := range []groups.ResetKind{groups.ToOffset, groups.ToEarliest, groups.ToLatest, groups.ShiftBy, groups.ToDatetime, groups.ByDuration, groups.FromFile, groups.ToCurrent} {
		if r.p.has(string(k)) {
			return k
		}
	}
	return ""
}

func (r *runner) reset(ctx context.Context, s *service) error {
	ids, err := r.groupIDs(ctx, s)
	if err != nil {
		return err
	}
	spec := groups.ResetSpec{Groups: ids, AllTopics: r.p.has("all-topics"), Topics: r.p.Values("topic"), Kind: r.resetKind()}
	switch spec.Kind {
	case groups.ToOffset:
		spec.Offset = *s.toOff
	case groups.ShiftBy:
		spec.Offset = *s.shift
	case groups.ToDatetime:
		if spec.TimestampMs, err = parseDateTime(s.date); err != nil {
			return err
		}
	case groups.ByDuration:
		d, err := javafmt.ParseDuration(s.dur)
		if err != nil {
			return err
		}
		spec.TimestampMs = time.Now().Add(-d).UnixMilli()
	case groups.FromFile:
		b, err := os.ReadFile(s.file)
		if err != nil {
			return fmt.Errorf("java.nio.file.NoSuchFileException: %s", s.file)
		}
		if spec.File, err = parseResetCSV(string(b), r.p.Values("group")); err != nil {
			return err
		}
	}
	plan, err := s.g.PlanReset(ctx, spec)
	switch {
	case errors.Is(err, groups.ErrNoScope):
		return usagef("One of the reset scopes should be defined: --all-topics, --topic.")
	case errors.Is(err, groups.ErrNoSpec):
		return usagef("Option '[reset-offsets]' requires one of the following scenarios: [[to-offset], [to-earliest], [to-current], [to-latest], [by-duration], [to-datetime], [from-file], [shift-by]]")
	case err != nil:
		var ae *groups.ArgError
		var up *groups.UnknownPartitionsError
		if errors.As(err, &ae) {
			return usagef("%s", ae.Msg)
		}
		if !errors.As(err, &up) && errors.Is(err, kerr.UnknownTopicOrPartition) {
			// A --topic without partitions names a missing topic: Apache
			// rethrows the cause itself.
			return errors.New(kerr.UnknownTopicOrPartition.Description)
		}
		return err
	}
	ordered := hashOrderGroups(plan.Groups)
	for _, g := range ordered {
		switch {
		case g.Refused:
			r.printError(fmt.Sprintf("Assignments can only be reset if the group '%s' is inactive, but the current state is %s.", g.Group, g.State))
		case g.NoFilePlan:
			r.printError("No reset plan for group " + g.Group + " found.")
		}
		for _, p := range hashOrderTPs(g.Partitions) {
			if p.NoRecordAtTime {
				fmt.Fprintf(r.out, "\nWarn: Partition %d from topic %s is empty. Falling back to latest known offset.\n", p.Partition, p.Topic)
			}
		}
		for _, p := range hashOrderTPs(g.Partitions) {
			tp := fmt.Sprintf("%s-%d", p.Topic, p.Partition)
			switch p.Clamped {
			case "latest":
				r.log4jWarn(fmt.Sprintf("New offset (%d) is higher than latest offset for topic partition %s. Value will be set to %d.", p.Requested, tp, p.New))
			case "earliest":
				r.log4jWarn(fmt.Sprintf("New offset (%d) is lower than earliest offset for topic partition %s. Value will be set to %d.", p.Requested, tp, p.New))
			}
		}
	}
	if r.p.has("execute") {
		if err := s.g.ApplyReset(ctx, plan); err != nil {
			return err
		}
	}
	if r.p.has("export") {
		single := len(r.p.Values("group")) == 1
		var b strings.Builder
		for _, g := range ordered {
			for _, p := range hashOrderTPs(g.Partitions) {
				if !single {
					b.WriteString(csvField(g.Group) + ",")
				}
				fmt.Fprintf(&b, "%s,%d,%d\n", csvField(p.Topic), p.Partition, p.New)
			}
		}
		fmt.Fprintln(r.out, b.String())
		return nil
	}
	wg, wt := 15, 15
	for _, g := range ordered {
		wg = max(wg, len(g.Group))
		for _, p := range g.Partitions {
			wt = max(wt, len(p.Topic))
		}
	}
	format := fmt.Sprintf("\n%%-%ds %%-%ds %%-10s %%s", wg, wt)
	if len(ordered) > 0 {
		fmt.Fprintf(r.out, format, "GROUP", "TOPIC", "PARTITION", "NEW-OFFSET")
	}
	for _, g := range ordered {
		for _, p := range hashOrderTPs(g.Partitions) {
			fmt.Fprintf(r.out, format, g.Group, p.Topic, strconv.Itoa(int(p.Partition)), strconv.FormatInt(p.New, 10))
		}
	}
	fmt.Fprintln(r.out)
	return nil
}

// log4jWarn prints a WARN line as the tools' log4j configuration does.
func (r *runner) log4jWarn(msg string) {
	ts := time.Now().Format("2006-01-02 15:04:05,000")
	fmt.Fprintf(r.err, "[%s] WARN %s (org.apache.kafka.tools.GroupOffsetsResetter)\n", ts, msg)
}

// csvField quotes a value as Jackson's CSV writer does when it holds a
// separator, a quote or a line break.
func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// splitCSV splits one CSV line (double-quoted fields allowed).
func splitCSV(line string) []string {
	var out []string
	var b strings.Builder
	quoted := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '"' && i+1 < len(line) && line[i+1] == '"':
			b.WriteByte('"')
			i++
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			out = append(out, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(out, b.String())
}

// parseResetCSV is GroupOffsetsResetter.parseResetPlan: "topic,partition,
// offset" lines for a single --group, else "group,topic,partition,offset".
func parseResetCSV(text string, groupOpt []string) (map[string]map[groups.TopicPartition]int64, error) {
	lines := strings.Split(text, "\n")
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	rec := func(fields []string) (groups.TopicPartition, int64, error) {
		p, err := javafmt.ParseInt(fields[len(fields)-2], 32)
		if err != nil {
			return groups.TopicPartition{}, 0, err
		}
		o, err := javafmt.ParseInt(fields[len(fields)-1], 64)
		if err != nil {
			return groups.TopicPartition{}, 0, err
		}
		return groups.TopicPartition{Topic: fields[len(fields)-3], Partition: int32(p)}, o, nil
	}
	old := false
	if len(lines) > 0 {
		if f := splitCSV(lines[0]); len(f) == 3 {
			_, _, err := rec(f)
			old = err == nil
		}
	}
	out := map[string]map[groups.TopicPartition]int64{}
	put := func(g string, tp groups.TopicPartition, o int64) {
		if out[g] == nil {
			out[g] = map[groups.TopicPartition]int64{}
		}
		out[g][tp] = o
	}
	for _, l := range lines {
		f := splitCSV(l)
		want := 4
		if len(groupOpt) == 1 && old {
			want = 3
		}
		if len(f) != want {
			return nil, fmt.Errorf("java.io.IOException: invalid reset plan line %q: expected %d columns", l, want)
		}
		tp, o, err := rec(f)
		if err != nil {
			return nil, fmt.Errorf("java.io.IOException: invalid reset plan line %q", l)
		}
		g := groupOpt
		if want == 4 {
			g = []string{f[0]}
		}
		put(g[0], tp, o)
	}
	return out, nil
}

func (r *runner) deleteGroups(ctx context.Context, s *service) error {
	ids, err := r.groupIDs(ctx, s)
	if err != nil {
		return err
	}
	res, err := s.g.Delete(ctx, ids)
	if err != nil {
		return err
	}
	var ok, failed []string
	errs := map[string]error{}
	for _, d := range res {
		if d.Err == nil {
			ok = append(ok, d.Group)
		} else {
			failed = append(failed, d.Group)
			errs[d.Group] = d.Err
		}
	}
	quote := func(gs []string) string {
		q := make([]string, len(gs))
		for i, g := range javafmt.HashMapOrder(gs, -1) {
			q[i] = "'" + g + "'"
		}
		return strings.Join(q, ", ")
	}
	if len(failed) == 0 {
		fmt.Fprintf(r.out, "Deletion of requested consumer groups (%s) was successful.\n", quote(ok))
		return nil
	}
	r.printError("Deletion of some consumer groups failed:")
	for _, g := range javafmt.HashMapOrder(failed, -1) {
		fmt.Fprintf(r.out, "* Group '%s' could not be deleted due to: %s\n", g, javaException(errs[g]))
	}
	if len(ok) > 0 {
		fmt.Fprintf(r.out, "\nThese consumer groups were deleted successfully: %s\n", quote(ok))
	}
	return nil
}

func (r *runner) deleteOffsets(ctx context.Context, s *service) error {
	group, _, err := r.p.Value("group")
	if err != nil {
		return err
	}
	res, err := s.g.DeleteOffsets(ctx, group, r.p.Values("topic"))
	if err != nil {
		var ae *groups.ArgError
		if errors.As(err, &ae) {
			return usagef("%s", ae.Msg)
		}
		return err
	}
	var ke *kerr.Error
	switch {
	case res.Err == nil:
		fmt.Fprintf(r.out, "Request succeeded for deleting offsets from group %s.\n", group)
	case errors.As(res.Err, &ke):
		switch ke {
		case kerr.InvalidGroupID, kerr.GroupIDNotFound, kerr.GroupAuthorizationFailed, kerr.NonEmptyGroup:
			r.printError(ke.Description)
		case kerr.GroupSubscribedToTopic, kerr.TopicAuthorizationFailed, kerr.UnknownTopicOrPartition:
			r.printError("Encountered some partition-level error, see the follow-up details.")
		default:
			r.printError("Encountered some unknown error: " + ke.Message)
		}
	default:
		r.printError("Encountered some unknown error: UNKNOWN_SERVER_ERROR")
	}
	wt := 15
	for _, p := range res.Partitions {
		wt = max(wt, len(p.Topic))
	}
	rows := append([]groups.OffsetDeletion(nil), res.Partitions...)
	key := func(p groups.OffsetDeletion) string { return p.Topic + strconv.Itoa(int(p.Partition)) }
	sort.SliceStable(rows, func(i, j int) bool { return key(rows[i]) < key(rows[j]) })
	format := fmt.Sprintf("\n%%-%ds %%-10s %%-15s", wt)
	fmt.Fprintf(r.out, format, "TOPIC", "PARTITION", "STATUS")
	for _, p := range rows {
		part := "-"
		if p.Partition >= 0 {
			part = strconv.Itoa(int(p.Partition))
		}
		status := "Successful"
		if p.Err != nil {
			status = "Error: " + javaException(p.Err)
		}
		fmt.Fprintf(r.out, format, p.Topic, part, status)
	}
	fmt.Fprintln(r.out)
	return nil
}
