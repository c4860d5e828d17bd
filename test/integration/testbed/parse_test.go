package testbed

import (
	"os"
	"testing"
)

func TestParseExports(t *testing.T) {
	got := parseExports("export KAFKA_BOOTSTRAP=127.0.0.1:1,127.0.0.1:2\n" +
		"export KAFKA_CLIENT_PROPERTIES=/tmp/a\\ b/client.properties\n" +
		"noise\nexport Q='x y'z\n")
	want := map[string]string{
		"KAFKA_BOOTSTRAP":         "127.0.0.1:1,127.0.0.1:2",
		"KAFKA_CLIENT_PROPERTIES": "/tmp/a b/client.properties",
		"Q":                       "x yz",
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func TestScript(t *testing.T) {
	st, err := os.Stat(Script())
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&0o111 == 0 {
		t.Fatalf("%s is not executable", Script())
	}
}
