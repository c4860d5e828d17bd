package transactions

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// DefaultMaxTimeout is the age past which a transaction its coordinator
// does not track counts as hanging when no limit is given (Apache's
// find-hanging default, transaction.max.timeout.ms's default).
const DefaultMaxTimeout = 15 * time.Minute

// ScanOptions configure Scan.
type ScanOptions struct {
	// MaxTimeout, when > 0, reports every open transaction idle for
	// longer, whatever its coordinator says. Otherwise a transaction is
	// hanging when it is idle for longer than its own timeout (known from
	// its coordinator), or, untracked by any coordinator, for longer than
	// DefaultMaxTimeout.
	MaxTimeout time.Duration
	// Bootstrap goes into the abort commands.
	Bootstrap string
	Now       func() time.Time
}

// Hanging is one open transaction the scan reports, on one partition.
type Hanging struct {
	Topic            string `json:"topic"`
	Partition        int32  `json:"partition"`
	Leader           int32  `json:"leader"`
	TransactionalID  string `json:"transactional_id,omitempty"`
	ProducerID       int64  `json:"producer_id"`
	ProducerEpoch    int32  `json:"producer_epoch"`
	CoordinatorEpoch int32  `json:"coordinator_epoch"`
	StartOffset      int64  `json:"start_offset"`
	LastTimestamp    int64  `json:"last_timestamp_ms"`
	OpenMs           int64  `json:"open_ms"` // now minus the producer's last write
	// Coordinator is what the transaction coordinator knows of it:
	// "untracked" (no transactional id for the producer, or the
	// coordinator does not know it or does not list this partition) or
	// the transaction's state there (Ongoing, PrepareAbort, ...).
	Coordinator string `json:"coordinator"`
	TimeoutMs   int32  `json:"timeout_ms,omitempty"` // the transaction's timeout, when tracked
	// Blocked: the partition's last stable offset is stuck at the
	// transaction's start (LSO <= start offset < high watermark), so
	// read_committed consumers cannot read past it.
	Blocked          bool     `json:"blocked"`
	LastStableOffset int64    `json:"last_stable_offset"`
	HighWatermark    int64    `json:"high_watermark"`
	RecordsBehind    int64    `json:"records_behind"` // high watermark minus LSO
	Groups           []string `json:"groups"`         // consumer groups with committed offsets on the partition
	AbortCommand     string   `json:"abort_command"`
	Reason           string   `json:"reason"`
}

// Report is the result of Scan.
type Report struct {
	Partitions int       `json:"partitions_scanned"`
	Open       int       `json:"open_transactions"`
	Hanging    []Hanging `json:"hanging"`
	// Skipped are the partitions whose leader could not describe their
	// producers (no leader, an error): a transaction there is not seen.
	Skipped []Skipped `json:"skipped"`
}

// Skipped is a partition the scan could not look at.
type Skipped struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Error     string `json:"error"`
}

// Header implements output.Tabular.
func (r *Report) Header() []string {
	return []string{"TOPIC", "PARTITION", "PRODUCER", "EPOCH", "TRANSACTIONAL ID", "COORDINATOR", "START", "LSO", "HW", "OPEN FOR", "GROUPS"}
}

// Rows implements output.Tabular.
func (r *Report) Rows() [][]string {
	var rows [][]string
	for _, h := range r.Hanging {
		id := h.TransactionalID
		if id == "" {
			id = "-"
		}
		groups := strings.Join(h.Groups, ",")
		if groups == "" {
			groups = "-"
		}
		rows = append(rows, []string{h.Topic, fmt.Sprint(h.Partition), fmt.Sprint(h.ProducerID), fmt.Sprint(h.ProducerEpoch), id, h.Coordinator,
			fmt.Sprint(h.StartOffset), fmt.Sprint(h.LastStableOffset), fmt.Sprint(h.HighWatermark), (time.Duration(h.OpenMs) * time.Millisecond).Round(time.Second).String(), groups})
	}
	return rows
}

