//go:build integration

package cluster_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/test/integration/testbed"
)

// kbox cluster id and endpoints over the KRaft controllers: named by
// --bootstrap-controller or by a profile with bootstrap-controllers and no
// bootstrap-servers, they answer with the brokers' cluster id and list the
// controllers; the two flags together, or --include-fenced over the
// controllers, are usage errors before any request.
func TestNativeOverControllers(t *testing.T) {
	type endpoints struct {
		ClusterID   string `json:"cluster_id"`
		Controllers bool   `json:"controllers"`
		Nodes       []struct {
			ID   int32  `json:"id"`
			Port int32  `json:"port"`
			Type string `json:"endpoint_type"`
		} `json:"endpoints"`
	}
	decode := func(r testbed.Result) endpoints {
		t.Helper()
		var e endpoints
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &e) != nil {
			t.Fatalf("%s", r)
		}
		return e
	}
	brokers := decode(kbox(t, kboxBin, "cluster", "endpoints", "-o", "json", "--bootstrap-server", bed.Bootstrap))
	if brokers.Controllers || len(brokers.Nodes) != 3 || brokers.ClusterID == "" {
		t.Fatalf("over the brokers: %+v", brokers)
	}
	check := func(name string, e endpoints) {
		t.Helper()
		if !e.Controllers || e.ClusterID != brokers.ClusterID || len(e.Nodes) != len(strings.Split(ctl, ",")) {
			t.Errorf("%s: %+v, want the %d controllers of cluster %s", name, e, len(strings.Split(ctl, ",")), brokers.ClusterID)
		}
		for _, n := range e.Nodes {
			if n.Type != "controller" || !strings.Contains(ctl, ":"+itoa(n.Port)) {
				t.Errorf("%s: endpoint %+v is not one of %s", name, n, ctl)
			}
		}
	}
	check("--bootstrap-controller", decode(kbox(t, kboxBin, "cluster", "endpoints", "-o", "json", "--bootstrap-controller", ctl)))
	id := kbox(t, kboxBin, "cluster", "id", "-o", "json", "--bootstrap-controller", ctl)
	if id.Code != 0 || !strings.Contains(id.Stdout, `"cluster_id":"`+brokers.ClusterID+`"`) && !strings.Contains(id.Stdout, `"cluster_id": "`+brokers.ClusterID+`"`) {
		t.Errorf("cluster id over the controllers: %s", id)
	}

	// A profile with controllers only.
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("current-profile: ctl\nprofiles:\n  ctl:\n    bootstrap-controllers: ["+ctl+"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := testbed.Runner{Config: cfg, Timeout: 90 * time.Second}
	check("profile", decode(run.Exec(t, kboxBin, "cluster", "endpoints", "-o", "json")))

	for _, args := range [][]string{
		{"cluster", "id", "--bootstrap-server", bed.Bootstrap, "--bootstrap-controller", ctl},
		{"cluster", "endpoints", "--include-fenced", "--bootstrap-controller", ctl},
	} {
		if r := kbox(t, kboxBin, args...); r.Code != 2 || r.Stdout != "" || !strings.HasPrefix(r.Stderr, "kbox: error: ") {
			t.Errorf("%q: want a usage error (exit 2), got %s", args, r)
		}
	}
}

func itoa(n int32) string {
	b, _ := json.Marshal(n)
	return string(b)
}
