package perf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// BasisRoundTrip is the latency basis of an end-to-end run: from the send
// call to the consumer returning the record, one record in flight.
const BasisRoundTrip = "send call to consumed (one record in flight, send-then-poll as kafka-e2e-latency)"

// KindE2E is the Result kind of an end-to-end latency run.
const KindE2E = "e2e"

// E2EPollTimeout is kafka-e2e-latency's poll timeout.
const E2EPollTimeout = 60 * time.Second

// E2EConfig configures an end-to-end latency run: send one record, wait for
// the consumer to return it, repeat.
type E2EConfig struct {
	Topic           string
	Records         int           // measured records (warm-up on top); 0 = until Duration
	Duration        time.Duration // measured time after the warm-up; 0 = until Records
	RecordSize      int
	KeySize         int // the key is always sent (empty when 0), as Apache does
	NumHeaders      int
	HeaderKeySize   int
	HeaderValueSize int           // -1: null header values
	WarmupRecords   int           // first records excluded from the histogram, on top of Records (native extension)
	WarmupDuration  time.Duration // records sent within this time from the start are warm-up too
	PollTimeout     time.Duration
	Group           string // offsets are committed for this group at the end
	Interval        time.Duration
	Settings        []string
}

// E2EObserver receives events for printing (the engine never prints).
type E2EObserver struct {
	// CreatingTopic is called before a missing topic is created.
	CreatingTopic func(topic string)
	// Record is called after record i came back and was validated.
	Record func(i int, elapsed time.Duration)
}

// E2ERun is the outcome of RunE2E.
type E2ERun struct {
	// ElapsedNs holds every record's round trip in order (warm-up included),
	// the data Apache's summary lines are computed from.
	ElapsedNs []int64
	Result    *Result
}

// E2EError is a failure that Apache reports as a RuntimeException message.
type E2EError struct {
	Msg string
	// TopicCreation is set when creating the missing topic failed (Apache
	// prints "Creation of topic T failed" on stdout first).
	TopicCreation bool
}

func (e *E2EError) Error() string { return e.Msg }

// JavaRandom reproduces java.util.Random (48-bit LCG).
type JavaRandom struct{ seed int64 }

const (
	jrMult = 0x5DEECE66D
	jrMask = (int64(1) << 48) - 1
)

// NewJavaRandom is `new Random(seed)`.
func NewJavaRandom(seed int64) *JavaRandom { return &JavaRandom{seed: (seed ^ jrMult) & jrMask} }

func (r *JavaRandom) next(bits uint) int32 {
	r.seed = (r.seed*jrMult + 0xB) & jrMask
	return int32(uint64(r.seed) >> (48 - bits))
}

// Intn is nextInt(bound) for bound > 0.
func (r *JavaRandom) Intn(bound int32) int32 {
	rv := r.next(31)
	m := bound - 1
	if bound&m == 0 {
		return int32((int64(bound) * int64(rv)) >> 31)
	}
	for u := rv; ; u = r.next(31) {
		rv = u % bound
		if u-rv+m >= 0 { // int32 overflow check, as Java's
			return rv
		}
	}
}

// e2eBytes is EndToEndLatency.randomBytesOfLen: n copies of one random
// uppercase letter (one draw even when n is 0).
func e2eBytes(r *JavaRandom, n int) []byte {
	return bytes.Repeat([]byte{byte(r.Intn(26) + 65)}, n)
}

// e2eRecord builds record i's key, value and headers from the generator,
// in the order the Apache tool draws them.
func e2eRecord(r *JavaRandom, cfg *E2EConfig) *kgo.Record {
	rec := &kgo.Record{Topic: cfg.Topic}
	rec.Key = e2eBytes(r, cfg.KeySize)
	rec.Value = e2eBytes(r, cfg.RecordSize)
	for i := 0; i < cfg.NumHeaders; i++ {
		h := kgo.RecordHeader{Key: string(e2eBytes(r, cfg.HeaderKeySize))}
		if cfg.HeaderValueSize != -1 {
			h.Value = e2eBytes(r, cfg.HeaderValueSize)
		}
		rec.Headers = append(rec.Headers, h)
	}
	return rec
}

