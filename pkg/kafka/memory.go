package kafka

// Memory bounds of a client, for single-purpose processes (perf and
// verifiable tools) that size Go's soft memory limit from them (issue 31).

// RecordOverhead is what one buffered produce record costs the Go client
// beyond its key, value and headers: the kgo.Record (160 bytes), its
// promise and closure, and its slot in the batch. Java copies a record
// into its buffer.memory and drops the object; franz-go keeps the record
// until its promise runs, so buffer.memory bounds memory only if this is
// counted too.
const RecordOverhead = 320

// BoundBufferByBytes caps the records the producer buffers so that
// recordBytes (key + value + headers of a typical record) plus
// RecordOverhead per record fit in budget bytes (buffer.memory when budget
// is <= 0 or larger), on top of buffer.memory's bound on value bytes
// (kgo.MaxBufferedBytes). It only lowers an existing cap.
func (s *Settings) BoundBufferByBytes(recordBytes int, budget int64) {
	if budget <= 0 || budget > s.BufferMemory {
		budget = s.BufferMemory
	}
	n := int(budget / int64(max(recordBytes, 0)+RecordOverhead))
	n = max(n, 1)
	if s.MaxBufferedRecords == 0 || n < s.MaxBufferedRecords {
		s.MaxBufferedRecords = n
	}
}

// ProducerMemory is the most a producer with these settings holds in
// buffered records: buffer.memory, or the record cap times the record's
// size and overhead when that is less.
func (s *Settings) ProducerMemory(recordBytes int) int64 {
	m := s.BufferMemory
	if s.MaxBufferedRecords > 0 {
		m = min(m, int64(s.MaxBufferedRecords)*int64(max(recordBytes, 0)+RecordOverhead))
	}
	return m
}

// defaultFetchMaxBytes is Java's (and franz-go's) fetch.max.bytes default.
const defaultFetchMaxBytes = 50 << 20

// EffectiveFetchMaxBytes is fetch.max.bytes, or its default when unset.
func (s *Settings) EffectiveFetchMaxBytes() int {
	if s.FetchMaxBytes != nil {
		return *s.FetchMaxBytes
	}
	return defaultFetchMaxBytes
}
