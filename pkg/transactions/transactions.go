// Package transactions is the domain of kafka-transactions (kbox
// transactions): the cluster's transactions (ListTransactions on every
// broker, DescribeTransactions at the coordinator), the producer state of
// partitions (DescribeProducers), aborting an open transaction on a
// partition (WriteTxnMarkers), fencing a transactional id (InitProducerId),
// Apache's find-hanging search and kbox's cluster-wide scan for hanging
// transactions (Scan). No printing and no command-line concerns: the
// commands in cmd/transactions turn these results into Apache's tables or
// kbox's reports.
package transactions

import (
	"context"
	"errors"
	"fmt"

	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// APIError is an error code a broker answered, with the message Java's
// admin client gives its exception (the error's default message, or the
// broker's own message when it sent one).
type APIError struct {
	Code    int16
	Message string
	Broker  int32 // the broker that answered, where the caller needs it (List)
}

func (e *APIError) Error() string { return e.Message }

// apiError turns a response's error code (and optional message) into an
// *APIError, nil for no error.
func apiError(code int16, msg *string) error {
	if code == 0 {
		return nil
	}
	m := ""
	var ke *kerr.Error
	if err := kerr.ErrorForCode(code); errors.As(err, &ke) {
		m = ke.Description
	}
	if msg != nil && *msg != "" {
		m = *msg
	}
	return &APIError{Code: code, Message: m}
}

// shardError turns a request's failure into an *APIError when it is a
// Kafka error code (kgo answers an unknown topic's partitions so).
func shardError(err error) error {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return &APIError{Code: ke.Code, Message: ke.Description}
	}
	return err
}

// Partition is a topic partition.
type Partition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// String is Java's TopicPartition.toString: topic-partition.
func (p Partition) String() string { return fmt.Sprintf("%s-%d", p.Topic, p.Partition) }

// javaHash is TopicPartition.hashCode.
func (p Partition) javaHash() int32 {
	return 31*(31+p.Partition) + javafmt.StringHash(p.Topic)
}

// Listing is one transaction of ListTransactions.
type Listing struct {
	TransactionalID string `json:"transactional_id"`
	Coordinator     int32  `json:"coordinator"`
	ProducerID      int64  `json:"producer_id"`
	State           string `json:"state"`
}

// State is Java's TransactionState.parse(...).toString(): a state the
// client does not know is "Unknown".
func State(s string) string {
	switch s {
	case "Ongoing", "PrepareAbort", "PrepareCommit", "CompleteAbort", "CompleteCommit", "Empty", "PrepareEpochFence":
		return s
	}
	return "Unknown"
}

// ListOptions are ListTransactions' filters; nil and "" filter nothing.
type ListOptions struct {
	ProducerIDs []int64
	States      []string
	// DurationMs: only transactions running longer than this (< 0: all).
	DurationMs *int64
	// Pattern: a regular expression the transactional ids must match.
	Pattern string
}

// List sends ListTransactions to every broker. The result is per broker
// id (each coordinator's transactions in its answer's order); brokers
// lists the ids in the order of Java's HashMap<Integer,...>.
func List(ctx context.Context, cl *kgo.Client, o ListOptions) (map[int32][]Listing, []int32, error) {
	req := kmsg.NewPtrListTransactionsRequest()
	req.ProducerIDFilters = o.ProducerIDs
	req.StateFilters = o.States
	req.DurationFilterMillis = -1
	if o.DurationMs != nil {
		req.DurationFilterMillis = *o.DurationMs
	}
	if o.Pattern != "" {
		req.TransactionalIDPattern = &o.Pattern
	}
	out := map[int32][]Listing{}
	var order []int32
	for _, s := range cl.RequestSharded(ctx, req) {
		if s.Err != nil {
			return nil, nil, s.Err
		}
		resp := s.Resp.(*kmsg.ListTransactionsResponse)
		id := s.Meta.NodeID
		if err := apiError(resp.ErrorCode, nil); err != nil {
			err.(*APIError).Broker = id
			return nil, nil, err
		}
		order = append(order, id)
		ls := []Listing{}
		for _, t := range resp.TransactionStates {
			ls = append(ls, Listing{TransactionalID: t.TransactionalID, Coordinator: id, ProducerID: t.ProducerID, State: State(t.TransactionState)})
		}
		out[id] = ls
	}
	return out, intMapOrder(order), nil
}

// Description is DescribeTransactions' answer for one transactional id.
type Description struct {
	Coordinator     int32  `json:"coordinator"`
	TransactionalID string `json:"transactional_id"`
	ProducerID      int64  `json:"producer_id"`
	ProducerEpoch   int16  `json:"producer_epoch"`
	State           string `json:"state"`
	TimeoutMs       int32  `json:"timeout_ms"`
	StartTimeMs     *int64 `json:"start_time_ms"` // nil: no transaction started
	// DurationMs is the time since the start when the caller set it
	// (describe: now minus StartTimeMs).
	DurationMs *int64      `json:"duration_ms"`
	Partitions []Partition `json:"partitions"` // in Java's HashSet order
}

