package distrib

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/perf"
)

// The task lines in testdata/trogdor were captured from a Trogdor 4.3.0
// agent (ExternalCommandWorker) running kbox perf distributed's tasks.
func TestReadTaskCaptured(t *testing.T) {
	b, err := os.ReadFile("testdata/trogdor/task-produce.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	task, err := ReadTask(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	w := task.Workload
	if !strings.HasPrefix(task.ID, "kbox-perf-produce-") || w.Kind != "produce" || w.Agent != "agent1" || w.Index != 0 || w.Agents != 2 ||
		w.Records != 501 || w.Rate != 250 || w.Clients != 2 || w.KeyCardinality != 10 || w.RecordSize != 64 ||
		w.Properties["acks"] != "all" || w.Bootstrap == "" || w.StartMs == 0 || w.ClientID != "kbox-perf-producer-agent1" {
		t.Fatalf("task %+v", task)
	}
	b, err = os.ReadFile("testdata/trogdor/task-consume.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	task, err = ReadTask(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if w := task.Workload; w.Kind != "consume" || w.Group != "g-capture" || w.IdleTimeoutMs != 10000 || w.Records != 100 {
		t.Fatalf("task %+v", task)
	}
	// A task line without a newline (stdin closed after it) is read too.
	if _, err := ReadTask(strings.NewReader(strings.TrimSpace(string(b)))); err != nil {
		t.Fatal(err)
	}
}

func TestReadTaskBad(t *testing.T) {
	foreign, err := os.ReadFile("testdata/trogdor/task-foreign.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{"", "no task line"},
		{"not json\n", "bad task line"},
		{string(foreign), "task probe1: workload has no topic"},
		{`{"id":"x","workload":{"kind":"end-to-end"}}` + "\n", `kind "end-to-end"`},
		{`{"id":"x","workload":{"kind":"produce","topic":"t","bootstrap":"b","records":1,"clients":1}}` + "\n", "record_size"},
		{`{"id":"x","workload":{"kind":"consume","topic":"t","bootstrap":"b","clients":1}}` + "\n", "records > 0"},
	} {
		_, err := ReadTask(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

// A status line is what the agent stores as the task's status; the
// coordinator returns it verbatim, and the histogram in it merges exactly.
func TestStatusLineRoundTrip(t *testing.T) {
	h := perf.NewLatency()
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	st := &WorkerStatus{State: WorkerRunning, Agent: "a1", Seq: 7, UpdatedMs: 2000, StartMs: 1000, Done: 1000, Records: 1000, Bytes: 5000, Histogram: enc}
	line, err := StatusLine(st)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(line), "}\n") || strings.Count(string(line), "\n") != 1 {
		t.Fatalf("not one line: %q", line)
	}
	var outer struct {
		Status json.RawMessage `json:"status"`
	}
	if err := json.Unmarshal(line, &outer); err != nil {
		t.Fatal(err)
	}
	got, ok := ParseStatus(outer.Status)
	if !ok || got.Seq != 7 || got.Agent != "a1" || got.Histogram != enc {
		t.Fatalf("parsed %+v %v", got, ok)
	}
	p, err := got.Partial("produce", "t")
	if err != nil {
		t.Fatal(err)
	}
	if p.Records != 1000 || p.Latency.Count != 1000 || p.ElapsedSec != 1 || p.RecordsPerSec != 1000 || p.Latency.MaxMs < 999 {
		t.Fatalf("partial %+v", p)
	}
	if _, ok := ParseStatus(json.RawMessage(`{"x":1}`)); ok {
		t.Fatal("a foreign status parsed")
	}
	if _, ok := ParseStatus(nil); ok {
		t.Fatal("no status parsed")
	}
	var e struct{ Error string }
	if err := json.Unmarshal(ErrorLine(`bad "thing"`), &e); err != nil || e.Error != `bad "thing"` {
		t.Fatalf("error line: %v %q", err, e.Error)
	}
}

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		total int64
		n     int
		want  []int64
	}{{10, 3, []int64{4, 3, 3}}, {2, 3, []int64{1, 1, 0}}, {9, 3, []int64{3, 3, 3}}, {7, 1, []int64{7}}} {
		var sum int64
		for i := 0; i < c.n; i++ {
			got := Split(c.total, i, c.n)
			if got != c.want[i] {
				t.Errorf("Split(%d,%d,%d) = %d, want %d", c.total, i, c.n, got, c.want[i])
			}
			sum += got
		}
		if sum != c.total {
			t.Errorf("shares of %d add to %d", c.total, sum)
		}
	}
}

func TestSplitWorkload(t *testing.T) {
	w := AgentWorkload{Kind: "produce", Topic: "t", Records: 10, Rate: 300, KeyCardinality: 7, ClientID: "kbox-perf-producer", Clients: 2}
	ws := SplitWorkload(w, []string{"a", "b", "c"}, false)
	var recs int64
	var rate float64
	keys := map[string]bool{}
	for i, aw := range ws {
		recs += aw.Records
		rate += aw.Rate
		if aw.Agent != []string{"a", "b", "c"}[i] || aw.Index != i || aw.Agents != 3 || aw.Clients != 2 || aw.ClientID != "kbox-perf-producer-"+aw.Agent || aw.Rate != 100 {
			t.Fatalf("share %d: %+v", i, aw)
		}
		for _, k := range perf.KeyRange(aw.KeyFirst, aw.KeyCardinality) {
			if keys[string(k)] {
				t.Fatalf("key %s in two agents' ranges", k)
			}
			keys[string(k)] = true
		}
	}
	if recs != 10 || rate != 300 || len(keys) != 7 || !keys["0"] || !keys["6"] {
		t.Fatalf("records %d rate %v keys %v", recs, rate, keys)
	}
	ws = SplitWorkload(w, []string{"a", "b"}, true)
	if ws[1].Records != 10 || ws[1].Rate != 300 || ws[1].KeyCardinality != 7 || ws[1].KeyFirst != 7 || ws[0].KeyFirst != 0 {
		t.Fatalf("per agent: %+v", ws)
	}
}
