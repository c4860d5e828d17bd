package reassign

import (
	"fmt"
	"math/rand/v2"
	"sort"
)

// Broker is a broker that may receive replicas; Rack is "" when unknown
// or when rack awareness is off.
type Broker struct {
	ID   int32
	Rack string
}

// Placer assigns the replicas of a topic's partitions to brokers the way
// Kafka's AdminUtils.assignReplicasToBrokers does: leaders round-robin from
// a start index, followers shifted, and with racks the broker list
// alternated by rack so each partition's replicas span as many racks as
// possible. Apache picks the start index and the follower shift at random
// (4.4's --generate uses the controller's StripedReplicaPlacer, which
// shuffles too), so two runs of either tool may propose different but
// equally valid assignments; Start and Shift fix them (>= 0) for tests.
type Placer struct {
	Start, Shift int
	Rand         *rand.Rand // nil: a new random source
}

func (p Placer) pick(n int) (int, int) {
	r := p.Rand
	if r == nil {
		r = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	start, shift := p.Start, p.Shift
	if start < 0 {
		start = r.IntN(n)
	}
	if shift < 0 {
		shift = r.IntN(n)
	}
	return start, shift
}

// Place returns replicas for partitions 0..nPartitions-1. Either every
// broker has a rack or none does.
func (p Placer) Place(brokers []Broker, nPartitions, rf int) ([][]int32, error) {
	if nPartitions <= 0 {
		return nil, fmt.Errorf("Number of partitions must be larger than 0.")
	}
	if rf <= 0 {
		return nil, fmt.Errorf("Replication factor must be larger than 0.")
	}
	if rf > len(brokers) {
		return nil, &InvalidReplicationFactorError{Msg: fmt.Sprintf("The target replication factor of %d cannot be reached because only %d broker(s) are registered or some brokers have all their log directories cordoned.", rf, len(brokers))}
	}
	racked := 0
	for _, b := range brokers {
		if b.Rack != "" {
			racked++
		}
	}
	if racked == 0 {
		ids := make([]int32, len(brokers))
		for i, b := range brokers {
			ids[i] = b.ID
		}
		return p.rackUnaware(ids, nPartitions, rf), nil
	}
	if racked != len(brokers) {
		return nil, fmt.Errorf("Not all brokers have rack information for replica rack aware assignment.")
	}
	return p.rackAware(brokers, nPartitions, rf), nil
}

func replicaIndex(first, shift, j, n int) int {
	s := 1 + (shift+j)%(n-1)
	return (first + s) % n
}

func (p Placer) rackUnaware(ids []int32, nPartitions, rf int) [][]int32 {
	n := len(ids)
	start, shift := p.pick(n)
	out := make([][]int32, nPartitions)
	for part := 0; part < nPartitions; part++ {
		if part > 0 && part%n == 0 {
			shift++
		}
		first := (part + start) % n
		reps := []int32{ids[first]}
		for j := 0; j < rf-1; j++ {
			reps = append(reps, ids[replicaIndex(first, shift, j, n)])
		}
		out[part] = reps
	}
	return out
}

// RackAlternated is getRackAlternatedBrokerList: racks sorted, brokers of
// each rack sorted, then one broker of each rack in turn.
func RackAlternated(brokers []Broker) []int32 {
	byRack := map[string][]int32{}
	for _, b := range brokers {
		byRack[b.Rack] = append(byRack[b.Rack], b.ID)
	}
	racks := make([]string, 0, len(byRack))
	for r, ids := range byRack {
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		racks = append(racks, r)
	}
	sort.Strings(racks)
	var out []int32
	for i := 0; len(out) < len(brokers); i++ {
		r := racks[i%len(racks)]
		if ids := byRack[r]; len(ids) > 0 {
			out = append(out, ids[0])
			byRack[r] = ids[1:]
		}
	}
	return out
}

func (p Placer) rackAware(brokers []Broker, nPartitions, rf int) [][]int32 {
	rackOf := map[int32]string{}
	racks := map[string]bool{}
	for _, b := range brokers {
		rackOf[b.ID] = b.Rack
		racks[b.Rack] = true
	}
	numRacks := len(racks)
	list := RackAlternated(brokers)
	n := len(list)
	start, shift := p.pick(n)
	out := make([][]int32, nPartitions)
	for part := 0; part < nPartitions; part++ {
		if part > 0 && part%n == 0 {
			shift++
		}
		first := (part + start) % n
		leader := list[first]
		reps := []int32{leader}
		withRack := map[string]bool{rackOf[leader]: true}
		withBroker := map[int32]bool{leader: true}
		k := 0
		for j := 0; j < rf-1; j++ {
			for {
				b := list[replicaIndex(first, shift*numRacks, k, n)]
				r := rackOf[b]
				k++
				if (!withRack[r] || len(withRack) == numRacks) && (!withBroker[b] || len(withBroker) == n) {
					reps = append(reps, b)
					withRack[r] = true
					withBroker[b] = true
					break
				}
			}
		}
		out[part] = reps
	}
	return out
}

// InvalidReplicationFactorError is a replication factor larger than the
// brokers available (Java's InvalidReplicationFactorException, with 4.4's
// message).
type InvalidReplicationFactorError struct{ Msg string }

func (e *InvalidReplicationFactorError) Error() string { return e.Msg }
