package console

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// StartKind says where a partition starts.
type StartKind int

const (
	// StartDefault leaves it to the client (its auto.offset.reset, or the
	// group's committed offset).
	StartDefault StartKind = iota
	StartEarliest
	StartLatest
	// StartOffset is an absolute offset (Value).
	StartOffset
	// StartFromEnd is Value records before the end (clamped at the start).
	StartFromEnd
	// StartTimestamp is the first offset with a timestamp >= Value (ms);
	// the end when there is none.
	StartTimestamp
)

// Start is a start point.
type Start struct {
	Kind  StartKind
	Value int64
}

// ParseStart parses a native start point: earliest|beginning, latest|end,
// N (an offset), -N (N before the end), or @T (a timestamp: Unix ms or RFC
// 3339).
func ParseStart(s string) (Start, error) {
	switch strings.ToLower(s) {
	case "earliest", "beginning":
		return Start{Kind: StartEarliest}, nil
	case "latest", "end":
		return Start{Kind: StartLatest}, nil
	}
	if strings.HasPrefix(s, "@") {
		ms, err := ParseTime(s[1:], time.Now())
		if err != nil {
			return Start{}, err
		}
		return Start{Kind: StartTimestamp, Value: ms}, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return Start{}, fmt.Errorf("invalid start %q: want earliest, latest, an offset N, -N (N before the end) or @TIME", s)
	}
	if n < 0 {
		return Start{Kind: StartFromEnd, Value: -n}, nil
	}
	return Start{Kind: StartOffset, Value: n}, nil
}

// ParseStarts parses "SPEC" (every partition) or "P=SPEC,P=SPEC" (those
// partitions only; their list is returned).
func ParseStarts(s string) (all Start, per map[int32]Start, err error) {
	if !strings.Contains(s, "=") {
		all, err = ParseStart(s)
		return all, nil, err
	}
	per = map[int32]Start{}
	for _, item := range strings.Split(s, ",") {
		p, spec, ok := strings.Cut(item, "=")
		if !ok {
			return all, nil, fmt.Errorf("invalid start %q: want PARTITION=START", item)
		}
		n, perr := strconv.ParseInt(strings.TrimSpace(p), 10, 32)
		if perr != nil || n < 0 {
			return all, nil, fmt.Errorf("invalid partition %q in start %q", p, s)
		}
		st, serr := ParseStart(strings.TrimSpace(spec))
		if serr != nil {
			return all, nil, serr
		}
		per[int32(n)] = st
	}
	return all, per, nil
}

// ParseTime parses a point in time: Unix milliseconds, RFC 3339, or a
// duration ago ("15m", "2h30m", "1d" = 24h) relative to now.
func ParseTime(s string, now time.Time) (int64, error) {
	if s == "" {
		return 0, errors.New("invalid time \"\": want Unix milliseconds, RFC 3339 or a duration ago (15m)")
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UnixMilli(), nil
	}
	d := s
	days := time.Duration(0)
	if i := strings.Index(d, "d"); i > 0 {
		n, err := strconv.Atoi(d[:i])
		if err == nil {
			days = time.Duration(n) * 24 * time.Hour
			d = d[i+1:]
		}
	}
	var dur time.Duration
	if d != "" {
		var err error
		if dur, err = time.ParseDuration(d); err != nil {
			return 0, fmt.Errorf("invalid time %q: want Unix milliseconds, RFC 3339 (2006-01-02T15:04:05Z) or a duration ago (15m, 2h, 1d)", s)
		}
	}
	if dur+days < 0 {
		return 0, fmt.Errorf("invalid time %q: a duration ago must not be negative", s)
	}
	return now.Add(-(dur + days)).UnixMilli(), nil
}

