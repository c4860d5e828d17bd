package messages

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// topic is what a page needs to know of its topic.
type topic struct {
	name    string
	id      [16]byte
	leaders map[int32]int32
	parts   []int32 // the partitions read, in order
	start   map[int32]int64
	end     map[int32]int64
}

// Read reads one page of req.Topic on cl (any connected client: the page
// uses Metadata, ListOffsets and Fetch requests of its own).
func Read(ctx context.Context, cl *kgo.Client, req Request) (*Page, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	cursor, err := ParseCursor(req.Cursor)
	if err != nil {
		return nil, err
	}
	t, err := describe(ctx, cl, &req)
	if err != nil {
		return nil, err
	}
	pg := newPage(&req)
	for _, p := range t.parts {
		pg.out.Partitions = append(pg.out.Partitions, PartitionRange{Partition: p, StartOffset: t.start[p], EndOffset: t.end[p]})
	}
	if req.Start == Newest {
		err = pg.backward(ctx, cl, t, cursor)
	} else {
		var pos map[int32]int64
		if pos, err = positions(ctx, cl, t, &req, cursor); err == nil {
			err = pg.forward(ctx, cl, t, pos)
		}
	}
	if err != nil {
		return nil, err
	}
	return pg.out, nil
}

// describe reads the topic's id, leaders and offsets, and checks the
// partitions asked for.
func describe(ctx context.Context, cl *kgo.Client, req *Request) (*topic, error) {
	adm := kadm.NewClient(cl)
	md, err := adm.Metadata(ctx, req.Topic)
	if err != nil {
		return nil, err
	}
	td, ok := md.Topics[req.Topic]
	if !ok || td.Err != nil {
		if !ok || td.Err == kerr.UnknownTopicOrPartition {
			return nil, badf("topic %q does not exist", req.Topic)
		}
		return nil, fmt.Errorf("topic %s: %w", req.Topic, td.Err)
	}
	t := &topic{name: req.Topic, id: td.ID, leaders: map[int32]int32{}}
	for p, pd := range td.Partitions {
		t.leaders[p] = pd.Leader
	}
	if len(req.Partitions) == 0 {
		for p := range t.leaders {
			t.parts = append(t.parts, p)
		}
	} else {
		seen := map[int32]bool{}
		for _, p := range req.Partitions {
			if _, ok := t.leaders[p]; !ok {
				return nil, badf("topic %s has no partition %d (it has %d)", req.Topic, p, len(t.leaders))
			}
			if !seen[p] {
				seen[p] = true
				t.parts = append(t.parts, p)
			}
		}
	}
	sort.Slice(t.parts, func(i, j int) bool { return t.parts[i] < t.parts[j] })
	starts, err := adm.ListStartOffsets(ctx, req.Topic)
	if err != nil {
		return nil, err
	}
	// The end a page reads to is the last stable offset (read_committed:
	// an open transaction's records are not read yet).
	ends, err := adm.ListCommittedOffsets(ctx, req.Topic)
	if err != nil {
		return nil, err
	}
	t.start, t.end = map[int32]int64{}, map[int32]int64{}
	for _, p := range t.parts {
		s, _ := starts.Lookup(req.Topic, p)
		e, _ := ends.Lookup(req.Topic, p)
		if s.Err != nil || e.Err != nil {
			return nil, fmt.Errorf("partition %s-%d offsets: %w", req.Topic, p, firstErr(s.Err, e.Err))
		}
		t.start[p], t.end[p] = s.Offset, e.Offset
	}
	return t, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func clamp(o, lo, hi int64) int64 { return max(lo, min(o, hi)) }

// positions is where a forward page starts in each partition.
func positions(ctx context.Context, cl *kgo.Client, t *topic, req *Request, cursor map[int32]int64) (map[int32]int64, error) {
	pos := map[int32]int64{}
	if req.Cursor != "" {
		for _, p := range t.parts {
			o, ok := cursor[p]
			if !ok {
				o = t.start[p]
			}
			pos[p] = clamp(o, t.start[p], t.end[p])
		}
		return pos, nil
	}
	var after kadm.ListedOffsets
	if req.Start == Timestamp {
		var err error
		if after, err = kadm.NewClient(cl).ListOffsetsAfterMilli(ctx, req.TimestampMs, req.Topic); err != nil {
			return nil, err
		}
	}
	for _, p := range t.parts {
		switch req.Start {
		case Oldest:
			pos[p] = t.start[p]
		case Offset:
			pos[p] = clamp(req.Offset, t.start[p], t.end[p])
		case Timestamp:
			o, _ := after.Lookup(req.Topic, p)
			if o.Err != nil {
				return nil, fmt.Errorf("partition %s-%d offset for time: %w", req.Topic, p, o.Err)
			}
			if o.Offset < 0 {
				o.Offset = t.end[p]
			}
			pos[p] = clamp(o.Offset, t.start[p], t.end[p])
		}
	}
	return pos, nil
}

// forward reads from pos on, all partitions at once, until the page is
// full or every partition is at its end (as listed when the page began).
func (pg *page) forward(ctx context.Context, cl *kgo.Client, t *topic, pos map[int32]int64) error {
	defer func() {
		if pg.out.Stopped != StopEnd {
			pg.out.Next = formatCursor(pos)
		}
	}()
	for {
		want := map[int32]int64{}
		for _, p := range t.parts {
			if pos[p] < t.end[p] {
				want[p] = pos[p]
			}
		}
		if len(want) == 0 {
			pg.out.Stopped = StopEnd
			return nil
		}
		got, err := fetch(ctx, cl, t, want)
		if err != nil {
			return err
		}
		progress := false
		for _, p := range t.parts {
			f, ok := got[p]
			if !ok {
				continue
			}
			for _, r := range f.recs {
				if r.Offset >= t.end[p] {
					break
				}
				pg.take(ctx, r)
				pos[p] = r.Offset + 1
				progress = true
				if why := pg.full(); why != "" {
					pg.out.Stopped = why
					return nil
				}
			}
			if next := min(f.next, t.end[p]); next > pos[p] {
				pos[p], progress = next, true
			}
		}
		if !progress {
			return fmt.Errorf("topic %s: the brokers returned no records below the end offsets", t.name)
		}
	}
}

// backward reads the newest records first: each round reads a window of
// at most the records still wanted below each partition's position
// (its end, or the cursor), and takes them newest first.
func (pg *page) backward(ctx context.Context, cl *kgo.Client, t *topic, cursor map[int32]int64) error {
	to := map[int32]int64{}
	for _, p := range t.parts {
		o, ok := cursor[p]
		if !ok || pg.req.Cursor == "" {
			o = t.end[p]
		}
		to[p] = clamp(o, t.start[p], t.end[p])
	}
	defer func() {
		if pg.out.Stopped != StopEnd {
			pg.out.Next = formatCursor(to)
		}
	}()
	for {
		var active []int32
		for _, p := range t.parts {
			if to[p] > t.start[p] {
				active = append(active, p)
			}
		}
		if len(active) == 0 {
			pg.out.Stopped = StopEnd
			return nil
		}
		// Unfiltered, a round reads the records the page still wants;
		// filtered, up to filterWindow records (fewer rounds), bounded by
		// the scan and, in bytes, by readWindow.
		need := pg.req.Limit - len(pg.out.Messages)
		if pg.filtered() {
			need = max(need, filterWindow)
		}
		need = min(need, pg.req.Scan-pg.out.Scanned)
		if len(active) > need {
			active = active[:need]
		}
		// need records over the partitions: the first need%len(active)
		// get one more, so that one round can fill the page.
		share, extra := need/len(active), need%len(active)
		from := map[int32]int64{}
		for i, p := range active {
			n := share
			if i < extra {
				n++
			}
			from[p] = max(t.start[p], to[p]-int64(n))
		}
		win, err := readWindow(ctx, cl, t, from, to)
		if err != nil {
			return err
		}
		if why := pg.takeNewest(ctx, win, from, to); why != "" {
			pg.out.Stopped = why
			return nil
		}
	}
}

// filterWindow is the records a filtered newest-first round reads.
const filterWindow = 5000

// window is the records read of one partition's window.
type window struct {
	recs    []*kgo.Record
	dropped bool // its oldest records were dropped to stay within MaxBytes
}

// readWindow reads each partition's records in [from, to), keeping at
// most MaxBytes of them (the newest: the oldest are read by the next
// round or page).
func readWindow(ctx context.Context, cl *kgo.Client, t *topic, from, to map[int32]int64) (map[int32]*window, error) {
	pos := map[int32]int64{}
	out := map[int32]*window{}
	for p, o := range from {
		pos[p] = o
		out[p] = &window{}
	}
	total := 0
	for {
		want := map[int32]int64{}
		for p := range from {
			if pos[p] < to[p] {
				want[p] = pos[p]
			}
		}
		if len(want) == 0 {
			return out, nil
		}
		got, err := fetch(ctx, cl, t, want)
		if err != nil {
			return nil, err
		}
		progress := false
		for p, f := range got {
			w := out[p]
			for _, r := range f.recs {
				if r.Offset >= to[p] {
					break
				}
				w.recs = append(w.recs, r)
				total += recordBytes(r)
				pos[p], progress = r.Offset+1, true
			}
			if next := min(f.next, to[p]); next > pos[p] {
				pos[p], progress = next, true
			}
			for total > MaxBytes && len(w.recs) > 1 {
				total -= recordBytes(w.recs[0])
				w.recs[0] = nil
				w.recs = w.recs[1:]
				w.dropped = true
			}
		}
		if !progress {
			return nil, fmt.Errorf("topic %s: the brokers returned no records below the end offsets", t.name)
		}
	}
}

func recordBytes(r *kgo.Record) int {
	n := len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		n += len(h.Key) + len(h.Value)
	}
	return n
}

