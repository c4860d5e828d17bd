package consumergroups

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/kboxdev/kbox/pkg/javaerr"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/twmb/franz-go/pkg/kerr"
)

// javaMessage is how Apache's catch-all prints an exception's message: an
// ExecutionException's is its cause's toString.
func javaMessage(cl *kafka.Client, err error) string {
	var nf *groups.ErrGroupNotFound
	var ke *kerr.Error
	var up *groups.UnknownPartitionsError
	var nl *groups.NoLeaderError
	switch {
	case errors.As(err, &nf):
		return javaerr.String(kerr.GroupIDNotFound.Code, nf.Error())
	case errors.As(err, &up):
		if len(up.MissingTopics) > 0 {
			return "java.util.concurrent.ExecutionException: " + javaException(kerr.UnknownTopicOrPartition)
		}
		return up.Error()
	case errors.As(err, &nl):
		return nl.Error()
	case errors.As(err, &ke):
		return javaException(ke)
	}
	if cl != nil {
		return cl.Explain(err).Error()
	}
	return err.Error()
}

// javaException is a Kafka error as its Java exception's toString.
func javaException(err error) string {
	var ke *kerr.Error
	if !errors.As(err, &ke) {
		return err.Error()
	}
	return javaerr.String(ke.Code, ke.Description)
}

// list is ConsumerGroupService.listGroups.
func (r *runner) list(ctx context.Context, s *service) error {
	p := r.p
	withType, withState := p.has("type"), p.has("state")
	var f groups.ListFilter
	if withState {
		if v := p.Values("state"); len(v) > 0 && v[0] != "" {
			states, err := parseStates(v[0])
			if err != nil {
				return err
			}
			f.States = states
		}
	}
	if withType {
		if v := p.Values("type"); len(v) > 0 && v[0] != "" {
			types, err := parseTypes(v[0])
			if err != nil {
				return err
			}
			f.Types = types
		}
	}
	ls, err := s.g.List(ctx, f)
	if err != nil {
		return err
	}
	if !withType && !withState {
		for _, l := range ls {
			fmt.Fprintln(r.out, l.Group)
		}
		return nil
	}
	w := 15
	for _, l := range ls {
		w = max(w, len(l.Group))
	}
	format := "%-" + strconv.Itoa(w+10) + "s"
	header := []any{"GROUP"}
	if withType {
		format += " %-20s"
		header = append(header, "TYPE")
	}
	if withState {
		format += " %-20s"
		header = append(header, "STATE")
	}
	format += "\n"
	fmt.Fprintf(r.out, format, header...)
	for _, l := range ls {
		row := []any{l.Group}
		if withType {
			row = append(row, orUnknown(l.Type))
		}
		if withState {
			row = append(row, orUnknown(l.State))
		}
		fmt.Fprintf(r.out, format, row...)
	}
	return nil
}

func orUnknown(s string) string {
	if s == "" {
		return "Unknown"
	}
	return s
}

// consumerStates is the order kbox names the valid states in (Apache's
// varies from run to run: a Set.of).
var consumerStates = []string{"Reconciling", "Empty", "PreparingRebalance", "Stable", "Assigning", "CompletingRebalance", "Dead"}

func parseStates(in string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(in, ",") {
		s = strings.TrimSpace(s)
		found := ""
		for _, v := range consumerStates {
			if strings.EqualFold(v, s) {
				found = v
			}
		}
		if found == "" {
			return nil, usagef("Invalid state list '%s'. Valid states are: %s", in, strings.Join(consumerStates, ", "))
		}
		out = append(out, found)
	}
	return out, nil
}

func parseTypes(in string) ([]string, error) {
	var out []string
	for _, t := range strings.Split(strings.ToLower(in), ",") {
		t = strings.TrimSpace(t)
		if t != "classic" && t != "consumer" {
			valid := javafmt.HashMapOrder([]string{groups.TypeClassic, groups.TypeConsumer}, -1)
			return nil, usagef("Invalid types list '%s'. Valid types are: %s", in, strings.Join(valid, ", "))
		}
		out = append(out, t)
	}
	return out, nil
}

// firstFailure is the group whose failure Apache reports: the first in
// its HashMap's order.
func firstFailure(ds []groups.Group) error {
	var names []string
	errs := map[string]error{}
	for _, d := range ds {
		if d.Err != nil {
			names = append(names, d.Group)
			errs[d.Group] = d.Err
		}
	}
	if len(names) == 0 {
		return nil
	}
	return errs[javafmt.HashMapOrder(names, -1)[0]]
}

