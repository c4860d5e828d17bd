package groups

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

var lagBase = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// lagCluster starts kfake with topic t (2 partitions) and u (1), writes
// records with known timestamps (record i of a partition at lagBase + i s),
// and commits offsets for three groups.
func lagCluster(t *testing.T) (*kgo.Client, *kgo.Client) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "t"), kfake.SeedTopics(1, "u"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ctx := context.Background()
	var recs []*kgo.Record
	for i := 0; i < 10; i++ {
		for _, tp := range []struct {
			topic string
			p     int32
		}{{"t", 0}, {"t", 1}, {"u", 0}} {
			recs = append(recs, &kgo.Record{Topic: tp.topic, Partition: tp.p, Value: []byte("v"), Timestamp: lagBase.Add(time.Duration(i) * time.Second)})
		}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	adm := kadm.NewClient(cl)
	commit := func(g string, offs map[string]map[int32]int64) {
		var os kadm.Offsets
		for tp, ps := range offs {
			for p, at := range ps {
				os.AddOffset(tp, p, at, -1)
			}
		}
		if err := adm.CommitAllOffsets(ctx, g, os); err != nil {
			t.Fatalf("commit %s: %v", g, err)
		}
	}
	commit("g1", map[string]map[int32]int64{"t": {0: 3, 1: 10}, "u": {0: 9}})
	commit("g2", map[string]map[int32]int64{"t": {0: 7, 1: 10}})
	commit("idle", map[string]map[int32]int64{"u": {0: 10}})
	reader, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.FetchMaxWait(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reader.Close)
	return cl, reader
}

func TestLagTime(t *testing.T) {
	cl, reader := lagCluster(t)
	now := lagBase.Add(time.Minute)
	rep, err := Lag(context.Background(), cl, LagRequest{Reader: reader, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 3 || rep.Groups[0].Group != "g1" || rep.Groups[1].Group != "g2" || rep.Groups[2].Group != "idle" {
		t.Fatalf("groups: %+v", rep.Groups)
	}
	g1 := rep.Groups[0]
	if g1.Lag != 7+1 || g1.CaughtUp || g1.State != "Empty" {
		t.Errorf("g1 lag %d caught up %v state %s", g1.Lag, g1.CaughtUp, g1.State)
	}
	want := []struct {
		topic   string
		p       int32
		lag     int64
		timeLag *int64 // ms
	}{
		{"t", 0, 7, ptrTo(int64(57_000))}, // record 3 written at lagBase+3s, now lagBase+60s
		{"t", 1, 0, ptrTo(int64(0))},
		{"u", 0, 1, ptrTo(int64(51_000))},
	}
	if len(g1.Partitions) != len(want) {
		t.Fatalf("g1 partitions %+v", g1.Partitions)
	}
	for i, w := range want {
		p := g1.Partitions[i]
		if p.Topic != w.topic || p.Partition != w.p || p.Lag != w.lag || p.TimeLagMs == nil || *p.TimeLagMs != *w.timeLag {
			t.Errorf("g1 %s-%d: lag %d time %v, want %d %d", p.Topic, p.Partition, p.Lag, p.TimeLagMs, w.lag, *w.timeLag)
		}
	}
	if p := g1.Partitions[1]; !p.CaughtUp || p.NextRecordTimestampMs != nil {
		t.Errorf("t-1 should be caught up with no next record: %+v", p)
	}
	if g1.TimeLagMs == nil || *g1.TimeLagMs != 57_000 {
		t.Errorf("g1 time lag %v, want the largest, 57000", g1.TimeLagMs)
	}
	// g2 stands at another offset of the same partition t-0.
	g2 := rep.Groups[1]
	if g2.TimeLagMs == nil || *g2.TimeLagMs != 53_000 || g2.Lag != 3 {
		t.Errorf("g2 lag %d time %v, want 3 and 53000", g2.Lag, g2.TimeLagMs)
	}
	idle := rep.Groups[2]
	if !idle.CaughtUp || idle.TimeLagMs == nil || *idle.TimeLagMs != 0 {
		t.Errorf("idle: %+v", idle)
	}
	if got := idle.Partitions[0].LogEndOffset; got == nil || *got != 10 {
		t.Errorf("idle log end %v", got)
	}

	rep.Time = lagBase // the golden pins the schema, not the clock
	golden.JSON(t, "lag.json.golden", rep)
}

func TestLagFilters(t *testing.T) {
	cl, _ := lagCluster(t)
	ctx := context.Background()
	rep, err := Lag(ctx, cl, LagRequest{GroupRegex: regexp.MustCompile(`^g.*$`), TopicRegex: regexp.MustCompile(`^t$`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 2 {
		t.Fatalf("groups %+v", rep.Groups)
	}
	for _, g := range rep.Groups {
		for _, p := range g.Partitions {
			if p.Topic != "t" {
				t.Errorf("%s: topic %s not filtered", g.Group, p.Topic)
			}
			if p.TimeLagMs != nil && p.Lag > 0 {
				t.Errorf("no reader, but a time lag: %+v", p)
			}
		}
	}
	rep.Filter(true, SortLag)
	if len(rep.Groups) != 2 || rep.Groups[0].Group != "g1" || len(rep.Groups[0].Partitions) != 1 {
		t.Fatalf("only lagging, by lag: %+v", rep.Groups)
	}
	// Explicit names: one unknown group is reported with an error.
	rep, err = Lag(ctx, cl, LagRequest{Groups: []string{"nosuch", "idle"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 2 || rep.Groups[1].Group != "nosuch" || rep.Groups[1].Error == "" || rep.Groups[1].State != "Dead" {
		t.Fatalf("unknown group: %+v", rep.Groups)
	}
}

func TestSortGroups(t *testing.T) {
	r := &LagReport{Groups: []LagGroup{
		{Group: "b", Lag: 5, TimeLagMs: ptrTo(int64(10))},
		{Group: "a", Lag: 5, TimeLagMs: nil},
		{Group: "c", Lag: 1, TimeLagMs: ptrTo(int64(99))},
	}}
	order := func() string {
		s := ""
		for _, g := range r.Groups {
			s += g.Group
		}
		return s
	}
	r.Filter(false, SortLag)
	if order() != "abc" {
		t.Errorf("by lag: %s", order())
	}
	r.Filter(false, SortTime)
	if order() != "cba" {
		t.Errorf("by time: %s", order())
	}
	r.Filter(false, SortName)
	if order() != "abc" {
		t.Errorf("by name: %s", order())
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		850 * time.Millisecond:        "850ms",
		12300 * time.Millisecond:      "12.3s",
		4*time.Minute + 5*time.Second: "4m05s",
		2*time.Hour + 3*time.Minute:   "2h03m",
		76 * time.Hour:                "3d04h",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
	if FormatTimeLag(nil, true) != "caught up" || FormatTimeLag(nil, false) != "-" {
		t.Error("caught up / unknown")
	}
}

// Several offsets of one partition in one lookup: near ones read on, far
// ones sought; each answered by the first record at or after it.
func TestRecordTimestampsManyOffsets(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "big"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// Batches of 50 records, so fetches of 4 KiB hold a few of them and
	// the far offsets need seeks.
	for b := 0; b < 120; b++ {
		var recs []*kgo.Record
		for i := b * 50; i < (b+1)*50; i++ {
			recs = append(recs, &kgo.Record{Topic: "big", Value: []byte("v"), Timestamp: time.UnixMilli(1_000_000 + int64(i))})
		}
		if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	reader, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.FetchMaxWait(100*time.Millisecond), kgo.FetchMaxPartitionBytes(4<<10))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	want := []int64{4990, 10, 11, 10, 4000, 5999}
	for round := 0; round < 2; round++ { // the reader serves successive calls
		got := RecordTimestamps(context.Background(), reader, map[string]map[int32][]int64{"big": {0: want}}, 10*time.Second)
		for _, o := range want {
			if ts, ok := got["big"][0][o]; !ok || ts != 1_000_000+o {
				t.Errorf("round %d offset %d: %d %v, want %d", round, o, ts, ok, 1_000_000+o)
			}
		}
	}
}

// With a TimestampCache, a committed offset that did not move is not read
// again (the second Lag's reader is closed, yet the time lag is known); a
// moved one is read, and entries not asked for any more are dropped.
// KeepGroup filters like GroupRegex.
func TestLagTimestampCache(t *testing.T) {
	cl, reader := lagCluster(t)
	ctx := context.Background()
	now := lagBase.Add(time.Minute)
	cache := &TimestampCache{}
	req := LagRequest{Reader: reader, Timestamps: cache, Now: func() time.Time { return now }, KeepGroup: func(g string) bool { return g != "idle" }}
	rep, err := Lag(ctx, cl, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 2 || rep.Groups[0].Group != "g1" || rep.Groups[1].Group != "g2" {
		t.Fatalf("KeepGroup: groups %+v", rep.Groups)
	}
	if len(cache.m) != 3 { // t-0 at 3 and 7, u-0 at 9
		t.Fatalf("cache %+v", cache.m)
	}
	closed, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	now = now.Add(time.Second)
	req.Reader = closed
	rep, err = Lag(ctx, cl, req)
	if err != nil {
		t.Fatal(err)
	}
	if g1 := rep.Groups[0]; g1.TimeLagMs == nil || *g1.TimeLagMs != 58_000 {
		t.Fatalf("g1 from the cache: time lag %v, want 58000", g1.TimeLagMs)
	}
	// g2 moves on t-0 to 8: read again (with a live reader); its old
	// offset 7 leaves the cache.
	var os kadm.Offsets
	os.AddOffset("t", 0, 8, -1)
	if err := kadm.NewClient(cl).CommitAllOffsets(ctx, "g2", os); err != nil {
		t.Fatal(err)
	}
	req.Reader = reader
	if rep, err = Lag(ctx, cl, req); err != nil {
		t.Fatal(err)
	}
	if g2 := rep.Groups[1]; g2.TimeLagMs == nil || *g2.TimeLagMs != 53_000 {
		t.Fatalf("g2 moved to 8 (written at +8s, now +61s): time lag %v, want 53000", g2.TimeLagMs)
	}
	if _, ok := cache.m[tsKey{"t", 0, 7}]; ok || len(cache.m) != 3 {
		t.Fatalf("cache after the move: %+v", cache.m)
	}
}
