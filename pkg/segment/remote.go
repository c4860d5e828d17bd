package segment

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// readFrame reads the header of a framed record value (KRaft metadata
// records, remote log metadata records): the frame version (1), the api
// key and the version, as unsigned varints.
func readFrame(value []byte) (r *msgReader, key int, ver int16, err error) {
	r = &msgReader{b: value, flex: true}
	var head [3]uint64
	for i := range head {
		if head[i], err = r.uvarint(); err != nil {
			return nil, 0, 0, err
		}
	}
	if head[0] != 1 {
		return nil, 0, 0, fmt.Errorf("Could not deserialize metadata record due to unknown frame version %d", head[0])
	}
	return r, int(head[1]), int16(head[2]), nil
}

// The states of remote log segments and of remote partition deletions,
// by id.
var (
	segmentStates   = []string{"COPY_SEGMENT_STARTED", "COPY_SEGMENT_FINISHED", "DELETE_SEGMENT_STARTED", "DELETE_SEGMENT_FINISHED"}
	partitionStates = []string{"DELETE_PARTITION_MARKED", "DELETE_PARTITION_STARTED", "DELETE_PARTITION_FINISHED"}
)

type topicIDPartition struct {
	Name      string `json:"name"`
	ID        string `json:"id"`
	Partition int32  `json:"partition"`
}

// String is TopicIdPartition's: ID:NAME-PARTITION.
func (t topicIDPartition) String() string { return fmt.Sprintf("%s:%s-%d", t.ID, t.Name, t.Partition) }

// remoteRecord holds the fields of the four remote log metadata records.
type remoteRecord struct {
	RemoteLogSegmentID *struct {
		TopicIDPartition topicIDPartition `json:"topicIdPartition"`
		ID               string           `json:"id"`
	} `json:"remoteLogSegmentId"`
	TopicIDPartition    topicIDPartition `json:"topicIdPartition"`
	SegmentID           string           `json:"segmentId"`
	StartOffset         int64            `json:"startOffset"`
	EndOffset           int64            `json:"endOffset"`
	BrokerID            int32            `json:"brokerId"`
	MaxTimestampMs      int64            `json:"maxTimestampMs"`
	EventTimestampMs    int64            `json:"eventTimestampMs"`
	SegmentLeaderEpochs []struct {
		LeaderEpoch int32 `json:"leaderEpoch"`
		Offset      int64 `json:"offset"`
	} `json:"segmentLeaderEpochs"`
	SegmentSizeInBytes int32   `json:"segmentSizeInBytes"`
	CustomMetadata     *string `json:"customMetadata"`
	SegmentState       int8    `json:"remoteLogSegmentState"`
	PartitionState     int8    `json:"remotePartitionDeleteState"`
	TxnIndexEmpty      bool    `json:"txnIndexEmpty"`
}

func (r *remoteRecord) segmentID() string {
	id := r.RemoteLogSegmentID
	return fmt.Sprintf("RemoteLogSegmentId{topicIdPartition=%s, id=%s}", id.TopicIDPartition, id.ID)
}

// customMetadata is Optional<CustomMetadata>'s text.
func (r *remoteRecord) customMetadata() string {
	if r.CustomMetadata == nil {
		return "Optional.empty"
	}
	b, _ := base64.StdEncoding.DecodeString(*r.CustomMetadata)
	return fmt.Sprintf("Optional[CustomMetadata{%d bytes}]", len(b))
}

// leaderEpochs is the segment's leader epochs as a TreeMap prints them.
func (r *remoteRecord) leaderEpochs() (string, error) {
	if len(r.SegmentLeaderEpochs) == 0 {
		return "", fmt.Errorf("segmentLeaderEpochs can not be empty")
	}
	m := map[int32]int64{}
	var keys []int32
	for _, e := range r.SegmentLeaderEpochs {
		if _, ok := m[e.LeaderEpoch]; !ok {
			keys = append(keys, e.LeaderEpoch)
		}
		m[e.LeaderEpoch] = e.Offset
	}
	sortInt32(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d=%d", k, m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}", nil
}

func sortInt32(s []int32) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func state(names []string, id int8) (string, error) {
	if id < 0 || int(id) >= len(names) {
		return "", fmt.Errorf("state can not be null")
	}
	return names[id], nil
}

// DecodeRemoteLogMetadata decodes a __remote_log_metadata record value
// into the text Apache's tool prints: the toString of the
// RemoteLogSegmentMetadata, RemoteLogSegmentMetadataUpdate,
// RemotePartitionDeleteMetadata or RemoteLogSegmentMetadataSnapshot.
func DecodeRemoteLogMetadata(value []byte) (string, error) {
	r, key, ver, err := readFrame(value)
	if err != nil {
		return "", err
	}
	s, ok := remoteRecords[key]
	if !ok {
		return "", fmt.Errorf("Unknown metadata id %d", key)
	}
	var w strings.Builder
	if err := s.decode(r, s.fields, ver, &w); err != nil {
		return "", err
	}
	var rec remoteRecord
	if err := json.Unmarshal([]byte(w.String()), &rec); err != nil {
		return "", err
	}
	return rec.text(key)
}

func (r *remoteRecord) text(key int) (string, error) {
	switch key {
	case 0, 3:
		epochs, err := r.leaderEpochs()
		if err != nil {
			return "", err
		}
		st, err := state(segmentStates, r.SegmentState)
		if err != nil {
			return "", err
		}
		if key == 3 {
			return fmt.Sprintf("RemoteLogSegmentMetadataSnapshot{segmentId=%s, startOffset=%d, endOffset=%d, maxTimestampMs=%d, segmentLeaderEpochs=%s, segmentSizeInBytes=%d, customMetadata=%s, state=%s, txnIdxEmpty=%t}",
				r.SegmentID, r.StartOffset, r.EndOffset, r.MaxTimestampMs, epochs, r.SegmentSizeInBytes, r.customMetadata(), st, r.TxnIndexEmpty), nil
		}
		return fmt.Sprintf("RemoteLogSegmentMetadata{remoteLogSegmentId=%s, startOffset=%d, endOffset=%d, brokerId=%d, maxTimestampMs=%d, eventTimestampMs=%d, segmentLeaderEpochs=%s, segmentSizeInBytes=%d, customMetadata=%s, state=%s, txnIdxEmpty=%t}",
			r.segmentID(), r.StartOffset, r.EndOffset, r.BrokerID, r.MaxTimestampMs, r.EventTimestampMs, epochs, r.SegmentSizeInBytes, r.customMetadata(), st, r.TxnIndexEmpty), nil
	case 1:
		st, err := state(segmentStates, r.SegmentState)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("RemoteLogSegmentMetadataUpdate{remoteLogSegmentId=%s, customMetadata=%s, state=%s, eventTimestampMs=%d, brokerId=%d}",
			r.segmentID(), r.customMetadata(), st, r.EventTimestampMs, r.BrokerID), nil
	}
	st, err := state(partitionStates, r.PartitionState)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("RemotePartitionDeleteMetadata{topicPartition=%s, state=%s, eventTimestampMs=%d, brokerId=%d}",
		r.TopicIDPartition, st, r.EventTimestampMs, r.BrokerID), nil
}
