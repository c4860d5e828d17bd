package transactions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/quorum"
	"github.com/kboxdev/kbox/pkg/transactions"
)

// writeTable is ToolsUtils.prettyPrintTable.
func writeTable(w io.Writer, header []string, rows [][]string) error {
	return quorum.WriteTable(w, header, rows)
}

// listing is list's result as kbox's view.
type listing []transactions.Listing

func (l listing) Header() []string {
	return []string{"TRANSACTIONAL ID", "COORDINATOR", "PRODUCER ID", "STATE"}
}

func (l listing) Rows() [][]string {
	var rows [][]string
	for _, t := range l {
		rows = append(rows, []string{t.TransactionalID, fmt.Sprint(t.Coordinator), fmt.Sprint(t.ProducerID), t.State})
	}
	return rows
}

// description is describe's result as kbox's view.
type description struct {
	*transactions.Description
}

func (d description) Header() []string {
	return []string{"TRANSACTIONAL ID", "COORDINATOR", "PRODUCER ID", "EPOCH", "STATE", "TIMEOUT MS", "START", "DURATION MS", "PARTITIONS"}
}

func (d description) Rows() [][]string {
	r := d.apacheRow()
	return [][]string{{r[1], r[0], r[2], r[3], r[4], r[5], r[6], r[7], r[8]}}
}

func (d description) apacheRow() []string {
	start, dur := "None", "None"
	if d.StartTimeMs != nil {
		start, dur = fmt.Sprint(*d.StartTimeMs), fmt.Sprint(*d.DurationMs)
	}
	parts := make([]string, len(d.Partitions))
	for i, p := range d.Partitions {
		parts[i] = p.String()
	}
	return []string{fmt.Sprint(d.Coordinator), d.TransactionalID, fmt.Sprint(d.ProducerID), fmt.Sprint(d.ProducerEpoch), d.State,
		fmt.Sprint(d.TimeoutMs), start, dur, strings.Join(parts, ",")}
}

func (in *invocation) describe(ctx context.Context) error {
	id, _ := in.ns.String("transactional_id")
	descs, errs, err := transactions.Describe(ctx, in.client.Client, id)
	if err == nil {
		err = errs[id]
	}
	var ae *transactions.APIError
	if errors.As(err, &ae) && ae.Code == 105 { // TRANSACTIONAL_ID_NOT_FOUND: DescribeTransactionsHandler's words
		err = &transactions.APIError{Code: ae.Code, Message: "DescribeTransactions request for transactionalId `" + id + "` failed because the ID could not be found"}
	}
	if err != nil {
		return in.fail("Failed to describe transaction state of transactional-id `"+id+"`", err)
	}
	d := description{Description: descs[id]}
	if d.StartTimeMs != nil {
		v := time.Now().UnixMilli() - *d.StartTimeMs
		d.DurationMs = &v
	}
	return in.print(d, func(w io.Writer) error {
		return writeTable(w, []string{"CoordinatorId", "TransactionalId", "ProducerId", "ProducerEpoch", "TransactionState", "TransactionTimeoutMs",
			"CurrentTransactionStartTimeMs", "TransactionDurationMs", "TopicPartitions"}, [][]string{d.apacheRow()})
	})
}

// producers is describe-producers' result as kbox's view.
type producers []transactions.Producer

func (ps producers) Header() []string {
	return []string{"PRODUCER ID", "EPOCH", "COORDINATOR EPOCH", "LAST SEQUENCE", "LAST TIMESTAMP", "TXN START OFFSET"}
}

func (ps producers) Rows() [][]string {
	var rows [][]string
	for _, p := range ps {
		start := "None"
		if p.Open() {
			start = fmt.Sprint(p.TxnStartOffset)
		}
		rows = append(rows, []string{fmt.Sprint(p.ProducerID), fmt.Sprint(p.ProducerEpoch), fmt.Sprint(max(p.CoordinatorEpoch, -1)),
			fmt.Sprint(p.LastSequence), fmt.Sprint(p.LastTimestamp), start})
	}
	return rows
}

