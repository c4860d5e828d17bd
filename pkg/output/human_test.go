package output

import (
	"testing"
	"time"
)

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0:            "0 B",
		1023:         "1023 B",
		1536:         "1.5 KiB",
		20800358:     "19.8 MiB",
		270553174016: "252.0 GiB",
		5 << 40:      "5.0 TiB",
		-2048:        "-2.0 KiB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
	if got := BytesOrRaw(270553174016, true); got != "270553174016" {
		t.Errorf("BytesOrRaw raw: %q", got)
	}
	if got := BytesOrRaw(270553174016, false); got != "252.0 GiB" {
		t.Errorf("BytesOrRaw: %q", got)
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		850 * time.Millisecond:        "850ms",
		3 * time.Second:               "3.0s",
		12300 * time.Millisecond:      "12.3s",
		4*time.Minute + 5*time.Second: "4m05s",
		2*time.Hour + 3*time.Minute:   "2h03m",
		76 * time.Hour:                "3d04h",
		-1500 * time.Millisecond:      "-1.5s",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}
