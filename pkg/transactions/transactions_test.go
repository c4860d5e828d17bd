package transactions

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The orders below were printed by a Java 21 program putting the same
// keys into a HashSet<TopicPartition> (TopicPartition's hashCode) and a
// HashMap<Long,...>.
func TestJavaOrders(t *testing.T) {
	ps := []Partition{{"orders", 0}, {"orders", 1}, {"orders", 2}, {"payments", 0}, {"diff", 1}, {"diff", 0}, {"a-very-long-topic-name", 7}}
	got := javaSetOrder(ps, -1)
	want := []Partition{{"payments", 0}, {"a-very-long-topic-name", 7}, {"orders", 0}, {"diff", 0}, {"orders", 1}, {"diff", 1}, {"orders", 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("HashSet<TopicPartition> order %v, want %v", got, want)
	}
	ids := []int64{1000, 5, 4294967296, 17, 3, 123456789012}
	if order := javafmt.HashOrdered(ids, longHash, -1); !reflect.DeepEqual(order, []int64{4294967296, 17, 123456789012, 3, 5, 1000}) {
		t.Errorf("HashMap<Long> order %v", order)
	}
	if s := (AbortSpec{Partition{"t", 3}, 7, 2, 0}).String(); s != "AbortTransactionSpec(topicPartition=t-3, producerId=7, producerEpoch=2, coordinatorEpoch=0)" {
		t.Errorf("spec %q", s)
	}
	if State("Ongoing") != "Ongoing" || State("Bogus") != "Unknown" {
		t.Error("State")
	}
}

// An open transaction on kfake: listed, described, seen on its partition,
// found by a scan with a limit below its age, aborted by its start offset.
func TestOpenTransaction(t *testing.T) {
	bs, _ := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	plain, err := kgo.NewClient(kgo.SeedBrokers(bs), kgo.DefaultProduceTopic("t"))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if err := plain.ProduceSync(ctx, &kgo.Record{Value: []byte("x")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	txn, err := kgo.NewClient(kgo.SeedBrokers(bs), kgo.DefaultProduceTopic("t"), kgo.TransactionalID("app"), kgo.TransactionTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Close()
	if err := txn.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := txn.ProduceSync(ctx, &kgo.Record{Value: []byte("y")}).FirstErr(); err != nil {
		t.Fatal(err)
	}

	ls, order, err := List(ctx, plain, ListOptions{})
	if err != nil || len(order) != 1 || len(ls[order[0]]) != 1 || ls[order[0]][0].TransactionalID != "app" || ls[order[0]][0].State != "Ongoing" {
		t.Fatalf("list: %v %v %v", ls, order, err)
	}
	descs, errs, err := Describe(ctx, plain, "app", "nope")
	if err != nil {
		t.Fatal(err)
	}
	d := descs["app"]
	if d == nil || d.State != "Ongoing" || d.TimeoutMs != 60000 || !d.Has(Partition{"t", 0}) || d.StartTimeMs == nil {
		t.Errorf("describe: %+v", d)
	}
	var ae *APIError
	if !errors.As(errs["nope"], &ae) || ae.Code != 105 {
		t.Errorf("describe nope: %v", errs["nope"])
	}
	tp := Partition{"t", 0}
	states, err := DescribeProducers(ctx, plain, []Partition{tp}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var open []Producer
	for _, p := range states[tp] {
		if p.Open() {
			open = append(open, p)
		}
	}
	if len(open) != 1 || open[0].TxnStartOffset != 1 || open[0].ProducerID != d.ProducerID {
		t.Fatalf("producers: %+v", states[tp])
	}
	if _, err := DescribeProducers(ctx, plain, []Partition{{"nope", 0}}, nil); !errors.As(err, &ae) || ae.Code != 3 {
		t.Errorf("unknown topic: %v", err)
	}

	// The scan's way: a partition that fails is skipped, not fatal.
	open, skipped, err := openTransactions(ctx, plain, []Partition{{"nope", 0}, tp}, nil, -1, time.Now, true)
	if err != nil || len(open) != 1 || len(skipped) != 1 || skipped[0] != (Skipped{"nope", 0, "This server does not host this topic-partition."}) {
		t.Errorf("skipping: %v %v %v", open, skipped, err)
	}

	// Apache's find-hanging: the coordinator lists the partition, so it
	// is not hanging.
	found, err := FindHanging(ctx, plain, Scope{Topic: "t"}, 0, func() time.Time { return time.Now().Add(time.Minute) })
	if err != nil || len(found) != 0 {
		t.Errorf("find-hanging: %v %v", found, err)
	}
	if _, err := FindHanging(ctx, plain, Scope{Topic: "nope"}, 0, time.Now); !errors.As(err, new(*StepError)) || err.Error() != "Failed to describe 1 topics: This server does not host this topic-partition." {
		t.Errorf("find-hanging nope: %v", err)
	}

	later := func() time.Time { return time.Now().Add(2 * time.Minute) }
	rep, err := Scan(ctx, plain, ScanOptions{Bootstrap: "b:9092", Now: time.Now})
	if err != nil || rep.Open != 1 || len(rep.Hanging) != 0 {
		t.Errorf("scan now: %+v %v", rep, err)
	}
	rep, err = Scan(ctx, plain, ScanOptions{Bootstrap: "b:9092", Now: later}) // past its 1 min timeout
	if err != nil || len(rep.Hanging) != 1 {
		t.Fatalf("scan later: %+v %v", rep, err)
	}
	h := rep.Hanging[0]
	if h.TransactionalID != "app" || h.Coordinator != "Ongoing" || h.StartOffset != 1 || h.TimeoutMs != 60000 ||
		h.AbortCommand != "kafka-transactions --bootstrap-server b:9092 abort --topic t --partition 0 --start-offset 1" || h.Reason != "open longer than its transaction timeout" {
		t.Errorf("hanging: %+v", h)
	}
	if _, err := SpecAt(ctx, plain, tp, 0); !errors.Is(err, ErrNoOpenTransaction) {
		t.Errorf("spec at 0: %v", err)
	}
	spec, err := SpecAt(ctx, plain, tp, 1)
	if err != nil || spec.ProducerID != d.ProducerID {
		t.Fatalf("spec at 1: %+v %v", spec, err)
	}
	// kfake accepts the marker; its effect (the LSO moves on) is checked
	// on a real broker in test/integration/transactions.
	if err := Abort(ctx, plain, spec); err != nil {
		t.Fatal(err)
	}
	if err := ForceTerminate(ctx, plain, "app", 30000); err != nil {
		t.Errorf("force terminate: %v", err)
	}
}