// Request is what to consume and when to stop.
type Request struct {
	// Topics to read; with Regex, Topics[0] is a pattern (subscription).
	Topics []string
	Regex  bool
	// Assign reads the partitions directly (no group, no subscription):
	// Partitions (nil: all of Topics[0]'s) from Start / PerPartition.
	Assign       bool
	Partitions   []int32
	Start        Start
	PerPartition map[int32]Start
	// MaxMessages stops after that many written records (<0: no limit).
	MaxMessages int64
	// Timeout stops when no record arrived for that long (0: never).
	Timeout time.Duration
	// ExitAtEnd stops when every partition reached the end it had when the
	// consumer started (assign mode, or a subscription's partitions at start).
	ExitAtEnd bool
	// Grep keeps only records whose key, value or a header (key or value)
	// matches.
	Grep *regexp.Regexp
	// MarkCommits marks each written record for the group's commit.
	MarkCommits bool
	// SkipOnError logs a record the formatter fails on and goes on.
	SkipOnError bool
}

// ErrTimeout ends a run whose Request.Timeout passed without a record.
var ErrTimeout = errors.New("org.apache.kafka.common.errors.TimeoutException")

// Stats is what a run did.
type Stats struct {
	Records int64
	Bytes   int64
	Start   time.Time
}

// Consumer reads records from Client and writes them with Format to Out.
type Consumer struct {
	Client *kgo.Client
	Format Formatter
	Out    io.Writer
	// OnProgress, if set, is called after each batch with the totals.
	OnProgress func(Stats)
	// OnSkip, if set, gets a formatter error that SkipOnError skipped.
	OnSkip func(error)
	// Stop, when closed or sent on, ends the run (a signal).
	Stop <-chan struct{}
	// Decode, when set, decodes and masks each record's key and value
	// before --grep and the formatter (which gets them if it is a
	// DecodedFormatter).
	Decode *Decoding
	// Recycle gives each record back (kgo.Record.Recycle) once it was
	// written or skipped: set it when Client decodes into a RecordPool.
	Recycle bool

	// Watch, when set, follows the partitions' positions and names the
	// batch a partition is stuck on (franz-go reports a corrupt batch as
	// a bare error): Run then returns the *integrity.Corruption, unless
	// OnCorrupt skips it. Nil: such errors are left to the client.
	Watch *integrity.Watcher
	// OnCorrupt, if set, sees each corrupt batch; true seeks past it and
	// goes on (kbox consume --skip-corrupt).
	OnCorrupt func(*integrity.Corruption) bool
	// OnUnreadable, if set, gets (once per position) a partition the
	// client cannot read past although its log reads cleanly from there
	// (the client retries).
	OnUnreadable func(kgo.FetchError)
	// OnGap, if set, gets each jump in a partition's offsets that the log
	// does not explain (integrity.ExplainGap; Watch must be set); the
	// client must keep control records (kgo.KeepControlRecords) so that
	// transaction markers are seen. Compacted says which topics leave
	// holes on purpose.
	OnGap         func(*integrity.Gap)
	Compacted     func(topic string) bool
	ReadCommitted bool
	// OnDataLoss, if set, gets franz-go's data-loss signals (the log was
	// truncated under the consumer, which resumes where it can).
	OnDataLoss func(error)

	stats   Stats
	decoded Decoded
	ends    map[string]map[int32]int64 // exit-at-end: the end offset per partition still open
}

// Forget drops what Run knows of the partitions' positions: call it when
// they are revoked or lost (another member may read on from there).
func (c *Consumer) Forget(parts map[string][]int32) {
	if c.Watch != nil {
		c.Watch.Forget(parts)
	}
}

// Stats returns the totals so far.
func (c *Consumer) Stats() Stats { return c.stats }