// javaBytes is Arrays.toString(byte[]).
func javaBytes(b []byte) string {
	if b == nil {
		return "null"
	}
	parts := make([]string, len(b))
	for i, c := range b {
		parts[i] = strconv.Itoa(int(int8(c)))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// e2eValidate is EndToEndLatency.validate: the first failure's message, or "".
func e2eValidate(sent *kgo.Record, got []*kgo.Record, timeout time.Duration) string {
	if len(got) == 0 {
		return fmt.Sprintf("poll() timed out before finding a result (timeout:[%dms])", timeout.Milliseconds())
	}
	r := got[0]
	if string(r.Value) != string(sent.Value) {
		return fmt.Sprintf("The message value read [%s] did not match the message value sent [%s]", r.Value, sent.Value)
	}
	if r.Key == nil {
		return "Expected message key but received null"
	}
	if string(r.Key) != string(sent.Key) {
		return fmt.Sprintf("The message key read [%s] did not match the message key sent [%s]", r.Key, sent.Key)
	}
	if len(sent.Headers) > 0 {
		if len(r.Headers) == 0 {
			return "Expected message headers but received none"
		}
		n := min(len(sent.Headers), len(r.Headers))
		for i := 0; i < n; i++ {
			s, g := sent.Headers[i], r.Headers[i]
			if s.Key != g.Key || !bytes.Equal(s.Value, g.Value) || (s.Value == nil) != (g.Value == nil) {
				return fmt.Sprintf("The message header read [%s:%s] did not match the message header sent [%s:%s]", g.Key, javaBytes(g.Value), s.Key, javaBytes(s.Value))
			}
		}
		if len(sent.Headers) != len(r.Headers) {
			return "Header count mismatch between sent and received messages"
		}
	}
	if len(got) != 1 {
		return fmt.Sprintf("Only one result was expected during this test. We found [%d]", len(got))
	}
	return ""
}

// E2EProgressLine is Apache's progress line for record i: i, a TAB and the
// round trip in ms as Double.toString(elapsedNs / 1000.0 / 1000.0).
func E2EProgressLine(i int, elapsed time.Duration) string {
	return strconv.Itoa(i) + "\t" + javafmt.DoubleToString(float64(elapsed.Nanoseconds())/1000.0/1000.0)
}

// WriteApacheE2ESummary prints Apache's two final lines, computed exactly as
// EndToEndLatency.printResults does (double sum, truncated ms, sorted-array
// percentiles at index (int)(n*p)).
func WriteApacheE2ESummary(w io.Writer, elapsedNs []int64) error {
	n := len(elapsedNs)
	if n == 0 {
		return errors.New("no records")
	}
	total := 0.0
	ms := make([]int64, n)
	for i, e := range elapsedNs {
		total += float64(e)
		ms[i] = e / 1000 / 1000
	}
	sort.Slice(ms, func(a, b int) bool { return ms[a] < ms[b] })
	at := func(p float64) int64 { return ms[int(float64(n)*p)] }
	return writeApacheE2ELines(w, total/float64(n)/1000.0/1000.0, at)
}

// writeApacheE2ELines prints EndToEndLatency's two final lines: the mean
// in ms, and the percentiles at(p), the whole milliseconds at index
// (int)(n*p) of the sorted latencies.
func writeApacheE2ELines(w io.Writer, avgMs float64, at func(p float64) int64) error {
	_, err := fmt.Fprintf(w, "Avg latency: %s ms\nPercentiles: 50th = %d, 99th = %d, 99.9th = %d\n",
		javafmt.Fixed(avgMs, 4), int32(at(0.5)), int32(at(0.99)), int32(at(0.999)))
	return err
}

// RunE2E creates the topic when missing (1 partition, replication factor 1,
// like Apache), assigns cons to every partition at its end offset, then
// sends cfg.Records records one at a time with prod, each waited for (acks
// as configured on prod) and polled back through cons before the next.
// Finally it commits the consumed positions for cfg.Group (when set).
func RunE2E(ctx context.Context, prod, cons *kgo.Client, adm *kadm.Client, cfg E2EConfig, obs E2EObserver) (*E2ERun, error) {
	if cfg.Records <= 0 && cfg.Duration <= 0 {
		return nil, errors.New("a positive record count or duration is required")
	}
	if cfg.PollTimeout <= 0 {
		cfg.PollTimeout = E2EPollTimeout
	}
	if cfg.Interval <= 0 {
		cfg.Interval = 5 * time.Second
	}
	if err := e2eEnsureTopic(ctx, adm, cfg.Topic, cfg.PollTimeout, obs); err != nil {
		return nil, err
	}
	positions, err := e2eEndOffsets(ctx, adm, cfg.Topic, cfg.PollTimeout)
	if err != nil {
		return nil, err
	}
	assign := map[int32]kgo.Offset{}
	for p, o := range positions {
		assign[p] = kgo.NewOffset().At(o)
	}
	cons.AddConsumePartitions(map[string]map[int32]kgo.Offset{cfg.Topic: assign})

	commit := func() error {
		if cfg.Group == "" {
			return nil
		}
		offs := kadm.Offsets{}
		for p, o := range positions {
			offs.Add(kadm.Offset{Topic: cfg.Topic, Partition: p, At: o, LeaderEpoch: -1})
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		resp, err := adm.CommitOffsets(cctx, cfg.Group, offs)
		if err == nil {
			err = resp.Error()
		}
		if err != nil {
			return fmt.Errorf("committing offsets for group %s: %w", cfg.Group, err)
		}
		return nil
	}

	rnd := NewJavaRandom(0)
	hist, win := NewLatency(), NewLatency()
	run := &E2ERun{ElapsedNs: make([]int64, 0, min(max(cfg.Records+cfg.WarmupRecords, 0), 1<<20))}
	warmEnd := time.Now().Add(cfg.WarmupDuration)
	res := &Result{Kind: KindE2E, Topic: cfg.Topic, Clients: 1, LatencyBasis: BasisRoundTrip, Settings: cfg.Settings}
	var lastT time.Time
	var lastRecs, lastBytes int64
	for i := 0; ; i++ {
		if cfg.Records > 0 && res.Records >= int64(cfg.Records) {
			break
		}
		if cfg.Duration > 0 && res.Records > 0 && res.MeasureEnd.Sub(res.MeasureStart) >= cfg.Duration {
			break
		}
		rec := e2eRecord(rnd, &cfg)
		begin := time.Now()
		if err := prod.ProduceSync(ctx, rec).FirstErr(); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("producing record %d: %w", i, err)
		}
		got, perr := e2ePoll(ctx, cons, cfg.PollTimeout)
		end := time.Now()
		elapsed := end.Sub(begin)
		if perr != nil {
			return nil, perr
		}
		for _, r := range got {
			if r.Topic == cfg.Topic && r.Offset+1 > positions[r.Partition] {
				positions[r.Partition] = r.Offset + 1
			}
		}
		if msg := e2eValidate(rec, got, cfg.PollTimeout); msg != "" {
			if err := commit(); err != nil {
				return nil, err
			}
			return nil, &E2EError{Msg: msg}
		}
		if obs.Record != nil {
			obs.Record(i, elapsed)
		}
		run.ElapsedNs = append(run.ElapsedNs, elapsed.Nanoseconds())
		if res.Records == 0 && (i < cfg.WarmupRecords || begin.Before(warmEnd)) {
			res.WarmupRecords++
			continue
		}
		if res.MeasureStart.IsZero() {
			res.MeasureStart, lastT = begin, begin
		}
		res.MeasureEnd = end
		hist.Record(elapsed)
		win.Record(elapsed)
		res.Records++
		res.Bytes += int64(len(rec.Value))
		if d := end.Sub(lastT); d >= cfg.Interval {
			s := win.TakeAndReset().Summary()
			res.Intervals = append(res.Intervals, Interval{
				ElapsedSec: end.Sub(res.MeasureStart).Seconds(), Records: res.Records - lastRecs,
				RecordsPerSec: float64(res.Records-lastRecs) / d.Seconds(), MBPerSec: float64(res.Bytes-lastBytes) / (1 << 20) / d.Seconds(),
				P50Ms: s.P50Ms, P99Ms: s.P99Ms, MaxMs: s.MaxMs,
			})
			lastT, lastRecs, lastBytes = end, res.Records, res.Bytes
		}
	}
	if err := commit(); err != nil {
		return nil, err
	}
	if res.Records == 0 {
		return nil, errors.New("nothing measured")
	}
	if err := res.finish(hist); err != nil {
		return nil, err
	}
	run.Result = res
	return run, nil
}

// e2ePoll is one consumer.poll(timeout): the records of the first non-empty
// fetch, none on timeout.
func e2ePoll(ctx context.Context, cons *kgo.Client, timeout time.Duration) ([]*kgo.Record, error) {
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		fs := cons.PollFetches(pctx)
		var recs []*kgo.Record
		fs.EachRecord(func(r *kgo.Record) { recs = append(recs, r) })
		if len(recs) > 0 {
			return recs, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if pctx.Err() != nil {
			return nil, nil
		}
		for _, fe := range fs.Errors() {
			if !errors.Is(fe.Err, context.DeadlineExceeded) && !errors.Is(fe.Err, context.Canceled) {
				return nil, fmt.Errorf("fetching %s[%d]: %w", fe.Topic, fe.Partition, fe.Err)
			}
		}
	}
}

func e2eEnsureTopic(ctx context.Context, adm *kadm.Client, topic string, timeout time.Duration, obs E2EObserver) error {
	td, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return err
	}
	d, ok := td[topic]
	if ok && d.Err != nil && !errors.Is(d.Err, kerr.UnknownTopicOrPartition) {
		return fmt.Errorf("topic %s: %w", topic, d.Err)
	}
	if ok && d.Err == nil {
		return nil
	}
	if obs.CreatingTopic != nil {
		obs.CreatingTopic(topic)
	}
	cr, err := adm.CreateTopic(ctx, 1, 1, nil, topic)
	if err == nil {
		err = cr.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return &E2EError{Msg: fmt.Sprintf("creating topic %s: %v", topic, err), TopicCreation: true}
	}
	return nil
}

// e2eEndOffsets waits (up to timeout) until every partition of topic has a
// leader and an end offset, like partitionsFor + seekToEnd + position.
func e2eEndOffsets(ctx context.Context, adm *kadm.Client, topic string, timeout time.Duration) (map[int32]int64, error) {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		offs, err := adm.ListEndOffsets(ctx, topic)
		if err == nil {
			err = offs.Error()
		}
		if err == nil {
			out := map[int32]int64{}
			offs.Each(func(o kadm.ListedOffset) { out[o.Partition] = o.Offset })
			if len(out) > 0 {
				return out, nil
			}
			err = fmt.Errorf("topic %s has no partitions yet", topic)
		}
		last = err
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("end offsets of %s: %w", topic, last)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
