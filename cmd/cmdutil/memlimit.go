package cmdutil

import (
	"runtime/debug"
)

// MemoryHeadroom is the Go memory a single-purpose client process needs
// beyond its clients' buffers: in-flight requests, the runtime, the
// command's own state. 8 MiB held RSS under buffer.memory + 32 MiB but, with
// the producer's buffer full on a slow broker, the live heap reached the
// limit and the GC ran continuously (2x the CPU at 2M records).
const MemoryHeadroom = 16 << 20

// SoftMemoryLimit bounds the heap of a single-purpose process (the perf and
// verifiable tools) by what its clients buffer: Go's soft memory limit is
// set to buffered + MemoryHeadroom, so the GC runs before the heap's
// headroom (GOGC) doubles the buffers, and peak memory does not depend on
// the run's length (issue 31); the pages of the binary that start-up
// mapped are dropped (Linux). A GOMEMLIMIT the user set wins, and so does a lower
// limit already in place. It returns the limit it set, or 0.
func SoftMemoryLimit(getenv func(string) string, buffered int64) int64 {
	if getenv("GOMEMLIMIT") != "" || buffered <= 0 {
		return 0
	}
	limit := buffered + MemoryHeadroom
	if cur := debug.SetMemoryLimit(-1); cur <= limit {
		return 0
	}
	debug.SetMemoryLimit(limit)
	dropMappedBinary()
	return limit
}
