package reassign

import (
	"fmt"
	"sort"
	"strings"
)

// Change is one partition's move in a broker plan.
type Change struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Current   []int32 `json:"current"`
	Proposed  []int32 `json:"proposed"`
	// Bytes is what the new replica(s) must copy (the leader's size).
	Bytes int64 `json:"bytes"`
}

// Blocked is a partition a remove plan cannot move off the broker: every
// other broker already holds one of its replicas.
type Blocked struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Replicas  []int32 `json:"replicas"`
}

// BrokerPlan is kbox reassign plan: the least movement that empties
// (remove) or fills (add) one broker. Blocked lists the partitions a
// remove cannot move (PlanRemove plans the others).
type BrokerPlan struct {
	Broker     int32     `json:"broker"`
	Action     string    `json:"action"` // "remove" or "add"
	Changes    []Change  `json:"changes"`
	Blocked    []Blocked `json:"blocked"`
	TotalBytes int64     `json:"total_bytes"`
}

// BlockedError is a remove plan with blocked partitions: all of them,
// counted and listed, in one line.
type BlockedError struct {
	Broker  int32
	Blocked []Blocked
	Movable int
}

func (e *BlockedError) Error() string {
	names := make([]string, len(e.Blocked))
	for i, b := range e.Blocked {
		names[i] = fmt.Sprintf("%s-%d (replicas %s)", b.Topic, b.Partition, JoinIDs(b.Replicas, ","))
	}
	n := len(e.Blocked)
	return fmt.Sprintf("cannot empty broker %d: %s %s no other broker to take %s replica on %d: %s; --skip-blocked plans the other %s",
		e.Broker, Count(n, "partition", "partitions"), plural(n, "has", "have"), plural(n, "its", "their"), e.Broker,
		strings.Join(names, ", "), Count(e.Movable, "partition", "partitions"))
}

// Err is a *BlockedError when some partitions are blocked, else nil.
func (p *BrokerPlan) Err() error {
	if len(p.Blocked) == 0 {
		return nil
	}
	return &BlockedError{Broker: p.Broker, Blocked: p.Blocked, Movable: len(p.Changes)}
}

// BlockedLine says which partitions the plan leaves out ("" when none).
func (p *BrokerPlan) BlockedLine() string {
	if len(p.Blocked) == 0 {
		return ""
	}
	names := make([]string, len(p.Blocked))
	for i, b := range p.Blocked {
		names[i] = fmt.Sprintf("%s-%d", b.Topic, b.Partition)
	}
	n := len(p.Blocked)
	return fmt.Sprintf("Left out %s that cannot leave broker %d (no other broker to take %s replica): %s.",
		Count(n, "blocked partition", "blocked partitions"), p.Broker, plural(n, "its", "their"), strings.Join(names, ", "))
}

// load counts replicas per broker.
func load(assign map[TP][]int32, brokers []Broker) map[int32]int {
	n := map[int32]int{}
	for _, b := range brokers {
		n[b.ID] = 0
	}
	for _, reps := range assign {
		for _, r := range reps {
			n[r]++
		}
	}
	return n
}

// PlanRemove moves every replica off broker id, each to the broker (not
// already a replica) in a rack the partition does not use yet, if any, with
// the fewest replicas; the replica keeps its position, so preferred
// leadership stays where it was unless it was on id. A partition no broker
// can take is listed in Blocked, every one of them (p.Err() reports them),
// and the others are planned.
func PlanRemove(assign map[TP][]int32, sizes map[TP]int64, brokers []Broker, id int32) (*BrokerPlan, error) {
	rack := map[int32]string{}
	var targets []Broker
	for _, b := range brokers {
		rack[b.ID] = b.Rack
		if b.ID != id {
			targets = append(targets, b)
		}
	}
	if _, ok := rack[id]; !ok {
		return nil, fmt.Errorf("broker %d is not registered", id)
	}
	n := load(assign, brokers)
	p := &BrokerPlan{Broker: id, Action: "remove", Changes: []Change{}, Blocked: []Blocked{}}
	for _, tp := range SortedTPs(assign) {
		cur := assign[tp]
		pos := -1
		for i, r := range cur {
			if r == id {
				pos = i
			}
		}
		if pos < 0 {
			continue
		}
		used, racks := map[int32]bool{}, map[string]bool{}
		for _, r := range cur {
			if r != id {
				used[r] = true
				racks[rack[r]] = true
			}
		}
		best := int32(-1)
		bestKey := [2]int{}
		for _, b := range targets {
			if used[b.ID] {
				continue
			}
			sameRack := 0
			if racks[b.Rack] {
				sameRack = 1
			}
			key := [2]int{sameRack, n[b.ID]}
			if best < 0 || key[0] < bestKey[0] || (key[0] == bestKey[0] && (key[1] < bestKey[1] || key[1] == bestKey[1] && b.ID < best)) {
				best, bestKey = b.ID, key
			}
		}
		if best < 0 {
			p.Blocked = append(p.Blocked, Blocked{Topic: tp.Topic, Partition: tp.Partition, Replicas: cur})
			continue
		}
		prop := append([]int32(nil), cur...)
		prop[pos] = best
		n[best]++
		n[id]--
		p.Changes = append(p.Changes, Change{Topic: tp.Topic, Partition: tp.Partition, Current: cur, Proposed: prop, Bytes: sizes[tp]})
		p.TotalBytes += sizes[tp]
	}
	return p, nil
}

