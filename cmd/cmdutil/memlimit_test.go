package cmdutil

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestSoftMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	debug.SetMemoryLimit(math.MaxInt64)
	if got := SoftMemoryLimit(env(map[string]string{"GOMEMLIMIT": "1GiB"}), 32<<20); got != 0 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Fatalf("the user's GOMEMLIMIT must win: set %d", got)
	}
	if got := SoftMemoryLimit(env(nil), 0); got != 0 {
		t.Fatalf("no buffers, no limit: set %d", got)
	}
	got := SoftMemoryLimit(env(nil), 32<<20)
	if got != 32<<20+MemoryHeadroom || debug.SetMemoryLimit(-1) != got {
		t.Fatalf("limit %d (runtime %d), want %d", got, debug.SetMemoryLimit(-1), 32<<20+MemoryHeadroom)
	}
	// a lower limit in place stays
	if again := SoftMemoryLimit(env(nil), 64<<20); again != 0 || debug.SetMemoryLimit(-1) != got {
		t.Fatalf("raised the limit to %d", debug.SetMemoryLimit(-1))
	}
}
