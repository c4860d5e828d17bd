package perf

import (
	"runtime"
	"testing"
)

func TestParseLoadAvg(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0.52 0.58 0.59 1/467 12345\n", 0.52, true},
		{"190.07 120.3 80.1 12/900 1", 190.07, true},
		{"", 0, false},
		{"x 1 2", 0, false},
		{"-1 0 0", 0, false},
	} {
		got, ok := parseLoadAvg(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("parseLoadAvg(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	if _, ok := LoadAverage(); ok != (runtime.GOOS == "linux") {
		t.Errorf("LoadAverage ok = %v on %s", ok, runtime.GOOS)
	}
}
