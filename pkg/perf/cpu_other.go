//go:build !unix

package perf

import "time"

// CPUTime is not measured on this platform (always 0).
func CPUTime() time.Duration { return 0 }
