package status

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/kboxdev/kbox/pkg/features"
	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func ptr[T any](v T) *T { return &v }

func TestProduceAndConsumeRate(t *testing.T) {
	a := map[string]map[int32]int64{"t": {0: 100, 1: 50}, "gone": {0: 9}}
	b := map[string]map[int32]int64{"t": {0: 300, 1: 40, 2: 7}, "new": {0: 1000}}
	// t-0 +200; t-1 went back (recreated): 0; t-2 and "new" not in a.
	if got := ProduceRate(a, b, 2*time.Second); got == nil || *got != 100 {
		t.Fatalf("produce rate = %v, want 100", got)
	}
	if got := ProduceRate(a, b, 0); got != nil {
		t.Fatalf("produce rate with dt 0 = %v, want nil", *got)
	}
	ca := map[string]map[string]map[int32]int64{"g1": {"t": {0: 10}}, "g2": {"t": {0: 10}}}
	cb := map[string]map[string]map[int32]int64{"g1": {"t": {0: 60}}, "g2": {"t": {0: 35, 1: 99}}, "g3": {"t": {0: 5}}}
	if got := ConsumeRate(ca, cb, 500*time.Millisecond); got == nil || *got != 150 {
		t.Fatalf("consume rate = %v, want 150", got)
	}
}

// sample is a report of one healthy and one sick cluster and an
// unreachable one, as Check and Unreachable build them.
func sample() *Report {
	mv := func(fin int16, ranges map[int32][2]int16) *features.VersionStatus {
		bs := map[int32]*features.Metadata{}
		epoch := int64(9)
		for id, r := range ranges {
			bs[id] = &features.Metadata{Supported: map[string]features.Range{features.MetadataFeature: {Min: r[0], Max: r[1]}},
				Finalized: map[string]int16{features.MetadataFeature: fin}, Epoch: &epoch}
		}
		return features.MetadataVersionStatus(bs)
	}
	healthy := &Cluster{Name: "prod", Reachable: true, Problems: []string{}, ClusterID: "abc", Controller: ptr(int32(1)),
		MetadataVersion: mv(33, map[int32][2]int16{1: {7, 33}, 2: {7, 33}, 3: {7, 33}}),
		BrokersUp:       3, BrokersExpected: 3, Topics: 4, Partitions: 24, NonPreferredLeaderPartitions: 2,
		Brokers: []Broker{
			{ID: 1, Up: true, Address: ptr("10.0.0.1:9092"), Reachable: ptr(true), DiskUsedPercent: ptr(41.5), LogBytes: ptr(int64(1 << 30))},
			{ID: 2, Up: true, Address: ptr("10.0.0.2:9092"), Reachable: ptr(true), DiskUsedPercent: ptr(40.0), LogBytes: ptr(int64(1 << 30))},
			{ID: 3, Up: true, Address: ptr("10.0.0.3:9092"), Reachable: ptr(true), DiskUsedPercent: ptr(42.25), LogBytes: ptr(int64(1 << 30))},
		},
		LaggingGroups: []GroupLag{{Group: "billing", State: "Stable", Lag: 1200, LaggingPartitions: 3, TimeLagMs: ptr(int64(245000))},
			{Group: "audit", State: "Empty", Lag: 7, LaggingPartitions: 1, Verdict: groups.VerdictStop}},
		WorstGroup:           &GroupLag{Group: "audit", State: "Empty", Lag: 7, LaggingPartitions: 1, Verdict: groups.VerdictStop},
		ProduceRecordsPerSec: ptr(2000.0), ConsumeRecordsPerSec: ptr(1999.5), SampleMs: 1000, CheckedMs: 1100}
	sick := &Cluster{Name: "staging", Reachable: true, ClusterID: "def", Controller: ptr(int32(2)),
		MetadataVersion: mv(27, map[int32][2]int16{1: {7, 33}, 2: {7, 30}}),
		BrokersUp:       2, BrokersExpected: 3, Topics: 2, Partitions: 6,
		UnderReplicatedPartitions: 4, UnderMinISRPartitions: 1, OfflinePartitions: 1,
		Brokers: []Broker{
			{ID: 1, Up: true, Address: ptr("10.0.1.1:9092"), Reachable: ptr(true), DiskUsedPercent: ptr(95.0), LogBytes: ptr(int64(4096))},
			{ID: 2, Up: true, Address: ptr("10.0.1.2:9092"), Reachable: ptr(true), DiskUsedPercent: nil, LogBytes: ptr(int64(0))},
			{ID: 3, Address: ptr("10.0.1.3:9092"), Reachable: ptr(false), DownReason: ptr("unreachable (connection refused)")},
		},
		LaggingGroups:        []GroupLag{},
		ProduceRecordsPerSec: ptr(0.0), ConsumeRecordsPerSec: nil, SampleMs: 1000, CheckedMs: 1200}
	sick.Problems = problems(sick)
	gone := Unreachable("old", errors.New("cannot connect to 10.0.0.1:9092: connection refused"))
	for _, c := range []*Cluster{healthy, sick, gone} {
		c.Healthy = len(c.Problems) == 0
	}
	return NewReport([]*Cluster{gone, healthy, sick})
}

