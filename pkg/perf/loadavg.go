package perf

import (
	"os"
	"strconv"
	"strings"
)

// LoadAverage is the machine's one-minute load average (the first field of
// /proc/loadavg); ok is false where it cannot be read (not Linux).
func LoadAverage() (load float64, ok bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	return parseLoadAvg(string(b))
}

// parseLoadAvg reads the one-minute load average of a /proc/loadavg line
// ("0.52 0.58 0.59 1/467 12345").
func parseLoadAvg(s string) (float64, bool) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 {
		return 0, false
	}
	return v, true
}
