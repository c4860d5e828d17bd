package reassign

import (
	"cmp"
	"slices"
	"strconv"
)

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is "1 partition", "2 partitions".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + plural(n, one, many)
}

// sortedKeys is the keys of m, sorted.
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