// takeNewest takes a round's windows newest first (by timestamp, each
// partition in descending offsets) until the page is full, and moves each
// partition's position below what it took.
func (pg *page) takeNewest(ctx context.Context, win map[int32]*window, from, to map[int32]int64) string {
	heads := map[int32]int{}
	for p, w := range win {
		heads[p] = len(w.recs) - 1
	}
	why := ""
	for why == "" {
		best := int32(-1)
		for p, i := range heads {
			if i < 0 {
				continue
			}
			if best < 0 || newer(win[p].recs[i], win[best].recs[heads[best]]) {
				best = p
			}
		}
		if best < 0 {
			break
		}
		r := win[best].recs[heads[best]]
		heads[best]--
		pg.take(ctx, r)
		to[best] = r.Offset
		why = pg.full()
	}
	for p, w := range win {
		if heads[p] < 0 && !w.dropped {
			to[p] = from[p]
		}
	}
	return why
}

func newer(a, b *kgo.Record) bool {
	if !a.Timestamp.Equal(b.Timestamp) {
		return a.Timestamp.After(b.Timestamp)
	}
	if a.Partition != b.Partition {
		return a.Partition < b.Partition
	}
	return a.Offset > b.Offset
}

// fetched is one partition's part of a Fetch answer.
type fetched struct {
	recs []*kgo.Record
	next int64 // the offset after the last one processed
}

