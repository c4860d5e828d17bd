package editdist

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "abc", 0}, {"", "abc", 3}, {"abc", "", 3},
		{"log.retention.hour", "log.retention.hours", 1},
		{"retension.ms", "retention.ms", 1},
		{"retnetion.ms", "retention.ms", 1}, // a swap
		{"foo.bar", "foo.baz", 1},
		{"kitten", "sitting", 3},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	// argparse4j's weights: a swap is free, an addition cheaper than a deletion.
	if got := Weighted("tpoic", "topic", 0, 2, 1, 4); got != 0 {
		t.Errorf("weighted swap: %d", got)
	}
}
