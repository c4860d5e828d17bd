package sweep

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/perf/perftest"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
)

// The sweep's Kafka environment, driven without the command on a kfake
// cluster: a consume sweep fills its topic, readies it, runs each cell's
// consumers with the cell's property over the user's and the preset's,
// warns once of an ignored property, and deletes its topics.
func TestKafkaEnvConsumeSweep(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	props := config.NewProperties()
	props.Set("fetch.max.wait.ms", "400")
	props.Set("some.unknown.property", "x")
	props.Set("sasl.jaas.config", "secret")
	props.Set("security.protocol", "PLAINTEXT")
	conn := &config.Connection{Bootstrap: c.ListenAddrs(), Props: props, ConnectTimeout: 10 * time.Second}
	var warned []string
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env, err := NewKafkaEnv(ctx, conn, kafka.NewClient, func(m string) { warned = append(warned, m) })
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	// The preset's fetch.max.wait.ms yields to the user's; its fetch.min.bytes is fixed.
	inEffect := env.Fix(map[string]string{"fetch.max.wait.ms": "999", "fetch.min.bytes": "2"})
	if got := Redacted(inEffect); !slices.Contains(got, "fetch.max.wait.ms=400") || !slices.Contains(got, "fetch.min.bytes=2") ||
		!slices.Contains(got, "sasl.jaas.config=[hidden]") {
		t.Fatalf("properties in effect %v", got)
	}
	if n, err := env.Brokers(ctx); err != nil || n != 1 {
		t.Fatalf("brokers %d %v", n, err)
	}
	p := &Plan{Mode: "consume", Strategy: StrategyGrid, Dimensions: dims(t, "consume", "max.poll.records=10,100"), TopicPrefix: "ke",
		Records: 200, Repeat: 1, RecordSize: 10, Producers: 1, Consumers: 1, Partitions: 2, ReplicationFactor: 1}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	cells, err := Expand(p.Dimensions, p.Strategy)
	if err != nil {
		t.Fatal(err)
	}
	sw := &Sweeper{Plan: *p, Env: env, Interval: time.Second, IdleTimeout: 30 * time.Second, Checks: DefaultChecks}
	res, err := sw.Run(ctx, cells, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed() != 0 || len(res.Cells) != 2 {
		t.Fatalf("%d cells, %d failed", len(res.Cells), res.Failed())
	}
	for i, want := range []string{"max.poll.records=10", "max.poll.records=100"} {
		r := res.Cells[i].Runs[0].Result
		if r == nil || r.Records != 200 || !slices.Contains(r.Settings, want) || !slices.Contains(r.Settings, "fetch.max.wait.ms=400") ||
			!slices.Contains(r.Settings, "fetch.min.bytes=2") {
			t.Fatalf("cell %d: %+v", i+1, r)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "some.unknown.property") {
		t.Fatalf("warnings %q", warned)
	}
	adm := kadm.NewClient(perftest.Client(t, c.ListenAddrs()))
	td, err := adm.ListTopics(ctx)
	if err != nil || len(td.Names()) != 0 {
		t.Fatalf("topics left: %v %v", td.Names(), err)
	}
}
