package metrics

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestReportJSON(t *testing.T) {
	vs := []Value{
		{Name{"outgoing-byte-rate", "producer-metrics", []Tag{{"client-id", "p"}}}, 2000},
		{Name{"request-latency-avg", "producer-node-metrics", []Tag{{"client-id", "p"}, {"node-id", "node-1"}}}, math.NaN()},
		{Name{"buffer", "producer-metrics", []Tag{{"client-id", "p"}}}, 33554432},
	}
	b, err := json.Marshal(NewReport("h", "p", 1796132341070, vs))
	if err != nil {
		t.Fatal(err)
	}
	// Jackson's order and number forms, as the Java reporter posts them.
	want := `{"client":{"host":"h","client_id":"p","time":1796132341070},"metrics":[` +
		`{"name":"outgoing-byte-rate","group":"producer-metrics","tags":{"client-id":"p"},"value":2000.0},` +
		`{"name":"request-latency-avg","group":"producer-node-metrics","tags":{"client-id":"p","node-id":"node-1"},"value":"NaN"},` +
		`{"name":"buffer","group":"producer-metrics","tags":{"client-id":"p"},"value":3.3554432E7}]}`
	if string(b) != want {
		t.Errorf("report:\n%s\nwant:\n%s", b, want)
	}
}

// The pusher posts the registry every period, and nothing after Close.
func TestPusher(t *testing.T) {
	var mu sync.Mutex
	var bodies []map[string]any
	got := make(chan struct{}, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s with Content-Type %q", r.Method, r.Header.Get("Content-Type"))
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Errorf("body %s: %v", b, err)
		}
		mu.Lock()
		bodies = append(bodies, m)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
		got <- struct{}{}
	}))
	defer srv.Close()
	reg, _ := testRegistry()
	rec := NewRecorder(reg, Producer, "pp")
	rec.OnBrokerWrite(kBroker(1), 0, 4096, 0, 0, nil)
	start := time.Now()
	p := StartPush(PushConfig{URL: srv.URL + "/m", Period: 50 * time.Millisecond, Host: "hostA"}, rec.Snapshot, "pp", func(err error) { t.Errorf("push: %v", err) })
	for range 3 {
		select {
		case <-got:
		case <-time.After(10 * time.Second):
			t.Fatal("no push within 10 s")
		}
	}
	if el := time.Since(start); el < 150*time.Millisecond {
		t.Errorf("3 pushes after %v, want one per 50 ms period (first after one period)", el)
	}
	p.Close()
	p.Close() // idempotent
	select {
	case <-p.done: // the schedule has ended: no push after Close
	default:
		t.Error("the push loop still runs after Close")
	}
	mu.Lock()
	first := bodies[0]
	mu.Unlock()
	client := first["client"].(map[string]any)
	if client["host"] != "hostA" || client["client_id"] != "pp" {
		t.Errorf("client = %v", client)
	}
	found := false
	for _, m := range first["metrics"].([]any) {
		mm := m.(map[string]any)
		if mm["name"] == "outgoing-byte-total" && mm["group"] == "producer-metrics" {
			found = true
			if mm["value"] != 4096.0 || mm["tags"].(map[string]any)["client-id"] != "pp" {
				t.Errorf("outgoing-byte-total = %v", mm)
			}
		}
	}
	if !found {
		t.Errorf("no producer-metrics:outgoing-byte-total in %v", first)
	}
}

func TestPusherErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusInternalServerError)
	}))
	defer srv.Close()
	errs := make(chan error, 10)
	p := StartPush(PushConfig{URL: srv.URL, Period: 20 * time.Millisecond, Host: "h"}, NewRegistry().Snapshot, "c", func(err error) {
		select {
		case errs <- err:
		default:
		}
	})
	defer p.Close()
	select {
	case err := <-errs:
		if !strings.Contains(err.Error(), "500") || !strings.Contains(err.Error(), "nope") {
			t.Errorf("error = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no error reported within 10 s")
	}
}