func (in *invocation) describeProducers(ctx context.Context) error {
	topic, _ := in.ns.String("topic")
	part, _ := in.ns.Int("partition")
	tp := transactions.Partition{Topic: topic, Partition: int32(part)}
	broker := optInt32(in.ns, "broker_id")
	states, err := transactions.DescribeProducers(ctx, in.client.Client, []transactions.Partition{tp}, broker)
	if err != nil {
		on := "leader"
		if broker != nil {
			on = fmt.Sprintf("broker %d", *broker)
		}
		return in.fail(fmt.Sprintf("Failed to describe producers for partition %s on %s", tp, on), err)
	}
	ps := producers(states[tp])
	return in.print(ps, func(w io.Writer) error {
		return writeTable(w, []string{"ProducerId", "ProducerEpoch", "LatestCoordinatorEpoch", "LastSequence", "LastTimestamp", "CurrentTransactionStartOffset"}, ps.Rows())
	})
}

func (in *invocation) abort(ctx context.Context) error {
	topic, _ := in.ns.String("topic")
	part, _ := in.ns.Int("partition")
	tp := transactions.Partition{Topic: topic, Partition: int32(part)}
	var spec transactions.AbortSpec
	if start, ok := in.ns.Int("start_offset"); ok {
		s, err := transactions.SpecAt(ctx, in.client.Client, tp, start)
		if errors.Is(err, transactions.ErrNoOpenTransaction) {
			return in.terse(fmt.Sprintf("Could not find any open transactions starting at offset %d on partition %s", start, tp))
		}
		if err != nil {
			return in.fail("Failed to validate producer state for partition "+tp.String(), err)
		}
		spec = s
	} else {
		pid, _ := in.ns.Int("producer_id")
		epoch, _ := in.ns.Int("producer_epoch")
		ce, _ := in.ns.Int("coordinator_epoch")
		spec = transactions.AbortSpec{Partition: tp, ProducerID: pid, ProducerEpoch: int16(epoch), CoordinatorEpoch: int32(max(ce, 0))}
	}
	if err := transactions.Abort(ctx, in.client.Client, spec); err != nil {
		return in.fail("Failed to abort transaction "+spec.String(), err)
	}
	return nil
}

// hangingRows is find-hanging's result as kbox's view.
type hangingRows struct {
	ps  []transactions.Producer
	now int64
}

func (h hangingRows) Header() []string {
	return []string{"Topic", "Partition", "ProducerId", "ProducerEpoch", "CoordinatorEpoch", "StartOffset", "LastTimestamp", "Duration(min)"}
}

func (h hangingRows) Rows() [][]string {
	rows := [][]string{}
	for _, p := range h.ps {
		rows = append(rows, []string{p.Topic, fmt.Sprint(p.Partition.Partition), fmt.Sprint(p.ProducerID), fmt.Sprint(p.ProducerEpoch),
			fmt.Sprint(max(p.CoordinatorEpoch, -1)), fmt.Sprint(p.TxnStartOffset), fmt.Sprint(p.LastTimestamp), fmt.Sprint((h.now - p.LastTimestamp) / 60000)})
	}
	return rows
}

func (in *invocation) findHanging(ctx context.Context) error {
	sc := transactions.Scope{Broker: optInt32(in.ns, "broker_id"), Partition: optInt32(in.ns, "partition")}
	sc.Topic, _ = in.ns.String("topic")
	minutes, _ := in.ns.Int("max_transaction_timeout")
	found, err := transactions.FindHanging(ctx, in.client.Client, sc, time.Duration(minutes)*time.Minute, time.Now)
	var se *transactions.StepError
	if errors.As(err, &se) {
		return in.fail(se.Step, se.Err)
	}
	if err != nil {
		return in.client.Explain(err)
	}
	if found == nil {
		found = []transactions.Producer{}
	}
	h := hangingRows{ps: found, now: time.Now().UnixMilli()}
	switch in.format {
	case output.Apache:
		return writeTable(in.f.IO.Out, h.Header(), h.Rows())
	case output.Table:
		return output.Print(in.f.IO, in.format, h)
	}
	return output.Print(in.f.IO, in.format, found)
}

func (in *invocation) forceTerminate(ctx context.Context) error {
	id, _ := in.ns.String("transactionalId")
	if err := transactions.ForceTerminate(ctx, in.client.Client, id, in.requestTimeoutMs); err != nil {
		return in.fail("Failed to force terminate transactionalId `"+id+"`", err)
	}
	return nil
}
