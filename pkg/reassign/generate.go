package reassign

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/javafmt"
)

// ParseGenerate is kafka-reassign-partitions' parseGenerateAssignmentArgs:
// the broker ids of --broker-list and the topics of the
// --topics-to-move-json-file document, each without duplicates (Apache's
// messages).
func ParseGenerate(file []byte, brokerList string) ([]int32, []string, error) {
	var ids []int32
	for _, x := range strings.Split(brokerList, ",") {
		n, err := javafmt.ParseInt(x, 32)
		if err != nil {
			return nil, nil, err
		}
		ids = append(ids, int32(n))
	}
	if d := DuplicateBrokers(ids); len(d) > 0 {
		return nil, nil, fmt.Errorf("Broker list contains duplicate entries: %s", JavaIntSet(d))
	}
	topics, err := ParseTopics(file)
	if err != nil {
		return nil, nil, err
	}
	if d := DuplicateTopics(topics); len(d) > 0 {
		return nil, nil, fmt.Errorf("List of topics to reassign contains duplicate entries: [%s]", strings.Join(d, ", "))
	}
	return ids, topics, nil
}

// Proposal is kafka-reassign-partitions --generate's answer: the topics'
// current assignment with their replicas' log dirs, and a new one.
type Proposal struct {
	Current  map[TP][]int32
	Dirs     map[Replica]string
	Proposed map[TP][]int32
}

// Propose places every partition of topics anew on the brokers ids, as
// Apache's --generate does (its placement, rack-aware unless rackAware is
// false: then every broker or none must have a rack).
func (s *Service) Propose(ctx context.Context, ids []int32, topics []string, rackAware bool) (*Proposal, error) {
	current, err := s.Assignment(ctx, topics)
	if err != nil {
		return nil, err
	}
	dirs, err := s.CurrentDirs(ctx, current)
	if err != nil {
		return nil, err
	}
	cluster, err := s.Brokers(ctx)
	if err != nil {
		return nil, err
	}
	want := map[int32]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var brokers []Broker
	racked := 0
	for _, b := range cluster {
		if !want[b.ID] {
			continue
		}
		if !rackAware {
			b.Rack = ""
		}
		if b.Rack != "" {
			racked++
		}
		brokers = append(brokers, b)
	}
	if rackAware && racked != 0 && racked != len(brokers) {
		return nil, &ParseError{Msg: "Not all brokers have rack information. Add --disable-rack-aware in command line to make replica assignment without rack information."}
	}
	proposed := map[TP][]int32{}
	byTopic := map[string][]TP{}
	for _, tp := range SortedTPs(current) {
		byTopic[tp.Topic] = append(byTopic[tp.Topic], tp)
	}
	for _, t := range sortedKeys(byTopic) {
		tps := byTopic[t]
		placed, err := Placer{Start: -1, Shift: -1}.Place(brokers, len(tps), len(current[tps[0]]))
		if err != nil {
			return nil, err
		}
		for p, reps := range placed {
			proposed[TP{Topic: t, Partition: int32(p)}] = reps
		}
	}
	return &Proposal{Current: current, Dirs: dirs, Proposed: proposed}, nil
}

// StartDirMoves retries AlterReplicaLogDirs until every move started (a
// replica must reach its new broker first) or timeout passes, calling
// started for each move that did; it returns the moves left, sorted.
func (s *Service) StartDirMoves(ctx context.Context, moves map[Replica]string, timeout time.Duration, started func(rep Replica, dir string)) ([]Replica, error) {
	pending := map[Replica]string{}
	for k, v := range moves {
		pending[k] = v
	}
	deadline := time.Now().Add(timeout)
	for {
		done, err := s.AlterReplicaDirs(ctx, pending)
		if err != nil {
			return nil, err
		}
		for _, rep := range done {
			started(rep, pending[rep])
			delete(pending, rep)
		}
		if len(pending) == 0 {
			return nil, nil
		}
		if !time.Now().Before(deadline) {
			left := make([]Replica, 0, len(pending))
			for rep := range pending {
				left = append(left, rep)
			}
			sort.Slice(left, func(i, j int) bool { return LessReplica(left[i], left[j]) })
			return left, nil
		}
		if err := Sleep(ctx, 100*time.Millisecond); err != nil {
			return nil, err
		}
	}
}
