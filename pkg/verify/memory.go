package verify

import "github.com/kboxdev/kbox/pkg/kafka"

// maxBufferedRecords bounds each producer's records in flight: buffer.memory
// alone (bytes of values) lets an unthrottled producer of tiny values
// buffer millions of records (hundreds of bytes each in the client), so
// memory would grow with the run's size.
const maxBufferedRecords = 50_000

// verifyValueBytes is the size of a typical value of verify run ("P.N",
// N up to 10^12), for the producers' byte bound.
const verifyValueBytes = 16

// producerBufferBytes bounds each producer's buffered records by bytes
// (values plus the client's per-record overhead) as well as by count:
// 8 MiB is ~23,000 records of verify run, ample to keep the broker busy,
// and stays 8 MiB when a loaded machine slows the acknowledgements.
const producerBufferBytes = 8 << 20

func tuneProducer(s *kafka.Settings) {
	s.MaxBufferedRecords = maxBufferedRecords
	s.BoundBufferByBytes(verifyValueBytes, producerBufferBytes)
}

// Each consumer's fetches, unless the user's properties set them: a fetch
// is buffered until polled, and its small records decode to ~10 times
// their bytes in the client, so Java's 50 MiB and 1 MiB per partition
// would let a slow poll loop hold hundreds of MiB.
const (
	verifyFetchMaxBytes          = 1 << 20
	verifyFetchMaxPartitionBytes = 256 << 10
	// fetchDecodeFactor is the client memory of a fetch of verify run's
	// records per byte fetched (records of ~20 bytes, ~200 in the client).
	fetchDecodeFactor = 12
)

func boundFetches(s *kafka.Settings) {
	if s.FetchMaxBytes == nil {
		v := verifyFetchMaxBytes
		s.FetchMaxBytes = &v
	}
	if s.FetchMaxPartitionBytes == nil {
		v := verifyFetchMaxPartitionBytes
		s.FetchMaxPartitionBytes = &v
	}
}

// consumerMemory is what one consumer holds: one buffered fetch, decoded.
func consumerMemory(s *kafka.Settings) int64 {
	return int64(s.EffectiveFetchMaxBytes()) * fetchDecodeFactor
}

// checkerMemory is the checker's state and the logs' buffers: the
// checker grows by under a byte per record (TestCheckerHeapIsFlat).
const checkerMemory = 64 << 20
