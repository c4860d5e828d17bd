package status

import (
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
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
	}
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
	golden.JSON(t, "top.json.golden", f)
	if got, want := f.Line(2), "2026-01-02T03:04:07.000Z records/s=1510.0 bytes/s=150000.0 orders=1500.0/150000.0 logs=10.0/- (+1 topics)"; got != want {
		t.Fatalf("line:\n%s\nwant\n%s", got, want)
	}

	f.Sort(SortName)
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
	if h, r := f.PartitionTable(1); len(h) != 5 || len(r) != 1 {
		t.Fatalf("partition table %v %v", h, r)
	}
	if empty := Frame(b, b, SortRecords); len(empty.Topics) != 0 || empty.Topics == nil {
		t.Fatalf("zero interval frame: %+v", empty)
	}
}
