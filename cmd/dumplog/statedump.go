package dumplog

import (
	"errors"
	"fmt"
	"os"

	"github.com/kboxdev/kbox/pkg/segment"
)

// readAll reads a whole file as Java's Files.readAllBytes (a missing
// file is NoSuchFileException).
func readAll(name string) ([]byte, error) {
	fh, _, err := open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return os.ReadFile(name)
}

// dumpProducerSnapshot prints a producer state snapshot's entries; a
// corrupt snapshot's reason goes to stderr and the run goes on.
func (d *dumper) dumpProducerSnapshot(name string) error {
	b, err := readAll(name)
	if err != nil {
		return err
	}
	entries, err := segment.ReadProducerSnapshot(b)
	var corrupt *segment.CorruptSnapshotError
	switch {
	case errors.As(err, &corrupt):
		d.warn(corrupt.Msg)
		return nil
	case err != nil:
		return err
	}
	for _, e := range entries {
		txn := "OptionalLong.empty"
		if e.CurrentTxnFirstOffset >= 0 {
			txn = fmt.Sprintf("OptionalLong[%d]", e.CurrentTxnFirstOffset)
		}
		fmt.Fprintf(d.out, "producerId: %d producerEpoch: %d coordinatorEpoch: %d currentTxnFirstOffset: %s lastTimestamp: %d",
			e.ProducerID, e.Epoch, e.CoordinatorEpoch, txn, e.Timestamp)
		if e.LastOffset >= 0 {
			fmt.Fprintf(d.out, " firstSequence: %d lastSequence: %d lastOffset: %d offsetDelta: %d timestamp: %d",
				e.FirstSequence(), e.LastSequence, e.LastOffset, e.OffsetDelta, e.Timestamp)
		}
		d.out.WriteByte('\n')
	}
	return nil
}

// dumpTxnIndex prints a transaction index's aborted transactions.
func (d *dumper) dumpTxnIndex(name string) error {
	if _, err := startOffset(name); err != nil {
		return err
	}
	b, err := os.ReadFile(name)
	if os.IsNotExist(err) {
		return nil // Apache's index of a missing file is empty
	} else if err != nil {
		return err
	}
	txns := segment.ReadTxnIndex(b)
	for _, t := range txns {
		if t.Version != 0 {
			return &javaException{"org.apache.kafka.common.KafkaException",
				fmt.Sprintf("Unexpected aborted transaction version %d in transaction index %s, supported version range is 0 to 0", t.Version, absPath(name))}
		}
	}
	for _, t := range txns {
		fmt.Fprintf(d.out, "version: 0 producerId: %d firstOffset: %d lastOffset: %d lastStableOffset: %d\n",
			t.ProducerID, t.FirstOffset, t.LastOffset, t.LastStableOffset)
	}
	return nil
}