// Scan looks at every partition of the cluster (DescribeProducers on each
// leader), finds the open transactions, asks their coordinators about
// them, and reports the hanging ones with the offsets they hold back, the
// groups with offsets on their partitions, and the command that aborts
// each.
func Scan(ctx context.Context, cl *kgo.Client, o ScanOptions) (*Report, error) {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	parts, leaders, err := partitions(ctx, cl, Scope{})
	if err != nil {
		return nil, err
	}
	open, skipped, err := openTransactions(ctx, cl, parts, nil, -1<<62, now, true)
	if err != nil {
		return nil, err
	}
	if skipped == nil {
		skipped = []Skipped{}
	}
	rep := &Report{Partitions: len(parts), Open: len(open), Hanging: []Hanging{}, Skipped: skipped}
	if len(open) == 0 {
		return rep, nil
	}
	var pids []int64
	seen := map[int64]bool{}
	for _, p := range open {
		if !seen[p.ProducerID] {
			seen[p.ProducerID] = true
			pids = append(pids, p.ProducerID)
		}
	}
	ids, err := transactionalIDs(ctx, cl, pids)
	if err != nil {
		return nil, err
	}
	var idList []string
	for _, pid := range pids {
		if id, ok := ids[pid]; ok {
			idList = append(idList, id)
		}
	}
	descs, err := describeAll(ctx, cl, idList)
	if err != nil {
		return nil, err
	}
	nowMs := now().UnixMilli()
	for _, p := range open {
		h := Hanging{Topic: p.Topic, Partition: p.Partition.Partition, Leader: leaders[p.Partition], ProducerID: p.ProducerID, ProducerEpoch: p.ProducerEpoch,
			CoordinatorEpoch: p.CoordinatorEpoch, StartOffset: p.TxnStartOffset, LastTimestamp: p.LastTimestamp, OpenMs: nowMs - p.LastTimestamp,
			Coordinator: "untracked", Groups: []string{}}
		limit := DefaultMaxTimeout.Milliseconds()
		h.Reason = "no coordinator tracks it"
		if id, ok := ids[p.ProducerID]; ok {
			h.TransactionalID = id
			if d := descs[id]; d != nil && d.Has(p.Partition) {
				h.Coordinator, h.TimeoutMs = d.State, d.TimeoutMs
				limit = int64(d.TimeoutMs)
				h.Reason = "open longer than its transaction timeout"
			}
		}
		if o.MaxTimeout > 0 {
			limit = o.MaxTimeout.Milliseconds()
			h.Reason = "open longer than --max-transaction-timeout"
		}
		if h.OpenMs <= limit {
			continue
		}
		h.AbortCommand = fmt.Sprintf("kafka-transactions --bootstrap-server %s abort --topic %s --partition %d --start-offset %d", o.Bootstrap, h.Topic, h.Partition, h.StartOffset)
		rep.Hanging = append(rep.Hanging, h)
	}
	if len(rep.Hanging) == 0 {
		return rep, nil
	}
	sort.SliceStable(rep.Hanging, func(a, b int) bool {
		x, y := rep.Hanging[a], rep.Hanging[b]
		if x.Topic != y.Topic {
			return x.Topic < y.Topic
		}
		if x.Partition != y.Partition {
			return x.Partition < y.Partition
		}
		return x.ProducerID < y.ProducerID
	})
	if err := addOffsets(ctx, cl, rep.Hanging); err != nil {
		return nil, err
	}
	return rep, addGroups(ctx, cl, rep.Hanging)
}

// addOffsets fills in the partitions' last stable offsets (ListOffsets
// with read_committed) and high watermarks.
func addOffsets(ctx context.Context, cl *kgo.Client, hs []Hanging) error {
	adm := kadm.NewClient(cl)
	topics := map[string]bool{}
	for _, h := range hs {
		topics[h.Topic] = true
	}
	names := keys(topics)
	hw, err := adm.ListEndOffsets(ctx, names...)
	if err == nil {
		err = hw.Error()
	}
	if err != nil {
		return fmt.Errorf("listing high watermarks: %w", err)
	}
	lso, err := kadm.NewClient(cl).ListCommittedOffsets(ctx, names...)
	if err == nil {
		err = lso.Error()
	}
	if err != nil {
		return fmt.Errorf("listing last stable offsets: %w", err)
	}
	for i := range hs {
		h := &hs[i]
		w, _ := hw.Lookup(h.Topic, h.Partition)
		l, _ := lso.Lookup(h.Topic, h.Partition)
		h.HighWatermark, h.LastStableOffset = w.Offset, l.Offset
		h.RecordsBehind = w.Offset - l.Offset
		h.Blocked = l.Offset <= h.StartOffset && h.StartOffset < w.Offset
	}
	return nil
}

// addGroups names the consumer groups with committed offsets on the
// partitions. Whether a group reads with read_committed is the client's
// setting, which the broker does not know: every group with offsets there
// is named.
func addGroups(ctx context.Context, cl *kgo.Client, hs []Hanging) error {
	adm := kadm.NewClient(cl)
	listed, err := adm.ListGroups(ctx)
	if err != nil {
		return fmt.Errorf("listing groups: %w", err)
	}
	groups := listed.Groups()
	sort.Strings(groups)
	if len(groups) == 0 {
		return nil
	}
	fetched := adm.FetchManyOffsets(ctx, groups...)
	for _, g := range groups {
		r, ok := fetched[g]
		if !ok || r.Err != nil {
			continue
		}
		for i := range hs {
			if _, ok := r.Fetched.Lookup(hs[i].Topic, hs[i].Partition); ok {
				hs[i].Groups = append(hs[i].Groups, g)
			}
		}
	}
	return nil
}
