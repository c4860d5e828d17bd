package status

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func TestPartitionHealth(t *testing.T) {
	md := kadm.Metadata{Topics: kadm.TopicDetails{
		"a": {Topic: "a", Partitions: kadm.PartitionDetails{
			0: {Partition: 0, Leader: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}},
			1: {Partition: 1, Leader: 2, Replicas: []int32{1, 2, 3}, ISR: []int32{2, 3}}, // not preferred, under-replicated
			2: {Partition: 2, Leader: -1, Replicas: []int32{3, 1, 2}, ISR: []int32{3}},   // offline, under, under min 2
		}},
		"b": {Topic: "b", Partitions: kadm.PartitionDetails{
			0: {Partition: 0, Leader: 1, Replicas: []int32{1}, ISR: []int32{1}},
		}},
	}}
	per, total := PartitionHealth(md, []string{"a", "b"}, map[string]int{"a": 2, "b": 2})
	want := []TopicHealth{{Topic: "a", Partitions: 3, UnderReplicated: 2, UnderMinISR: 1, Offline: 1, NonPreferredLeader: 1},
		{Topic: "b", Partitions: 1, UnderMinISR: 1}}
	if len(per) != 2 || per[0] != want[0] || per[1] != want[1] {
		t.Fatalf("per topic %+v, want %+v", per, want)
	}
	if total != (TopicHealth{Partitions: 4, UnderReplicated: 2, UnderMinISR: 2, Offline: 1, NonPreferredLeader: 1}) {
		t.Fatalf("total %+v", total)
	}
}

// A sampler with Health: brokers up, controller, every topic's health
// (not only the watched ones), and what all replicas of a watched topic
// hold.
func TestSamplerHealth(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.ClusterID("health"), kfake.SeedTopics(4, "orders"), kfake.SeedTopics(2, "hidden"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 0; i < 20; i++ {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: make([]byte, 100)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	s := &Sampler{Client: cl, Keep: func(topic string) bool { return topic == "orders" }, Health: true, ExpectedBrokers: 4}
	smp, err := s.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h := smp.Health
	if h == nil || h.ClusterID != "health" || h.Controller == nil || h.BrokersUp != 3 || h.BrokersExpected != 4 || len(h.Brokers) != 3 {
		t.Fatalf("health %+v", h)
	}
	if len(h.Topics) != 2 || h.Topics[0].Topic != "hidden" || h.Topics[1].Topic != "orders" || h.Total.Partitions != 6 {
		t.Fatalf("topics %+v total %+v", h.Topics, h.Total)
	}
	if _, ok := smp.TopicBytes["hidden"]; ok || smp.TopicBytes["orders"] < 20*100 {
		t.Fatalf("topic bytes %v", smp.TopicBytes)
	}
	if smp.Dirs == nil || len(smp.Dirs.Answered) != 3 {
		t.Fatalf("dirs %+v", smp.Dirs)
	}
	if (&Sampler{Client: cl}).mustSample(t, ctx).Health != nil {
		t.Fatal("health without Sampler.Health")
	}
}

func (s *Sampler) mustSample(t *testing.T, ctx context.Context) *TopSample {
	t.Helper()
	smp, err := s.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return smp
}

// Sums per topic: known only when every partition's value is.
func TestTopicSums(t *testing.T) {
	s := &TopSample{
		Leaders: map[tp]int32{{"a", 0}: 1, {"a", 1}: 2, {"b", 0}: 2, {"c", 0}: -1},
		Ends:    map[tp]int64{{"a", 0}: 10, {"a", 1}: 5, {"b", 0}: 7},
		Sizes:   map[tp]int64{{"a", 0}: 100, {"b", 0}: 70},
	}
	sums := s.TopicSums()
	if a := sums["a"]; a.Partitions != 2 || a.EndOffset != 15 || !a.EndOffsetKnown || a.LeaderBytesKnown {
		t.Errorf("a: %+v", a)
	}
	if b := sums["b"]; b.EndOffset != 7 || !b.EndOffsetKnown || b.LeaderBytes != 70 || !b.LeaderBytesKnown {
		t.Errorf("b: %+v", b)
	}
	if c := sums["c"]; c.EndOffsetKnown || c.LeaderBytesKnown {
		t.Errorf("c: %+v", c)
	}
	if l := s.LeadersPerBroker(); l[1] != 1 || l[2] != 2 || len(l) != 2 {
		t.Errorf("leaders %v", l)
	}
}
