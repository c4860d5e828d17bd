package messages

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/pkg/console"
	"github.com/kboxdev/kbox/pkg/serde"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// base is the first record's timestamp; record i is base + i seconds.
var base = time.UnixMilli(1_700_000_000_000)

// seed starts kfake with topic t of parts partitions holding n records:
// record i in partition i%parts, key k<i>, value {"n":i,"secret":"s<i>"}
// (every 7th a plain text value "text <i>"), header h=<i>.
func seed(t *testing.T, parts, n int) *kgo.Client {
	t.Helper()
	bs, _ := cmdtest.Kfake(t, kfake.NumBrokers(1))
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ctx := context.Background()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, int32(parts), 1, nil, "t"); err != nil {
		t.Fatal(err)
	}
	var recs []*kgo.Record
	for i := 0; i < n; i++ {
		v := fmt.Sprintf(`{"n":%d,"secret":"s%d"}`, i, i)
		if i%7 == 0 {
			v = fmt.Sprintf("text %d", i)
		}
		recs = append(recs, &kgo.Record{Topic: "t", Partition: int32(i % parts), Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(v),
			Timestamp: base.Add(time.Duration(i) * time.Second), Headers: []kgo.RecordHeader{{Key: "h", Value: []byte(fmt.Sprint(i))}}})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return cl
}

