//go:build integration

package reassign_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// replicaDirs returns the log dirs of broker 1 that hold topic-0, the
// future replica of a move included.
func replicaDirs(t *testing.T, adm *kadm.Client, topic string) (dirs []string, all []string) {
	t.Helper()
	ds, err := adm.DescribeBrokerLogDirs(context.Background(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds.Each(func(d kadm.DescribedLogDir) {
		all = append(all, d.Dir)
		if _, ok := d.Topics.Lookup(topic, 0); ok {
			dirs = append(dirs, d.Dir)
		}
	})
	return dirs, all
}

// A log-dir move end to end, on twin topics (Apache moves dirA-0, kbox
// dirB-0, each to the other log dir of broker 1): --execute with
// --replica-alter-log-dirs-throttle sets the broker throttle, --verify runs
// until the move completed (and then clears it); the outputs are the same
// up to the topic name and the target dir, the replica's dir is read back
// with DescribeLogDirs and no throttle is left.
func TestLogDirMove(t *testing.T) {
	bs := cluster.Bootstrap
	adm, _ := adminClient(t)
	ctx := context.Background()
	twins := []string{"dirA", "dirB"}
	for _, topic := range twins {
		if _, err := adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
	}
	// CreateTopic leaves the broker to the controller: put both on broker 1.
	req := kadm.AlterPartitionAssignmentsReq{}
	for _, topic := range twins {
		req.Assign(topic, 0, []int32{1})
	}
	if _, err := adm.AlterPartitionAssignments(ctx, req); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "twins on broker 1", 60*time.Second, func() bool {
		md, err := adm.Metadata(ctx, twins...)
		if err != nil {
			return false
		}
		for _, topic := range twins {
			p, ok := md.Topics[topic].Partitions[0]
			if !ok || len(p.Replicas) != 1 || p.Replicas[0] != 1 || p.Leader != 1 {
				return false
			}
		}
		return true
	})
	// 2 MB each (incompressible): at 500 KB/s the move takes a few seconds.
	pcl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bs, ",")...), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		t.Fatal(err)
	}
	defer pcl.Close()
	var recs []*kgo.Record
	for i := 0; i < 200; i++ {
		val := []byte(strings.Repeat(fmt.Sprintf("%08x", i*2654435761), 1250))
		for _, topic := range twins {
			recs = append(recs, &kgo.Record{Topic: topic, Value: val})
		}
	}
	if err := pcl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}

	type round struct {
		exec, verify result
		from, to     string
	}
	run := func(tool func(*testing.T, string, ...string) result, topic string) round {
		t.Helper()
		var r round
		dirs, all := replicaDirs(t, adm, topic)
		if len(dirs) != 1 || len(all) != 2 {
			t.Fatalf("%s-0 in dirs %v of %v, want one of two", topic, dirs, all)
		}
		r.from = dirs[0]
		for _, d := range all {
			if d != r.from {
				r.to = d
			}
		}
		plan := writeFile(t, topic+".json", fmt.Sprintf(`{"version":1,"partitions":[{"topic":%q,"partition":0,"replicas":[1],"log_dirs":[%q]}]}`, topic, r.to))
		r.exec = tool(t, rp, "--bootstrap-server", bs, "--execute", "--reassignment-json-file", plan, "--replica-alter-log-dirs-throttle", "500000")
		if r.exec.code != 0 {
			t.Fatalf("execute %s: %d\n%s\n%s", topic, r.exec.code, r.exec.out, r.exec.err)
		}
		want := map[string]string{"broker 1 replica.alter.log.dirs.io.max.bytes.per.second": "500000"}
		if got := settled(t, adm, want); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: throttles after execute: %v, want %v", topic, got, want)
		}
		// --verify until the move completed (that run clears the throttle).
		waitFor(t, topic+" log-dir move verified", 120*time.Second, func() bool {
			r.verify = tool(t, rp, "--bootstrap-server", bs, "--verify", "--reassignment-json-file", plan)
			return r.verify.code == 0 && strings.Contains(r.verify.out, "Clearing broker-level throttles")
		})
		if dirs, _ := replicaDirs(t, adm, topic); len(dirs) != 1 || dirs[0] != r.to {
			t.Errorf("%s-0 in %v after the move, want %s", topic, dirs, r.to)
		}
		if got := settled(t, adm, map[string]string{}); len(got) != 0 {
			t.Errorf("%s: throttles left after --verify: %v", topic, got)
		}
		return r
	}
	a := run(apache, "dirA")
	k := run(kbox, "dirB")
	// The twins may start in different dirs (the broker picks one).
	norm := func(r round, topic string, res result) result {
		out := strings.ReplaceAll(res.out, topic, "TOPIC")
		out = strings.ReplaceAll(out, `"`+r.to+`"`, `"TARGET"`)
		out = strings.ReplaceAll(out, `"`+r.from+`"`, `"SOURCE"`)
		out = strings.ReplaceAll(out, " to "+r.to+" for ", " to TARGET for ")
		return result{out, res.err, res.code}
	}
	same(t, "execute with a log-dir move", norm(a, "dirA", a.exec), norm(k, "dirB", k.exec))
	same(t, "final verify of a log-dir move", norm(a, "dirA", a.verify), norm(k, "dirB", k.verify))
	for _, want := range []string{"Successfully started moving log directory to " + k.to + " for replica dirB-0 with broker 1",
		"The replica-alter-dir throttle limit was set to 500000 B/s"} {
		if !strings.Contains(k.exec.out, want) {
			t.Errorf("kbox execute lacks %q:\n%s", want, k.exec.out)
		}
	}
	if !strings.Contains(k.verify.out, "Reassignment of replica dirB-0-1 completed successfully.") {
		t.Errorf("kbox final verify:\n%s", k.verify.out)
	}
	t.Logf("kbox execute:\n%s\nkbox final verify:\n%s", k.exec.out, k.verify.out)
}
