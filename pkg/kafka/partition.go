package kafka

import "github.com/twmb/franz-go/pkg/kgo"

// explicitPartitioner sends a record with Partition >= 0 to that partition
// and leaves the others (Partition -1) to base (Settings.ExplicitPartitions).
// A partition the topic does not have fails the record.
type explicitPartitioner struct{ base kgo.Partitioner }

func (p explicitPartitioner) ForTopic(topic string) kgo.TopicPartitioner {
	base := p.base.ForTopic(topic)
	e := explicitTopic{base: base}
	e.backup, _ = base.(kgo.TopicBackupPartitioner)
	// franz-go changes how it buffers when a partitioner has OnNewBatch,
	// so the wrapper has it only when base has it.
	if nb, ok := base.(kgo.TopicPartitionerOnNewBatch); ok {
		return explicitTopicOnNewBatch{e, nb}
	}
	return e
}

type explicitTopic struct {
	base   kgo.TopicPartitioner
	backup kgo.TopicBackupPartitioner
}

// RequiresConsistency: an explicit partition is chosen among all
// partitions, so the index is the partition number.
func (p explicitTopic) RequiresConsistency(r *kgo.Record) bool {
	return r.Partition >= 0 || p.base.RequiresConsistency(r)
}

func (p explicitTopic) Partition(r *kgo.Record, n int) int {
	if r.Partition >= 0 {
		return int(r.Partition)
	}
	return p.base.Partition(r, n)
}

func (p explicitTopic) PartitionByBackup(r *kgo.Record, n int, it kgo.TopicBackupIter) int {
	if r.Partition >= 0 {
		return int(r.Partition)
	}
	if p.backup != nil {
		return p.backup.PartitionByBackup(r, n, it)
	}
	return p.base.Partition(r, n)
}

type explicitTopicOnNewBatch struct {
	explicitTopic
	nb kgo.TopicPartitionerOnNewBatch
}

func (p explicitTopicOnNewBatch) OnNewBatch() { p.nb.OnNewBatch() }
