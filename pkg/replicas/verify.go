package replicas

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Request is what Verify compares.
type Request struct {
	// Include selects topics (nil: every topic, internal ones included).
	Include func(string) bool
	// FetchBytes is the most one fetch from one replica asks for (the
	// broker still returns a first batch larger than that whole).
	FetchBytes int32
	// MaxWaitMs is how long a replica's broker may wait for records a
	// lagging replica does not hold yet.
	MaxWaitMs int32
	// Parallel is how many partitions are compared at once. Memory is
	// bounded by Parallel x replicas x FetchBytes, whatever the topics hold.
	Parallel int
	// Stalls is how many fetches in a row may bring a replica nothing new
	// below the high watermark before the partition is given up as lagging.
	Stalls int
}

// Statuses of a partition's verdict.
const (
	StatusOK         = "ok"
	StatusDiverged   = "diverged"
	StatusIncomplete = "incomplete"
)

// Divergence is the first place where a replica's copy differs.
type Divergence struct {
	// Offset is the first offset whose record differs (the batch's base
	// offset when the difference is in the batch header or the records
	// cannot be read).
	Offset int64 `json:"offset"`
	// Replica is the replica whose copy is wrong when that can be told (its
	// batch fails its own CRC), else the one that differs from Reference.
	Replica   int32 `json:"replica"`
	Reference int32 `json:"reference_replica"`
	// Reason is crc_mismatch (Replica's batch does not match the CRC
	// stored in it), records_differ (both batches are intact and differ)
	// or batches_differ (the replicas' batches cover different offsets).
	Reason string `json:"reason"`
	Detail string `json:"detail"`
}

// PartitionResult is one partition's verdict.
type PartitionResult struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Leader    int32  `json:"leader"`
	// Compared are the in-sync replicas compared, the leader first.
	Compared []int32 `json:"replicas_compared"`
	// OutOfSync are the replicas not in sync, left out.
	OutOfSync []int32 `json:"replicas_out_of_sync"`
	// StartOffset and HighWatermark bound what is compared: the leader's
	// log start offset and high watermark when the run began.
	StartOffset   int64 `json:"start_offset"`
	HighWatermark int64 `json:"high_watermark"`
	// VerifiedOffset is the offset up to which (excluded) every compared
	// replica holds the same records; Lag is HighWatermark minus it.
	VerifiedOffset int64       `json:"verified_offset"`
	Lag            int64       `json:"lag"`
	Status         string      `json:"status"`
	Divergence     *Divergence `json:"divergence"`
	Error          string      `json:"error,omitempty"`
}

// Report is Verify's result.
type Report struct {
	Partitions []PartitionResult `json:"partitions"`
	Diverged   int               `json:"partitions_diverged"`
	Incomplete int               `json:"partitions_incomplete"`
}

// Header is the table's header.
func (r *Report) Header() []string {
	return []string{"TOPIC", "PARTITION", "LEADER", "COMPARED", "HIGH-WATERMARK", "VERIFIED", "LAG", "STATUS", "DETAIL"}
}

// Rows are the table's rows, one per partition.
func (r *Report) Rows() [][]string {
	var rows [][]string
	for _, p := range r.Partitions {
		detail := p.Error
		if d := p.Divergence; d != nil {
			detail = fmt.Sprintf("offset %d: replica %d differs from replica %d (%s: %s)", d.Offset, d.Replica, d.Reference, d.Reason, d.Detail)
		}
		rows = append(rows, []string{p.Topic, strconv.Itoa(int(p.Partition)), strconv.Itoa(int(p.Leader)), ids(p.Compared),
			strconv.FormatInt(p.HighWatermark, 10), strconv.FormatInt(p.VerifiedOffset, 10), strconv.FormatInt(p.Lag, 10), p.Status, detail})
	}
	return rows
}

func ids(v []int32) string {
	s := make([]string, len(v))
	for i, id := range v {
		s[i] = strconv.Itoa(int(id))
	}
	return strings.Join(s, ",")
}

// Verify compares, on every selected partition, the in-sync replicas'
// copies from the leader's log start offset up to its high watermark as
// they are when the run begins: every batch's CRC is recomputed on every
// replica, and the batches are compared byte for byte with the leader's;
// the first difference is named (offset, replica, reason). A cancelled
// ctx (a --duration ending) leaves the partitions not done incomplete.
func Verify(ctx context.Context, cl *kgo.Client, req Request) (*Report, error) {
	l, err := Describe(ctx, cl, req.Include)
	if err != nil {
		return nil, err
	}
	if len(l.Partitions) == 0 {
		return &Report{Partitions: []PartitionResult{}}, nil
	}
	starts, ends, err := bounds(ctx, cl, l)
	if err != nil {
		return nil, err
	}
	rep := &Report{Partitions: make([]PartitionResult, len(l.Partitions))}
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(req.Parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				p := l.Partitions[i]
				rep.Partitions[i] = verifyPartition(ctx, cl, req, p, starts[p.TP], ends[p.TP])
			}
		}()
	}
	for i := range l.Partitions {
		work <- i
	}
	close(work)
	wg.Wait()
	for _, p := range rep.Partitions {
		switch p.Status {
		case StatusDiverged:
			rep.Diverged++
		case StatusIncomplete:
			rep.Incomplete++
		}
	}
	return rep, nil
}