// Describe asks the transactional ids' coordinators to describe them. A
// per-id failure (TransactionalIdNotFound, ...) is in errs.
func Describe(ctx context.Context, cl *kgo.Client, ids ...string) (map[string]*Description, map[string]error, error) {
	descs, errs := map[string]*Description{}, map[string]error{}
	if len(ids) == 0 {
		return descs, errs, nil
	}
	req := kmsg.NewPtrDescribeTransactionsRequest()
	req.TransactionalIDs = ids
	for _, s := range cl.RequestSharded(ctx, req) {
		if s.Err != nil {
			var ae *APIError
			if err := shardError(s.Err); errors.As(err, &ae) {
				for _, id := range s.Req.(*kmsg.DescribeTransactionsRequest).TransactionalIDs {
					errs[id] = ae
				}
				continue
			}
			return nil, nil, s.Err
		}
		resp := s.Resp.(*kmsg.DescribeTransactionsResponse)
		for _, t := range resp.TransactionStates {
			if err := apiError(t.ErrorCode, nil); err != nil {
				errs[t.TransactionalID] = err
				continue
			}
			d := &Description{Coordinator: s.Meta.NodeID, TransactionalID: t.TransactionalID, ProducerID: t.ProducerID,
				ProducerEpoch: t.ProducerEpoch, State: State(t.State), TimeoutMs: t.TimeoutMillis, Partitions: []Partition{}}
			if t.StartTimestamp >= 0 {
				st := t.StartTimestamp
				d.StartTimeMs = &st
			}
			for _, tp := range t.Topics {
				for _, p := range tp.Partitions {
					d.Partitions = append(d.Partitions, Partition{tp.Topic, p})
				}
			}
			d.Partitions = javaSetOrder(d.Partitions, -1)
			descs[t.TransactionalID] = d
		}
	}
	return descs, errs, nil
}

// Has reports whether the coordinator lists p in the transaction.
func (d *Description) Has(p Partition) bool {
	for _, q := range d.Partitions {
		if q == p {
			return true
		}
	}
	return false
}

// Producer is the state of one active producer on a partition.
type Producer struct {
	Partition
	ProducerID       int64 `json:"producer_id"`
	ProducerEpoch    int32 `json:"producer_epoch"`
	LastSequence     int32 `json:"last_sequence"`
	LastTimestamp    int64 `json:"last_timestamp_ms"`
	CoordinatorEpoch int32 `json:"coordinator_epoch"` // -1: none
	// TxnStartOffset is the first offset of its open transaction, -1
	// when none is open.
	TxnStartOffset int64 `json:"txn_start_offset"`
}

// Open reports an open transaction.
func (p Producer) Open() bool { return p.TxnStartOffset >= 0 }

// ProducersError is a partition DescribeProducers could not describe.
type ProducersError struct {
	Partition Partition
	Err       error
}

func (e *ProducersError) Error() string { return e.Err.Error() }
func (e *ProducersError) Unwrap() error { return e.Err }

// DescribeProducers describes the active producers of the partitions, on
// their leaders, or on broker when it is not nil. The producers are per
// partition, in the broker's order; a partition's failure is a
// *ProducersError (the first one, in the order of parts).
func DescribeProducers(ctx context.Context, cl *kgo.Client, parts []Partition, broker *int32) (map[Partition][]Producer, error) {
	out, failed, err := describeProducers(ctx, cl, parts, broker)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		if e := failed[p]; e != nil {
			return nil, &ProducersError{Partition: p, Err: e}
		}
	}
	return out, nil
}

// describeProducers is DescribeProducers with each partition's failure
// apart: a failed request to one leader fails its partitions only.
func describeProducers(ctx context.Context, cl *kgo.Client, parts []Partition, broker *int32) (map[Partition][]Producer, map[Partition]error, error) {
	req := kmsg.NewPtrDescribeProducersRequest()
	byTopic := map[string]int{}
	for _, p := range parts {
		i, ok := byTopic[p.Topic]
		if !ok {
			i = len(req.Topics)
			byTopic[p.Topic] = i
			t := kmsg.NewDescribeProducersRequestTopic()
			t.Topic = p.Topic
			req.Topics = append(req.Topics, t)
		}
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, p.Partition)
	}
	out, failed := map[Partition][]Producer{}, map[Partition]error{}
	var resps []kmsg.Response
	if broker != nil {
		r, err := cl.Broker(int(*broker)).Request(ctx, req)
		if err != nil {
			return nil, nil, fmt.Errorf("broker %d: %w", *broker, err)
		}
		resps = append(resps, r)
	} else {
		for _, s := range cl.RequestSharded(ctx, req) {
			if s.Err == nil {
				resps = append(resps, s.Resp)
				continue
			}
			err := shardError(s.Err)
			var ae *APIError
			if !errors.As(err, &ae) || s.Req == nil {
				return nil, nil, err
			}
			for _, t := range s.Req.(*kmsg.DescribeProducersRequest).Topics {
				for _, p := range t.Partitions {
					failed[Partition{t.Topic, p}] = err
				}
			}
		}
	}
	for _, r := range resps {
		for _, t := range r.(*kmsg.DescribeProducersResponse).Topics {
			for _, rp := range t.Partitions {
				p := Partition{t.Topic, rp.Partition}
				if err := apiError(rp.ErrorCode, rp.ErrorMessage); err != nil {
					failed[p] = err
					continue
				}
				ps := []Producer{}
				for _, a := range rp.ActiveProducers {
					ps = append(ps, Producer{Partition: p, ProducerID: a.ProducerID, ProducerEpoch: a.ProducerEpoch, LastSequence: a.LastSequence,
						LastTimestamp: a.LastTimestamp, CoordinatorEpoch: a.CoordinatorEpoch, TxnStartOffset: a.CurrentTxnStartOffset})
				}
				out[p] = ps
			}
		}
	}
	for _, p := range parts {
		if _, ok := out[p]; !ok && failed[p] == nil {
			failed[p] = apiError(kerr.UnknownTopicOrPartition.Code, nil)
		}
	}
	return out, failed, nil
}