// PlanAdd moves replicas onto the new broker id until it holds its share
// (total replicas / brokers, rounded down): each time one replica of the
// most loaded broker, from a partition id does not have, preferring
// partitions whose racks stay spread and the smallest partitions first.
func PlanAdd(assign map[TP][]int32, sizes map[TP]int64, brokers []Broker, id int32) (*BrokerPlan, error) {
	rack := map[int32]string{}
	for _, b := range brokers {
		rack[b.ID] = b.Rack
	}
	if _, ok := rack[id]; !ok {
		return nil, fmt.Errorf("broker %d is not registered", id)
	}
	n := load(assign, brokers)
	total := 0
	for _, c := range n {
		total += c
	}
	share := total / len(brokers)
	p := &BrokerPlan{Broker: id, Action: "add", Changes: []Change{}, Blocked: []Blocked{}}
	prop := map[TP][]int32{}
	for tp, reps := range assign {
		prop[tp] = append([]int32(nil), reps...)
	}
	moved := map[TP]bool{}
	tps := SortedTPs(assign)
	sort.SliceStable(tps, func(i, j int) bool { return sizes[tps[i]] < sizes[tps[j]] })
	for n[id] < share {
		// the most loaded broker (lowest id on ties)
		from := int32(-1)
		for b, c := range n {
			if b != id && (from < 0 || c > n[from] || c == n[from] && b < from) {
				from = b
			}
		}
		if from < 0 || n[from] <= n[id]+1 {
			break
		}
		found := false
		for pass := 0; pass < 2 && !found; pass++ {
			for _, tp := range tps {
				reps := prop[tp]
				if moved[tp] || contains(reps, id) || !contains(reps, from) {
					continue
				}
				if pass == 0 && rack[id] != rack[from] {
					// keep racks spread: id's rack must not be used by the others
					clash := false
					for _, r := range reps {
						if r != from && rack[r] == rack[id] && rack[id] != "" {
							clash = true
						}
					}
					if clash {
						continue
					}
				}
				for i, r := range reps {
					if r == from {
						reps[i] = id
					}
				}
				moved[tp] = true
				n[from]--
				n[id]++
				found = true
				break
			}
		}
		if !found {
			break
		}
	}
	for _, tp := range SortedTPs(assign) {
		if moved[tp] {
			p.Changes = append(p.Changes, Change{Topic: tp.Topic, Partition: tp.Partition, Current: assign[tp], Proposed: prop[tp], Bytes: sizes[tp]})
			p.TotalBytes += sizes[tp]
		}
	}
	return p, nil
}

// JSON is the plan as a reassignment file (kafka-reassign-partitions
// --execute, kbox reassign execute --plan).
func (p *BrokerPlan) JSON() string {
	m := map[TP][]int32{}
	for _, c := range p.Changes {
		m[TP{c.Topic, c.Partition}] = c.Proposed
	}
	return FormatJSON(m, nil)
}

// Header is the diff table's header.
func (p *BrokerPlan) Header() []string {
	return []string{"PARTITION", "CURRENT", "PROPOSED", "TO-COPY"}
}

// Rows is one row per moved partition, then the total.
func (p *BrokerPlan) Rows() [][]string {
	var rows [][]string
	for _, c := range p.Changes {
		rows = append(rows, []string{fmt.Sprintf("%s-%d", c.Topic, c.Partition), JoinIDs(c.Current, ","), JoinIDs(c.Proposed, ","), HumanBytes(c.Bytes)})
	}
	rows = append(rows, []string{"TOTAL (" + Count(len(p.Changes), "partition", "partitions") + ")", "", "", HumanBytes(p.TotalBytes)})
	return rows
}
