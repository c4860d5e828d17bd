package console

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func produceCluster(t *testing.T) (*kgo.Client, func(topic string, n int) []*kgo.Record) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	// Records without a partition (-1) go to partition 0 here; explicit
	// ones to theirs.
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(explicitOrZero{}), kgo.ProducerLinger(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	read := func(topic string, n int) []*kgo.Record {
		rc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics(topic))
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var recs []*kgo.Record
		for len(recs) < n && ctx.Err() == nil {
			rc.PollFetches(ctx).EachRecord(func(r *kgo.Record) { recs = append(recs, r) })
		}
		return recs
	}
	return cl, read
}

type explicitOrZero struct{}

func (explicitOrZero) ForTopic(string) kgo.TopicPartitioner { return explicitOrZero{} }
func (explicitOrZero) RequiresConsistency(*kgo.Record) bool { return true }
func (explicitOrZero) Partition(r *kgo.Record, n int) int {
	if r.Partition >= 0 {
		return int(r.Partition)
	}
	return 0
}

func lines(t *testing.T, props map[string]string, in string) Source {
	t.Helper()
	p := map[string]string{"topic": "t"}
	for k, v := range props {
		p[k] = v
	}
	cfg, err := NewLineReaderConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	return NewLineReader(cfg, strings.NewReader(in))
}

func TestProduceAsyncAndSync(t *testing.T) {
	for _, sync := range []bool{false, true} {
		cl, read := produceCluster(t)
		res, err := Produce(context.Background(), cl, lines(t, map[string]string{"parse.key": "true"}, "a\t1\nb\t2\nc\t3\n"), ProduceConfig{Partition: -1, Sync: sync})
		if err != nil || res.Read != 3 || res.Acked != 3 || res.Failed != 0 {
			t.Fatalf("sync=%v: %+v %v", sync, res, err)
		}
		recs := read("t", 3)
		if len(recs) != 3 || string(recs[0].Key) != "a" || string(recs[2].Value) != "3" {
			t.Errorf("sync=%v: records %v", sync, recs)
		}
	}
}

// A line the reader cannot parse ends the run with its error, after the
// records read before it were sent.
func TestProduceSourceError(t *testing.T) {
	cl, read := produceCluster(t)
	res, err := Produce(context.Background(), cl, lines(t, map[string]string{"parse.key": "true"}, "a\t1\nbad\nc\t3\n"), ProduceConfig{Partition: -1})
	var re *ReaderError
	if !errors.As(err, &re) || res.Acked != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if recs := read("t", 1); len(recs) != 1 || string(recs[0].Key) != "a" {
		t.Errorf("records %v", recs)
	}
}

// Async failures go to OnError and the run goes on; in sync mode the first
// failure ends it.
func TestProduceFailures(t *testing.T) {
	cl, _ := produceCluster(t)
	var mu sync.Mutex
	var failed []string
	onErr := func(r *kgo.Record, err error) {
		mu.Lock()
		failed = append(failed, string(r.Value))
		mu.Unlock()
	}
	src := &MultiSource{
		&sliceSource{{Topic: "t", Partition: 1, Value: []byte("ok")}, {Topic: "t", Partition: 7, Value: []byte("bad")}},
		&sliceSource{{Topic: "t", Partition: 2, Value: []byte("ok2")}},
	}
	res, err := Produce(context.Background(), cl, src, ProduceConfig{Partition: -1, OnError: onErr})
	if err != nil || res.Read != 3 || res.Acked != 2 || res.Failed != 1 || len(failed) != 1 || failed[0] != "bad" {
		t.Fatalf("async: %+v %v %v", res, err, failed)
	}
	src2 := sliceSource{{Topic: "t", Partition: 7, Value: []byte("bad")}, {Topic: "t", Partition: 1, Value: []byte("never")}}
	res, err = Produce(context.Background(), cl, &src2, ProduceConfig{Partition: -1, Sync: true})
	var se *SendError
	if !errors.As(err, &se) || se.Record.Partition != 7 || res.Read != 1 || res.Failed != 1 {
		t.Fatalf("sync: %+v %v", res, err)
	}
}

// Topic, partition and timestamp overrides; the rate cap; progress.
func TestProduceConfig(t *testing.T) {
	cl, read := produceCluster(t)
	var recs sliceSource
	for i := range 30 {
		recs = append(recs, Record{Topic: "elsewhere", Partition: 0, Timestamp: 1700000000000 + int64(i), Value: []byte("v")})
	}
	var progress []int64
	start := time.Now()
	res, err := Produce(context.Background(), cl, &recs, ProduceConfig{Topic: "t", Partition: 2, Rate: 20,
		Progress: func(n, _ int64, _ time.Duration) { progress = append(progress, n) }})
	took := time.Since(start)
	if err != nil || res.Acked != 30 {
		t.Fatalf("%+v %v", res, err)
	}
	if took < time.Second {
		t.Errorf("30 records at 20/s took %s", took)
	}
	if len(progress) == 0 {
		t.Error("no progress reported in a run of over a second")
	}
	got := read("t", 30)
	for _, r := range got {
		if r.Partition != 2 || r.Timestamp.UnixMilli() >= 1700000000000 && r.Timestamp.UnixMilli() < 1700000000030 {
			t.Fatalf("record p%d ts %d: want partition 2 and the send time", r.Partition, r.Timestamp.UnixMilli())
		}
	}
	keep := sliceSource{{Topic: "t", Partition: 1, Timestamp: 1700000000042, Value: []byte("old")}}
	if _, err := Produce(context.Background(), cl, &keep, ProduceConfig{Partition: -1, KeepTimestamps: true}); err != nil {
		t.Fatal(err)
	}
	for _, r := range read("t", 31) {
		if string(r.Value) == "old" && (r.Timestamp.UnixMilli() != 1700000000042 || r.Partition != 1) {
			t.Errorf("kept record p%d ts %d", r.Partition, r.Timestamp.UnixMilli())
		}
	}
}

func TestJSONReader(t *testing.T) {
	in := `{"topic":"x","partition":1,"key":"k","value":"/w==","value_encoding":"base64"}` + "\n\n" + `{"value":null}` + "\n{bad\n"
	j := NewJSONReader(strings.NewReader(in))
	r, err := j.Next()
	if err != nil || r.Partition != 1 || string(r.Key) != "k" || len(r.Value) != 1 || r.Value[0] != 0xff {
		t.Fatalf("%+v %v", r, err)
	}
	if r, err = j.Next(); err != nil || r.Value != nil || r.Partition != -1 || r.Timestamp != -1 {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err = j.Next(); err == nil || !strings.HasPrefix(err.Error(), "line 4: invalid JSON record") {
		t.Fatalf("bad line: %v", err)
	}
}

type sliceSource []Record

func (s *sliceSource) Next() (Record, error) {
	if len(*s) == 0 {
		return Record{}, io.EOF
	}
	r := (*s)[0]
	*s = (*s)[1:]
	return r, nil
}
