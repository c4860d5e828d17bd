package topics

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/pkg/javafmt"
)

func TestDescribeTopicOrder(t *testing.T) {
	cases := []struct{ in, want []string }{
		// Documented in apache-tools.md §1.6.
		{[]string{"topic-1", "topic-2", "topic-3"}, []string{"topic-2", "topic-3", "topic-1"}},
		// Captured from Apache kafka-topics 4.4.0 --describe.
		{[]string{"__x", "a", "b", "c", "my.topic_x", "topic-1", "topic-2", "topic-3", "zz-top"},
			[]string{"a", "b", "c", "zz-top", "__x", "topic-1", "topic-2", "my.topic_x", "topic-3"}},
		{nil, nil},
	}
	for _, c := range cases {
		if got := DescribeTopicOrder(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("DescribeTopicOrder(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestConfigsOrder(t *testing.T) {
	// The 37 topic configs of Kafka 4.4 inserted in sorted order into a
	// java.util.HashMap, and the key order Java 17 printed for it.
	want := strings.Split("compression.type,errors.deadletterqueue.group.enable,remote.copy.lag.bytes,remote.log.delete.on.disable,leader.replication.throttled.replicas,remote.storage.enable,min.insync.replicas,segment.jitter.ms,remote.log.copy.disable,local.retention.ms,cleanup.policy,flush.ms,follower.replication.throttled.replicas,compression.lz4.level,compression.gzip.level,retention.ms,segment.bytes,remote.copy.lag.ms,compression.zstd.level,flush.messages,file.delete.delay.ms,max.compaction.lag.ms,max.message.bytes,min.compaction.lag.ms,message.timestamp.type,local.retention.bytes,preallocate,index.interval.bytes,min.cleanable.dirty.ratio,unclean.leader.election.enable,delete.retention.ms,retention.bytes,message.timestamp.after.max.ms,max.decompressed.message.bytes,message.timestamp.before.max.ms,segment.ms,segment.index.bytes", ",")
	if got := javafmt.HashMapOrder(TopicConfigNames(), -1); !reflect.DeepEqual(got, want) {
		t.Errorf("order\n%v\nwant\n%v", got, want)
	}
}

func TestFilter(t *testing.T) {
	all := []string{"__consumer_offsets", "a", "b", "test.topic", "testXtopic", "x-1"}
	str := func(s string) *string { return &s }
	cases := []struct {
		topic   *string
		exclude bool
		want    []string
		err     string
	}{
		{nil, false, all, ""},
		{nil, true, all[1:], ""},
		{str("a,b"), false, []string{"a", "b"}, ""},
		{str(" 'a, b' "), false, []string{"a", "b"}, ""},
		{str("test.topic"), false, []string{"test.topic", "testXtopic"}, ""},
		{str(`test\.topic`), false, []string{"test.topic"}, ""},
		{str("x"), false, []string{}, ""},   // full match only
		{str("__.*"), true, []string{}, ""}, // internal dropped even if matched
		{str("["), false, nil, "[ is an invalid regex."},
	}
	for _, c := range cases {
		got, err := Select(all, c.topic, c.exclude)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("Select(%v): err %v, want %q", *c.topic, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Select(%v, %v) = %v, %v; want %v", c.topic, c.exclude, got, err, c.want)
		}
	}
}

func TestParseReplicaAssignment(t *testing.T) {
	cases := []struct {
		in   string
		want [][]int32
		err  string
	}{
		{"1:2,2:3,3:1", [][]int32{{1, 2}, {2, 3}, {3, 1}}, ""},
		{" 1 : 2 , 3:4,", [][]int32{{1, 2}, {3, 4}}, ""},
		{"1", [][]int32{{1}}, ""},
		{"1:1", nil, "Partition replica lists may not contain duplicate entries: 1"},
		{"3:2:3:2", nil, "Partition replica lists may not contain duplicate entries: 2,3"},
		{"1:2,3", nil, "Partition 1 has different replication factor: [3]"},
		{"1,2:3", nil, "Partition 1 has different replication factor: [2, 3]"},
		{"1:x", nil, `For input string: "x"`},
		{"1,,2", nil, `For input string: ""`},
		{"99999999999", nil, `For input string: "99999999999"`},
	}
	for _, c := range cases {
		got, err := ParseReplicaAssignment(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestParseConfigs(t *testing.T) {
	cases := []struct {
		in   []string
		want map[string]string
		err  string
	}{
		{[]string{"retention.ms=1000", "cleanup.policy = compact"}, map[string]string{"retention.ms": "1000", "cleanup.policy": "compact"}, ""},
		{[]string{"retention.ms=1", "retention.ms=2"}, map[string]string{"retention.ms": "2"}, ""},
		{[]string{"retention.ms"}, nil, ErrConfigFormat},
		{[]string{"a=b=c"}, nil, ErrConfigFormat},
		{[]string{"foo=bar"}, nil, "Unknown topic config name: foo"},
		{[]string{"retention.ms=abc"}, nil, "Invalid value abc for configuration retention.ms: Not a number of type LONG"},
		{[]string{"retention.ms=-5"}, nil, "Invalid value -5 for configuration retention.ms: Value must be at least -1"},
		{[]string{"segment.bytes=1e3"}, nil, "Invalid value 1e3 for configuration segment.bytes: Not a number of type INT"},
		{[]string{"preallocate=yes"}, nil, "Invalid value yes for configuration preallocate: Expected value to be either true or false"},
		{[]string{"min.cleanable.dirty.ratio=x"}, nil, "Invalid value x for configuration min.cleanable.dirty.ratio: Not a number of type DOUBLE"},
		{[]string{"cleanup.policy=zap"}, nil, "Invalid value zap for configuration cleanup.policy: String must be one of: compact, delete"},
		{[]string{"compression.type=abc"}, nil, "Invalid value abc for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer"},
	}
	for _, c := range cases {
		got, err := ParseConfigs(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%v: err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestAssignPlain(t *testing.T) {
	brokers := []Broker{{ID: 2}, {ID: 0}, {ID: 1}, {ID: 3}, {ID: 4}}
	// AdminUtilsTest.testReplicaAssignment (Kafka): 10 partitions, RF 3,
	// brokers 0..4, fixed start index 0.
	want := [][]int32{
		{0, 1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 0}, {4, 0, 1},
		{0, 2, 3}, {1, 3, 4}, {2, 4, 0}, {3, 0, 1}, {4, 1, 2},
	}
	got, err := AssignReplicas(10, 3, brokers, false, 0, 0, 0)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
	if _, err := AssignReplicas(1, 6, brokers, false, -1, -1, 0); err == nil || err.Error() != "Replication factor: 6 larger than available brokers: 5." {
		t.Errorf("rf too large: %v", err)
	}
	if _, err := AssignReplicas(0, 1, brokers, false, -1, -1, 0); err != ErrPartitionsNotPositive {
		t.Errorf("0 partitions: %v", err)
	}
	// Random start: every partition still has RF distinct brokers.
	got, _ = AssignReplicas(20, 3, brokers, false, -1, -1, 0)
	for _, r := range got {
		if len(r) != 3 || r[0] == r[1] || r[1] == r[2] || r[0] == r[2] {
			t.Errorf("bad replicas %v", r)
		}
	}
}

func TestAssignRackAware(t *testing.T) {
	rack := func(s string) *string { return &s }
	// AdminUtilsTest.testGetRackAlternatedBrokerListAndAssignReplicasToBrokers.
	brokers := []Broker{{0, rack("rack1")}, {1, rack("rack3")}, {2, rack("rack3")}, {3, rack("rack2")}, {4, rack("rack2")}, {5, rack("rack1")}}
	if got, want := RackAlternatedBrokers(brokers), []int32{0, 3, 1, 5, 4, 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("alternated %v, want %v", got, want)
	}
	got, err := AssignReplicas(7, 3, brokers, true, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int32{{0, 3, 1}, {3, 1, 5}, {1, 5, 4}, {5, 4, 2}, {4, 2, 0}, {2, 0, 3}, {0, 4, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rack-aware %v, want %v", got, want)
	}
	// Every partition spans 3 racks.
	rackOf := map[int32]string{}
	for _, b := range brokers {
		rackOf[b.ID] = *b.Rack
	}
	for _, r := range got {
		seen := map[string]bool{}
		for _, b := range r {
			seen[rackOf[b]] = true
		}
		if len(seen) != 3 {
			t.Errorf("%v spans %d racks", r, len(seen))
		}
	}
	mixed := []Broker{{0, rack("a")}, {1, nil}}
	if _, err := AssignReplicas(1, 1, mixed, true, 0, 0, 0); err != ErrMixedRacks {
		t.Errorf("mixed racks: %v", err)
	}
	if _, err := AssignReplicas(1, 1, mixed, false, 0, 0, 0); err != nil {
		t.Errorf("mixed racks, rack-unaware: %v", err)
	}
}

func TestNewAssignmentOrder(t *testing.T) {
	a := make([][]int32, 0, 20)
	for i := 0; i < 20; i++ {
		a = append(a, []int32{int32(i)})
	}
	// Keys 14..19 in a HashMap of capacity 16: 16..19 land in buckets 0..3.
	got := newAssignmentOrder(a, 14)
	want := [][]int32{{16}, {17}, {18}, {19}, {14}, {15}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := newAssignmentOrder(a[:2], 2); got == nil || len(got) != 0 {
		t.Errorf("nothing new: %v", got)
	}
}

func TestTopicID(t *testing.T) {
	id, err := ParseTopicID("Mu7CMF_ZRxqzfkcw5hZDiw")
	if err != nil || TopicIDString(id) != "Mu7CMF_ZRxqzfkcw5hZDiw" {
		t.Fatalf("round trip: %v %v", TopicIDString(id), err)
	}
	if _, err := ParseTopicID("abc"); err == nil || err.Error() != "Input string `abc` decoded as 2 bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID" {
		t.Errorf("abc: %v", err)
	}
}