// AbortSpec names the transaction to abort on one partition (Java's
// AbortTransactionSpec).
type AbortSpec struct {
	Partition        Partition `json:"partition"`
	ProducerID       int64     `json:"producer_id"`
	ProducerEpoch    int16     `json:"producer_epoch"`
	CoordinatorEpoch int32     `json:"coordinator_epoch"`
}

// String is AbortTransactionSpec.toString.
func (s AbortSpec) String() string {
	return fmt.Sprintf("AbortTransactionSpec(topicPartition=%s, producerId=%d, producerEpoch=%d, coordinatorEpoch=%d)",
		s.Partition, s.ProducerID, s.ProducerEpoch, s.CoordinatorEpoch)
}

// ErrNoOpenTransaction: no producer has a transaction open at the offset.
var ErrNoOpenTransaction = errors.New("no open transaction starts at that offset")

// SpecAt finds the producer whose open transaction on p starts at
// startOffset (DescribeProducers on the leader), as Apache's abort
// --start-offset does; a coordinator epoch of -1 becomes 0.
func SpecAt(ctx context.Context, cl *kgo.Client, p Partition, startOffset int64) (AbortSpec, error) {
	states, err := DescribeProducers(ctx, cl, []Partition{p}, nil)
	if err != nil {
		return AbortSpec{}, err
	}
	for _, s := range states[p] {
		if s.Open() && s.TxnStartOffset == startOffset {
			return AbortSpec{Partition: p, ProducerID: s.ProducerID, ProducerEpoch: int16(s.ProducerEpoch), CoordinatorEpoch: max(s.CoordinatorEpoch, 0)}, nil
		}
	}
	return AbortSpec{}, ErrNoOpenTransaction
}

// Abort writes an abort marker for the spec's transaction on its
// partition's leader (WriteTxnMarkers).
func Abort(ctx context.Context, cl *kgo.Client, s AbortSpec) error {
	req := kmsg.NewPtrWriteTxnMarkersRequest()
	m := kmsg.NewWriteTxnMarkersRequestMarker()
	m.ProducerID, m.ProducerEpoch, m.Committed, m.CoordinatorEpoch = s.ProducerID, s.ProducerEpoch, false, s.CoordinatorEpoch
	t := kmsg.NewWriteTxnMarkersRequestMarkerTopic()
	t.Topic, t.Partitions = s.Partition.Topic, []int32{s.Partition.Partition}
	m.Topics = []kmsg.WriteTxnMarkersRequestMarkerTopic{t}
	req.Markers = []kmsg.WriteTxnMarkersRequestMarker{m}
	for _, sh := range cl.RequestSharded(ctx, req) {
		if sh.Err != nil {
			return shardError(sh.Err)
		}
		for _, rm := range sh.Resp.(*kmsg.WriteTxnMarkersResponse).Markers {
			for _, rt := range rm.Topics {
				for _, rp := range rt.Partitions {
					if err := apiError(rp.ErrorCode, nil); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// ForceTerminate fences the transactional id (Admin.forceTerminateTransaction:
// InitProducerId for it, which aborts its ongoing transaction and bumps the
// epoch), with the admin client's request timeout as the transaction
// timeout.
func ForceTerminate(ctx context.Context, cl *kgo.Client, id string, timeoutMs int32) error {
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID = &id
	req.TransactionTimeoutMillis = timeoutMs
	req.ProducerID, req.ProducerEpoch = -1, -1
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return shardError(err)
	}
	return apiError(resp.ErrorCode, nil)
}

// intMapOrder is the iteration order of a HashMap<Integer,?> filled with ids.
func intMapOrder(ids []int32) []int32 { return javafmt.IntSetOrder(ids, -1) }

// javaSetOrder is the iteration order of a HashSet<TopicPartition>.
func javaSetOrder(ps []Partition, initialCapacity int) []Partition {
	return javafmt.HashOrdered(ps, Partition.javaHash, initialCapacity)
}
