package topics

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/pkg/javafmt"
)

// ParseReplicaAssignment parses --replica-assignment exactly as
// TopicCommand.parseReplicaAssignment does, with its error messages.
// Partition i is the i-th comma-separated group.
func ParseReplicaAssignment(s string) ([][]int32, error) {
	var out [][]int32
	for i, part := range javaSplit(s, ",") {
		var brokers []int32
		for _, id := range javaSplit(part, ":") {
			n, err := javafmt.ParseInt(strings.TrimSpace(id), 32) // Integer.parseInt(id.trim())
			if err != nil {
				return nil, err
			}
			brokers = append(brokers, int32(n))
		}
		if d := duplicates(brokers); len(d) > 0 {
			ss := make([]string, len(d))
			for j, v := range d {
				ss[j] = strconv.Itoa(int(v))
			}
			return nil, fmt.Errorf("Partition replica lists may not contain duplicate entries: %s", strings.Join(ss, ","))
		}
		out = append(out, brokers)
		if len(brokers) != len(out[0]) {
			return nil, fmt.Errorf("Partition %d has different replication factor: %s", i, javaListString(brokers))
		}
	}
	return out, nil
}

// javaSplit is String.split with a literal one-char separator: trailing
// empty strings are removed, and an input without a match is returned whole.
func javaSplit(s, sep string) []string {
	parts := strings.Split(s, sep)
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if s == "" {
		return []string{""}
	}
	return parts
}

func javaListString(v []int32) string {
	ss := make([]string, len(v))
	for i, x := range v {
		ss[i] = strconv.Itoa(int(x))
	}
	return "[" + strings.Join(ss, ", ") + "]"
}

// duplicates returns the values seen more than once, in the iteration order
// of the Java HashSet<Integer> ToolsUtils.duplicates builds.
func duplicates(v []int32) []int32 {
	seen := map[int32]bool{}
	dup := map[int32]bool{}
	var order []int32
	for _, x := range v {
		if seen[x] {
			if !dup[x] {
				dup[x] = true
				order = append(order, x)
			}
			continue
		}
		seen[x] = true
	}
	return javafmt.IntSetOrder(order, -1)
}

// Broker is a broker id with its optional rack, input to the assignment.
type Broker struct {
	ID   int32
	Rack *string
}

// Assignment errors, with the texts of Kafka's AdminUtils.
var (
	ErrRFNotPositive         = errors.New("Replication factor must be larger than 0.")
	ErrPartitionsNotPositive = errors.New("Number of partitions must be larger than 0.")
	ErrMixedRacks            = errors.New("Not all brokers have rack information for replica rack aware assignment.")
)

// AssignReplicas is Kafka's classic replica placement
// (AdminUtils.assignReplicasToBrokers), rewritten in Go: rack-aware when
// every broker has a rack and rackAware is set, the plain round-robin with a
// shifting follower offset otherwise. startIndex and shift < 0 pick random
// values, as Kafka does; startPartition is the id of the first new partition.
func AssignReplicas(nPartitions, rf int, brokers []Broker, rackAware bool, startIndex, shift, startPartition int) ([][]int32, error) {
	if nPartitions <= 0 {
		return nil, ErrPartitionsNotPositive
	}
	if rf <= 0 {
		return nil, ErrRFNotPositive
	}
	if rf > len(brokers) {
		return nil, fmt.Errorf("Replication factor: %d larger than available brokers: %d.", rf, len(brokers))
	}
	withRack := 0
	for _, b := range brokers {
		if b.Rack != nil {
			withRack++
		}
	}
	if rackAware && withRack > 0 && withRack < len(brokers) {
		return nil, ErrMixedRacks
	}
	if startIndex < 0 {
		startIndex = rand.IntN(len(brokers))
	}
	if shift < 0 {
		shift = rand.IntN(len(brokers))
	}
	if startPartition < 0 {
		startPartition = 0
	}
	if rackAware && withRack == len(brokers) {
		return assignRackAware(nPartitions, rf, brokers, startIndex, shift, startPartition), nil
	}
	ids := make([]int32, len(brokers))
	for i, b := range brokers {
		ids[i] = b.ID
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return assignPlain(nPartitions, rf, ids, startIndex, shift, startPartition), nil
}

func replicaIndex(first, secondShift, idx, n int) int {
	shift := 1 + (secondShift+idx)%(n-1)
	return (first + shift) % n
}

func assignPlain(nPartitions, rf int, ids []int32, startIndex, shift, p int) [][]int32 {
	n := len(ids)
	var out [][]int32
	for i := 0; i < nPartitions; i++ {
		if p > 0 && p%n == 0 {
			shift++
		}
		first := (p + startIndex) % n
		replicas := []int32{ids[first]}
		for j := 0; j < rf-1; j++ {
			replicas = append(replicas, ids[replicaIndex(first, shift, j, n)])
		}
		out = append(out, replicas)
		p++
	}
	return out
}

// RackAlternatedBrokers is AdminUtils.getRackAlternatedBrokerList: racks
// sorted, brokers of each rack sorted, taken one per rack in turn.
func RackAlternatedBrokers(brokers []Broker) []int32 {
	byRack := map[string][]int32{}
	for _, b := range brokers {
		byRack[*b.Rack] = append(byRack[*b.Rack], b.ID)
	}
	racks := make([]string, 0, len(byRack))
	for r, ids := range byRack {
		racks = append(racks, r)
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	}
	sort.Strings(racks)
	pos := map[string]int{}
	var out []int32
	for ri := 0; len(out) < len(brokers); ri = (ri + 1) % len(racks) {
		r := racks[ri]
		if pos[r] < len(byRack[r]) {
			out = append(out, byRack[r][pos[r]])
			pos[r]++
		}
	}
	return out
}

func assignRackAware(nPartitions, rf int, brokers []Broker, startIndex, shift, p int) [][]int32 {
	rackOf := map[int32]string{}
	racks := map[string]bool{}
	for _, b := range brokers {
		rackOf[b.ID] = *b.Rack
		racks[*b.Rack] = true
	}
	numRacks := len(racks)
	arranged := RackAlternatedBrokers(brokers)
	n := len(arranged)
	var out [][]int32
	for i := 0; i < nPartitions; i++ {
		if p > 0 && p%n == 0 {
			shift++
		}
		first := (p + startIndex) % n
		leader := arranged[first]
		replicas := []int32{leader}
		withRacks := map[string]bool{rackOf[leader]: true}
		withBrokers := map[int32]bool{leader: true}
		k := 0
		for j := 0; j < rf-1; j++ {
			for {
				b := arranged[replicaIndex(first, shift*numRacks, k, n)]
				r := rackOf[b]
				k++
				if (!withRacks[r] || len(withRacks) == numRacks) && (!withBrokers[b] || len(withBrokers) == n) {
					replicas = append(replicas, b)
					withRacks[r] = true
					withBrokers[b] = true
					break
				}
			}
		}
		out = append(out, replicas)
		p++
	}
	return out
}
