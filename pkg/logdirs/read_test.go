package logdirs

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Read lists the brokers when asked to (metadata, or DescribeCluster with
// Registered), refuses an unknown id before asking anything, asks only
// the partitions given, and reads the leaders alongside.
func TestRead(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(4, "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "a", Value: []byte("hello")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	ids := func(bs []BrokerDirs) []int32 {
		var out []int32
		for _, b := range bs {
			out = append(out, b.Broker)
		}
		return out
	}

	in, err := Read(ctx, cl, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(in.Query.Answered); !reflect.DeepEqual(got, []int32{0, 1, 2}) || len(in.Hosts) != 3 || len(in.Brokers) != 3 || in.Leaders != nil || in.At.IsZero() {
		t.Fatalf("all brokers: %v, hosts %v, leaders %v", got, in.Hosts, in.Leaders)
	}
	sizes := in.Query.Sizes(nil)
	if len(sizes["a"]) != 4 || len(sizes["b"]) != 4 || sizes.Of("a", 9) != nil || sizes.Of("nosuch", 0) != nil {
		t.Fatalf("sizes: %v", sizes)
	}
	var total int64
	for p := range int32(4) {
		for _, r := range sizes.Of("a", p) {
			total += r.Size
		}
	}
	if total <= 0 {
		t.Fatalf("a's sizes: %v", sizes["a"])
	}

	// Brokers named: no listing, each asked once, in order.
	in, err = Read(ctx, cl, ReadOptions{Brokers: []int32{2, 0, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(in.Query.Answered); !reflect.DeepEqual(got, []int32{0, 2}) || len(in.Hosts) != 0 || in.Brokers != nil {
		t.Fatalf("named brokers: %v, hosts %v", got, in.Hosts)
	}
	// An empty list asks nobody.
	if in, err := Read(ctx, cl, ReadOptions{Brokers: []int32{}}); err != nil || len(in.Query.Answered)+len(in.Query.Failed) != 0 {
		t.Fatalf("no broker: %v %+v", err, in.Query)
	}

	// Registered brokers, leaders, one topic's partitions only.
	in, err = Read(ctx, cl, ReadOptions{Registered: true, Leaders: true, Query: QueryOptions{Partitions: map[string][]int32{"b": {1, 3}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Brokers) != 3 || len(in.Leaders["a"]) != 4 || in.LeadersErr != nil {
		t.Fatalf("registered: %+v, leaders %v (%v)", in.Brokers, in.Leaders, in.LeadersErr)
	}
	for _, bd := range in.Query.Answered {
		for _, d := range bd.Dirs {
			for _, r := range d.Replicas {
				if r.Topic != "b" || (r.Partition != 1 && r.Partition != 3) {
					t.Fatalf("asked b 1,3, got %s %d", r.Topic, r.Partition)
				}
			}
		}
	}

	var ue *UnknownBrokerError
	_, err = Read(ctx, cl, ReadOptions{Registered: true, Brokers: []int32{7, 1}})
	if !errors.As(err, &ue) || !reflect.DeepEqual(ue.Missing, []int32{7}) || !reflect.DeepEqual(ue.Cluster, []int32{0, 1, 2}) {
		t.Fatalf("unknown broker: %v", err)
	}
	if err.Error() != "unknown broker 7 (cluster brokers: 0,1,2)" {
		t.Fatalf("message %q", err)
	}
	// The leaders are metadata's: kadm's view agrees.
	md, err := kadm.NewClient(cl).Metadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	in, err = Read(ctx, cl, ReadOptions{Leaders: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range md.Topics["a"].Partitions {
		if l, ok := in.Leaders["a"][p.Partition]; !ok || l != p.Leader {
			t.Fatalf("leader of a/%d: %d, kadm %d", p.Partition, l, p.Leader)
		}
	}
}

func TestTargets(t *testing.T) {
	listed := []ClusterBroker{{ID: 3}, {ID: 1}, {ID: 2, Fenced: true}}
	if got, err := Targets(listed, nil); err != nil || !reflect.DeepEqual(got, []int32{1, 2, 3}) {
		t.Fatalf("all: %v %v", got, err)
	}
	if got, err := Targets(listed, []int32{3, 3, 2}); err != nil || !reflect.DeepEqual(got, []int32{2, 3}) {
		t.Fatalf("some: %v %v", got, err)
	}
	var ue *UnknownBrokerError
	if _, err := Targets(listed, []int32{5, 1, 4}); !errors.As(err, &ue) || !reflect.DeepEqual(ue.Missing, []int32{5, 4}) {
		t.Fatalf("unknown: %v", err)
	}
}
