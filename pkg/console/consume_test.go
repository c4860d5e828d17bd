package console

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// fakeTopic starts a kfake cluster with topic t (2 partitions, 5 records
// each: values p<P>-<i>, record 3 of each carrying a header).
func fakeTopic(t *testing.T) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for p := int32(0); p < 2; p++ {
		for i := 0; i < 5; i++ {
			r := &kgo.Record{Topic: "t", Partition: p, Value: []byte(fmt.Sprintf("p%d-%d", p, i))}
			if i == 3 {
				r.Headers = []kgo.RecordHeader{{Key: "mark", Value: []byte("needle")}}
			}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return c.ListenAddrs()
}

func consume(t *testing.T, addrs []string, req *Request, extra ...kgo.Opt) ([]string, error) {
	t.Helper()
	return consumeWith(t, addrs, req, false, extra...)
}

// consumeWith is consume; recycle sets Consumer.Recycle.
func consumeWith(t *testing.T, addrs []string, req *Request, recycle bool, extra ...kgo.Opt) ([]string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pre, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c := &Consumer{Format: mustFormat(t, `%p:%o:%v\n`), Out: &out, Recycle: recycle}
	parts, err := c.Prepare(ctx, kadm.NewClient(pre), req)
	pre.Close()
	if err != nil {
		return nil, err
	}
	opts := append([]kgo.Opt{kgo.SeedBrokers(addrs...)}, extra...)
	if parts != nil {
		opts = append(opts, kgo.ConsumePartitions(parts))
	} else {
		opts = append(opts, kgo.ConsumeTopics(req.Topics...), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	c.Client = cl
	err = c.Run(ctx, req)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if out.Len() == 0 {
		lines = nil
	}
	sort.Strings(lines)
	if c.Stats().Records != int64(len(lines)) {
		t.Errorf("stats say %d records, output has %d", c.Stats().Records, len(lines))
	}
	return lines, err
}

func mustFormat(t *testing.T, s string) *FormatString {
	f, err := CompileFormat(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestConsumerStartsAndStops(t *testing.T) {
	addrs := fakeTopic(t)
	cases := []struct {
		name string
		req  Request
		want string
	}{
		{"earliest to the end", Request{Start: Start{Kind: StartEarliest}}, "0:0:p0-0 0:1:p0-1 0:2:p0-2 0:3:p0-3 0:4:p0-4 1:0:p1-0 1:1:p1-1 1:2:p1-2 1:3:p1-3 1:4:p1-4"},
		{"-2 from the end", Request{Start: Start{Kind: StartFromEnd, Value: 2}}, "0:3:p0-3 0:4:p0-4 1:3:p1-3 1:4:p1-4"},
		{"-99 clamps at the start", Request{Start: Start{Kind: StartFromEnd, Value: 99}, Partitions: []int32{1}}, "1:0:p1-0 1:1:p1-1 1:2:p1-2 1:3:p1-3 1:4:p1-4"},
		{"offset", Request{Start: Start{Kind: StartOffset, Value: 4}}, "0:4:p0-4 1:4:p1-4"},
		{"per partition", Request{PerPartition: map[int32]Start{0: {Kind: StartOffset, Value: 2}}, Partitions: []int32{0}}, "0:2:p0-2 0:3:p0-3 0:4:p0-4"},
		{"latest: nothing", Request{Start: Start{Kind: StartLatest}}, ""},
		{"timestamp in the future: nothing", Request{Start: Start{Kind: StartTimestamp, Value: time.Now().Add(time.Hour).UnixMilli()}}, ""},
		{"timestamp in the past: all of partition 0", Request{Start: Start{Kind: StartTimestamp, Value: 0}, Partitions: []int32{0}}, "0:0:p0-0 0:1:p0-1 0:2:p0-2 0:3:p0-3 0:4:p0-4"},
		{"grep a header", Request{Start: Start{Kind: StartEarliest}, Grep: regexp.MustCompile("need")}, "0:3:p0-3 1:3:p1-3"},
		{"grep a value", Request{Start: Start{Kind: StartEarliest}, Grep: regexp.MustCompile(`^p1-[01]$`)}, "1:0:p1-0 1:1:p1-1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := c.req
			req.Topics, req.Assign, req.ExitAtEnd, req.MaxMessages = []string{"t"}, true, true, -1
			got, err := consume(t, addrs, &req)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("got  %q\nwant %q", strings.Join(got, " "), c.want)
			}
		})
	}
	// -n stops after N; a subscription with exit-at-end stops at the end.
	got, err := consume(t, addrs, &Request{Topics: []string{"t"}, Assign: true, Partitions: []int32{1}, Start: Start{Kind: StartEarliest}, MaxMessages: 2})
	if err != nil || strings.Join(got, " ") != "1:0:p1-0 1:1:p1-1" {
		t.Errorf("max 2: %q %v", got, err)
	}
	got, err = consume(t, addrs, &Request{Topics: []string{"t"}, ExitAtEnd: true, MaxMessages: -1})
	if err != nil || len(got) != 10 {
		t.Errorf("subscription to the end: %q %v", got, err)
	}
	// Timeout: no record for that long.
	start := time.Now()
	got, err = consume(t, addrs, &Request{Topics: []string{"t"}, Assign: true, Start: Start{Kind: StartLatest}, MaxMessages: -1, Timeout: 300 * time.Millisecond})
	if !errors.Is(err, ErrTimeout) || len(got) != 0 || time.Since(start) > 20*time.Second {
		t.Errorf("timeout: %q %v after %s", got, err, time.Since(start))
	}
	// Errors: a partition that does not exist, a topic that does not.
	if _, err := consume(t, addrs, &Request{Topics: []string{"t"}, Assign: true, Partitions: []int32{7}, MaxMessages: -1}); err == nil || !strings.Contains(err.Error(), "partition 7") {
		t.Errorf("partition 7: %v", err)
	}
}

// countingPool is a RecordPool that counts the slices taken and given back.
type countingPool struct {
	RecordPool
	gets, puts atomic.Int64
}

func (p *countingPool) GetRecords(n int) []kgo.Record {
	p.gets.Add(1)
	return p.RecordPool.GetRecords(n)
}

func (p *countingPool) PutRecords(s []kgo.Record) {
	p.puts.Add(1)
	p.RecordPool.PutRecords(s)
}

func TestConsumerRecyclesPooledRecords(t *testing.T) {
	addrs := fakeTopic(t)
	for _, grep := range []*regexp.Regexp{nil, regexp.MustCompile("need")} {
		pool := &countingPool{}
		req := &Request{Topics: []string{"t"}, Assign: true, Start: Start{Kind: StartEarliest}, ExitAtEnd: true, MaxMessages: -1, Grep: grep}
		got, err := consumeWith(t, addrs, req, true, kgo.WithPools(pool))
		if err != nil {
			t.Fatal(err)
		}
		want := 10
		if grep != nil {
			want = 2 // the dropped records are given back too
		}
		if len(got) != want || !strings.HasPrefix(got[0], "0:") {
			t.Errorf("grep %v: got %q", grep, got)
		}
		// Every batch slice the client took came back once all its records
		// were written or dropped.
		if g, p := pool.gets.Load(), pool.puts.Load(); g == 0 || g != p {
			t.Errorf("grep %v: %d slices taken, %d given back", grep, g, p)
		}
	}
}

func TestRecordPoolSizeClasses(t *testing.T) {
	var p RecordPool
	for _, n := range []int{1, 2, 3, 1000, 1024, 1025} {
		s := p.GetRecords(n)
		if len(s) != 0 || cap(s) < n || cap(s) >= 2*n+1 {
			t.Errorf("GetRecords(%d): len %d cap %d", n, len(s), cap(s))
		}
		p.PutRecords(s[:cap(s)])
	}
	if s := p.GetRecords(0); s != nil {
		t.Errorf("GetRecords(0) = %v", s)
	}
	// A slice given back serves a later request of its class or smaller.
	big := p.GetRecords(3000)
	big = big[:cap(big)]
	big[0].Offset = 7
	p.PutRecords(big)
	for i := 0; i < 3; i++ { // sync.Pool may drop it; it must never hand out a smaller one
		if s := p.GetRecords(2049); cap(s) < 2049 {
			t.Fatalf("GetRecords(2049) cap %d", cap(s))
		}
	}
}

// write formats into the writer's free space: records smaller and larger
// than what is free, and than the whole buffer, come out whole and in order.
func TestConsumerWriteIntoBuffer(t *testing.T) {
	f, _ := NewDefaultFormatter(map[string]string{"print.key": "true", "print.offset": "true"})
	for _, size := range []int{16, minFree, 3 * minFree, outBuffer} {
		var out bytes.Buffer
		w := bufio.NewWriterSize(&out, size)
		c := &Consumer{Format: f}
		var want []byte
		for i, n := range []int{0, 1, 100, minFree - 10, minFree, 2 * minFree, 7, outBuffer + 3, 5} {
			r := &kgo.Record{Offset: int64(i), Key: []byte(fmt.Sprint("k", i)), Value: bytes.Repeat([]byte{byte('a' + i)}, n)}
			if i == 0 {
				r.Value = nil
			}
			want, _ = f.Append(want, r)
			if m, err := c.write(context.Background(), w, &Request{}, r); err != nil || !m {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("buffer %d: %d bytes written, want %d (equal length: %v)", size, out.Len(), len(want), out.Len() == len(want))
		}
		if c.Stats().Records != 9 {
			t.Errorf("buffer %d: %d records counted", size, c.Stats().Records)
		}
	}
}

// With MarkCommits the group commits exactly the records written: the
// last written one per partition, none that --grep dropped after it.
func TestConsumerMarksWhatItWrote(t *testing.T) {
	addrs := fakeTopic(t)
	for _, tc := range []struct {
		name string
		req  Request
		want int64 // records counted as consumed, over both partitions
	}{
		{"max 3", Request{MaxMessages: 3}, 3},
		{"max 7", Request{MaxMessages: 7}, 7},
		{"grep drops the tail", Request{MaxMessages: -1, Grep: regexp.MustCompile(`-[0-3]$`), ExitAtEnd: true}, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			group := "g-" + strings.ReplaceAll(tc.name, " ", "-")
			cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.ConsumerGroup(group), kgo.ConsumeTopics("t"),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.AutoCommitMarks(), kgo.AutoCommitInterval(time.Hour),
				kgo.WithPools(new(RecordPool)))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			adm := kadm.NewClient(cl)
			req := tc.req
			req.Topics, req.MarkCommits = []string{"t"}, true
			var out bytes.Buffer
			c := &Consumer{Client: cl, Format: mustFormat(t, `%p:%o\n`), Out: &out, Recycle: true}
			if _, err := c.Prepare(ctx, adm, &req); err != nil {
				t.Fatal(err)
			}
			if err := c.Run(ctx, &req); err != nil {
				t.Fatal(err)
			}
			if err := cl.CommitMarkedOffsets(ctx); err != nil {
				t.Fatal(err)
			}
			offs, err := adm.FetchOffsets(ctx, group)
			if err != nil {
				t.Fatal(err)
			}
			var committed int64
			offs.Each(func(o kadm.OffsetResponse) { committed += o.At })
			// Each partition's commit is one past the last record written
			// there; with grep, records 0..3 of each partition are written.
			lines := strings.Fields(out.String())
			if committed != tc.want {
				t.Errorf("committed offsets sum to %d, want %d (written: %q)", committed, tc.want, lines)
			}
		})
	}
}
