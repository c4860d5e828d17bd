package reassign

import "strconv"

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