// fetch reads each partition of want from its offset, one Fetch request
// per leader (read_committed, at most MaxBytes per answer), all at once.
func fetch(ctx context.Context, cl *kgo.Client, t *topic, want map[int32]int64) (map[int32]fetched, error) {
	byLeader := map[int32][]int32{}
	for p := range want {
		l := t.leaders[p]
		if l < 0 {
			return nil, fmt.Errorf("partition %s-%d has no leader", t.name, p)
		}
		byLeader[l] = append(byLeader[l], p)
	}
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		out   = map[int32]fetched{}
		first error
	)
	for leader, parts := range byLeader {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := fetchFrom(ctx, cl, t, leader, parts, want)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && first == nil {
				first = err
			}
			for p, f := range got {
				out[p] = f
			}
		}()
	}
	wg.Wait()
	return out, first
}

func fetchFrom(ctx context.Context, cl *kgo.Client, t *topic, leader int32, parts []int32, want map[int32]int64) (map[int32]fetched, error) {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = 0
	req.MinBytes = 1
	req.MaxBytes = MaxBytes
	req.IsolationLevel = 1 // read_committed
	req.SessionEpoch = -1  // no fetch session
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic, ft.TopicID = t.name, t.id
	for _, p := range parts {
		fp := kmsg.NewFetchRequestTopicPartition()
		fp.Partition = p
		fp.FetchOffset = want[p]
		fp.PartitionMaxBytes = MaxBytes
		fp.CurrentLeaderEpoch = -1
		fp.LogStartOffset = -1
		ft.Partitions = append(ft.Partitions, fp)
	}
	req.Topics = append(req.Topics, ft)
	kresp, err := cl.Broker(int(leader)).Request(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("fetch from broker %d: %w", leader, err)
	}
	resp := kresp.(*kmsg.FetchResponse)
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, fmt.Errorf("fetch from broker %d: %w", leader, err)
	}
	out := map[int32]fetched{}
	for i := range resp.Topics {
		rt := &resp.Topics[i]
		if rt.Topic != t.name && rt.TopicID != t.id {
			continue
		}
		for j := range rt.Partitions {
			rp := &rt.Partitions[j]
			off, ok := want[rp.Partition]
			if !ok {
				continue
			}
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
				return nil, fmt.Errorf("partition %s-%d at offset %d: %w", t.name, rp.Partition, off, err)
			}
			fp, next := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Topic: t.name, Partition: rp.Partition, Offset: off,
				IsolationLevel: kgo.ReadCommitted()}, rp, kgo.DefaultDecompressor(), nil)
			if fp.Err != nil {
				return nil, fmt.Errorf("partition %s-%d at offset %d: %w", t.name, rp.Partition, off, fp.Err)
			}
			out[rp.Partition] = fetched{recs: fp.Records, next: next}
		}
	}
	return out, nil
}
