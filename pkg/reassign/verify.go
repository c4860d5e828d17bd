package reassign

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// PartitionState is where a partition of a plan stands: Done when no
// reassignment of it is in progress.
type PartitionState struct {
	Current, Target []int32
	Done            bool
}

// PartitionStates is findPartitionReassignmentStates: the state of every
// partition of the plan, and whether any reassignment (of the plan or not)
// is in progress.
func (s *Service) PartitionStates(ctx context.Context, plan *Plan) (map[TP]PartitionState, bool, error) {
	cur, err := s.ListReassignments(ctx, nil)
	if err != nil {
		return nil, false, err
	}
	out := map[TP]PartitionState{}
	var lookup []string
	seen := map[string]bool{}
	for _, mv := range plan.Moves {
		if o, ok := cur[mv.TP]; ok {
			out[mv.TP] = PartitionState{Current: o.Replicas, Target: mv.Replicas}
		} else if !seen[mv.Topic] {
			seen[mv.Topic] = true
			lookup = append(lookup, mv.Topic)
		}
	}
	if len(lookup) > 0 {
		md, err := s.Admin.Metadata(ctx, lookup...)
		if err != nil {
			return nil, false, err
		}
		for _, mv := range plan.Moves {
			if _, ok := cur[mv.TP]; ok {
				continue
			}
			st := PartitionState{Target: mv.Replicas, Done: true}
			if td, ok := md.Topics[mv.Topic]; ok && td.Err == nil {
				if p, ok := td.Partitions[mv.Partition]; ok {
					st.Current = p.Replicas
				}
			}
			out[mv.TP] = st
		}
	}
	return out, len(cur) > 0, nil
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// PartitionStatesText is partitionReassignmentStatesToString.
func PartitionStatesText(states map[TP]PartitionState) string {
	lines := []string{"Status of partition reassignment:"}
	for _, tp := range SortedTPs(states) {
		st := states[tp]
		switch {
		case !st.Done:
			lines = append(lines, fmt.Sprintf("Reassignment of partition %s is still in progress.", tp))
		case equalIDs(st.Current, st.Target):
			lines = append(lines, fmt.Sprintf("Reassignment of partition %s is completed.", tp))
		default:
			lines = append(lines, fmt.Sprintf("There is no active reassignment of partition %s, but replica set is %s rather than %s.",
				tp, JoinIDs(st.Current, ","), JoinIDs(st.Target, ",")))
		}
	}
	return strings.Join(lines, "\n")
}

// DirKind is a log-dir move's state (Apache's LogDirMoveState classes).
type DirKind int

const (
	DirMissingLogDir DirKind = iota // no live log dir holds the replica
	DirMissingReplica
	DirActive    // a future replica is being built
	DirCancelled // no move, and the replica is elsewhere
	DirCompleted // the replica is in the target dir
)

// DirState is where a replica's move between log dirs stands.
type DirState struct {
	Kind                    DirKind
	Current, Future, Target string
}

// Done is LogDirMoveState.done: every state but an active move.
func (d DirState) Done() bool { return d.Kind != DirActive }

// DirStates is findLogDirMoveStates for replicas with a target dir.
func (s *Service) DirStates(ctx context.Context, moves map[Replica]string) (map[Replica]DirState, error) {
	out := map[Replica]DirState{}
	if len(moves) == 0 {
		return out, nil
	}
	var tps []TP
	seen := map[TP]bool{}
	for r := range moves {
		tp := TP{r.Topic, r.Partition}
		if !seen[tp] {
			seen[tp] = true
			tps = append(tps, tp)
		}
	}
	dirs, err := s.ReplicaDirs(ctx, tps)
	if err != nil {
		return nil, err
	}
	for r, target := range moves {
		d, ok := dirs[r]
		switch {
		case !ok || d.Current == "":
			out[r] = DirState{Kind: DirMissingLogDir, Target: target}
		case d.Future == "" && d.Current == target:
			out[r] = DirState{Kind: DirCompleted, Current: d.Current, Target: target}
		case d.Future == "":
			out[r] = DirState{Kind: DirCancelled, Current: d.Current, Target: target}
		default:
			out[r] = DirState{Kind: DirActive, Current: d.Current, Future: d.Future, Target: target}
		}
	}
	return out, nil
}

// DirStatesText is replicaMoveStatesToString ("" when there are none).
func DirStatesText(states map[Replica]DirState) string {
	reps := make([]Replica, 0, len(states))
	for r := range states {
		reps = append(reps, r)
	}
	sort.Slice(reps, func(i, j int) bool { return LessReplica(reps[i], reps[j]) })
	var lines []string
	for _, r := range reps {
		st := states[r]
		tp := fmt.Sprintf("%s-%d", r.Topic, r.Partition)
		switch st.Kind {
		case DirMissingLogDir:
			lines = append(lines, fmt.Sprintf("Partition %s is not found in any live log dir on broker %d. There is likely an offline log directory on the broker.", tp, r.Broker))
		case DirMissingReplica:
			lines = append(lines, fmt.Sprintf("Partition %s cannot be found in any live log directory on broker %d.", tp, r.Broker))
		case DirActive:
			if st.Target == st.Future {
				lines = append(lines, fmt.Sprintf("Reassignment of replica %s is still in progress.", r))
			} else {
				lines = append(lines, fmt.Sprintf("Partition %s on broker %d is being moved to log dir %s instead of %s.", tp, r.Broker, st.Future, st.Target))
			}
		case DirCancelled:
			lines = append(lines, fmt.Sprintf("Partition %s on broker %d is not being moved from log dir %s to %s.", tp, r.Broker, st.Current, st.Target))
		case DirCompleted:
			lines = append(lines, fmt.Sprintf("Reassignment of replica %s completed successfully.", r))
		}
	}
	return strings.Join(lines, "\n")
}
