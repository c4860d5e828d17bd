package config

import (
	"os"
	"path/filepath"
	"testing"
)

// expected-brokers is read from and written to the config file.
func TestExpectedBrokersRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte("profiles:\n  prod:\n    bootstrap-servers: b1:9092\n    expected-brokers: 6\n  dev:\n    bootstrap-servers: d:9092\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, _, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Profiles["prod"].ExpectedBrokers != 6 || f.Profiles["dev"].ExpectedBrokers != 0 {
		t.Fatalf("expected brokers prod %d dev %d", f.Profiles["prod"].ExpectedBrokers, f.Profiles["dev"].ExpectedBrokers)
	}
	if err := WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	g, _, err := ReadFile(path)
	if err != nil || g.Profiles["prod"].ExpectedBrokers != 6 {
		t.Fatalf("after write: %v %+v", err, g.Profiles["prod"])
	}
}