func read(t *testing.T, cl *kgo.Client, req Request) *Page {
	t.Helper()
	req.Topic = "t"
	p, err := Read(context.Background(), cl, req)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// all pages through req to the end, returning the keys in page order.
func all(t *testing.T, cl *kgo.Client, req Request) (keys []string, pages int) {
	t.Helper()
	for {
		p := read(t, cl, req)
		pages++
		if len(p.Messages) > req.Limit {
			t.Fatalf("page of %d records, limit %d", len(p.Messages), req.Limit)
		}
		for _, m := range p.Messages {
			k := fmt.Sprintf("%d@%d", m.Offset, m.Partition)
			if m.Key.Text != nil {
				k = *m.Key.Text
			}
			keys = append(keys, k)
		}
		if p.Next == "" {
			if p.Stopped != StopEnd {
				t.Fatalf("no next page, stopped %q", p.Stopped)
			}
			return keys, pages
		}
		req.Cursor = p.Next
		if pages > 1000 {
			t.Fatal("paging does not end")
		}
	}
}

func TestPagingNewestAndOldest(t *testing.T) {
	cl := seed(t, 3, 100)
	p := read(t, cl, Request{Limit: 10})
	if len(p.Messages) != 10 || p.Stopped != StopLimit || p.Next == "" {
		t.Fatalf("first newest page: %d records, stopped %s, next %q", len(p.Messages), p.Stopped, p.Next)
	}
	// The newest page holds the newest records, newest first.
	if got := *p.Messages[0].Key.Text; got != "k99" {
		t.Errorf("newest record: %s", got)
	}
	for i := 1; i < len(p.Messages); i++ {
		if p.Messages[i].TimestampMs > p.Messages[i-1].TimestampMs {
			t.Errorf("newest page not newest first at %d", i)
		}
	}
	for _, start := range []Start{Newest, Oldest} {
		for _, limit := range []int{1, 7, 50, 500} {
			keys, pages := all(t, cl, Request{Start: start, Limit: limit})
			seen := map[string]int{}
			for _, k := range keys {
				seen[k]++
			}
			if len(keys) != 100 || len(seen) != 100 {
				t.Errorf("%s limit %d: %d records, %d distinct, over %d pages", start, limit, len(keys), len(seen), pages)
			}
		}
	}
	keys, _ := all(t, cl, Request{Start: Oldest, Limit: 500, Partitions: []int32{1}})
	if len(keys) != 33 || keys[0] != "k1" || keys[1] != "k4" {
		t.Errorf("partition 1 oldest: %v", keys)
	}
}

func TestStartAtOffsetAndTime(t *testing.T) {
	cl := seed(t, 2, 40)
	p := read(t, cl, Request{Start: Offset, Offset: 15, Partitions: []int32{0}, Limit: 2})
	if len(p.Messages) != 2 || *p.Messages[0].Key.Text != "k30" || *p.Messages[1].Key.Text != "k32" {
		t.Errorf("offset 15 of partition 0: %+v", p.Messages)
	}
	p = read(t, cl, Request{Start: Timestamp, TimestampMs: base.Add(35 * time.Second).UnixMilli()})
	var got []string
	for _, m := range p.Messages {
		got = append(got, *m.Key.Text)
	}
	if strings.Join(got, ",") != "k36,k38,k35,k37,k39" || p.Stopped != StopEnd || p.Next != "" {
		t.Errorf("from time 35 s: %v stopped %s next %q", got, p.Stopped, p.Next)
	}
	// Past the end: an empty page at the end.
	p = read(t, cl, Request{Start: Offset, Offset: 1000})
	if len(p.Messages) != 0 || p.Stopped != StopEnd {
		t.Errorf("offset past the end: %+v", p)
	}
}

func TestFiltersScanBounded(t *testing.T) {
	cl := seed(t, 3, 300)
	// Values "text <i>" are every 7th record: 43 of 300.
	for _, start := range []Start{Newest, Oldest} {
		p := read(t, cl, Request{Start: start, Value: "TEXT", Limit: 500, Scan: 1000})
		if len(p.Messages) != 43 || p.Scanned != 300 || p.Stopped != StopEnd {
			t.Errorf("%s value filter: %d records, scanned %d, stopped %s", start, len(p.Messages), p.Scanned, p.Stopped)
		}
		for _, m := range p.Messages {
			if !strings.HasPrefix(*m.Value.Text, "text ") {
				t.Errorf("%s value filter kept %q", start, *m.Value.Text)
			}
		}
		// The scan bound stops the page, with a cursor to go on.
		p = read(t, cl, Request{Start: start, Value: "text", Scan: 50})
		if p.Scanned != 50 || p.Stopped != StopScan || p.Next == "" || len(p.Messages) > 8 {
			t.Errorf("%s scan 50: scanned %d, %d records, stopped %s, next %q", start, p.Scanned, len(p.Messages), p.Stopped, p.Next)
		}
	}
	p := read(t, cl, Request{Start: Oldest, Key: "k29", Limit: 500, Scan: 1000})
	// k29 and k290 to k299.
	if len(p.Messages) != 11 || p.Scanned != 300 {
		t.Errorf("key filter k29: %d records, scanned %d", len(p.Messages), p.Scanned)
	}
	for _, m := range p.Messages {
		if !strings.HasPrefix(*m.Key.Text, "k29") {
			t.Errorf("key filter k29 kept %s", *m.Key.Text)
		}
	}
}

func TestMaskDecodeHeadersAndBounds(t *testing.T) {
	cl := seed(t, 1, 3)
	dec := &console.Decoding{Decoder: &serde.Decoder{}, Key: serde.Auto, Value: serde.Auto, Mask: regexp.MustCompile("^secret$")}
	p := read(t, cl, Request{Start: Oldest, Decoding: dec})
	if len(p.Messages) != 3 {
		t.Fatalf("%d records", len(p.Messages))
	}
	m := p.Messages[1]
	if *m.Value.Text != `{"n":1,"secret":"***"}` || m.Value.Format != "string" || m.Value.SizeBytes != 21 {
		t.Errorf("masked value: %+v %s", m.Value, *m.Value.Text)
	}
	if len(m.Headers) != 1 || m.Headers[0].Key != "h" || *m.Headers[0].Value.Text != "1" || m.TimestampMs != base.Add(time.Second).UnixMilli() {
		t.Errorf("headers, time: %+v", m)
	}
	// A masked field cannot be searched for.
	if p := read(t, cl, Request{Start: Oldest, Value: "s1", Decoding: dec}); len(p.Messages) != 0 {
		t.Errorf("filter found a masked value: %+v", p.Messages)
	}
	for _, bad := range []Request{{Limit: MaxLimit + 1}, {Scan: MaxScan + 1}, {Start: "latest"}, {Cursor: "x"}, {Partitions: []int32{5}}, {Offset: -1}} {
		bad.Topic = "t"
		if _, err := Read(context.Background(), cl, bad); !IsBadRequest(err) {
			t.Errorf("%+v: %v, want a bad request", bad, err)
		}
	}
	if _, err := Read(context.Background(), cl, Request{Topic: "nope"}); !IsBadRequest(err) || !strings.Contains(err.Error(), `topic "nope" does not exist`) {
		t.Errorf("missing topic: %v", err)
	}
}

func TestLargeValuesCutAndByteCap(t *testing.T) {
	bs, _ := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.BrokerConfigs(map[string]string{"message.max.bytes": "4000000"}))
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs), kgo.ProducerBatchMaxBytes(4_000_000))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, map[string]*string{"max.message.bytes": kadm.StringPtr("4000000")}, "t"); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("é", 300_000) // 600 KB each
	for i := 0; i < 5; i++ {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Value: []byte(big)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	for _, start := range []Start{Newest, Oldest} {
		p := read(t, cl, Request{Start: start})
		if p.Stopped != StopBytes || len(p.Messages) != 2 || p.Next == "" {
			t.Fatalf("%s: %d records, stopped %s", start, len(p.Messages), p.Stopped)
		}
		v := p.Messages[0].Value
		if !v.Truncated || len(*v.Text) > FieldBytes || v.SizeBytes != 600_000 || !strings.HasPrefix(big, *v.Text) {
			t.Errorf("%s: value not cut on a rune: truncated %v, %d bytes", start, v.Truncated, len(*v.Text))
		}
		keys, _ := all(t, cl, Request{Start: start, Limit: 500})
		if len(keys) != 5 {
			t.Errorf("%s: paged %d records of 5", start, len(keys))
		}
	}
}

// An open transaction's records are past the page's end (the last stable
// offset): a page reads the committed records and ends, without error.
func TestOpenTransactionEndsThePage(t *testing.T) {
	cl := seed(t, 1, 5)
	bs := cl.OptValue(kgo.SeedBrokers).([]string)
	tx, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.TransactionalID("open"), kgo.DefaultProduceTopic("t"))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	ctx := context.Background()
	if err := tx.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := tx.ProduceSync(ctx, &kgo.Record{Value: []byte("uncommitted")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	for _, start := range []Start{Newest, Oldest} {
		p := read(t, cl, Request{Start: start})
		if len(p.Messages) != 5 || p.Stopped != StopEnd {
			t.Errorf("%s: %d records, stopped %s", start, len(p.Messages), p.Stopped)
		}
	}
}