// Prepare resolves, with the admin client adm, the start offsets of an
// assign-mode request (returned, for kgo.ConsumePartitions on the client
// that will consume) and, with ExitAtEnd, the end offsets to stop at. It
// must run before Run.
func (c *Consumer) Prepare(ctx context.Context, adm *kadm.Client, req *Request) (map[string]map[int32]kgo.Offset, error) {
	c.stats.Start = time.Now()
	if !req.Assign {
		if req.ExitAtEnd {
			if req.Regex {
				return nil, errors.New("--exit-at-end needs --topic (not --include)")
			}
			ends, err := adm.ListEndOffsets(ctx, req.Topics...)
			if err != nil {
				return nil, err
			}
			c.setEnds(ends, nil, nil)
		}
		return nil, nil
	}
	topic := req.Topics[0]
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return nil, err
	}
	if err := ends.Error(); err != nil {
		return nil, err
	}
	parts := req.Partitions
	if parts == nil {
		for p := range ends[topic] {
			parts = append(parts, p)
		}
		sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("topic %s not found", topic)
	}
	for _, p := range parts {
		if _, ok := ends[topic][p]; !ok {
			return nil, fmt.Errorf("partition %d of topic %s does not exist", p, topic)
		}
	}
	var starts kadm.ListedOffsets
	needStarts := false
	var stamps []int64
	for _, p := range parts {
		st := req.startOf(p)
		switch st.Kind {
		case StartEarliest, StartFromEnd:
			needStarts = true
		case StartTimestamp:
			stamps = append(stamps, st.Value)
		}
	}
	if needStarts {
		if starts, err = adm.ListStartOffsets(ctx, topic); err != nil {
			return nil, err
		}
	}
	byStamp := map[int64]kadm.ListedOffsets{}
	for _, ms := range stamps {
		if _, done := byStamp[ms]; done {
			continue
		}
		lo, err := adm.ListOffsetsAfterMilli(ctx, ms, topic)
		if err != nil {
			return nil, err
		}
		byStamp[ms] = lo
	}
	offsets := map[int32]kgo.Offset{}
	startAt := map[int32]int64{}
	for _, p := range parts {
		end := ends[topic][p].Offset
		var at int64
		switch st := req.startOf(p); st.Kind {
		case StartEarliest:
			at = starts[topic][p].Offset
		case StartLatest, StartDefault:
			at = end
		case StartOffset:
			at = st.Value
		case StartFromEnd:
			at = max(end-st.Value, starts[topic][p].Offset)
		case StartTimestamp:
			at = byStamp[st.Value][topic][p].Offset
			if at < 0 {
				at = end
			}
		}
		offsets[p] = kgo.NewOffset().At(at)
		startAt[p] = at
	}
	if req.ExitAtEnd {
		c.setEnds(ends, parts, startAt)
	}
	if c.Watch != nil {
		for p, at := range startAt {
			c.Watch.Seed(topic, p, at)
		}
	}
	return map[string]map[int32]kgo.Offset{topic: offsets}, nil
}

func (c *Consumer) setEnds(ends kadm.ListedOffsets, parts []int32, startAt map[int32]int64) {
	c.ends = map[string]map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if parts != nil && !containsPartition(parts, o.Partition) {
			return
		}
		if start, ok := startAt[o.Partition]; (ok && start >= o.Offset) || (!ok && o.Offset == 0) {
			return // nothing to read there
		}
		if c.ends[o.Topic] == nil {
			c.ends[o.Topic] = map[int32]int64{}
		}
		c.ends[o.Topic][o.Partition] = o.Offset
	})
}

func containsPartition(ps []int32, p int32) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

func (r *Request) startOf(p int32) Start {
	if st, ok := r.PerPartition[p]; ok {
		return st
	}
	return r.Start
}

// atEnd says whether exit-at-end has nothing left to wait for.
func (c *Consumer) atEnd() bool {
	for _, ps := range c.ends {
		if len(ps) > 0 {
			return false
		}
	}
	return true
}

func grepMatch(re *regexp.Regexp, r *kgo.Record) bool {
	if re.Match(r.Key) || re.Match(r.Value) {
		return true
	}
	for _, h := range r.Headers {
		if re.MatchString(h.Key) || re.Match(h.Value) {
			return true
		}
	}
	return false
}

