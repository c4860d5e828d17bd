package transactions

import (
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
)

// The -o json schemas: kbox transactions hanging (Report), and the
// drop-in's views of list, describe, describe-producers and find-hanging.
func TestJSONGoldens(t *testing.T) {
	start, dur := int64(1767225600000), int64(120000)
	golden.JSON(t, "hanging.json.golden", &Report{Partitions: 52, Open: 2, Hanging: []Hanging{
		{Topic: "orders", Partition: 0, Leader: 1, TransactionalID: "stuck-app", ProducerID: 1000, ProducerEpoch: 0, CoordinatorEpoch: 0,
			StartOffset: 2, LastTimestamp: start, OpenMs: dur, Coordinator: "Ongoing", TimeoutMs: 600000, Blocked: true,
			LastStableOffset: 2, HighWatermark: 7, RecordsBehind: 5, Groups: []string{"billing"},
			AbortCommand: "kafka-transactions --bootstrap-server 127.0.0.1:9092 abort --topic orders --partition 0 --start-offset 2",
			Reason:       "open longer than --max-transaction-timeout"},
		{Topic: "ghosts", Partition: 0, Leader: 1, ProducerID: 1001, ProducerEpoch: 3, CoordinatorEpoch: -1,
			StartOffset: 1, LastTimestamp: start, OpenMs: dur, Coordinator: "untracked", Blocked: true,
			LastStableOffset: 1, HighWatermark: 3, RecordsBehind: 2, Groups: []string{},
			AbortCommand: "kafka-transactions --bootstrap-server 127.0.0.1:9092 abort --topic ghosts --partition 0 --start-offset 1",
			Reason:       "no coordinator tracks it"},
	}, Skipped: []Skipped{{Topic: "offline", Partition: 3, Error: "This server is not the leader for that topic-partition."}}})
	golden.JSON(t, "list.json.golden", []Listing{{TransactionalID: "stuck-app", Coordinator: 1, ProducerID: 1000, State: "Ongoing"}})
	golden.JSON(t, "describe.json.golden", &Description{Coordinator: 1, TransactionalID: "stuck-app", ProducerID: 1000, ProducerEpoch: 0,
		State: "Ongoing", TimeoutMs: 600000, StartTimeMs: &start, DurationMs: &dur, Partitions: []Partition{{"orders", 0}}})
	golden.JSON(t, "producers.json.golden", []Producer{{Partition: Partition{"orders", 0}, ProducerID: 1000, ProducerEpoch: 0,
		LastSequence: 2, LastTimestamp: start, CoordinatorEpoch: -1, TxnStartOffset: 2}})
}