func TestProblemsAndReport(t *testing.T) {
	r := sample()
	if r.Healthy {
		t.Fatal("report with an unreachable and a sick cluster is healthy")
	}
	want := []string{"2 of 3 brokers up (down: 3)", "broker 3 unreachable (connection refused)", "1 offline partition(s)", "1 partition(s) under min.insync.replicas",
		"4 under-replicated partition(s)", "broker 1 disk 95.0% used"}
	if got := r.Clusters[2].Problems; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("problems = %q\nwant %q", got, want)
	}
	if !r.Clusters[1].Healthy || len(r.Clusters[1].Problems) != 0 {
		t.Fatalf("healthy cluster: %+v", r.Clusters[1])
	}
	if NewReport(nil).Clusters == nil || !NewReport([]*Cluster{r.Clusters[1]}).Healthy {
		t.Fatal("empty or all-healthy report")
	}
	golden.JSON(t, "status.json.golden", r)

	var b bytes.Buffer
	for _, row := range append([][]string{r.Header()}, r.Rows()...) {
		b.WriteString(strings.Join(row, "\t") + "\n")
	}
	if err := r.WriteProblems(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "status-table.golden", b.Bytes())
}

func TestCheckAllTimeoutAndConnectError(t *testing.T) {
	targets := []Target{
		{Name: "hangs", Connect: func(ctx context.Context) (*kgo.Client, func(), error) {
			<-ctx.Done()
			time.Sleep(50 * time.Millisecond) // answers late, after the deadline
			return nil, nil, ctx.Err()
		}},
		{Name: "refused", Connect: func(context.Context) (*kgo.Client, func(), error) {
			return nil, nil, errors.New("cannot connect to 127.0.0.1:1:\n connection refused")
		}},
	}
	start := time.Now()
	got := CheckAll(context.Background(), targets, 300*time.Millisecond)
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("CheckAll took %s with a 300ms timeout", el)
	}
	if got[0].Name != "hangs" || got[0].Reachable || got[0].Error == nil || *got[0].Error != "no complete answer within 300ms" {
		t.Fatalf("hanging cluster: %+v", got[0])
	}
	if got[1].Name != "refused" || got[1].Reachable || *got[1].Error != "cannot connect to 127.0.0.1:1: connection refused" || got[1].Healthy {
		t.Fatalf("refused cluster: %+v", got[1])
	}
}

