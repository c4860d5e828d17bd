package offsets

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func TestParseApacheTime(t *testing.T) {
	for in, want := range map[string]int64{
		"latest": -1, "earliest": -2, "max-timestamp": -3, "earliest-local": -4, "latest-tiered": -5,
		"earliest-pending-upload": -6, "-1": -1, "-6": -6, "-7": -7, "0": 0, "+17": 17, "1796047500000": 1796047500000,
	} {
		got, err := ParseApacheTime(in)
		if err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"abc", "", "1.5", "Latest", "99999999999999999999", " 1"} {
		_, err := ParseApacheTime(in)
		if err == nil || !strings.HasPrefix(err.Error(), "Malformed time argument "+in+". Please use -1 or latest") {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestParseAt(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	cases := map[string]time.Time{
		"2026-11-30T14:05":               time.Date(2026, 11, 30, 14, 5, 0, 0, loc),
		"2026-11-30 14:05:07":            time.Date(2026, 11, 30, 14, 5, 7, 0, loc),
		"2026-11-30T14:05:07.250":        time.Date(2026, 11, 30, 14, 5, 7, 250e6, loc),
		"2026-11-30":                     time.Date(2026, 11, 30, 0, 0, 0, 0, loc),
		"2026-11-30T14:05Z":              time.Date(2026, 11, 30, 14, 5, 0, 0, time.UTC),
		"2026-11-30T14:05:00-05:00":      time.Date(2026, 11, 30, 19, 5, 0, 0, time.UTC),
		"2026-11-30T14:05+0200":          time.Date(2026, 11, 30, 12, 5, 0, 0, time.UTC),
		"1796047500000":                  time.UnixMilli(1796047500000),
		"2026-11-30T14:05:07.123456789Z": time.Date(2026, 11, 30, 14, 5, 7, 123456789, time.UTC),
	}
	for in, want := range cases {
		got, err := ParseAt(in, loc)
		if err != nil || !got.Equal(want) {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "14:05", "2026-13-01T00:00", "yesterday", "2026-11-30T14"} {
		if _, err := ParseAt(in, loc); err == nil || !strings.Contains(err.Error(), "invalid --at") {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestParseAgo(t *testing.T) {
	for in, want := range map[string]time.Duration{"15m": 15 * time.Minute, "2h30m": 150 * time.Minute, "1d": 24 * time.Hour, "1d12h": 36 * time.Hour, "90s": 90 * time.Second} {
		if got, err := ParseAgo(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	for _, in := range []string{"", "0s", "-5m", "x", "1dd", "5"} {
		if _, err := ParseAgo(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestFilters(t *testing.T) {
	str := func(s string) *string { return &s }
	f, err := NewTopicPartitions(str("orders|logs"), str("1,3,"))
	if err != nil {
		t.Fatal(err)
	}
	if !f.PartitionAllowed("orders", 3) || f.PartitionAllowed("orders", 2) || f.TopicAllowed("orders2") || !f.TopicAllowed("logs") {
		t.Errorf("topic and partitions filter: %+v", f)
	}
	if f, err := NewTopicPartitions(nil, str("")); err != nil || !f.PartitionAllowed("any", 7) {
		t.Errorf("no topic, empty partitions: every partition (%v)", err)
	}
	for in, want := range map[string]string{
		"1,x":  "--partitions expects a comma separated list of numeric partition ids, but received: 1,x",
		",1":   "--partitions expects a comma separated list of numeric partition ids, but received: ,1",
		"1, 2": "--partitions expects a comma separated list of numeric partition ids, but received: 1, 2",
	} {
		if _, err := NewTopicPartitions(nil, str(in)); err == nil || err.Error() != want {
			t.Errorf("%q: %v", in, err)
		}
	}
	if _, err := NewTopicPartitions(str("("), str("x")); err == nil || err.Error() != "( is an invalid regex." {
		t.Errorf("the regex is checked first: %v", err)
	}
	rs, err := ParseRules("orders:1-3,logs:-2,:0,empty:,x:5-")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		t    string
		p    int32
		want bool
	}{{"orders", 0, true}, {"orders", 2, true}, {"orders", 1, true}, {"orders", 3, false}, {"logs", 1, true}, {"logs", 2, false},
		{"other", 0, true}, {"other", 1, false}, {"empty", 9, true}, {"x", 4, false}, {"x", 5000, true}} {
		if got := rs.PartitionAllowed(c.t, c.p); got != c.want {
			t.Errorf("rules %s-%d: %v", c.t, c.p, got)
		}
	}
	for in, want := range map[string]string{
		"orders:x":           "org.apache.kafka.tools.TerseException: Invalid rule specification: orders:x",
		"orders:1:2":         "org.apache.kafka.tools.TerseException: Invalid rule specification: orders:1:2",
		"orders:99999999999": `For input string: "99999999999"`,
		"(:1":                "( is an invalid regex.",
	} {
		if _, err := ParseRules(in); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

func TestWriteApacheOrder(t *testing.T) {
	o := func(n int64) *int64 { return &n }
	e := "org.apache.kafka.common.errors.UnsupportedVersionException: The version of API is not supported."
	r := &Report{Partitions: []Partition{
		{Topic: "a", Partition: 2, Offset: o(5)}, {Topic: "a", Partition: 10, Offset: o(7)}, {Topic: "a", Partition: 3},
		{Topic: "a-1", Partition: 0, Offset: o(1)}, {Topic: "b", Partition: 0, Error: &e},
	}}
	var b bytes.Buffer
	if err := r.WriteApache(&b); err != nil {
		t.Fatal(err)
	}
	// TopicPartition.toString order: "a-1-0" < "a-10" < "a-2"; no line without an offset.
	if want := "a-1:0:1\na:10:7\na:2:5\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if s := r.Skipped(); len(s) != 1 || s[0] != "Skip getting offsets for topic-partition b-0 due to error: "+e {
		t.Errorf("skipped %q", s)
	}
}

func TestReportGolden(t *testing.T) {
	o := func(n int64) *int64 { return &n }
	ep := int32(0)
	at := int64(1796047500000)
	r := &Report{Time: "timestamp", AtMs: &at, Partitions: []Partition{
		{Topic: "orders", Partition: 0, Offset: o(1042), TimestampMs: o(1796047501234), LeaderEpoch: &ep},
		{Topic: "orders", Partition: 1},
	}}
	golden.JSON(t, "report.json.golden", r)
}

// List against an in-process cluster: records with known timestamps.
func TestList(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 3, 1, nil, "orders"); err != nil {
		t.Fatal(err)
	}
	base := time.UnixMilli(1_700_000_000_000)
	var recs []*kgo.Record
	for i := 0; i < 10; i++ {
		recs = append(recs, &kgo.Record{Topic: "orders", Partition: 0, Value: []byte("v"), Timestamp: base.Add(time.Duration(i) * time.Minute)})
	}
	recs = append(recs, &kgo.Record{Topic: "orders", Partition: 1, Value: []byte("v"), Timestamp: base})
	for _, r := range recs {
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	all, _ := NewTopicPartitions(nil, nil)
	got := func(ts int64) []string {
		rep, err := List(ctx, cl, Request{Filter: all, Time: ts})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range rep.Partitions {
			s := "-"
			if p.Offset != nil {
				s = strconv.FormatInt(*p.Offset, 10)
			}
			out = append(out, s)
		}
		return out
	}
	if g := strings.Join(got(Latest), ","); g != "10,1,0" {
		t.Errorf("latest %s", g)
	}
	if g := strings.Join(got(Earliest), ","); g != "0,0,0" {
		t.Errorf("earliest %s", g)
	}
	// 4.5 minutes in: partition 0's record 5, none after on 1 and 2.
	if g := strings.Join(got(base.Add(270*time.Second).UnixMilli()), ","); g != "5,-,-" {
		t.Errorf("at 4.5 min %s", g)
	}
	if _, err := List(ctx, cl, Request{Filter: Rules{}, Time: Latest}); err != ErrNoMatch {
		t.Errorf("no partition: %v", err)
	}
}
