package topics

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/logdirs"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func fakeCluster(t *testing.T, brokers int) *kgo.Client {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(brokers))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Page: the summary counts every partition, the page holds its slice
// with offsets and sizes, the unhealthy filter keeps partitions under
// min.insync.replicas, and an unknown topic is ErrNoTopic; the offsets and
// sizes given are used as given. (kfake's brokers each report every
// partition in their log dirs: physical sizes count them all.)
func TestPage(t *testing.T) {
	ctx := testCtx(t)
	cl := fakeCluster(t, 3)
	adm := kadm.NewClient(cl)
	two := "2"
	if _, err := adm.CreateTopic(ctx, 250, 1, map[string]*string{"min.insync.replicas": &two}, "t"); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.CreateTopic(ctx, 4, 1, nil, "ok"); err != nil {
		t.Fatal(err)
	}
	for range 40 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Value: []byte("0123456789")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	svc := &Service{Client: cl, Admin: adm}

	pg, err := svc.Page(ctx, PageRequest{Topic: "t", Offset: 240, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	s := pg.Topic
	if s.Name != "t" || s.ID == "" || s.PartitionCount != 250 || s.ReplicationFactor != 1 || s.MinISR == nil || *s.MinISR != 2 ||
		s.UnderMinISRPartitions != 250 || s.UnderReplicatedPartitions != 0 || s.OfflinePartitions != 0 || s.Records != 40 ||
		s.LogicalBytes <= 0 || s.LogicalBytes > s.PhysicalBytes {
		t.Fatalf("summary %+v", s)
	}
	if pg.Total != 250 || len(pg.Partitions) != 10 || pg.Partitions[0].Partition != 240 || pg.Partitions[9].Partition != 249 || pg.ConfigsErr != nil || len(pg.Configs) == 0 {
		t.Fatalf("page: total %d, %d partitions from %d, configs %v", pg.Total, len(pg.Partitions), pg.Partitions[0].Partition, pg.ConfigsErr)
	}
	p := pg.Partitions[0]
	if !p.UnderMinISR || p.Leader == nil || p.LogStartOffset == nil || p.HighWatermark == nil || p.ELR != nil {
		t.Fatalf("partition %+v", p)
	}
	first, err := svc.Page(ctx, PageRequest{Topic: "t", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if p := first.Partitions[0]; p.HighWatermark == nil || p.ReplicaSizes == nil {
		t.Fatalf("partition 0: %+v", p)
	}

	// The unhealthy filter: every partition of t, none of ok.
	if pg, err := svc.Page(ctx, PageRequest{Topic: "t", Limit: 1000, Problems: true}); err != nil || pg.Total != 250 {
		t.Fatalf("t's problems: %v %+v", err, pg)
	}
	if pg, err := svc.Page(ctx, PageRequest{Topic: "ok", Limit: 100, Problems: true}); err != nil || pg.Total != 0 || len(pg.Partitions) != 0 || pg.Topic.PartitionCount != 4 {
		t.Fatalf("ok's problems: %v %+v", err, pg)
	}
	if _, err := svc.Page(ctx, PageRequest{Topic: "nosuch", Limit: 100}); !errors.Is(err, ErrNoTopic) {
		t.Fatalf("unknown topic: %v", err)
	}

	// What the caller gives is what the page shows.
	offs, err := svc.ListOffsets(ctx, []string{"t"})
	if err != nil {
		t.Fatal(err)
	}
	sizes := logdirs.Sizes{"t": {{{Broker: *first.Partitions[0].Leader, Size: 1000}, {Broker: 99, Size: 7}}}}
	given, err := svc.Page(ctx, PageRequest{Topic: "t", Limit: 1,
		Offsets: func(context.Context) (*Offsets, error) { return offs, nil },
		Sizes:   func(context.Context) (logdirs.Sizes, error) { return sizes, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if given.Topic.Records != 40 || given.Topic.LogicalBytes != 1000 || given.Topic.PhysicalBytes != 1007 || given.Partitions[0].ReplicaSizes[99] != 7 {
		t.Fatalf("given data: %+v %+v", given.Topic, given.Partitions[0])
	}
	if _, err := svc.Page(ctx, PageRequest{Topic: "t", Limit: 1,
		Offsets: func(context.Context) (*Offsets, error) { return nil, errors.New("no offsets") },
		Sizes:   func(context.Context) (logdirs.Sizes, error) { return sizes, nil }}); err == nil || err.Error() != "no offsets" {
		t.Fatalf("offsets error: %v", err)
	}
}

// ListRows: health from metadata, sizes from the log dirs (zero for a
// topic no broker holds data of, null when no broker answered).
func TestListRows(t *testing.T) {
	ctx := testCtx(t)
	cl := fakeCluster(t, 1)
	adm := kadm.NewClient(cl)
	for _, n := range []string{"a", "b"} {
		if _, err := adm.CreateTopic(ctx, 2, 1, nil, n); err != nil {
			t.Fatal(err)
		}
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "a", Value: []byte("x")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	svc := &Service{Client: cl, Admin: adm}
	c, err := svc.Metadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	in, err := logdirs.Read(ctx, cl, logdirs.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows, failed := ListRows(c, in)
	if len(rows) != 2 || len(failed) != 0 || rows[0].Name != "a" || rows[0].Partitions != 2 || rows[0].ReplicationFactor != 1 ||
		rows[0].LogicalBytes == nil || *rows[0].LogicalBytes <= 0 || *rows[0].PhysicalBytes < *rows[0].LogicalBytes || rows[1].LogicalBytes == nil || *rows[1].LogicalBytes != 0 {
		t.Fatalf("rows %+v", rows)
	}
	if rows, _ := ListRows(c, nil); rows[0].LogicalBytes != nil || rows[1].PhysicalBytes != nil {
		t.Fatalf("no log dirs: %+v", rows)
	}
}
