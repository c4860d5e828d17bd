package topics

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
)

func i32(v int32) *int32   { return &v }
func str(s string) *string { return &s }

func sampleDescription() *Description {
	return &Description{Topics: []Topic{
		{Name: "orders", ID: "Mu7CMF_ZRxqzfkcw5hZDiw", PartitionCount: 2, ReplicationFactor: 3, showTopic: true,
			Configs: []ConfigEntry{{Name: "min.insync.replicas", Value: str("2")}, {Name: "cleanup.policy", Value: str("compact")}, {Name: "secret", Sensitive: true}},
			Partitions: []Partition{
				{Partition: 0, Leader: i32(1), Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}, ELR: []int32{}, LastKnownELR: []int32{}, show: true},
				{Partition: 1, Leader: nil, Replicas: []int32{2, 3, 4}, ISR: []int32{}, ELR: []int32{3}, LastKnownELR: []int32{2}, show: true,
					Unavailable: true, UnderReplicated: true, UnderMinISR: true,
					Reassigning: true, AddingReplicas: []int32{4}, RemovingReplicas: []int32{1}},
			}},
		{Name: "legacy", PartitionCount: 1, ReplicationFactor: 1, showTopic: true, Configs: nil,
			Partitions: []Partition{{Partition: 0, Leader: i32(5), Replicas: []int32{5}, ISR: []int32{5}, show: true}}},
		{Name: "hidden", PartitionCount: 1, ReplicationFactor: 1, showTopic: false,
			Partitions: []Partition{{Partition: 0, Leader: i32(5), Replicas: []int32{5}, ISR: []int32{5}, show: false}}},
	}}
}

// The Apache format: tabs, the trailing space of an empty Configs:/Elr:,
// Leader: none, the reassignment fields between Isr and Elr, N/A without
// DescribeTopicPartitions, no TopicId for a zero id, "null" for sensitive
// values.
func TestDescribeApacheGolden(t *testing.T) {
	var b bytes.Buffer
	if err := sampleDescription().WriteApache(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "describe.golden", b.Bytes())
}

func TestListApache(t *testing.T) {
	var b bytes.Buffer
	_ = (&TopicList{}).WriteApache(&b)
	if b.String() != "\n" {
		t.Errorf("empty list prints %q, want one empty line", b.String())
	}
	b.Reset()
	_ = (&TopicList{Names: []string{"a", "b"}}).WriteApache(&b)
	if b.String() != "a\nb\n" {
		t.Errorf("list prints %q", b.String())
	}
}

func TestNativeFormats(t *testing.T) {
	d := sampleDescription()
	rows := d.Rows()
	// "hidden" is filtered out; topics sorted by name.
	if len(rows) != 3 || rows[0][0] != "legacy" || rows[1][0] != "orders" {
		t.Fatalf("rows %v", rows)
	}
	if rows[2][2] != "none" || rows[2][6] != "unavailable,under-replicated,under-min-isr,reassigning" {
		t.Errorf("partition 1 row %v", rows[2])
	}
	if rows[0][5] != "N/A" || rows[1][5] != "-" {
		t.Errorf("elr cells %q %q", rows[0][5], rows[1][5])
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	if err := enc.Encode(d.Native()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name":"legacy"`, `"elr":null`, `"leader":null`, `"adding_replicas":[4]`, `"value":null`, `"sensitive":true`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("json lacks %s: %s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "hidden") {
		t.Errorf("json shows a filtered topic")
	}
}

func i64(v int64) *int64 { return &v }

// The -o json|yaml schema of --describe, pinned: every field, nulls (leader,
// elr, a sensitive value), the reassignment and -o wide fields.
func TestDescribeJSONGolden(t *testing.T) {
	d := sampleDescription()
	two := 2
	o := &d.Topics[0]
	o.MinISR, o.MinISRSource = &two, "DYNAMIC_TOPIC_CONFIG"
	p := &o.Partitions[0]
	p.LogStartOffset, p.HighWatermark, p.ReplicaSizes = i64(0), i64(42), map[int32]int64{1: 4096, 2: 4096, 3: 4000}
	p.AtMinISR = false
	d.Topics[1].Partitions[0].ELR, d.Topics[1].Partitions[0].LastKnownELR = nil, nil
	golden.JSON(t, "describe.json.golden", d.Native())
}

func TestListCreateAlterJSONGolden(t *testing.T) {
	golden.JSON(t, "list.json.golden", (&TopicList{Names: []string{"accounts", "orders"}}).Native())
	golden.JSON(t, "create.json.golden", &CreateResult{Name: "orders", ID: "Mu7CMF_ZRxqzfkcw5hZDiw", Partitions: 3, ReplicationFactor: 2})
	golden.JSON(t, "alter.json.golden", []AlterResult{{Topic: "orders", OldPartitions: 3, NewPartitions: 5, Assignment: [][]int32{{1, 2}, {2, 3}}, DryRun: true}})
}

// -o wide prints replica sizes in binary units; with --bytes (RawBytes)
// as byte counts.
func TestWideReplicaSizes(t *testing.T) {
	for raw, want := range map[bool]string{false: "1:19.8 MiB,2:19.8 MiB,3:1000 B", true: "1:20800358,2:20800358,3:1000"} {
		d := sampleDescription()
		d.opts.RawBytes = raw
		d.Topics[0].Partitions[0].ReplicaSizes = map[int32]int64{1: 20800358, 2: 20800358, 3: 1000}
		rows := d.WideRows()
		if got := rows[1][len(rows[1])-1]; got != want {
			t.Errorf("raw=%v: REPLICA-SIZES %q, want %q", raw, got, want)
		}
	}
}
