package cmdutil

import (
	"runtime/debug"
)

// MemoryHeadroom is the room the GC gets above the clients' buffers. With
// the producer's buffer full on a slow broker the live heap is the buffer plus
// ~8 MB (in-flight requests, the runtime, the command's state), and the GC
// runs about once per (limit - live heap) bytes allocated: 8 MiB of headroom
// left ~2 MB of room and the GC ran continuously (2x the CPU at 2M records),
// 16 MiB left ~10 MB and still cost 1.9x; 32 MiB leaves ~27 MB, near the
// room GOGC=100 gives a 40 MB heap, so the limit bounds the heap without
// making the GC run much more often than it would without it.
const MemoryHeadroom = 32 << 20

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
