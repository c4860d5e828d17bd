package verify

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/corruptfake"
	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestConsumerCorruptBatch: a consumer stuck on a batch whose CRC no
// longer matches hands it to OnCorrupt once the records before it are
// consumed: false ends the loop as Java's poll exception does (the
// drop-in: leave the group, shutdown_complete), true reads on past it
// (kbox verify run).
func TestConsumerCorruptBatch(t *testing.T) {
	c, err := corruptfake.Cluster("t", corruptfake.Log(4, 10, func(i int, b []byte) []byte {
		if i == 2 {
			return corruptfake.FlipLastByte(b)
		}
		return b
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i, skip := range []bool{false, true} {
		events := &eventLog{}
		var mu sync.Mutex
		var seen []*integrity.Corruption
		cons := &Consumer{Topic: "t", Sink: events, MaxMessages: 40, CloseTimeout: 10 * time.Second, Stop: make(chan os.Signal),
			OnCorrupt: func(corr *integrity.Corruption) bool {
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, corr)
				return skip
			}}
		if skip {
			cons.MaxMessages = 30
		}
		cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumerGroup(fmt.Sprintf("g%d", i)), kgo.DisableAutoCommit(),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100 * time.Millisecond)}, cons.ClientOpts()...)...)
		if err != nil {
			t.Fatal(err)
		}
		cons.Client = cl
		done := make(chan struct{})
		go func() { cons.Run(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("skip %v: the consumer did not end; consumed %d", skip, events.consumed())
		}
		mu.Lock()
		if len(seen) != 1 || seen[0].Offset != 20 || seen[0].Last != 29 || !seen[0].CRCMismatch() {
			t.Errorf("skip %v: corruptions %v", skip, seen)
		}
		mu.Unlock()
		evs := events.events()
		if want := map[bool]int64{false: 20, true: 30}[skip]; events.consumed() != want || evs[len(evs)-1].Name != EvShutdownRequested || evs[len(evs)-2].Name != EvShutdownComplete {
			t.Errorf("skip %v: consumed %d, events %v", skip, events.consumed(), evs)
		}
	}
}
