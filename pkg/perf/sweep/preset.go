package sweep

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Preset is one of the four experiments of the perf methodology
// (docs/perf-methodology.md), scaled to the cluster: a produce sweep with
// its varied dimensions, its fixed workload and client properties.
type Preset struct {
	Name string
	// Doc says what the experiment shows.
	Doc      string
	Strategy string
	// RecordSize, Partitions and ReplicationFactor are the fixed workload
	// (for the brokers the cluster has); Props fixed client properties.
	RecordSize        int
	Partitions        func(brokers int) int
	ReplicationFactor func(brokers int) int
	Props             map[string]string
	// Vary gives the --vary specs for a cluster of brokers brokers.
	Vary func(brokers int) []string
}

func times(brokers int, ks ...int) string {
	var out []string
	for _, k := range ks {
		out = append(out, strconv.Itoa(k*max(brokers, 1)))
	}
	return strings.Join(out, ",")
}

func upTo(n int) string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, strconv.Itoa(i))
	}
	return strings.Join(out, ",")
}

func twicePerBroker(b int) int { return 2 * max(b, 1) }
func one(int) int              { return 1 }
func upToThree(b int) int      { return max(min(b, 3), 1) }

// Presets are the experiments `kbox perf sweep produce --preset`
// runs: 100-byte records (as the methodology document), acks=1 unless the
// experiment is about acknowledgement, two partitions per broker.
var Presets = map[string]Preset{
	"producers": {Name: "producers", Strategy: StrategyOneAtATime,
		Doc:        "1 to 3 producers (each its own client) on a topic replicated up to 3 times: does the cluster take more than one producer can send?",
		RecordSize: 100, Partitions: twicePerBroker, ReplicationFactor: upToThree, Props: map[string]string{"acks": "1"},
		Vary: func(int) []string { return []string{"producers=1,2,3"} }},
	"message-size": {Name: "message-size", Strategy: StrategyOneAtATime,
		Doc:        "record sizes from 10 bytes to 100 KB, no replication: records/s falls while MB/s rises",
		RecordSize: 100, Partitions: twicePerBroker, ReplicationFactor: one, Props: map[string]string{"acks": "1"},
		Vary: func(int) []string { return []string{"record-size=10,100,1000,10000,100000"} }},
	"partitions": {Name: "partitions", Strategy: StrategyOneAtATime,
		Doc:        "1, 2, 4 and 8 partitions per broker, no replication: more partitions spread the load until batches get small",
		RecordSize: 100, Partitions: twicePerBroker, ReplicationFactor: one, Props: map[string]string{"acks": "1"},
		Vary: func(b int) []string { return []string{"partitions=" + times(b, 1, 2, 4, 8)} }},
	"replicas": {Name: "replicas", Strategy: StrategyGrid,
		Doc:        "replication factor 1 to 3 with acks=1 (asynchronous replication) and acks=all (synchronous): the cost of waiting for the replicas",
		RecordSize: 100, Partitions: twicePerBroker, ReplicationFactor: one,
		Vary: func(b int) []string {
			return []string{"acks=1,all", "replication-factor=" + upTo(max(min(b, 3), 1))}
		}},
}

// PresetNames lists the presets, sorted.
func PresetNames() []string {
	var out []string
	for n := range Presets {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// LookupPreset returns the named preset.
func LookupPreset(name string) (Preset, error) {
	p, ok := Presets[name]
	if !ok {
		return p, fmt.Errorf("--preset %q: want one of %s", name, strings.Join(PresetNames(), ", "))
	}
	return p, nil
}