// Check against kfake: the cluster's shape and a produce rate while a
// producer writes.
func TestCheckKfake(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.ClusterID("status-test"), kfake.SeedTopics(4, "orders"))
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
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 2, 1, nil, "logs"); err != nil {
		t.Fatal(err)
	}

	// A producer that keeps writing until the check is done.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("v")}).FirstErr(); err != nil {
				return
			}
		}
	}()
	// Wait for the first record so the first sample is already past zero.
	for {
		lo, err := kadm.NewClient(cl).ListEndOffsets(ctx, "orders")
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		lo.Each(func(o kadm.ListedOffset) { n += o.Offset })
		if n > 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("no record produced")
		}
	}
	// A group that committed offset 0 on every partition of orders: it
	// lags by every record produced.
	adm := kadm.NewClient(cl)
	var offs kadm.Offsets
	for p := int32(0); p < 4; p++ {
		offs.Add(kadm.Offset{Topic: "orders", Partition: p, At: 0, LeaderEpoch: -1})
	}
	if _, err := adm.CommitOffsets(ctx, "slow", offs); err != nil {
		t.Fatal(err)
	}
	got := Check(ctx, "pg", cl, Options{Sample: 300 * time.Millisecond})
	close(stop)
	wg.Wait()

	if len(got.LaggingGroups) != 1 || got.LaggingGroups[0].Group != "slow" || got.LaggingGroups[0].Lag <= 0 || got.LaggingGroups[0].LaggingPartitions < 1 {
		t.Fatalf("lagging groups %+v, want slow", got.LaggingGroups)
	}

	if !got.Reachable || got.ClusterID != "status-test" || got.Controller == nil {
		t.Fatalf("not reachable or no controller: %+v", got)
	}
	if got.BrokersUp != 3 || got.BrokersExpected != 3 || len(got.Brokers) != 3 {
		t.Fatalf("brokers %d/%d %+v", got.BrokersUp, got.BrokersExpected, got.Brokers)
	}
	if got.Topics != 2 || got.Partitions != 6 || got.OfflinePartitions != 0 {
		t.Fatalf("topics %d partitions %d offline %d", got.Topics, got.Partitions, got.OfflinePartitions)
	}
	if got.ProduceRecordsPerSec == nil || *got.ProduceRecordsPerSec <= 0 {
		t.Fatalf("produce rate %v while producing", got.ProduceRecordsPerSec)
	}
	if !got.Healthy || len(got.Problems) != 0 {
		t.Fatalf("healthy kfake cluster reported %q", got.Problems)
	}
	if v := got.MetadataVersion; v == nil || len(v.Brokers) != 3 || v.BrokersDisagree || v.UpgradeAvailable || v.FinalizedName != v.SupportedMaxName || v.Summary != v.FinalizedName {
		t.Fatalf("metadata version %+v", got.MetadataVersion)
	}
	// metadata.version one level down: an upgrade is available, and the
	// cluster is still healthy.
	top := got.MetadataVersion.SupportedMax
	res, err := features.Apply(ctx, cl.Request, []features.Update{{Feature: features.MetadataFeature, Level: top - 1}}, features.UnsafeDowngrade, false)
	if err != nil || res[features.MetadataFeature] != nil {
		t.Fatalf("downgrade: %v %v", res, err)
	}
	got = Check(ctx, "pg", cl, Options{})
	if v := got.MetadataVersion; !got.Healthy || v == nil || !v.UpgradeAvailable || v.Finalized != top-1 || !strings.Contains(v.Summary, "(upgrade available: "+v.SupportedMaxName+")") {
		t.Fatalf("after the downgrade: healthy %v, %+v", got.Healthy, got.MetadataVersion)
	}

	// Expected brokers from the profile: more than there are is a problem.
	got = Check(ctx, "pg", cl, Options{ExpectedBrokers: 5})
	if got.Healthy || got.BrokersExpected != 5 || got.ProduceRecordsPerSec != nil || got.Problems[0] != "3 of 5 brokers up" {
		t.Fatalf("expected 5: healthy=%v expected=%d problems=%q", got.Healthy, got.BrokersExpected, got.Problems)
	}
}

// The most lagging groups carry their lag in time when a reader is given:
// records written at known timestamps, a pinned clock.
func TestCheckTimeLag(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("t"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := 0; i < 10; i++ {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("v"), Timestamp: base.Add(time.Duration(i) * time.Second)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	adm := kadm.NewClient(cl)
	for g, at := range map[string]int64{"far": 3, "near": 8, "done": 10} {
		var offs kadm.Offsets
		offs.Add(kadm.Offset{Topic: "t", Partition: 0, At: at, LeaderEpoch: -1})
		if _, err := adm.CommitOffsets(ctx, g, offs); err != nil {
			t.Fatal(err)
		}
	}
	now := func() time.Time { return base.Add(time.Minute) }
	readers := 0
	reader := func(context.Context) (*kgo.Client, func(), error) {
		readers++
		r, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		if err != nil {
			return nil, nil, err
		}
		return r, r.Close, nil
	}
	got := Check(ctx, "k", cl, Options{Now: now, Reader: reader})
	lg := got.LaggingGroups
	if len(lg) != 2 || lg[0].Group != "far" || lg[0].Lag != 7 || lg[1].Group != "near" || lg[1].Lag != 2 || readers != 1 {
		t.Fatalf("lagging groups %+v (readers %d), want far:7 near:2", lg, readers)
	}
	// far's next record is offset 3 (written at base+3s), near's offset 8.
	if lg[0].TimeLagMs == nil || *lg[0].TimeLagMs != 57000 || lg[1].TimeLagMs == nil || *lg[1].TimeLagMs != 52000 {
		t.Fatalf("time lags %v %v, want 57000 52000", lg[0].TimeLagMs, lg[1].TimeLagMs)
	}
	if cell := lagCell(lg); cell != "far:7 (57.0s)" {
		t.Fatalf("table cell %q", cell)
	}
	// One sample judges: the groups have no members, so the lagging ones
	// are STOP; the worst is the one with the most lag.
	if w := got.WorstGroup; w == nil || w.Group != "far" || w.Verdict != groups.VerdictStop || w.TimeLagMs == nil || worstCell(w) != "far:STOP" {
		t.Fatalf("worst group %+v", w)
	}
	// Without a reader: lag in records only, time unknown.
	got = Check(ctx, "k", cl, Options{Now: now})
	if len(got.LaggingGroups) != 2 || got.LaggingGroups[0].TimeLagMs != nil || lagCell(got.LaggingGroups) != "far:7" {
		t.Fatalf("without reader: %+v", got.LaggingGroups)
	}
}
