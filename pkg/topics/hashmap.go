package topics

import "slices"

// Java's HashMap iteration order leaks into kafka-topics output (the topic
// order of --describe and the order of Configs:). The functions here simulate
// java.util.HashMap closely enough to reproduce it for String keys: bucket
// index from the spread String.hashCode, iteration by ascending bucket, keys
// of one bucket in insertion order (resizes keep that relative order).

// JavaStringHash is java.lang.String.hashCode over UTF-16 code units.
func JavaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

func spread(h int32) uint32 {
	u := uint32(h)
	return u ^ (u >> 16)
}

// tableSizeFor is HashMap.tableSizeFor: the smallest power of two >= c.
func tableSizeFor(c int) int {
	n := 1
	for n < c {
		n <<= 1
	}
	return n
}

// JavaHashMap simulates a HashMap<String,?>'s key order.
type JavaHashMap struct {
	keys      []string // insertion order of distinct keys
	index     map[string]bool
	threshold int // initial capacity request before the table exists
	capacity  int // 0 until the first put
}

// NewJavaHashMap is `new HashMap<>()` (initialCapacity < 0) or
// `new HashMap<>(initialCapacity)`.
func NewJavaHashMap(initialCapacity int) *JavaHashMap {
	m := &JavaHashMap{index: map[string]bool{}}
	if initialCapacity >= 0 {
		m.threshold = tableSizeFor(initialCapacity)
	}
	return m
}

// NewJavaHashMapCopy is `new HashMap<>(otherMap)` for a source of size n
// whose keys are then put in the source's iteration order.
func NewJavaHashMapCopy(keys []string) *JavaHashMap {
	m := &JavaHashMap{index: map[string]bool{}}
	if len(keys) > 0 {
		ft := float32(len(keys))/0.75 + 1
		m.threshold = tableSizeFor(int(ft))
	}
	for _, k := range keys {
		m.Put(k)
	}
	return m
}

// Put inserts key (a no-op for a present key, as in Java).
func (m *JavaHashMap) Put(key string) {
	if m.index[key] {
		return
	}
	if m.capacity == 0 {
		if m.threshold > 0 {
			m.capacity = m.threshold
		} else {
			m.capacity = 16
		}
	}
	m.index[key] = true
	m.keys = append(m.keys, key)
	for float32(len(m.keys)) > float32(m.capacity)*0.75 {
		m.capacity <<= 1
	}
}

// Capacity is the current table size (0 before the first put).
func (m *JavaHashMap) Capacity() int { return m.capacity }

// Keys returns the keys in Java iteration order.
func (m *JavaHashMap) Keys() []string {
	if m.capacity == 0 {
		return nil
	}
	mask := uint32(m.capacity - 1)
	buckets := make(map[uint32][]string, len(m.keys))
	var order []uint32
	for _, k := range m.keys {
		b := spread(JavaStringHash(k)) & mask
		if _, ok := buckets[b]; !ok {
			order = append(order, b)
		}
		buckets[b] = append(buckets[b], k)
	}
	slices.Sort(order)
	out := make([]string, 0, len(m.keys))
	for _, b := range order {
		out = append(out, buckets[b]...)
	}
	return out
}

// JavaHashMapOrder returns keys in the iteration order of a HashMap built
// with the given initial capacity (< 0: the no-argument constructor) and
// filled in the given order.
func JavaHashMapOrder(keys []string, initialCapacity int) []string {
	m := NewJavaHashMap(initialCapacity)
	for _, k := range keys {
		m.Put(k)
	}
	return m.Keys()
}

// DescribeTopicOrder is the topic order of `kafka-topics --describe`: the
// admin client fills a HashMap(n) of futures from the sorted names, copies
// it, and collects the descriptions into another HashMap(n).
func DescribeTopicOrder(sorted []string) []string {
	n := len(sorted)
	futures := JavaHashMapOrder(sorted, n)
	copied := NewJavaHashMapCopy(futures).Keys()
	return JavaHashMapOrder(copied, n)
}
