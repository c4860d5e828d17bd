package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestExplicitPartitions: records with a partition go there, keyed records
// without one hash with murmur2 over all partitions (Java's choice), and a
// partition the topic lacks fails the record.
func TestExplicitPartitions(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(4, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, name := range []string{"default", "round-robin"} {
		t.Run(name, func(t *testing.T) {
			text := "linger.ms=0\n"
			if name == "round-robin" {
				text += "partitioner.class=org.apache.kafka.clients.producer.RoundRobinPartitioner\n"
			}
			conn := &config.Connection{Bootstrap: c.ListenAddrs(), Props: props(t, text)}
			cl, err := NewClient(conn, Producer, Options{Tune: func(s *Settings) { s.ExplicitPartitions = true }})
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for i := int32(0); i < 4; i++ {
				r := &kgo.Record{Topic: "t", Partition: 3 - i, Key: []byte("same"), Value: []byte("v")}
				if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
					t.Fatal(err)
				}
				if r.Partition != 3-i {
					t.Errorf("explicit partition %d: record went to %d", 3-i, r.Partition)
				}
			}
			// murmur2("k1") % 4 as Java computes it: Utils.toPositive(murmur2) % 4.
			r := &kgo.Record{Topic: "t", Partition: -1, Key: []byte("k1"), Value: []byte("v")}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatal(err)
			}
			if name == "default" {
				if want := int32(kgo.KafkaHasher(murmur2)([]byte("k1"), 4)); r.Partition != want {
					t.Errorf("keyed record went to %d, want %d", r.Partition, want)
				}
			}
			unkeyed := &kgo.Record{Topic: "t", Partition: -1, Value: []byte("v")}
			if err := cl.ProduceSync(ctx, unkeyed).FirstErr(); err != nil || unkeyed.Partition < 0 || unkeyed.Partition > 3 {
				t.Fatalf("unkeyed record: partition %d, %v", unkeyed.Partition, err)
			}
			bad := &kgo.Record{Topic: "t", Partition: 9, Value: []byte("v")}
			if err := cl.ProduceSync(ctx, bad).FirstErr(); err == nil {
				t.Error("a record for partition 9 of a 4-partition topic was produced")
			}
		})
	}
}

// murmur2 is Kafka's Utils.murmur2, written out here so the test does not
// trust franz-go's copy.
func murmur2(data []byte) uint32 {
	length := len(data)
	const seed uint32 = 0x9747b28c
	const m uint32 = 0x5bd1e995
	const r = 24
	h := seed ^ uint32(length)
	for i := 0; i+4 <= length; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	tail := length &^ 3
	switch length % 4 {
	case 3:
		h ^= uint32(data[tail+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[tail+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[tail])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return h
}
