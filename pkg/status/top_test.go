package status

import (
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/kboxdev/kbox/pkg/groups"
)

func TestFrame(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := &TopSample{At: t0,
		Ends:        map[tp]int64{{"orders", 0}: 1000, {"orders", 1}: 500, {"logs", 0}: 10, {"audit", 0}: 0},
		Leaders:     map[tp]int32{{"orders", 0}: 1, {"orders", 1}: 2, {"logs", 0}: 2, {"audit", 0}: -1},
		Sizes:       map[tp]int64{{"orders", 0}: 100000, {"orders", 1}: 50000, {"logs", 0}: 9000},
		BrokerSizes: map[int32]int64{1: 200000, 2: 300000},
	}
	b := &TopSample{At: t0.Add(2 * time.Second),
		Ends:    map[tp]int64{{"orders", 0}: 3000, {"orders", 1}: 1500, {"logs", 0}: 30, {"audit", 0}: 0, {"new", 0}: 5},
		Leaders: map[tp]int32{{"orders", 0}: 1, {"orders", 1}: 2, {"logs", 0}: 2, {"audit", 0}: -1, {"new", 0}: 1},
		// logs-0 shrank (retention): its bytes/s is unknown.
		Sizes:       map[tp]int64{{"orders", 0}: 300000, {"orders", 1}: 150000, {"logs", 0}: 1000},
		BrokerSizes: map[int32]int64{1: 500000, 2: 600000},
		// Broker 3, still listed, refuses connections; broker 4 is fenced.
		Down: map[int32]string{4: reasonFenced, 3: "unreachable (connection refused)"},
	}
	// Groups: billing consumes 1000 records/s of orders (2000 written) and
	// falls behind; audit-reader caught up on audit; search reads two
	// topics, catching up on logs.
	part := func(topic string, p int32, committed, end int64) groups.LagPartition {
		return groups.LagPartition{Topic: topic, Partition: p, CommittedOffset: committed, LogEndOffset: &end, Lag: end - committed, CaughtUp: end == committed}
	}
	lagGroup := func(name, state string, ps ...groups.LagPartition) groups.LagGroup {
		g := groups.LagGroup{Group: name, State: state, Partitions: ps}
		for _, p := range ps {
			g.Lag += p.Lag
		}
		g.CaughtUp = g.Lag == 0
		if g.CaughtUp {
			zero := int64(0)
			g.TimeLagMs = &zero
		}
		return g
	}
	a.Lag = &groups.LagReport{Time: t0, Groups: []groups.LagGroup{
		lagGroup("billing", "Stable", part("orders", 0, 500, 1000), part("orders", 1, 400, 500)),
		lagGroup("audit-reader", "Empty", part("audit", 0, 0, 0)),
		lagGroup("search", "Stable", part("logs", 0, 0, 10), part("orders", 0, 900, 1000)),
	}}
	b.Lag = &groups.LagReport{Time: t0.Add(2 * time.Second), Groups: []groups.LagGroup{
		lagGroup("billing", "Stable", part("orders", 0, 1500, 3000), part("orders", 1, 1400, 1500)),
		lagGroup("audit-reader", "Empty", part("audit", 0, 0, 0)),
		lagGroup("search", "Stable", part("logs", 0, 30, 30), part("orders", 0, 2900, 3000)),
		lagGroup("new", "Stable", part("orders", 1, 0, 1500)),
	}}
	f := Frame(a, b, SortRecords)
	if f.RecordsPerSec != 1510 || f.BytesPerSec == nil || *f.BytesPerSec != 150000 || f.IntervalMs != 2000 {
		t.Fatalf("totals: %v records/s, %v bytes/s, %d ms", f.RecordsPerSec, f.BytesPerSec, f.IntervalMs)
	}
	var names []string
	for _, tr := range f.Topics {
		names = append(names, tr.Topic)
	}
	if strings.Join(names, ",") != "orders,logs,audit" {
		t.Fatalf("topics by records/s: %v", names)
	}
	if f.Partitions[0].Topic != "orders" || f.Partitions[0].Partition != 0 || f.Partitions[2].BytesPerSec != nil {
		t.Fatalf("partitions: %+v", f.Partitions)
	}
	var gnames []string
	for _, g := range f.Groups {
		gnames = append(gnames, g.Group)
	}
	// By commit rate: search 1015/s, billing 1000/s, audit-reader 0, new
	// (not in the first sample) unknown.
	if strings.Join(gnames, ",") != "search,billing,audit-reader,new" {
		t.Fatalf("groups by records/s: %v", gnames)
	}
	bill := f.Groups[1]
	if *bill.RecordsPerSec != 1000 || bill.Lag != 1600 || *bill.LagPerSec != 500 || bill.Trend != groups.TrendGrowing || bill.Status != groups.StatusFallingBehind {
		t.Fatalf("billing: %+v", bill)
	}
	// search's lag falls by 5/s: steady against its rates of about 1,000/s;
	// on logs it fell to 0: caught up, nothing left to shrink.
	if s := f.Groups[0]; s.Lag != 100 || *s.LagPerSec != -5 || s.Trend != groups.TrendSteady || len(s.Topics) != 2 || *s.Topics[0].RecordsPerSec != 15 || s.Topics[0].Trend != groups.TrendSteady || s.Topics[1].Trend != groups.TrendSteady {
		t.Fatalf("search: %+v", s)
	}
	if n := f.Groups[3]; n.RecordsPerSec != nil || n.LagPerSec != nil || n.Status != groups.StatusUnknown {
		t.Fatalf("new group: %+v", n)
	}
	if strings.Join(f.Problems, "|") != "broker 3 unreachable (connection refused)|broker 4 fenced by the controller" {
		t.Fatalf("problems %q", f.Problems)
	}
	golden.JSON(t, "top.json.golden", f)
	if got, want := f.Line(2), "2026-01-02T03:04:07.000Z records/s=1510.0 bytes/s=150000.0 orders=1500.0/150000.0 logs=10.0/- (+1 topics) group:search=1015.0 lag=100(-5.0/s) OK group:billing=1000.0 lag=1600(+500.0/s) OK (+2 groups) problems: broker 3 unreachable (connection refused); broker 4 fenced by the controller"; got != want {
		t.Fatalf("line:\n%s\nwant\n%s", got, want)
	}

	h, rows := f.GroupTable(10)
	if len(h) != 9 || len(rows) != 6 || strings.Join(rows[0], "|") != "search|Stable|*|1015.0|100|-5.0|steady|-|OK" ||
		strings.Join(rows[1], "|") != "search||logs|15.0|0|-5.0|steady|caught up|OK" ||
		strings.Join(rows[3], "|") != "billing|Stable|orders|1000.0|1600|+500.0|growing|-|OK" {
		t.Fatalf("group table %v", rows)
	}
	f.Sort(SortLag)
	gnames = gnames[:0]
	for _, g := range f.Groups {
		gnames = append(gnames, g.Group)
	}
	if strings.Join(gnames, ",") != "billing,new,search,audit-reader" || f.Topics[0].Topic != "orders" {
		t.Fatalf("by lag: groups %v, topics %+v", gnames, f.Topics)
	}

	f.Sort(SortName)
	if f.Groups[0].Group != "audit-reader" || f.Groups[3].Group != "search" {
		t.Fatalf("groups by name: %+v", f.Groups)
	}
	names = names[:0]
	for _, tr := range f.Topics {
		names = append(names, tr.Topic)
	}
	if strings.Join(names, ",") != "audit,logs,orders" {
		t.Fatalf("topics by name: %v", names)
	}
	f.Sort(SortBytes)
	if f.Topics[0].Topic != "orders" || f.Topics[2].BytesPerSec != nil {
		t.Fatalf("topics by bytes: %+v", f.Topics)
	}
	if h, r := f.PartitionTable(1, false); len(h) != 5 || len(r) != 1 {
		t.Fatalf("partition table %v %v", h, r)
	}
	// Sizes in binary units, or byte counts (--bytes).
	if _, r := f.TopicTable(false); r[0][3] != "146.5 KiB" {
		t.Fatalf("topic table bytes/s %q, want 146.5 KiB", r[0][3])
	}
	if _, r := f.TopicTable(true); r[0][3] != "150000" {
		t.Fatalf("topic table --bytes bytes/s %q, want 150000", r[0][3])
	}
	if _, r := f.BrokerTable(false); r[0][3] != "146.5 KiB" {
		t.Fatalf("broker table %v", r)
	}
	if empty := Frame(b, b, SortRecords); len(empty.Topics) != 0 || empty.Topics == nil {
		t.Fatalf("zero interval frame: %+v", empty)
	}
}
