package javafmt

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestStringHash(t *testing.T) {
	// Values of "...".hashCode() from Java.
	for s, want := range map[string]int32{"": 0, "a": 97, "abc": 96354, "orders": -1008770331, "topic-1": -1139260653, "hello": 99162322,
		"polygenelubricants": -2147483648, // overflow wraps like Java's int
	} {
		if got := StringHash(s); got != want {
			t.Errorf("StringHash(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestHashMapCapacity(t *testing.T) {
	for _, c := range []struct{ init, n, want int }{
		{-1, 1, 16}, {-1, 12, 16}, {-1, 13, 32}, {-1, 44, 64}, {3, 3, 4}, {4, 4, 8}, {0, 1, 2}, {100, 100, 256},
		{HashMapCopyCapacity(12), 12, 32}, {HashMapCopyCapacity(3), 3, 8}, {HashSetCopyCapacity(3), 3, 16}, {HashSetCopyCapacity(12), 12, 32},
	} {
		if got := HashMapCapacity(c.init, c.n); got != c.want {
			t.Errorf("HashMapCapacity(%d, %d) = %d, want %d", c.init, c.n, got, c.want)
		}
	}
}

func TestIntSetOrder(t *testing.T) {
	cases := []struct {
		in      []int32
		initial int
		want    []int32
	}{
		{[]int32{3, 1, 2}, -1, []int32{1, 2, 3}},
		// 17, 1 and 33 share bucket 1 of a 16-slot table: insertion order.
		{[]int32{17, 1, 33, 0}, -1, []int32{0, 17, 1, 33}},
		// 13 entries force a resize to 32: 17 moves after 16.
		{[]int32{17, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16}, -1, []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17}},
		// new HashMap<>(3) has 4 slots: 5 (bucket 1) before 2.
		{[]int32{2, 5}, 3, []int32{5, 2}},
		{[]int32{1, 1, 2}, -1, []int32{1, 2}},
	}
	for _, c := range cases {
		if got := IntSetOrder(c.in, c.initial); !reflect.DeepEqual(got, c.want) {
			t.Errorf("IntSetOrder(%v, %d) = %v, want %v", c.in, c.initial, got, c.want)
		}
	}
}

func TestHashMapOrder(t *testing.T) {
	// Kafka 4.4's 37 topic config names inserted in sorted order into a
	// java.util.HashMap, and the key order Java 17 printed for it.
	want := strings.Split("compression.type,errors.deadletterqueue.group.enable,remote.copy.lag.bytes,remote.log.delete.on.disable,leader.replication.throttled.replicas,remote.storage.enable,min.insync.replicas,segment.jitter.ms,remote.log.copy.disable,local.retention.ms,cleanup.policy,flush.ms,follower.replication.throttled.replicas,compression.lz4.level,compression.gzip.level,retention.ms,segment.bytes,remote.copy.lag.ms,compression.zstd.level,flush.messages,file.delete.delay.ms,max.compaction.lag.ms,max.message.bytes,min.compaction.lag.ms,message.timestamp.type,local.retention.bytes,preallocate,index.interval.bytes,min.cleanable.dirty.ratio,unclean.leader.election.enable,delete.retention.ms,retention.bytes,message.timestamp.after.max.ms,max.decompressed.message.bytes,message.timestamp.before.max.ms,segment.ms,segment.index.bytes", ",")
	sorted := append([]string(nil), want...)
	slices.Sort(sorted)
	if got := HashMapOrder(sorted, -1); !reflect.DeepEqual(got, want) {
		t.Errorf("order\n%v\nwant\n%v", got, want)
	}
	if got := HashMapOrder([]string{"b", "a", "b"}, -1); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("duplicates: %v", got)
	}
}

// kafka-configs quota entities (ClientQuotaEntity hashes) of users a1..i9
// all fall in bucket 12 of 16: inserting the ninth makes HashMap.treeifyBin
// resize to 32 (not treeify: the table is under 64), where plain load-factor
// growth stays at 16. (In the broker's response order the default user,
// also in bucket 12 of 16 but not of 32, came among the first nine: after
// the resize that bin filled up again and the table went to 64, the order
// Apache printed on the test bed.)
func TestHashMapCapacityOfTreeifyResize(t *testing.T) {
	entity := func(name string, isNull bool) int32 {
		v := int32(0)
		if !isNull {
			v = StringHash(name)
		}
		return 31 + (StringHash("user") ^ v)
	}
	var hs []int32
	for _, n := range []string{"a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8", "i9", "j10"} {
		hs = append(hs, entity(n, false))
	}
	hs = append(hs, entity("", true))
	if got := HashMapCapacityOf(hs, len(hs)); got != 32 || HashMapCapacity(len(hs), len(hs)) != 16 {
		t.Fatalf("capacity %d, want 32 (load factor alone: %d)", got, HashMapCapacity(len(hs), len(hs)))
	}
	if got, want := HashMapCapacityOf(hs[:2], 2), HashMapCapacity(2, 2); got != want {
		t.Fatalf("no collisions: %d, want %d", got, want)
	}
}
