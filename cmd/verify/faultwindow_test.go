package verify

import "testing"

func TestParseFaultWindow(t *testing.T) {
	w, err := parseFaultWindow("1000,2500")
	if err != nil || w.StartMs != 1000 || w.EndMs != 2500 {
		t.Fatalf("ms: %+v %v", w, err)
	}
	w, err = parseFaultWindow("2026-01-02T03:04:05Z, 2026-01-02T03:04:06.5Z")
	if err != nil || w.StartMs != 1767323045000 || w.EndMs != 1767323046500 {
		t.Fatalf("rfc3339: %+v %v", w, err)
	}
	for _, bad := range []string{"", "1000", "a,b", "2000,1000", "1000,tomorrow"} {
		if _, err := parseFaultWindow(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