// memberState is shouldPrintMemberState: the notices, and whether rows
// follow.
func (r *runner) memberState(group, state string, rows int) (bool, error) {
	switch state {
	case "Dead":
		r.printError(fmt.Sprintf("Consumer group '%s' does not exist.", group))
	case "Empty":
		fmt.Fprintf(r.err, "\nConsumer group '%s' has no active members.\n", group)
	case "PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling":
		fmt.Fprintf(r.err, "\nWarning: Consumer group '%s' is rebalancing.\n", group)
	case "Stable":
	default:
		return false, fmt.Errorf("Expected a valid consumer group state, but found '%s'.", orUnknown(state))
	}
	return state != "Dead" && rows > 0, nil
}

func (r *runner) describe(ctx context.Context, s *service) error {
	ids, err := r.groupIDs(ctx, s)
	if err != nil {
		return err
	}
	verbose := r.p.has("verbose")
	switch {
	case r.p.has("members"):
		return r.describeMembers(ctx, s, ids, verbose)
	case r.p.has("state"):
		return r.describeState(ctx, s, ids, verbose)
	}
	return r.describeOffsets(ctx, s, ids, verbose)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func optInt[T int32 | int64](v *T) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatInt(int64(*v), 10)
}

func (r *runner) describeOffsets(ctx context.Context, s *service, ids []string, verbose bool) error {
	gs, err := s.g.Offsets(ctx, ids)
	if err != nil {
		return err
	}
	plain := make([]groups.Group, len(gs))
	for i, g := range gs {
		plain[i] = g.Group
	}
	if err := firstFailure(plain); err != nil {
		return err
	}
	for _, g := range gs {
		ok, err := r.memberState(g.Group.Group, g.State, len(g.Partitions))
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		wg, wt, wc, wh := 15, 15, 15, 15
		for _, p := range g.Partitions {
			wg = max(wg, len(p.Group))
			wt = max(wt, len(p.Topic))
			wc = max(wc, len(dash(p.MemberID)))
			wh = max(wh, len(dash(p.Host)))
		}
		lead := fmt.Sprintf("\n%%-%ds %%-%ds %%-10s ", wg, wt)
		tail := fmt.Sprintf("%%-15s %%-15s %%-15s %%-%ds %%-%ds %%s", wc, wh)
		format := lead + tail
		if verbose {
			format = lead + "%-15s " + tail
			fmt.Fprintf(r.out, format, "GROUP", "TOPIC", "PARTITION", "LEADER-EPOCH", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID")
		} else {
			fmt.Fprintf(r.out, format, "GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID")
		}
		for _, p := range g.Partitions {
			row := []any{p.Group, p.Topic, strconv.Itoa(int(p.Partition))}
			if verbose {
				row = append(row, optInt(p.LeaderEpoch))
			}
			row = append(row, optInt(p.Committed), optInt(p.LogEnd), optInt(p.Lag), dash(p.MemberID), dash(p.Host), dash(p.ClientID))
			fmt.Fprintf(r.out, format, row...)
		}
		fmt.Fprintln(r.out)
	}
	return nil
}

// assignmentString prints partitions as "t1:0,1;t2:0" (topics sorted by
// their whole text, partitions numerically).
func assignmentString(tps []groups.TopicPartition) string {
	if len(tps) == 0 {
		return "-"
	}
	by := map[string][]int{}
	for _, tp := range tps {
		by[tp.Topic] = append(by[tp.Topic], int(tp.Partition))
	}
	var parts []string
	for t, ps := range by {
		sort.Ints(ps)
		s := make([]string, len(ps))
		for i, p := range ps {
			s[i] = strconv.Itoa(p)
		}
		parts = append(parts, t+":"+strings.Join(s, ","))
	}
	sort.Strings(parts)
	return strings.Join(parts, ";")
}

func (r *runner) describeMembers(ctx context.Context, s *service, ids []string, verbose bool) error {
	ds, err := s.g.Describe(ctx, ids)
	if err != nil {
		return err
	}
	if err := firstFailure(ds); err != nil {
		return err
	}
	for _, d := range ds {
		wg, wc, wi, wh, wcl, wcur, wtgt := 15, 15, 17, 15, 15, 20, 20
		withInstance, hasClassic, hasConsumer := false, false, false
		ok, err := r.memberState(d.Group, d.State, len(d.Members))
		if err != nil {
			return err
		}
		if ok {
			for _, m := range d.Members {
				wg = max(wg, len(d.Group))
				wc = max(wc, len(m.MemberID))
				wi = max(wi, len(m.InstanceID))
				wh = max(wh, len(m.Host))
				wcl = max(wcl, len(m.ClientID))
				withInstance = withInstance || m.InstanceID != ""
				wcur = max(wcur, len(assignmentString(m.Assignment)))
				wtgt = max(wtgt, len(assignmentString(m.Target)))
				hasClassic = hasClassic || m.Upgraded != nil && !*m.Upgraded
				hasConsumer = hasConsumer || m.Upgraded != nil && *m.Upgraded
			}
		}
		withInst := fmt.Sprintf("%%-%ds %%-%ds %%-%ds %%-%ds %%-%ds %%-15s ", wg, wc, wi, wh, wcl)
		without := fmt.Sprintf("%%-%ds %%-%ds %%-%ds %%-%ds %%-15s ", wg, wc, wh, wcl)
		if withInstance {
			fmt.Fprintf(r.out, "\n"+withInst, "GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID", "#PARTITIONS")
		} else {
			fmt.Fprintf(r.out, "\n"+without, "GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS")
		}
		migration := hasClassic && hasConsumer
		upgrade := fmt.Sprintf("%%-15s %%-%ds %%-15s %%-%ds %%s", wcur, wtgt)
		noUpgrade := fmt.Sprintf("%%-15s %%-%ds %%-15s %%-%ds", wcur, wtgt)
		if verbose {
			if migration {
				fmt.Fprintf(r.out, upgrade, "CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT", "UPGRADED")
			} else {
				fmt.Fprintf(r.out, noUpgrade, "CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT")
			}
		}
		fmt.Fprintln(r.out)
		for _, m := range d.Members {
			n := strconv.Itoa(len(m.Assignment))
			if withInstance {
				fmt.Fprintf(r.out, withInst, d.Group, m.MemberID, m.InstanceID, m.Host, m.ClientID, n)
			} else {
				fmt.Fprintf(r.out, without, d.Group, m.MemberID, m.Host, m.ClientID, n)
			}
			if verbose {
				cur, tgt := assignmentString(m.Assignment), assignmentString(m.Target)
				tgtEpoch := optInt(d.TargetAssignmentEpoch)
				if migration {
					up := "-"
					if m.Upgraded != nil {
						up = strconv.FormatBool(*m.Upgraded)
					}
					fmt.Fprintf(r.out, upgrade, optInt(m.Epoch), cur, tgtEpoch, tgt, up)
				} else {
					fmt.Fprintf(r.out, noUpgrade, optInt(m.Epoch), cur, tgtEpoch, tgt)
				}
			}
			fmt.Fprintln(r.out)
		}
	}
	return nil
}

func (r *runner) describeState(ctx context.Context, s *service, ids []string, verbose bool) error {
	ds, err := s.g.Describe(ctx, ids)
	if err != nil {
		return err
	}
	if err := firstFailure(ds); err != nil {
		return err
	}
	for _, d := range ds {
		ok, err := r.memberState(d.Group, d.State, 1)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		coord := fmt.Sprintf("%s:%d  (%d)", d.Coordinator.Host, d.Coordinator.Port, d.Coordinator.ID)
		wc, wg := max(25, len(coord)), max(15, len(d.Group))
		strategy := dash(d.AssignmentStrategy)
		members := strconv.Itoa(len(d.Members))
		if verbose {
			format := fmt.Sprintf("\n%%-%ds %%-%ds %%-20s %%-20s %%-15s %%-25s %%s", wg, wc)
			fmt.Fprintf(r.out, format, "GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH", "#MEMBERS")
			fmt.Fprintf(r.out, format, d.Group, coord, strategy, d.State, optInt(d.GroupEpoch), optInt(d.TargetAssignmentEpoch), members)
		} else {
			format := fmt.Sprintf("\n%%-%ds %%-%ds %%-20s %%-20s %%s", wg, wc)
			fmt.Fprintf(r.out, format, "GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS")
			fmt.Fprintf(r.out, format, d.Group, coord, strategy, d.State, members)
		}
		fmt.Fprintln(r.out)
	}
	return nil
}
