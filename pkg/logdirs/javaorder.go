package logdirs

import (
	"sort"
	"unicode/utf16"
)

// The Apache tool prints brokers, log dirs and partitions in the iteration
// order of java.util.HashMap/HashSet. These helpers reproduce that order:
// a Java hash table iterates by bucket index (spread(hash) & (cap-1)), and
// entries of one bucket in insertion order (resizing splits buckets
// without reordering them), so the order is a stable sort of the
// insertion sequence by bucket index at the final capacity.

// Java HashMap initial capacities.
const (
	javaDefaultCap = 16 // new HashMap<>(), new HashSet<>(), Collectors.toSet/toMap
)

// javaStringHash is String.hashCode.
func javaStringHash(s string) int32 {
	var h int32
	for _, c := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(c)
	}
	return h
}

// javaTopicPartitionHash is TopicPartition.hashCode.
func javaTopicPartitionHash(topic string, partition int32) int32 {
	const prime = 31
	result := prime + partition
	return prime*result + javaStringHash(topic)
}

func javaSpread(h int32) uint32 {
	u := uint32(h)
	return u ^ (u >> 16)
}

// javaTableSizeFor is HashMap.tableSizeFor.
func javaTableSizeFor(c int) int {
	n := 1
	for n < c {
		n <<= 1
	}
	return n
}

// javaFinalCap returns the table capacity after n distinct insertions into
// a HashMap created with the given initial capacity (0 = default).
func javaFinalCap(initial, n int) int {
	c := javaDefaultCap
	if initial > 0 {
		c = javaTableSizeFor(initial)
	}
	for n > c*3/4 {
		c <<= 1
	}
	return c
}

// javaOrder returns the indexes of keys (given in insertion order, with
// hashes) in the iteration order of a Java hash table of final capacity cp.
func javaOrder(hashes []int32, cp int) []int {
	idx := make([]int, len(hashes))
	for i := range idx {
		idx[i] = i
	}
	mask := uint32(cp - 1)
	sort.SliceStable(idx, func(a, b int) bool {
		return javaSpread(hashes[idx[a]])&mask < javaSpread(hashes[idx[b]])&mask
	})
	return idx
}

// javaIntSet returns ids in the order of a HashSet<Integer> built by adding
// them one by one (duplicates dropped) to a table of the given initial
// capacity (0 = default 16).
func javaIntSet(ids []int32, initial int) []int32 {
	seen := make(map[int32]bool, len(ids))
	var uniq []int32
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			uniq = append(uniq, id)
		}
	}
	hashes := make([]int32, len(uniq))
	copy(hashes, uniq)
	order := javaOrder(hashes, javaFinalCap(initial, len(uniq)))
	out := make([]int32, len(uniq))
	for i, j := range order {
		out[i] = uniq[j]
	}
	return out
}

// javaCopyCap is the initial capacity HashSet(Collection) uses.
func javaCopyCap(n int) int {
	c := int(float32(n)/0.75) + 1
	if c < 16 {
		c = 16
	}
	return c
}
