package verify

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// lines decodes JSON lines into their events.
func lines(t *testing.T, b []byte) []Event {
	t.Helper()
	var out []Event
	for _, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		var e Event
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		out = append(out, e)
	}
	return out
}

// TestProducerConsumerLines runs the drop-ins' shape: one Producer (value
// prefix, repeating keys, max messages) and then one Consumer (verbose,
// max messages cutting the poll) printing JSON lines.
func TestProducerConsumerLines(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	seeds := kgo.SeedBrokers(c.ListenAddrs()...)
	pcl, err := kgo.NewClient(seeds, kgo.DisableIdempotentWrite(), kgo.RecordRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	var pout bytes.Buffer
	lw := NewLineWriter(&pout)
	keys := int64(2)
	res := (&Producer{Client: pcl, Topic: "t", Sink: lw, MaxMessages: 5, Throughput: -1, ValuePrefix: "7.", RepeatingKeys: &keys}).Run()
	lw.Close()
	if res.Sent != 5 || res.Acked != 5 || res.Signal != nil {
		t.Fatalf("%+v", res)
	}
	evs := lines(t, pout.Bytes())
	if len(evs) != 8 || evs[0].Name != EvStartupComplete || evs[6].Name != EvShutdownComplete || evs[7].Name != EvToolData || evs[7].Acked != 5 {
		t.Fatalf("producer lines:\n%s", pout.String())
	}
	for i, e := range evs[1:6] {
		if e.Name != EvSendSuccess || *e.Value != "7."+string(rune('0'+i)) || *e.Key != string(rune('0'+i%2)) {
			t.Errorf("send %d: %+v", i, e)
		}
	}

	var cout bytes.Buffer
	lw = NewLineWriter(&cout)
	cons := &Consumer{Topic: "t", Sink: lw, MaxMessages: 3, MaxPollRecords: 500, Verbose: true, CloseTimeout: 5 * time.Second, Stop: make(chan os.Signal)}
	ccl, err := kgo.NewClient(append([]kgo.Opt{seeds, kgo.ConsumerGroup("g"), kgo.DisableAutoCommit(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, cons.ClientOpts()...)...)
	if err != nil {
		t.Fatal(err)
	}
	cons.Client = ccl
	if sig := cons.Run(); sig != nil {
		t.Fatal(sig)
	}
	lw.Close()
	var names []string
	consumed := 0
	for _, e := range lines(t, cout.Bytes()) {
		names = append(names, e.Name)
		if e.Name == EvRecordData {
			consumed++
		}
		if e.Name == EvOffsetsCommitted && (e.Success == nil || !*e.Success || e.Offsets[0].Offset != 3) {
			t.Errorf("commit %+v", e)
		}
	}
	n := len(names)
	if consumed != 3 || names[0] != EvStartupComplete || names[n-2] != EvShutdownComplete || names[n-1] != EvShutdownRequested {
		t.Fatalf("consumer lines:\n%s", cout.String())
	}
}
