package javafmt

import (
	"sort"
	"unicode/utf16"
)

// Java's HashMap/HashSet iteration order leaks into the output of several
// Apache tools (kafka-topics --describe topic and Configs: order, log-dirs
// JSON). A java.util.HashMap iterates by bucket index, spread(hash) &
// (capacity-1), and the entries of one bucket in insertion order (resizing
// splits buckets without reordering them), so its order is a stable sort of
// the insertion sequence by bucket index at the final capacity.

// StringHash is java.lang.String.hashCode over UTF-16 code units.
func StringHash(s string) int32 {
	var h int32
	for _, c := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(c)
	}
	return h
}

// tableSizeFor is HashMap.tableSizeFor: the smallest power of two >= c
// (1 for c <= 1).
func tableSizeFor(c int) int {
	n := 1
	for n < c {
		n <<= 1
	}
	return n
}

// HashMapCapacity is the table size of a java.util.HashMap (or HashSet)
// after n distinct insertions: created with `new HashMap<>(initialCapacity)`,
// or `new HashMap<>()` (default 16) when initialCapacity < 0.
func HashMapCapacity(initialCapacity, n int) int {
	c := 16
	if initialCapacity >= 0 {
		c = tableSizeFor(initialCapacity)
	}
	for n > c*3/4 { // resize once size exceeds the 0.75 load factor
		c <<= 1
	}
	return c
}

// HashMapCopyCapacity is the initial capacity `new HashMap<>(map)` uses for
// a source map of n entries: (int)(n / 0.75f + 1), default 16 when empty.
func HashMapCopyCapacity(n int) int {
	if n == 0 {
		return -1
	}
	return int(float32(n)/0.75 + 1)
}

// HashSetCopyCapacity is the initial capacity `new HashSet<>(collection)`
// uses for n elements: Math.max((int)(n / .75f) + 1, 16). It differs from
// HashMapCopyCapacity (at least 16, rounding before the +1) on purpose.
func HashSetCopyCapacity(n int) int {
	return max(int(float32(n)/0.75)+1, 16)
}

// HashOrder returns the indexes of entries, given in insertion order by
// their hashCode (duplicates already dropped), in the iteration order of a
// Java hash table of the given capacity. An Integer's hashCode is its value.
func HashOrder(hashes []int32, capacity int) []int {
	idx := make([]int, len(hashes))
	for i := range idx {
		idx[i] = i
	}
	mask := uint32(capacity - 1)
	bucket := func(h int32) uint32 {
		u := uint32(h)
		return (u ^ u>>16) & mask
	}
	sort.SliceStable(idx, func(a, b int) bool {
		return bucket(hashes[idx[a]]) < bucket(hashes[idx[b]])
	})
	return idx
}

// HashMapOrder returns the distinct keys in the iteration order of a
// HashMap<String,?> created with initialCapacity (< 0: `new HashMap<>()`)
// and filled in the given order.
func HashMapOrder(keys []string, initialCapacity int) []string {
	return HashOrdered(keys, StringHash, initialCapacity)
}

// IntSetOrder returns the distinct ids in the iteration order of a
// HashSet<Integer> (or HashMap<Integer,?>) created with initialCapacity
// (< 0: default 16) and filled in the given order.
func IntSetOrder(ids []int32, initialCapacity int) []int32 {
	return HashOrdered(ids, func(id int32) int32 { return id }, initialCapacity)
}

// HashOrdered returns the distinct keys in the iteration order of a
// java.util.HashMap (or HashSet) keyed by hash, created with
// initialCapacity (< 0: default 16) and filled in the given order.
func HashOrdered[K comparable](keys []K, hash func(K) int32, initialCapacity int) []K {
	seen := make(map[K]bool, len(keys))
	var uniq []K
	var hashes []int32
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			uniq = append(uniq, k)
			hashes = append(hashes, hash(k))
		}
	}
	out := make([]K, 0, len(uniq))
	for _, i := range HashOrder(hashes, HashMapCapacity(initialCapacity, len(uniq))) {
		out = append(out, uniq[i])
	}
	return out
}

// HashMapCapacityOf is the table size of a java.util.HashMap created with
// initialCapacity (< 0: default 16) after the given distinct hashes were
// inserted in order, counting the resizes HashMap.treeifyBin makes instead
// of treeifying while the table is smaller than 64 (a bin reaching 9
// entries). With few collisions it equals HashMapCapacity. Bins that do get
// treeified (tables of 64 and more) iterate differently; that is not
// modelled.
func HashMapCapacityOf(hashes []int32, initialCapacity int) int {
	c := HashMapCapacity(initialCapacity, 0)
	bucket := func(h int32, c int) int {
		u := uint32(h)
		return int((u ^ u>>16) & uint32(c-1))
	}
	count := map[int]int{}
	recount := func(n int) {
		count = map[int]int{}
		for _, h := range hashes[:n] {
			count[bucket(h, c)]++
		}
	}
	for i, h := range hashes {
		b := bucket(h, c)
		count[b]++
		if count[b] > 8 && c < 64 { // binCount >= TREEIFY_THRESHOLD-1: resize
			c <<= 1
			recount(i + 1)
		}
		if i+1 > c*3/4 { // ++size > threshold
			c <<= 1
			recount(i + 1)
		}
	}
	return c
}
