// Package corruptfake serves a crafted log (record batches, some of them
// corrupt) for one partition of a kfake cluster, for fast tests of what
// kbox's consumers do with data that cannot be read. kfake checks the CRC
// of what is produced, so a corrupt batch can only be served by answering
// Fetch requests.
package corruptfake

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Batch encodes an uncompressed v2 record batch of the values at base (a
// record's key is "k" and its offset delta, timestamps are now), with a
// valid CRC.
func Batch(base int64, values ...string) []byte {
	var recs []byte
	for i, v := range values {
		r := kmsg.NewRecord()
		r.OffsetDelta = int32(i)
		r.Key = fmt.Appendf(nil, "k%d", i)
		r.Value = []byte(v)
		recs = appendRecord(recs, r)
	}
	b := kmsg.NewRecordBatch()
	b.FirstOffset = base
	b.Magic = 2
	b.LastOffsetDelta = int32(len(values) - 1)
	now := time.Now().UnixMilli()
	b.FirstTimestamp, b.MaxTimestamp = now, now
	b.ProducerID, b.ProducerEpoch, b.FirstSequence = -1, -1, -1
	b.NumRecords = int32(len(values))
	b.Records = recs
	raw := b.AppendTo(nil)
	return Seal(raw)
}

// Log concatenates batches of n records each from offset 0 (values
// "value-000000" on, 12 bytes), each passed through edit (nil: none) with
// its index.
func Log(batches, n int, edit func(i int, b []byte) []byte) []byte {
	var log []byte
	for i := 0; i < batches; i++ {
		vals := make([]string, n)
		for j := range vals {
			vals[j] = fmt.Sprintf("value-%06d", i*n+j)
		}
		b := Batch(int64(i*n), vals...)
		if edit != nil {
			b = edit(i, b)
		}
		log = append(log, b...)
	}
	return log
}

// Cluster starts a one-broker kfake cluster serving log as topic's one
// partition (Serve).
func Cluster(topic string, log []byte) (*kfake.Cluster, error) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, topic))
	if err != nil {
		return nil, err
	}
	if err := Serve(c, topic, log); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Marker encodes a transaction commit marker batch at offset.
func Marker(offset int64) []byte {
	r := kmsg.NewRecord()
	r.Key = []byte{0, 0, 0, 1} // version 0, type 1 (commit)
	r.Value = []byte{0, 0, 0, 0, 0, 0}
	b := kmsg.NewRecordBatch()
	b.FirstOffset = offset
	b.Magic = 2
	b.Attributes = 0x30 // transactional, control
	b.ProducerID, b.ProducerEpoch, b.FirstSequence = 1, 0, -1
	b.NumRecords = 1
	b.Records = appendRecord(nil, r)
	return Seal(b.AppendTo(nil))
}

// appendRecord appends r with its length prefix.
func appendRecord(dst []byte, r kmsg.Record) []byte {
	r.Length = 0
	r.Length = int32(len(r.AppendTo(nil)) - 1) // a zero length is one byte
	return r.AppendTo(dst)
}

// Seal recomputes a v2 batch's length and CRC.
func Seal(raw []byte) []byte {
	binary.BigEndian.PutUint32(raw[8:], uint32(len(raw)-12))
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], castagnoli))
	return raw
}

// FlipLastByte flips a bit in the batch's last byte (in its last record),
// leaving its stored CRC as it was: the CRC no longer matches.
func FlipLastByte(raw []byte) []byte {
	raw[len(raw)-2] ^= 0x01
	return raw
}

// SetBase overwrites a batch's base offset, which its CRC does not cover.
func SetBase(raw []byte, base int64) []byte {
	binary.BigEndian.PutUint64(raw, uint64(base))
	return raw
}

// Serve makes c answer Fetch requests for partition 0 of topic (which
// must exist with one partition) from log, the concatenated batches, below
// the log's end; requests at the end are left to kfake (which long-polls).
// It produces filler records so that kfake's own end offset (ListOffsets,
// the high watermark) is the log's.
func Serve(c *kfake.Cluster, topic string, log []byte) error {
	batches := integrity.Batches(log)
	if len(batches) == 0 {
		return fmt.Errorf("empty log")
	}
	hwm := batches[len(batches)-1].Last + 1
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		return err
	}
	defer cl.Close()
	recs := make([]*kgo.Record, hwm)
	for i := range recs {
		recs[i] = &kgo.Record{Value: []byte("filler")}
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		return err
	}
	id := c.TopicInfo(topic).TopicID
	c.ControlKey(int16(kmsg.Fetch), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.FetchRequest)
		var want *kmsg.FetchRequestTopicPartition
		for i := range req.Topics {
			t := &req.Topics[i]
			if t.Topic != topic && t.TopicID != id {
				continue
			}
			for j := range t.Partitions {
				if p := &t.Partitions[j]; p.Partition == 0 && p.FetchOffset < hwm {
					want = p
				}
			}
		}
		if want == nil {
			return nil, nil, false
		}
		resp := req.ResponseKind().(*kmsg.FetchResponse)
		resp.Version = req.Version
		rt := kmsg.NewFetchResponseTopic()
		rt.Topic, rt.TopicID = topic, id
		rp := kmsg.NewFetchResponseTopicPartition()
		rp.Partition = 0
		rp.HighWatermark, rp.LastStableOffset, rp.LogStartOffset = hwm, hwm, 0
		limit := int(want.PartitionMaxBytes)
		for _, b := range batches {
			if b.Last < want.FetchOffset {
				continue
			}
			if len(rp.RecordBatches) > 0 && len(rp.RecordBatches)+len(b.Raw) > limit {
				break
			}
			rp.RecordBatches = append(rp.RecordBatches, b.Raw...)
		}
		rt.Partitions = append(rt.Partitions, rp)
		resp.Topics = append(resp.Topics, rt)
		return resp, nil, true
	})
	return nil
}
