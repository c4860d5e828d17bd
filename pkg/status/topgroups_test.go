package status

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/kboxdev/kbox/pkg/playground"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A group consumer on a kbox playground commits at a known pace between
// samples taken on a stepped clock: top reports the commit rate, the lag,
// its change per second and its trend (growing, shrinking, steady).
func TestTopGroupRatesPlayground(t *testing.T) {
	pg, err := playground.Start(playground.Options{Brokers: 1, Topics: []playground.Topic{{Name: "orders", Partitions: 2}, {Name: "audit", Partitions: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pg.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	newClient := func(opts ...kgo.Opt) *kgo.Client {
		cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(pg.Addrs()...)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		return cl
	}
	prod := newClient(kgo.DefaultProduceTopic("orders"))
	produce := func(n int) {
		t.Helper()
		recs := make([]*kgo.Record, n)
		for i := range recs {
			recs[i] = &kgo.Record{Value: []byte("v")}
		}
		if err := prod.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	cons := newClient(kgo.ConsumerGroup("paced"), kgo.ConsumeTopics("orders"), kgo.DisableAutoCommit(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond))
	// consume polls exactly n records and commits them.
	consume := func(n int) {
		t.Helper()
		for n > 0 {
			fs := cons.PollRecords(ctx, n)
			if err := ctx.Err(); err != nil {
				t.Fatal(err)
			}
			fs.EachError(func(topic string, p int32, err error) { t.Fatalf("poll %s-%d: %v", topic, p, err) })
			n -= fs.NumRecords()
		}
		if err := cons.CommitUncommittedOffsets(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Another group, on audit only, that --group-regex leaves out.
	adm := kadm.NewClient(prod)
	var skip kadm.Offsets
	skip.AddOffset("audit", 0, 0, -1)
	if err := adm.CommitAllOffsets(ctx, "skipped", skip); err != nil {
		t.Fatal(err)
	}

	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := t0
	s := &Sampler{Client: newClient(), Groups: true, GroupRegex: regexp.MustCompile("^(?:pa.*)$"), Now: func() time.Time { return clock }}
	sample := func(at time.Duration) *TopSample {
		t.Helper()
		clock = t0.Add(at)
		smp, err := s.Sample(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return smp
	}
	type want struct {
		rate, lagPerSec float64
		lag             int64
		trend           string
	}
	check := func(name string, f *TopFrame, w want) {
		t.Helper()
		if f.GroupsError != "" || len(f.Groups) != 1 {
			t.Fatalf("%s: groups %+v (error %q)", name, f.Groups, f.GroupsError)
		}
		g := f.Groups[0]
		if g.Group != "paced" || g.RecordsPerSec == nil || *g.RecordsPerSec != w.rate || g.Lag != w.lag ||
			g.LagPerSec == nil || *g.LagPerSec != w.lagPerSec || g.Trend != w.trend {
			t.Fatalf("%s: got %+v rate %v lag/s %v, want %+v", name, g, g.RecordsPerSec, g.LagPerSec, w)
		}
		if len(g.Topics) != 1 || g.Topics[0].Topic != "orders" || *g.Topics[0].RecordsPerSec != w.rate || g.Topics[0].Lag != w.lag {
			t.Fatalf("%s: topics %+v", name, g.Topics)
		}
	}

	produce(1000)
	consume(100)
	s0 := sample(0)
	produce(1000)
	consume(600) // 600 in 2 s: 300/s; lag 900 -> 1300
	s1 := sample(2 * time.Second)
	f := Frame(s0, s1, SortRecords)
	check("falling behind", f, want{rate: 300, lag: 1300, lagPerSec: 200, trend: groups.TrendGrowing})
	if f.RecordsPerSec != 500 || f.Groups[0].Status != groups.StatusFallingBehind {
		t.Fatalf("produce rate %v, status %s", f.RecordsPerSec, f.Groups[0].Status)
	}
	if !strings.Contains(f.Line(5), " group:paced=300.0 lag=1300(+200.0/s)") {
		t.Fatalf("line: %s", f.Line(5))
	}
	// The rates and the trend are judged over the window of commits since
	// the first sample (as in groups lag --watch), not over one interval.
	consume(1300) // catches up: 1,900 committed in 4 s, lag 900 -> 1300 -> 0
	s2 := sample(4 * time.Second)
	// The lag went up, then to 0: no slope the three commits can tell
	// from their scatter (steady); the group is caught up.
	check("catching up", Frame(s1, s2, SortRecords), want{rate: 475, lag: 0, lagPerSec: -225, trend: groups.TrendSteady})
	// Idle and caught up: the sample counts in the window (nothing to
	// commit), so the rate runs to now.
	s3 := sample(6 * time.Second)
	f = Frame(s2, s3, SortLag)
	check("idle", f, want{rate: 316.7, lag: 0, lagPerSec: -200, trend: groups.TrendSteady})
	if f.Groups[0].Status != groups.StatusCaughtUp || f.Groups[0].TimeLagMs == nil || *f.Groups[0].TimeLagMs != 0 || f.Groups[0].Verdict != groups.VerdictOK {
		t.Fatalf("caught up group: %+v", f.Groups[0])
	}

	// Topics not watched are not counted in a group's lag.
	s.Keep = func(topic string) bool { return topic == "audit" }
	s.GroupRegex = nil
	f = Frame(sample(8*time.Second), sample(10*time.Second), SortName)
	if len(f.Groups) != 1 || f.Groups[0].Group != "skipped" || f.Groups[0].Topics[0].Topic != "audit" {
		t.Fatalf("groups on audit: %+v", f.Groups)
	}
	// Without Groups, no group request and an empty list.
	s.Groups = false
	if f := Frame(sample(12*time.Second), sample(14*time.Second), SortName); f.Groups == nil || len(f.Groups) != 0 {
		t.Fatalf("groups not watched: %+v", f.Groups)
	}
}

// Groups that could not be sampled leave the topics' rates and say why.
func TestTopGroupsError(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := &TopSample{At: t0, Ends: map[tp]int64{{"t", 0}: 0}, Leaders: map[tp]int32{{"t", 0}: 1}, Lag: &groups.LagReport{Time: t0}}
	b := &TopSample{At: t0.Add(time.Second), Ends: map[tp]int64{{"t", 0}: 10}, Leaders: map[tp]int32{{"t", 0}: 1},
		LagErr: errors.New("list groups: CLUSTER_AUTHORIZATION_FAILED")}
	f := Frame(a, b, SortRecords)
	if f.RecordsPerSec != 10 || f.Groups == nil || len(f.Groups) != 0 || f.GroupsError != "list groups: CLUSTER_AUTHORIZATION_FAILED" {
		t.Fatalf("frame: %+v", f)
	}
	if l := f.Line(5); !strings.HasSuffix(l, " t=10.0/- groups: list groups: CLUSTER_AUTHORIZATION_FAILED") {
		t.Fatalf("line: %s", l)
	}
}
