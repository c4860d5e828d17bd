package topics

import (
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/internal/golden"
	"github.com/twmb/franz-go/pkg/kfake"
)

// The -o json output of every kafka-topics action, run against an
// in-process cluster and pinned by a golden file (topic ids normalised;
// one broker, so that replica placement is fixed).
func TestJSONGolden(t *testing.T) {
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.ClusterID("json-golden"))
	bs := strings.Join(c.ListenAddrs(), ",")
	ids := golden.Replace(`"id": "[A-Za-z0-9_-]{22}"`, `"id": "<topic id>"`)
	run := func(name string, args ...string) {
		t.Helper()
		base := append([]string{"--bootstrap-server", bs}, args...)
		jout, errs, code := runArgs(t, append(base, "-o", "json")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		var yout string
		// -o yaml of the same result, except for actions that change the cluster.
		if a := strings.Join(args, " "); !strings.Contains(a, "--create") && !strings.Contains(a, "--alter") && a != "--delete --topic orders" {
			if yout, errs, code = runArgs(t, append(base, "-o", "yaml")...); code != 0 {
				t.Fatalf("%s yaml: exit %d: %s", name, code, errs)
			}
		}
		golden.Output(t, name+".json.golden", jout, yout, ids)
	}
	run("create", "--create", "--topic", "orders", "--partitions", "2", "--replication-factor", "1")
	run("create-dry-run", "--create", "--topic", "dry", "--partitions", "1", "--replication-factor", "1", "--dry-run")
	run("list", "--list")
	run("describe", "--describe", "--topic", "orders")
	run("alter", "--alter", "--topic", "orders", "--partitions", "3", "--dry-run")
	run("delete-dry-run", "--delete", "--topic", "orders", "--dry-run")
	run("delete", "--delete", "--topic", "orders")
}
