package console

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/corruptfake"
	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// servedLog starts a kfake cluster whose topic "cr" (one partition) holds
// log: five batches of 20 records, edited by edit.
func servedLog(t *testing.T, edit func(i int, b []byte) []byte) []string {
	t.Helper()
	c, err := corruptfake.Cluster("cr", corruptfake.Log(5, 20, edit))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

type watched struct {
	lines []string
	err   error
	gaps  []*integrity.Gap
}

// consumeWatched reads "cr" to its end (assign mode from start, or a
// subscription from the log start when start < 0) with the integrity
// checks on; skip answers OnCorrupt.
func consumeWatched(t *testing.T, addrs []string, start int64, skip bool, compacted bool) watched {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	pre, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		t.Fatal(err)
	}
	defer pre.Close()
	req := &Request{Topics: []string{"cr"}, MaxMessages: -1, ExitAtEnd: true}
	if start >= 0 {
		req.Assign, req.Start = true, Start{Kind: StartOffset, Value: start}
	}
	var out bytes.Buffer
	var w watched
	c := &Consumer{Format: mustFormat(t, `%o\n`), Out: &out, Watch: &integrity.Watcher{}}
	parts, err := c.Prepare(ctx, kadm.NewClient(pre), req)
	if err != nil {
		t.Fatal(err)
	}
	// A short long-poll: the raw reads share the client's fetch connection.
	opts := []kgo.Opt{kgo.SeedBrokers(addrs...), kgo.KeepControlRecords(), kgo.FetchMaxWait(100 * time.Millisecond)}
	if parts != nil {
		opts = append(opts, kgo.ConsumePartitions(parts))
	} else {
		opts = append(opts, kgo.ConsumeTopics("cr"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	c.Client, c.Watch.Log = cl, integrity.Reader(cl)
	c.Watch.StartOf = func(context.Context, string, int32) (int64, error) { return 0, nil }
	c.OnGap = func(g *integrity.Gap) { w.gaps = append(w.gaps, g) }
	c.Compacted = func(string) bool { return compacted }
	if skip {
		c.OnCorrupt = func(*integrity.Corruption) bool { return true }
	}
	w.err = c.Run(ctx, req)
	if ctx.Err() != nil {
		t.Fatalf("the run did not end: %v", w.err)
	}
	w.lines = strings.Fields(out.String())
	return w
}

// TestConsumerStopsAtCorruptBatch: the records before a batch whose CRC
// does not match are written, then Run returns the batch (base offset and
// both CRCs), from the start of the log, inside the batch and from a
// subscription; --skip-corrupt reads on past it.
func TestConsumerStopsAtCorruptBatch(t *testing.T) {
	addrs := servedLog(t, func(i int, b []byte) []byte {
		if i == 3 {
			return corruptfake.FlipLastByte(b)
		}
		return b
	})
	for _, tc := range []struct {
		start     int64
		lines     int
		first     string
		position  int64
		assignMsg string
	}{{0, 60, "0", 60, "assign"}, {70, 0, "", 70, "inside the batch"}, {-1, 60, "0", 60, "subscription"}} {
		w := consumeWatched(t, addrs, tc.start, false, false)
		var corr *integrity.Corruption
		if !errors.As(w.err, &corr) {
			t.Fatalf("%s: err %v", tc.assignMsg, w.err)
		}
		if corr.Offset != 60 || corr.Last != 79 || corr.Position != tc.position || !corr.CRCMismatch() || corr.Topic != "cr" {
			t.Errorf("%s: %+v", tc.assignMsg, corr)
		}
		if len(w.lines) != tc.lines || (tc.lines > 0 && (w.lines[0] != tc.first || w.lines[tc.lines-1] != "59")) {
			t.Errorf("%s: %d lines %v", tc.assignMsg, len(w.lines), w.lines)
		}
	}
	w := consumeWatched(t, addrs, 0, true, false)
	if w.err != nil || len(w.lines) != 80 || w.lines[59] != "59" || w.lines[60] != "80" {
		t.Errorf("skip: %v, %d lines", w.err, len(w.lines))
	}
}

// TestConsumerReportsOffsetJumps: a batch whose base offset was changed
// (40 -> 48; the CRC does not cover it) makes the consumer skip offsets
// 40-47 silently; Run reports the jump. Transaction markers and a
// compacted topic are not jumps.
func TestConsumerReportsOffsetJumps(t *testing.T) {
	addrs := servedLog(t, func(i int, b []byte) []byte {
		if i == 2 {
			return corruptfake.SetBase(b, 48)
		}
		return b
	})
	w := consumeWatched(t, addrs, 0, false, false)
	if w.err != nil || len(w.gaps) != 1 || w.gaps[0].From != 39 || w.gaps[0].To != 48 || !strings.Contains(w.gaps[0].Reason, "no batch in the log holds offsets 40-47") {
		t.Fatalf("err %v, gaps %v", w.err, w.gaps)
	}
	if w := consumeWatched(t, addrs, 0, false, true); len(w.gaps) != 0 {
		t.Errorf("compacted: %v", w.gaps)
	}
	// Commit markers at 20 and 61: 0-19, 20, 21-40, 41-60, 61, 62-81, 82-101.
	addrs = servedLog(t, func(i int, b []byte) []byte {
		switch i {
		case 1:
			return append(corruptfake.Marker(20), corruptfake.SetBase(b, 21)...)
		case 2:
			return append(corruptfake.SetBase(b, 41), corruptfake.Marker(61)...)
		case 3, 4:
			return corruptfake.SetBase(b, int64(i*20+2))
		}
		return b
	})
	w = consumeWatched(t, addrs, 0, false, false)
	if w.err != nil || len(w.gaps) != 0 || len(w.lines) != 100 {
		t.Errorf("markers: err %v, gaps %v, %d lines", w.err, w.gaps, len(w.lines))
	}
}
