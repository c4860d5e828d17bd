package verify

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// eventLog is a Sink keeping events for the tests to look at while the
// consumer runs.
type eventLog struct {
	mu  sync.Mutex
	evs []Event
}

func (l *eventLog) AddLine(e Event, _ []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.evs = append(l.evs, e)
}

func (l *eventLog) events() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.evs...)
}

// consumed is the number of records the log's records_consumed events
// count.
func (l *eventLog) consumed() int64 {
	var n int64
	for _, e := range l.events() {
		if e.Name == EvRecordsConsumed {
			for _, p := range e.Parts {
				n += p.Count
			}
		}
	}
	return n
}

// owns is the number of partitions the member owns after its events.
func (l *eventLog) owns() int {
	m := map[int32]bool{}
	for _, e := range l.events() {
		for _, p := range e.Parts {
			switch e.Name {
			case EvAssigned:
				m[p.Partition] = true
			case EvRevoked:
				delete(m, p.Partition)
			}
		}
	}
	return len(m)
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// testCluster is a kfake cluster with topic t (partitions) holding n
// records.
func testCluster(t *testing.T, partitions int32, n int) (*kfake.Cluster, kgo.Opt) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	seeds := kgo.SeedBrokers(c.ListenAddrs()...)
	pcl, err := kgo.NewClient(seeds, kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer pcl.Close()
	for i := 0; i < n; i++ {
		if err := pcl.ProduceSync(context.Background(), &kgo.Record{Topic: "t", Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	return c, seeds
}

// member starts a Consumer of group g in the background; stop ends it and
// waits for Run to return.
func member(t *testing.T, seeds kgo.Opt, autoCommit bool, opts ...kgo.Opt) (log *eventLog, stop func()) {
	t.Helper()
	log = &eventLog{}
	sig := make(chan os.Signal)
	c := &Consumer{Topic: "t", Sink: log, MaxMessages: -1, AutoCommit: autoCommit, CloseTimeout: 10 * time.Second, Stop: sig}
	base := []kgo.Opt{seeds, kgo.ConsumerGroup("g"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}
	if autoCommit {
		// Only the commits before a revocation and on close count.
		base = append(base, kgo.AutoCommitInterval(time.Hour))
	} else {
		base = append(base, kgo.DisableAutoCommit())
	}
	cl, err := kgo.NewClient(append(append(base, opts...), c.ClientOpts()...)...)
	if err != nil {
		t.Fatal(err)
	}
	c.Client = cl
	done := make(chan struct{})
	go func() { defer close(done); c.Run() }()
	var once sync.Once
	stop = func() { once.Do(func() { close(sig); <-done }) }
	t.Cleanup(stop)
	return log, stop
}

// committed is the group's committed offset per partition of t.
func committed(t *testing.T, seeds kgo.Opt) map[int32]int64 {
	t.Helper()
	cl, err := kgo.NewClient(seeds)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	resp, err := kadm.NewClient(cl).FetchOffsets(context.Background(), "g")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]int64{}
	resp.Each(func(o kadm.OffsetResponse) { out[o.Partition] = o.At })
	return out
}

// TestConsumerAutoCommitOnRevokeAndClose: with AutoCommit, the consumed
// positions are committed before partitions are revoked (B joins an eager
// group) and when the member closes, as Java's consumer does; no
// offsets_committed events are printed for them.
func TestConsumerAutoCommitOnRevokeAndClose(t *testing.T) {
	for _, m := range []struct {
		name string
		opts []kgo.Opt
	}{
		{"eager", []kgo.Opt{kgo.Balancers(kgo.RangeBalancer())}},
		{"cooperative", []kgo.Opt{kgo.Balancers(kgo.CooperativeStickyBalancer())}},
		{"consumer-protocol", []kgo.Opt{kgo.ServerSideBalancer(), kgo.Balancers(kgo.StickyBalancer())}},
	} {
		t.Run(m.name, func(t *testing.T) { autoCommitOnRevokeAndClose(t, m.opts...) })
	}
}

func autoCommitOnRevokeAndClose(t *testing.T, opts ...kgo.Opt) {
	_, seeds := testCluster(t, 2, 10)
	a, stopA := member(t, seeds, true, opts...)
	waitUntil(t, "A consuming all records", func() bool { return a.consumed() == 10 })
	if c := committed(t, seeds); len(c) != 0 {
		t.Fatalf("committed %v before any revocation, with a one-hour auto-commit interval", c)
	}
	b, stopB := member(t, seeds, true, opts...)
	waitUntil(t, "the partitions split", func() bool { return a.owns() == 1 && b.owns() == 1 })
	if c := committed(t, seeds); c[0] != 5 || c[1] != 5 {
		t.Errorf("committed %v after A's revocation, want 5 and 5", c)
	}
	stopB()
	stopA()
	for _, l := range []*eventLog{a, b} {
		for _, e := range l.events() {
			if e.Name == EvOffsetsCommitted {
				t.Errorf("offsets_committed with auto commit: %+v", e)
			}
		}
	}
}

// TestConsumerAutoCommitOnClose: a member stopped before any periodic
// auto commit leaves its consumed positions committed.
func TestConsumerAutoCommitOnClose(t *testing.T) {
	_, seeds := testCluster(t, 1, 7)
	a, stop := member(t, seeds, true)
	waitUntil(t, "A consuming all records", func() bool { return a.consumed() == 7 })
	stop()
	if c := committed(t, seeds); c[0] != 7 {
		t.Errorf("committed %v after close, want 7", c)
	}
}

// TestConsumerNoAutoCommitWithout: without AutoCommit nothing but the
// tool's own commits (offsets_committed) reach the group.
func TestConsumerNoAutoCommitWithout(t *testing.T) {
	_, seeds := testCluster(t, 1, 3)
	a, stop := member(t, seeds, false)
	waitUntil(t, "A consuming all records", func() bool { return a.consumed() == 3 })
	stop()
	n := 0
	for _, e := range a.events() {
		if e.Name == EvOffsetsCommitted {
			n++
		}
	}
	if c := committed(t, seeds); n == 0 || c[0] != 3 {
		t.Errorf("%d offsets_committed, committed %v", n, c)
	}
}

// revokes is the partition counts of a log's partitions_revoked events.
func revokes(l *eventLog) []int {
	var out []int
	for _, e := range l.events() {
		if e.Name == EvRevoked {
			out = append(out, len(e.Parts))
		}
	}
	return out
}

// TestConsumerRevokedEvents: Java's listener hears of a revocation under
// the cooperative and the consumer protocols only with partitions to
// revoke, under the eager
// one on every rejoin, and on leaving only with partitions.
func TestConsumerRevokedEvents(t *testing.T) {
	incremental := func(t *testing.T, opts ...kgo.Opt) {
		_, seeds := testCluster(t, 2, 0)
		a, stopA := member(t, seeds, false, opts...)
		waitUntil(t, "A owning both partitions", func() bool { return a.owns() == 2 })
		b, stopB := member(t, seeds, false, opts...)
		waitUntil(t, "the partitions split", func() bool { return a.owns() == 1 && b.owns() == 1 })
		stopB()
		waitUntil(t, "A owning both partitions again", func() bool { return a.owns() == 2 })
		stopA()
		// A: one partition moved to B, then both on leaving. B: its one
		// partition on leaving.
		if ra, rb := revokes(a), revokes(b); len(ra) != 2 || ra[0] != 1 || ra[1] != 2 || len(rb) != 1 || rb[0] != 1 {
			t.Errorf("revocations A %v, B %v; A %+v", ra, rb, a.events())
		}
	}
	t.Run("cooperative", func(t *testing.T) { incremental(t, kgo.Balancers(kgo.CooperativeStickyBalancer())) })
	t.Run("consumer-protocol", func(t *testing.T) { incremental(t, kgo.ServerSideBalancer(), kgo.Balancers(kgo.StickyBalancer())) })
	t.Run("eager", func(t *testing.T) {
		// One partition, two members: one of them has nothing.
		_, seeds := testCluster(t, 1, 0)
		eager := kgo.Balancers(kgo.RangeBalancer())
		a, stopA := member(t, seeds, false, eager)
		waitUntil(t, "A owning the partition", func() bool { return a.owns() == 1 })
		b, stopB := member(t, seeds, false, eager)
		waitUntil(t, "B assigned", func() bool {
			for _, e := range b.events() {
				if e.Name == EvAssigned {
					return true
				}
			}
			return false
		})
		// The rejoin revoked A's partition, whatever it got back.
		if ra := revokes(a); len(ra) != 1 || ra[0] != 1 {
			t.Errorf("A revocations %v, want [1]", ra)
		}
		idle, stopIdle, busy, stopBusy := b, stopB, a, stopA
		if b.owns() == 1 {
			idle, stopIdle, busy, stopBusy = a, stopA, b, stopB
		}
		assigned := count(busy, EvAssigned)
		stopIdle()
		if r := afterShutdown(idle, EvRevoked); len(r) != 0 {
			t.Errorf("the member without partitions printed a revocation on leaving: %+v", r)
		}
		waitUntil(t, "the other member's rejoin", func() bool { return count(busy, EvAssigned) > assigned && busy.owns() == 1 })
		stopBusy()
		if r := afterShutdown(busy, EvRevoked); len(r) != 1 || len(r[0].Parts) != 1 {
			t.Errorf("the member with the partition revoked %+v on leaving, want it once", r)
		}
	})
}

func count(l *eventLog, name string) int {
	n := 0
	for _, e := range l.events() {
		if e.Name == name {
			n++
		}
	}
	return n
}

// afterShutdown is the log's events named name after shutdown_requested.
func afterShutdown(l *eventLog, name string) []Event {
	var out []Event
	seen := false
	for _, e := range l.events() {
		seen = seen || e.Name == EvShutdownRequested
		if seen && e.Name == name {
			out = append(out, e)
		}
	}
	return out
}