// bounds are the leaders' log start offsets and high watermarks.
func bounds(ctx context.Context, cl *kgo.Client, l *Layout) (starts, ends map[TP]int64, err error) {
	adm := kadm.NewClient(cl)
	topics := l.Topics()
	s, err := adm.ListStartOffsets(ctx, topics...)
	if err == nil {
		err = s.Error()
	}
	if err != nil {
		return nil, nil, err
	}
	e, err := adm.ListEndOffsets(ctx, topics...)
	if err == nil {
		err = e.Error()
	}
	if err != nil {
		return nil, nil, err
	}
	starts, ends = map[TP]int64{}, map[TP]int64{}
	s.Each(func(o kadm.ListedOffset) { starts[TP{o.Topic, o.Partition}] = o.Offset })
	e.Each(func(o kadm.ListedOffset) { ends[TP{o.Topic, o.Partition}] = o.Offset })
	return starts, ends, nil
}

// compared orders the in-sync replicas, the leader first, and lists the
// others.
func compared(p Partition) (in, out []int32) {
	isr := map[int32]bool{}
	for _, r := range p.ISR {
		isr[r] = true
	}
	if isr[p.Leader] {
		in = append(in, p.Leader)
	}
	rest := append([]int32(nil), p.Replicas...)
	sort.Slice(rest, func(i, j int) bool { return rest[i] < rest[j] })
	for _, r := range rest {
		switch {
		case r == p.Leader && isr[r]:
		case isr[r]:
			in = append(in, r)
		default:
			out = append(out, r)
		}
	}
	return in, out
}

func verifyPartition(ctx context.Context, cl *kgo.Client, req Request, p Partition, start, hw int64) PartitionResult {
	in, out := compared(p)
	res := PartitionResult{Topic: p.Topic, Partition: p.Partition, Leader: p.Leader, Compared: in, OutOfSync: out,
		StartOffset: start, HighWatermark: hw, VerifiedOffset: start, Status: StatusOK}
	if out == nil {
		res.OutOfSync = []int32{}
	}
	if len(in) == 0 || in[0] != p.Leader {
		return res.incomplete("the partition has no leader in sync")
	}
	read := func(r int32, off int64) ([]integrity.Batch, error) {
		got, err := FetchFrom(ctx, cl, r, []Partition{p}, map[TP]int64{p.TP: off},
			FetchOptions{PartitionBytes: req.FetchBytes, MaxBytes: req.FetchBytes, MaxWaitMs: req.MaxWaitMs, MinBytes: 1})
		if err != nil {
			return nil, err
		}
		f, ok := got[p.TP]
		if !ok {
			return nil, errors.New("the fetch response does not hold the partition")
		}
		if f.Err != nil {
			return nil, f.Err
		}
		var below []integrity.Batch
		for _, b := range integrity.Batches(f.Records) {
			if b.Base < hw {
				below = append(below, b)
			}
		}
		return below, nil
	}
	stalls := 0
	for res.VerifiedOffset < hw {
		if ctx.Err() != nil {
			return res.incomplete("stopped before the high watermark")
		}
		batches, err := readAll(in, res.VerifiedOffset, read)
		if err != nil && ctx.Err() != nil {
			return res.incomplete("stopped before the high watermark")
		}
		if err != nil {
			return res.incomplete(err.Error())
		}
		n := len(batches[0])
		for _, bs := range batches[1:] {
			n = min(n, len(bs))
		}
		if n == 0 {
			if stalls++; stalls > req.Stalls {
				return res.incomplete(fmt.Sprintf("a replica holds nothing past offset %d", res.VerifiedOffset))
			}
			continue
		}
		stalls = 0
		for k := range n {
			ref := batches[0][k]
			for j := 1; j < len(in); j++ {
				if d := Compare(in[0], ref, in[j], batches[j][k]); d != nil {
					res.Status, res.Divergence = StatusDiverged, d
					return res.settle()
				}
			}
			if !ref.CRCOK() {
				res.Status = StatusDiverged
				res.Divergence = &Divergence{Offset: ref.Base, Replica: in[0], Reference: in[0], Reason: "crc_mismatch", Detail: crcDetail(ref)}
				return res.settle()
			}
			res.VerifiedOffset = max(res.VerifiedOffset, ref.Last+1)
		}
	}
	return res.settle()
}

func (r PartitionResult) settle() PartitionResult {
	r.Lag = max(r.HighWatermark-r.VerifiedOffset, 0)
	return r
}

func (r PartitionResult) incomplete(msg string) PartitionResult {
	r.Status, r.Error = StatusIncomplete, msg
	return r.settle()
}

// readAll reads every replica at off at once.
func readAll(in []int32, off int64, read func(int32, int64) ([]integrity.Batch, error)) ([][]integrity.Batch, error) {
	out := make([][]integrity.Batch, len(in))
	errs := make([]error, len(in))
	var wg sync.WaitGroup
	for i, r := range in {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = read(r, off)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("replica %d at offset %d: %w", in[i], off, err)
		}
	}
	return out, nil
}
