// Package reassign moves partition replicas between brokers and log
// directories: the reassignment JSON of kafka-reassign-partitions, replica
// placement for --generate, executing, verifying, listing and cancelling
// reassignments, and the replication throttles that go with them. No
// printing: the cmd packages format the results.
package reassign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/pkg/javafmt"
)

// AnyLogDir is the log_dirs entry that leaves the directory to the broker.
const AnyLogDir = "any"

// TP is a topic partition (Java's TopicPartition).
type TP struct {
	Topic     string
	Partition int32
}

// String is TopicPartition.toString: "topic-partition".
func (tp TP) String() string { return tp.Topic + "-" + strconv.Itoa(int(tp.Partition)) }

// JavaHash is TopicPartition.hashCode.
func (tp TP) JavaHash() int32 { return 31*(31+tp.Partition) + javafmt.StringHash(tp.Topic) }

// Replica is one replica of a partition on a broker (TopicPartitionReplica).
type Replica struct {
	Topic     string
	Partition int32
	Broker    int32
}

// String is TopicPartitionReplica.toString: "topic-partition-broker".
func (r Replica) String() string {
	return fmt.Sprintf("%s-%d-%d", r.Topic, r.Partition, r.Broker)
}

// LessTP is Apache's compareTopicPartitions: by topic, then partition.
func LessTP(a, b TP) bool {
	if a.Topic != b.Topic {
		return a.Topic < b.Topic
	}
	return a.Partition < b.Partition
}

// LessReplica is compareTopicPartitionReplicas: by broker, topic, partition.
func LessReplica(a, b Replica) bool {
	if a.Broker != b.Broker {
		return a.Broker < b.Broker
	}
	return LessTP(TP{a.Topic, a.Partition}, TP{b.Topic, b.Partition})
}

// SortedTPs returns the keys of m in compareTopicPartitions order.
func SortedTPs[V any](m map[TP]V) []TP {
	out := make([]TP, 0, len(m))
	for tp := range m {
		out = append(out, tp)
	}
	sort.Slice(out, func(i, j int) bool { return LessTP(out[i], out[j]) })
	return out
}

// Move is one entry of a reassignment file: the target replicas of a
// partition and, per replica, a log dir (AnyLogDir when unspecified).
type Move struct {
	TP
	Replicas []int32
	LogDirs  []string
}

// Plan is a parsed reassignment file, entries in file order.
type Plan struct {
	Moves []Move
}

// Targets returns the target replicas per partition (the last entry wins).
func (p *Plan) Targets() map[TP][]int32 {
	m := make(map[TP][]int32, len(p.Moves))
	for _, mv := range p.Moves {
		m[mv.TP] = mv.Replicas
	}
	return m
}

// DirMoves returns the replicas with an explicit target log dir.
func (p *Plan) DirMoves() map[Replica]string {
	m := map[Replica]string{}
	for _, mv := range p.Moves {
		for i, d := range mv.LogDirs {
			if d != AnyLogDir {
				m[Replica{mv.Topic, mv.Partition, mv.Replicas[i]}] = d
			}
		}
	}
	return m
}

// Topics returns the distinct topics of the plan, sorted.
func (p *Plan) Topics() []string {
	seen := map[string]bool{}
	var out []string
	for _, mv := range p.Moves {
		if !seen[mv.Topic] {
			seen[mv.Topic] = true
			out = append(out, mv.Topic)
		}
	}
	sort.Strings(out)
	return out
}

// ParseError is a malformed reassignment or topics file.
type ParseError struct{ Msg string }

func (e *ParseError) Error() string { return e.Msg }

func perr(format string, a ...any) error { return &ParseError{Msg: fmt.Sprintf(format, a...)} }

// decodeObject parses data as one JSON object, numbers kept exact.
func decodeObject(data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return nil, perr("The input string is not a valid JSON: %v", err)
	}
	if obj == nil {
		return nil, perr("The input string is not a valid JSON object")
	}
	return obj, nil
}

func version(obj map[string]json.RawMessage) (int, error) {
	raw, ok := obj["version"]
	if !ok {
		return 1, nil
	}
	var v int32
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, perr("Expected `version` to be an int: %s", raw)
	}
	if v != 1 {
		return 0, perr("Not supported version field value %d", v)
	}
	return 1, nil
}

// ParsePlan parses a reassignment JSON file as Apache does
// (parsePartitionReassignmentData): version 1 only, "log_dirs" optional
// but as long as "replicas" when given. Duplicates are kept: Validate
// reports them.
func ParsePlan(data []byte) (*Plan, error) {
	obj, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	if _, err := version(obj); err != nil {
		return nil, err
	}
	p := &Plan{}
	raw, ok := obj["partitions"]
	if !ok {
		return p, nil
	}
	var entries []struct {
		Topic     *string   `json:"topic"`
		Partition *int32    `json:"partition"`
		Replicas  *[]int32  `json:"replicas"`
		LogDirs   *[]string `json:"log_dirs"`
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, perr("Invalid \"partitions\" in the reassignment JSON: %v", err)
	}
	for _, e := range entries {
		switch {
		case e.Topic == nil:
			return nil, perr("No such field exists: `topic`")
		case e.Partition == nil:
			return nil, perr("No such field exists: `partition`")
		case e.Replicas == nil:
			return nil, perr("No such field exists: `replicas`")
		}
		mv := Move{TP: TP{*e.Topic, *e.Partition}, Replicas: *e.Replicas}
		if e.LogDirs != nil {
			mv.LogDirs = *e.LogDirs
		} else {
			mv.LogDirs = make([]string, len(mv.Replicas))
			for i := range mv.LogDirs {
				mv.LogDirs[i] = AnyLogDir
			}
		}
		if len(mv.Replicas) != len(mv.LogDirs) {
			return nil, perr("Size of replicas list %s is different from size of log dirs list %s for partition %s",
				javaList(mv.Replicas), javaStrList(mv.LogDirs), mv.TP)
		}
		p.Moves = append(p.Moves, mv)
	}
	return p, nil
}

