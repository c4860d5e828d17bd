package javafmt

import (
	"testing"
	"time"
)

// Duration.parse's grammar: signs per part and overall, fractions of a
// second, either case; the error is Java's message.
func TestParseDuration(t *testing.T) {
	ok := map[string]time.Duration{
		"P1D":      24 * time.Hour,
		"PT1H30M":  90 * time.Minute,
		"pt0.5s":   500 * time.Millisecond,
		"-PT1S":    -time.Second,
		"P1DT-1H":  23 * time.Hour,
		"PT-0.25S": -250 * time.Millisecond,
	}
	for in, want := range ok {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "P", "PT", "1d", "P1H", "PT1D", "P1DT"} {
		if _, err := ParseDuration(in); err == nil || err.Error() != DurationError {
			t.Errorf("%q: %v, want the Duration parse error", in, err)
		}
	}
}
