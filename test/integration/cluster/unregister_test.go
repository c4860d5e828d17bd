//go:build integration

package cluster_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A stopped broker is fenced: list-endpoints --include-fenced-brokers
// shows it as Apache does; unregister removes it; started again, it
// registers again (the bed is whole for any later test).
func TestUnregisterStoppedBroker(t *testing.T) {
	bs := strings.Split(bed.Bootstrap, ",")[0] // node 1
	tool := filepath.Join(binDir, "kafka-cluster")
	if err := bed.StopBroker(3, false); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := bed.StartBroker(3); err != nil {
			t.Errorf("restart broker 3: %v", err)
		}
	}()
	fenced := []string{"list-endpoints", "-b", bs, "--include-fenced-brokers"}
	deadline := time.Now().Add(60 * time.Second)
	var got string
	for {
		r := kbox(t, tool, fenced...)
		got = r.Stdout
		if strings.Contains(got, "\n3 ") && strings.Contains(got, " fenced ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("broker 3 not fenced within 60 s:\n%s", got)
		}
	}
	out, errs, code, err := bed.Apache(nil, "kafka-cluster", fenced...)
	if err != nil || code != 0 || out != got {
		t.Errorf("apache exit %d %v\n%s%s\nkbox\n%s", code, err, out, errs, got)
	}
	if r := kbox(t, tool, "unregister", "-b", bs, "--id", "3"); r.Code != 0 || r.Stdout != "Broker 3 is no longer registered.\n" {
		t.Fatalf("unregister: %s", r)
	}
	if r := kbox(t, tool, fenced...); r.Code != 0 || strings.Contains(r.Stdout, "\n3 ") {
		t.Errorf("broker 3 still listed: %s", r)
	}
}
