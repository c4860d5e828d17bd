package messages

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func ms(d time.Duration) *int64 { v := base.Add(d).UnixMilli(); return &v }

func keysOf(p *Page) string {
	var ks []string
	for _, m := range p.Messages {
		ks = append(ks, *m.Key.Text)
	}
	return strings.Join(ks, ",")
}

// The header filter: NAME (exact) keeps records with that header,
// NAME=TEXT those whose value as shown contains TEXT (case-insensitive);
// any one header is enough.
func TestHeaderFilter(t *testing.T) {
	cl := seed(t, 3, 100)
	ctx := context.Background()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "u"); err != nil {
		t.Fatal(err)
	}
	hs := [][]kgo.RecordHeader{
		{{Key: "Trace", Value: []byte("ABC-def")}},
		{{Key: "trace", Value: []byte("abc")}},
		{{Key: "Trace", Value: []byte{0xff, 0x00}}}, // shown as base64 /wA=
		nil,
		{{Key: "a", Value: []byte("abc")}, {Key: "Trace", Value: []byte("xyz")}},
		{{Key: "Trace"}}, // a null value
	}
	for i, h := range hs {
		r := &kgo.Record{Topic: "u", Partition: 0, Key: []byte(fmt.Sprint("r", i)), Value: []byte("v"), Headers: h}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ header, want string }{
		{"Trace", "r0,r2,r4,r5"},
		{"Trace=", "r0,r2,r4,r5"},
		{"Trace=abc", "r0"},
		{"Trace=DEF", "r0"},
		{"trace=ABC", "r1"},
		{"Trace=/wa", "r2"},
		{"Trace=XYZ", "r4"},
		{"a", "r4"},
		{"TRACE", ""},
		{"Trace=nope", ""},
		{"missing", ""},
	} {
		p, err := Read(ctx, cl, Request{Topic: "u", Start: Oldest, Header: c.header})
		if err != nil {
			t.Fatal(err)
		}
		if got := keysOf(p); got != c.want || p.Scanned != len(hs) || p.Stopped != StopEnd {
			t.Errorf("header %q: %q (scanned %d, stopped %s), want %q", c.header, got, p.Scanned, p.Stopped, c.want)
		}
	}
	// Header h=<i> on t: "h=7" is 7, 17, ..., 97 and 70 to 79.
	for _, start := range []Start{Newest, Oldest} {
		keys, _ := all(t, cl, Request{Start: start, Header: "h=7", Limit: 4})
		if len(keys) != 19 {
			t.Errorf("%s h=7: %d records %v", start, len(keys), keys)
		}
		for _, k := range keys {
			if !strings.Contains(k, "7") {
				t.Errorf("%s h=7 kept %s", start, k)
			}
		}
	}
}

// The time range is [from, to): from inclusive, to exclusive. Records
// outside are skipped and count as scanned, bounded by the scan.
func TestTimeRange(t *testing.T) {
	cl := seed(t, 3, 100) // record i at base + i s
	for _, start := range []Start{Newest, Oldest} {
		p := read(t, cl, Request{Start: start, From: ms(10 * time.Second), To: ms(20 * time.Second), Limit: 500})
		if len(p.Messages) != 10 || p.Scanned != 100 || p.Stopped != StopEnd {
			t.Errorf("%s [10s, 20s): %d records (%s), scanned %d, stopped %s", start, len(p.Messages), keysOf(p), p.Scanned, p.Stopped)
		}
		for _, m := range p.Messages {
			if ts := m.TimestampMs; ts < *ms(10 * time.Second) || ts >= *ms(20 * time.Second) {
				t.Errorf("%s kept %s at %d", start, *m.Key.Text, ts)
			}
		}
		if start == Newest && (*p.Messages[0].Key.Text != "k19" || *p.Messages[9].Key.Text != "k10") {
			t.Errorf("newest [10s, 20s): %s", keysOf(p))
		}
		// One millisecond either side of an edge.
		for _, c := range []struct {
			from, to *int64
			n        int
		}{
			{ms(95 * time.Second), nil, 5},
			{ms(95*time.Second + time.Millisecond), nil, 4},
			{nil, ms(5 * time.Second), 5},
			{nil, ms(5*time.Second + time.Millisecond), 6},
			{ms(50 * time.Second), ms(50*time.Second + time.Millisecond), 1},
			{ms(200 * time.Second), nil, 0},
		} {
			if p := read(t, cl, Request{Start: start, From: c.from, To: c.to, Limit: 500}); len(p.Messages) != c.n {
				t.Errorf("%s from %v to %v: %s, want %d records", start, c.from, c.to, keysOf(p), c.n)
			}
		}
		// Paged, every record of the range once.
		keys, _ := all(t, cl, Request{Start: start, From: ms(30 * time.Second), To: ms(60 * time.Second), Limit: 7})
		seen := map[string]bool{}
		for _, k := range keys {
			seen[k] = true
		}
		if len(keys) != 30 || len(seen) != 30 {
			t.Errorf("%s paged [30s, 60s): %v", start, keys)
		}
		// Out-of-range records count against the scan: the page stops
		// with a cursor to go on.
		p = read(t, cl, Request{Start: start, From: ms(45 * time.Second), To: ms(46 * time.Second), Scan: 30})
		if p.Scanned != 30 || p.Stopped != StopScan || p.Next == "" || len(p.Messages) > 1 {
			t.Errorf("%s scan 30: scanned %d, %d records, stopped %s", start, p.Scanned, len(p.Messages), p.Stopped)
		}
	}
	for _, bad := range []Request{{From: ms(time.Second), To: ms(time.Second)}, {From: ms(2 * time.Second), To: ms(time.Second)}} {
		bad.Topic = "t"
		if _, err := Read(context.Background(), cl, bad); !IsBadRequest(err) || !strings.Contains(err.Error(), "empty") {
			t.Errorf("from %d to %d: %v, want a bad request", *bad.From, *bad.To, err)
		}
	}
}

// The filters combine: a record is kept when it passes every one.
func TestFiltersCombine(t *testing.T) {
	cl := seed(t, 3, 100)
	for _, start := range []Start{Newest, Oldest} {
		// Values "text <i>" are every 7th: 0, 7, ..., 49 below 50 s.
		p := read(t, cl, Request{Start: start, Value: "text", To: ms(50 * time.Second), Limit: 500})
		if len(p.Messages) != 8 {
			t.Errorf("%s value and to: %s", start, keysOf(p))
		}
		p = read(t, cl, Request{Start: start, Key: "k4", Header: "h=5", From: ms(40 * time.Second), To: ms(50 * time.Second)})
		if keysOf(p) != "k45" {
			t.Errorf("%s key, header and range: %s", start, keysOf(p))
		}
		p = read(t, cl, Request{Start: start, Key: "k4", Header: "h=5", From: ms(46 * time.Second)})
		if keysOf(p) != "" {
			t.Errorf("%s key, header and a range past it: %s", start, keysOf(p))
		}
	}
}
