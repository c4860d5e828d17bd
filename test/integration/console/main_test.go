//go:build integration

// Package console_test runs kbox's kafka-console-consumer and
// kafka-console-producer (and `kbox consume` / `kbox produce`) against
// Apache's tools (Kafka 4.4, via testbed.sh) on one 1-broker cluster shared
// by the whole package; and every consumer of kbox against a batch changed
// on disk (corrupt_test.go, which restarts the broker once).
package console_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kboxdev/kbox/test/integration/testbed"
)

var (
	// env is what testbed.Main set up: env.Kbox is the binary, env.BinDir
	// holds the applet links, env.Cluster the running broker.
	env testbed.Env
	// cluster is env.Cluster.
	cluster *testbed.Cluster
)

// link is the path of the kbox link named like the Apache script.
func link(name string) string { return filepath.Join(env.BinDir, name) }

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{
		Name:    "console",
		Applets: []string{"kafka-console-consumer", "kafka-console-producer", "kafka-consumer-perf-test", "kafka-verifiable-producer", "kafka-verifiable-consumer"},
		Brokers: 1,
		Ready: func(e testbed.Env) error {
			env, cluster = e, e.Cluster
			return nil
		},
	}))
}