// Run consumes until a stop condition: MaxMessages written, Timeout without
// a record (ErrTimeout), the end (ExitAtEnd), Stop, or ctx done (nil). A
// fatal client error or a formatter error (without SkipOnError) is
// returned. Output is buffered and flushed after every batch.
func (c *Consumer) Run(ctx context.Context, req *Request) error {
	if c.stats.Start.IsZero() {
		c.stats.Start = time.Now()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if c.Stop != nil {
		go func() {
			select {
			case <-c.Stop:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	w := bufio.NewWriterSize(c.Out, outBuffer)
	defer w.Flush()
	last := time.Now() // the last record (or the start), for Timeout
	if req.ExitAtEnd && c.atEnd() {
		return nil
	}
	for {
		if req.MaxMessages >= 0 && c.stats.Records >= req.MaxMessages {
			return nil
		}
		pctx := ctx
		var pcancel context.CancelFunc = func() {}
		if req.Timeout > 0 {
			pctx, pcancel = context.WithDeadline(ctx, last.Add(req.Timeout))
		}
		fetches := c.Client.PollFetches(pctx)
		timedOut := req.Timeout > 0 && !time.Now().Before(last.Add(req.Timeout))
		pcancel()
		if ctx.Err() != nil {
			return nil
		}
		if err := fatalFetchError(fetches); err != nil {
			return err
		}
		c.dataLoss(fetches)
		got := 0
		var ferr error
		fetches.EachPartition(func(p kgo.FetchTopicPartition) {
			// The last record to mark for the group's commit: marking it
			// alone marks every one before it in the partition.
			var mark kgo.Record
			marked := false
			for _, r := range p.Records {
				if ferr != nil || (req.MaxMessages >= 0 && c.stats.Records >= req.MaxMessages) {
					break
				}
				if c.Watch != nil {
					if c.OnGap != nil {
						c.checkGap(ctx, r)
					}
					c.Watch.See(r)
				}
				if c.ends != nil {
					if end, ok := c.ends[r.Topic][r.Partition]; ok && r.Offset+1 >= end {
						delete(c.ends[r.Topic], r.Partition)
					}
				}
				if r.Attrs.IsControl() {
					// A transaction marker (kgo.KeepControlRecords): it
					// counts for the end and the offsets, not as a record.
					if c.Recycle {
						r.Recycle()
					}
					continue
				}
				got++
				var m bool
				m, ferr = c.write(ctx, w, req, r)
				if m && req.MarkCommits {
					mark = kgo.Record{Topic: r.Topic, Partition: r.Partition, LeaderEpoch: r.LeaderEpoch, Offset: r.Offset}
					marked = true
				}
				if c.Recycle {
					r.Recycle()
				}
			}
			if marked {
				c.Client.MarkCommitRecords(&mark)
			}
		})
		if ferr != nil {
			return ferr
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if err := c.stuck(ctx, fetches); err != nil {
			return err
		}
		if got > 0 {
			last = time.Now()
		}
		if c.OnProgress != nil && got > 0 {
			c.OnProgress(c.stats)
		}
		if c.ends != nil && c.atEnd() {
			return nil
		}
		if got == 0 && timedOut {
			return ErrTimeout
		}
	}
}

// CompactedTopics returns whether a topic's cleanup.policy compacts it
// (compaction leaves holes in the offsets), read once per topic. A topic
// whose configs cannot be read counts as compacted: no jump is reported
// that the log might explain.
func CompactedTopics(ctx context.Context, adm *kadm.Client) func(topic string) bool {
	seen := map[string]bool{}
	return func(topic string) bool {
		if v, ok := seen[topic]; ok {
			return v
		}
		v := true
		if rcs, err := adm.DescribeTopicConfigs(ctx, topic); err == nil {
			if rc, err := rcs.On(topic, nil); err == nil && rc.Err == nil {
				v = false
				for _, cv := range rc.Configs {
					if cv.Key == "cleanup.policy" && strings.Contains(cv.MaybeValue(), "compact") {
						v = true
					}
				}
			}
		}
		seen[topic] = v
		return v
	}
}

// stuck handles the partitions the client cannot read past: it returns
// the corrupt batch one is stuck on, unless OnCorrupt skips it (the client
// then seeks past the batch).
func (c *Consumer) stuck(ctx context.Context, fetches kgo.Fetches) error {
	if c.Watch == nil {
		return nil
	}
	corrupt, unconfirmed := c.Watch.Check(ctx, fetches)
	for _, fe := range unconfirmed {
		if c.OnUnreadable != nil {
			c.OnUnreadable(fe)
		}
	}
	for _, corr := range corrupt {
		if c.OnCorrupt == nil || !c.OnCorrupt(corr) {
			return corr
		}
		c.Watch.Skip(c.Client, corr)
	}
	return nil
}

// checkGap reports, through OnGap, a record whose offset does not follow
// the partition's last one where the log does not explain the jump.
func (c *Consumer) checkGap(ctx context.Context, r *kgo.Record) {
	next, ok := c.Watch.Next(r.Topic, r.Partition)
	if !ok || r.Offset == next || (c.Compacted != nil && c.Compacted(r.Topic)) {
		return
	}
	g, err := integrity.ExplainGap(ctx, c.Watch.Log, r.Topic, r.Partition, next-1, r.Offset, c.ReadCommitted)
	if err != nil {
		if c.ReadCommitted {
			return // an aborted transaction may explain it
		}
		g = &integrity.Gap{Topic: r.Topic, Partition: r.Partition, From: next - 1, To: r.Offset, Reason: "the log could not be read to explain it: " + err.Error()}
	}
	if g != nil {
		c.OnGap(g)
	}
}

// dataLoss passes franz-go's data-loss signals on; the client moved the
// partition's position, so what Run knew of it is dropped.
func (c *Consumer) dataLoss(f kgo.Fetches) {
	for _, fe := range f.Errors() {
		var dl *kgo.ErrDataLoss
		if !errors.As(fe.Err, &dl) {
			continue
		}
		c.Forget(map[string][]int32{fe.Topic: {fe.Partition}})
		if c.OnDataLoss != nil {
			c.OnDataLoss(fe.Err)
		}
	}
}

// Output buffering: the buffer is flushed after every poll, and before a
// record when less than minFree bytes are free.
const (
	outBuffer = 256 << 10
	minFree   = 4 << 10
)

// write formats and writes one record (unless --grep drops it). mark says
// whether the record counts as consumed for the group's commit: written, or
// skipped after a formatter error (--skip-message-on-error).
func (c *Consumer) write(ctx context.Context, w *bufio.Writer, req *Request, r *kgo.Record) (mark bool, err error) {
	var d *Decoded
	if c.Decode != nil {
		d = &c.decoded
		c.Decode.Decode(ctx, r, d)
		if req.Grep != nil && !d.Grep(req.Grep, r) {
			return false, nil
		}
	} else if req.Grep != nil && !grepMatch(req.Grep, r) {
		return false, nil
	}
	// Counted before formatting, as Java's messageCount is.
	c.stats.Records++
	// Format straight into the writer's free space: Write then has nothing
	// to copy unless the record did not fit.
	if w.Available() < minFree {
		if err := w.Flush(); err != nil {
			return false, err
		}
	}
	var out []byte
	if df, ok := c.Format.(DecodedFormatter); ok && d != nil {
		out, err = df.AppendDecoded(w.AvailableBuffer(), r, d)
	} else {
		out, err = c.Format.Append(w.AvailableBuffer(), r)
	}
	if err != nil {
		if !req.SkipOnError {
			return false, err
		}
		if c.OnSkip != nil {
			c.OnSkip(err)
		}
	} else if _, err := w.Write(out); err != nil {
		return false, err
	}
	c.stats.Bytes += int64(len(r.Value))
	return true, nil
}

// fatalFetchError is the first error a consumer cannot go on after; the
// client retries the others (unknown topic, leader moves) itself.
func fatalFetchError(f kgo.Fetches) error {
	for _, fe := range f.Errors() {
		if errors.Is(fe.Err, context.Canceled) || errors.Is(fe.Err, context.DeadlineExceeded) {
			continue
		}
		var ce *kgo.ErrFirstReadEOF
		if errors.As(fe.Err, &ce) {
			return fe.Err
		}
		if errors.Is(fe.Err, kgo.ErrClientClosed) {
			return fe.Err
		}
		if isFatal(fe.Err) {
			return fe.Err
		}
	}
	return nil
}

// isFatal: a Kafka error the client does not retry (authorization,
// authentication, ...).
func isFatal(err error) bool {
	var ke *kerr.Error
	return errors.As(err, &ke) && !ke.Retriable
}
