package logdirs

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/kboxdev/kbox/pkg/output"
)

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, name+".golden", got)
}

func TestPlanApache(t *testing.T) {
	p := PlanApache([]int32{3, 1, 2}, nil)
	if !reflect.DeepEqual(p.Existing, []int32{1, 2, 3}) || len(p.Missing) != 0 {
		t.Fatalf("all brokers: %+v", p)
	}
	p = PlanApache([]int32{1, 2, 3}, []int32{7, 2, 5})
	if !reflect.DeepEqual(p.Existing, []int32{2}) || !reflect.DeepEqual(p.Missing, []int32{5, 7}) {
		t.Fatalf("with unknown: %+v", p)
	}
	e := &UnknownBrokersError{Missing: p.Missing, Cluster: p.Cluster}
	want := "ERROR: The given brokers do not exist from --broker-list: 5,7. Current existent brokers: 1,2,3"
	if e.Error() != want {
		t.Fatalf("got %q", e.Error())
	}
}

// fixture: three brokers; broker 1 has two dirs (one offline), broker 3
// holds a future replica (a move between its dirs) and a lagging replica;
// broker 4 did not answer.
func fixture() Input {
	q := &Query{
		Answered: []BrokerDirs{
			{Broker: 1, Dirs: []Dir{
				{Path: "/data/k1/a", TotalBytes: 100 << 30, UsableBytes: 40 << 30, Replicas: []Replica{
					{Topic: "orders", Partition: 0, Size: 5 << 20},
					{Topic: "orders", Partition: 1, Size: 4 << 20},
					{Topic: "logs", Partition: 0, Size: 900},
				}},
				{Path: "/data/k1/b", ErrCode: 56, TotalBytes: -1, UsableBytes: -1},
			}},
			{Broker: 2, Dirs: []Dir{
				{Path: "/data/k2", TotalBytes: 100 << 30, UsableBytes: 90 << 30, Replicas: []Replica{
					{Topic: "orders", Partition: 0, Size: 5 << 20},
					{Topic: "orders", Partition: 1, Size: 4 << 20},
					{Topic: "logs", Partition: 0, Size: 900},
				}},
			}},
			{Broker: 3, Dirs: []Dir{
				{Path: "/data/k3/x", TotalBytes: 50 << 30, UsableBytes: 10 << 30, Replicas: []Replica{
					{Topic: "orders", Partition: 0, Size: 2 << 20, OffsetLag: 120},
					{Topic: "orders", Partition: 1, Size: 4 << 20},
				}},
				{Path: "/data/k3/y", TotalBytes: 50 << 30, UsableBytes: 10 << 30, Replicas: []Replica{
					{Topic: "orders", Partition: 1, Size: 1 << 20, OffsetLag: 3000, IsFuture: true},
				}},
			}},
		},
		Failed: []BrokerFailure{{Broker: 4, Err: errors.New("cannot connect to 127.0.0.1:9096: connection refused")}},
	}
	return Input{
		Query:   q,
		Hosts:   map[int32]string{1: "k1:9092", 2: "k2:9092", 3: "k3:9092", 4: "k4:9092"},
		Leaders: map[string]map[int32]int32{"orders": {0: 1, 1: 2}, "logs": {0: 4}},
	}
}

