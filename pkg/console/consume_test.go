package console

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pre, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c := &Consumer{Format: mustFormat(t, `%p:%o:%v\n`), Out: &out}
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