// ValidateExecute is parseExecuteAssignmentArgs' checks: a non-empty plan,
// no empty replica list, no partition twice, no replica twice.
func (p *Plan) ValidateExecute() error {
	if len(p.Moves) == 0 {
		return perr("Partition reassignment list cannot be empty")
	}
	for _, mv := range p.Moves {
		if len(mv.Replicas) == 0 {
			return perr("Partition replica list cannot be empty")
		}
	}
	tps := make([]TP, len(p.Moves))
	for i, mv := range p.Moves {
		tps[i] = mv.TP
	}
	if dups := duplicates(tps, TP.JavaHash); len(dups) > 0 {
		parts := make([]string, len(dups))
		for i, d := range dups {
			parts[i] = d.String()
		}
		return perr("Partition reassignment contains duplicate topic partitions: %s", strings.Join(parts, ","))
	}
	var msgs []string
	for _, mv := range p.Moves {
		if dups := duplicates(mv.Replicas, func(b int32) int32 { return b }); len(dups) > 0 {
			parts := make([]string, len(dups))
			for i, d := range dups {
				parts[i] = strconv.Itoa(int(d))
			}
			msgs = append(msgs, fmt.Sprintf("%s contains multiple entries for %s", mv.TP, strings.Join(parts, ",")))
		}
	}
	if len(msgs) > 0 {
		return perr("Partition replica lists may not contain duplicate entries: %s", strings.Join(msgs, ". "))
	}
	return nil
}

// duplicates is ToolsUtils.duplicates: the items seen more than once, in
// the iteration order of the Java HashSet that collects them.
func duplicates[K comparable](items []K, hash func(K) int32) []K {
	seen := map[K]int{}
	var dups []K
	for _, it := range items {
		seen[it]++
		if seen[it] == 2 {
			dups = append(dups, it)
		}
	}
	if len(dups) < 2 {
		return dups
	}
	hs := make([]int32, len(dups))
	for i, d := range dups {
		hs[i] = hash(d)
	}
	order := javafmt.HashOrder(hs, javafmt.HashMapCapacity(-1, len(dups)))
	out := make([]K, len(dups))
	for i, j := range order {
		out[i] = dups[j]
	}
	return out
}

// ParseTopics parses a topics-to-move JSON file ({"topics":[{"topic":..}],
// "version":1}) into topic names in file order.
func ParseTopics(data []byte) ([]string, error) {
	obj, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	if _, err := version(obj); err != nil {
		return nil, err
	}
	raw, ok := obj["topics"]
	if !ok {
		return nil, nil
	}
	var entries []struct {
		Topic *string `json:"topic"`
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, perr("Invalid \"topics\" in the topics JSON: %v", err)
	}
	var out []string
	for _, e := range entries {
		if e.Topic == nil {
			return nil, perr("No such field exists: `topic`")
		}
		out = append(out, *e.Topic)
	}
	return out, nil
}

// DuplicateTopics returns the topics listed more than once, in Java
// HashSet order.
func DuplicateTopics(topics []string) []string {
	return duplicates(topics, javafmt.StringHash)
}

// DuplicateBrokers returns the brokers listed more than once, in Java
// HashSet order.
func DuplicateBrokers(ids []int32) []int32 {
	return duplicates(ids, func(b int32) int32 { return b })
}

// FormatJSON is formatAsReassignmentJson: compact, partitions sorted by
// topic and partition, each replica's log dir from dirs or "any".
func FormatJSON(assign map[TP][]int32, dirs map[Replica]string) string {
	var b strings.Builder
	b.WriteString(`{"version":1,"partitions":[`)
	for i, tp := range SortedTPs(assign) {
		if i > 0 {
			b.WriteByte(',')
		}
		reps := assign[tp]
		b.WriteString(`{"topic":`)
		b.WriteString(jsonString(tp.Topic))
		fmt.Fprintf(&b, `,"partition":%d,"replicas":[`, tp.Partition)
		for j, r := range reps {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(int(r)))
		}
		b.WriteString(`],"log_dirs":[`)
		for j, r := range reps {
			if j > 0 {
				b.WriteByte(',')
			}
			d, ok := dirs[Replica{tp.Topic, tp.Partition, r}]
			if !ok {
				d = AnyLogDir
			}
			b.WriteString(jsonString(d))
		}
		b.WriteString("]}")
	}
	b.WriteString("]}")
	return b.String()
}

// jsonString encodes s as Jackson does for plain text (no HTML escaping).
func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

// JoinIDs joins broker ids with sep.
func JoinIDs(ids []int32, sep string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(int(id))
	}
	return strings.Join(parts, sep)
}

// javaList is List<Integer>.toString: "[1, 2]".
func javaList(ids []int32) string { return "[" + JoinIDs(ids, ", ") + "]" }

func javaStrList(s []string) string { return "[" + strings.Join(s, ", ") + "]" }

// JavaIntSet is Set<Integer>.toString of a HashSet holding ids: "[1, 2]".
func JavaIntSet(ids []int32) string {
	return javaList(javafmt.IntSetOrder(ids, -1))
}