func render(t *testing.T, r *Report, f output.Format) []byte {
	t.Helper()
	ios, _, out, _ := output.Test()
	if err := output.Print(ios, f, r); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestReportGoldens(t *testing.T) {
	views := append(append([]string(nil), Aggregations...), ViewHealth)
	for _, v := range views {
		for _, raw := range []bool{false, true} {
			o := ReportOptions{View: v, RawBytes: raw, SkewPercent: 10, SkewMinBytes: 1 << 20}
			r := BuildReport(fixture(), o)
			name := v
			if raw {
				name += "-bytes"
			}
			checkGolden(t, "table-"+name, render(t, r, output.Table))
			if !raw {
				j, y := render(t, r, output.JSON), render(t, r, output.YAML)
				checkGolden(t, "json-"+name, j)
				checkGolden(t, "yaml-"+name, y)
				golden.SnakeKeys(t, j)
				golden.SameKeys(t, j, y)
			}
		}
	}
}

func TestReportSemantics(t *testing.T) {
	in := fixture()
	r := BuildReport(in, ReportOptions{View: AggTopic})
	topics := *r.Topics
	if len(topics) != 2 || topics[0].Topic != "logs" || topics[1].Topic != "orders" {
		t.Fatalf("topics: %+v", topics)
	}
	o := topics[1]
	// physical: every replica, future included; logical: leader replicas.
	if o.PhysicalBytes != (5+4+5+4+2+4+1)<<20 || o.LogicalBytes != (5+4)<<20 || o.Replicas != 7 || o.Partitions != 2 {
		t.Errorf("orders: %+v", o)
	}
	// logs' leader (4) did not answer: estimated from the largest replica.
	if topics[0].LogicalBytes != 900 || topics[0].LogicalEstimated != 1 {
		t.Errorf("logs: %+v", topics[0])
	}

	r = BuildReport(in, ReportOptions{View: AggTopic, SortBySize: true, Top: 1})
	if len(*r.Topics) != 1 || (*r.Topics)[0].Topic != "orders" {
		t.Errorf("sort/top: %+v", *r.Topics)
	}

	r = BuildReport(in, ReportOptions{View: ViewHealth, SkewPercent: 10, SkewMinBytes: 1 << 20})
	var got []string
	for _, h := range *r.Health {
		got = append(got, h.Topic+"/"+itoa32(h.Partition)+"@"+itoa32(h.Broker)+":"+h.Dir)
	}
	// orders-0 on 3 is 3 MiB behind the 5 MiB leader and lags; orders-1's
	// future replica on 3 is a move in progress. Equal replicas are fine.
	want := []string{"orders/0@3:/data/k3/x", "orders/1@3:/data/k3/y"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("health rows %v, want %v", got, want)
	}
	if h := (*r.Health)[0]; !reflect.DeepEqual(h.Issues, []string{"size-skew", "offset-lag"}) || *h.SkewBytes != 3<<20 {
		t.Errorf("orders-0 issue: %+v", h)
	}
	// A higher threshold drops the skew but keeps the lag.
	r = BuildReport(in, ReportOptions{View: ViewHealth, SkewPercent: 70, SkewMinBytes: 0})
	if h := (*r.Health)[0]; !reflect.DeepEqual(h.Issues, []string{"offset-lag"}) {
		t.Errorf("threshold 70: %+v", h)
	}

	r = BuildReport(in, ReportOptions{View: AggDir})
	d := (*r.Dirs)[1]
	if d.Dir != "/data/k1/b" || d.Error == nil || *d.Error != "offline (KAFKA_STORAGE_ERROR)" || d.TotalBytes != nil {
		t.Errorf("offline dir: %+v", d)
	}
	if u := (*r.Dirs)[0]; *u.UsedPercent != 60 || u.Partitions != 3 {
		t.Errorf("dir usage: %+v", u)
	}
	// Broker totals count a volume shared by two dirs once.
	r = BuildReport(in, ReportOptions{View: AggBroker})
	if b := (*r.Brokers)[2]; *b.TotalBytes != 50<<30 || b.Partitions != 3 {
		t.Errorf("broker 3: %+v", b)
	}
	if len(r.FailedBrokers) != 1 || r.FailedBrokers[0].Broker != 4 {
		t.Errorf("failed: %+v", r.FailedBrokers)
	}

	in.Keep = func(t string) bool { return t == "logs" }
	r = BuildReport(in, ReportOptions{View: AggDir})
	if (*r.Dirs)[0].SizeBytes != 900 {
		t.Errorf("topic filter: %+v", (*r.Dirs)[0])
	}
}

func TestReportJSONShape(t *testing.T) {
	r := BuildReport(Input{Query: &Query{}}, ReportOptions{View: AggDir})
	var m map[string]any
	if err := json.Unmarshal(render(t, r, output.JSON), &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["dirs"]; !ok {
		t.Errorf("empty view must still be present: %v", m)
	}
	if _, ok := m["topics"]; ok {
		t.Errorf("unselected view present: %v", m)
	}
}

func TestApacheGolden(t *testing.T) {
	in := fixture()
	r := &ApacheResult{Queried: []int32{1, 2, 3}, Answers: in.Query.Answered}
	var b bytes.Buffer
	if err := r.WriteApache(&b); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "apache", b.Bytes())
	// The JSON line parses, and --topic-list filters partitions only.
	r.Topics = []string{"logs", "missing"}
	b.Reset()
	if err := r.WriteApache(&b); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "apache-topic-list", b.Bytes())
	lines := bytes.Split(bytes.TrimSpace(b.Bytes()), []byte("\n"))
	var doc struct {
		Brokers []struct {
			Broker  int
			LogDirs []struct {
				Partitions []struct{ Partition string }
				Error      *string
				LogDir     string
			}
		}
		Version int
	}
	if err := json.Unmarshal(lines[1], &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || len(doc.Brokers) != 3 || len(doc.Brokers[0].LogDirs) != 2 {
		t.Fatalf("doc: %+v", doc)
	}
	n := 0
	for _, br := range doc.Brokers {
		for _, d := range br.LogDirs {
			for _, p := range d.Partitions {
				if p.Partition != "logs-0" {
					t.Errorf("unfiltered partition %s", p.Partition)
				}
				n++
			}
		}
	}
	if n != 2 {
		t.Errorf("want 2 logs-0 replicas, got %d", n)
	}
}

func TestJacksonString(t *testing.T) {
	var b bytes.Buffer
	r := &ApacheResult{Queried: []int32{1}, Answers: []BrokerDirs{{Broker: 1, Dirs: []Dir{{Path: "/a\"b\\c\t/<é>\x01"}}}}}
	if err := r.WriteApache(&b); err != nil {
		t.Fatal(err)
	}
	want := "Received log directory information from brokers 1\n" +
		`{"brokers":[{"broker":1,"logDirs":[{"partitions":[],"error":null,"logDir":"/a\"b\\c\t/<é>\u0001"}]}],"version":1}` + "\n"
	if b.String() != want {
		t.Errorf("got  %s\nwant %s", b.String(), want)
	}
}

// Two dirs of one broker on one 252 GiB volume report free bytes read a
// moment apart (4 KiB differ): the broker's volume is 252 GiB, not the
// 503.9 GiB of two volumes. A broker with two volumes of its own shows
// the fullest, so a full disk is not hidden by an empty one.
func TestBrokerVolumeNotSummedAcrossDirs(t *testing.T) {
	const total = int64(270553174016) // 252.0 GiB
	in := Input{Query: &Query{Answered: []BrokerDirs{
		{Broker: 1, Dirs: []Dir{
			{Path: "/var/lib/kafka/a", TotalBytes: total, UsableBytes: 200_000_000_000},
			{Path: "/var/lib/kafka/b", TotalBytes: total, UsableBytes: 200_000_000_000 - 4096},
		}},
		{Broker: 2, Dirs: []Dir{
			{Path: "/var/lib/kafka", TotalBytes: total, UsableBytes: 200_000_000_000},
		}},
		{Broker: 3, Dirs: []Dir{
			{Path: "/disk1", TotalBytes: 1000 << 30, UsableBytes: 900 << 30},
			{Path: "/disk2", TotalBytes: 100 << 30, UsableBytes: 5 << 30},
			{Path: "/disk3", ErrCode: 56, TotalBytes: -1, UsableBytes: -1},
		}},
	}}}
	r := BuildReport(in, ReportOptions{View: AggBroker})
	bs := *r.Brokers
	b1, b2, b3 := bs[0], bs[1], bs[2]
	if *b1.TotalBytes != total || *b1.TotalBytes != *b2.TotalBytes {
		t.Fatalf("broker 1 volume %d bytes (%s), broker 2 %d: one disk counted twice", *b1.TotalBytes, output.Bytes(*b1.TotalBytes), *b2.TotalBytes)
	}
	if *b1.UsableBytes != 200_000_000_000-4096 || *b1.VolumeDir != "/var/lib/kafka/b" {
		t.Fatalf("broker 1: usable %d from %s, want the fuller reading of /var/lib/kafka/b", *b1.UsableBytes, *b1.VolumeDir)
	}
	if *b3.TotalBytes != 100<<30 || *b3.UsableBytes != 5<<30 || *b3.UsedPercent != 95 || *b3.VolumeDir != "/disk2" {
		t.Fatalf("broker 3: %d/%d %.1f%% from %s, want the fullest volume /disk2 at 95%%", *b3.TotalBytes, *b3.UsableBytes, *b3.UsedPercent, *b3.VolumeDir)
	}
	if got := r.Note(); got == "" {
		t.Fatal("no note for brokers with several dirs")
	}
	if got := BuildReport(Input{Query: &Query{Answered: in.Query.Answered[1:2]}}, ReportOptions{View: AggBroker}).Note(); got != "" {
		t.Fatalf("note for one dir per broker: %q", got)
	}
}
