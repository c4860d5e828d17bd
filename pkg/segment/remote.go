package segment

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// decodeFramed decodes a framed record value (KRaft metadata records,
// remote log metadata records: a frame version (1), the api key and the
// version as unsigned varints, then the record) into the record's schema
// and JSON, failing with the messages of Apache's AbstractApiMessageSerde.
func decodeFramed(value []byte, types map[int]namedSchema) (namedSchema, int16, string, error) {
	r := &msgReader{b: value, flex: true}
	var head [3]int
	for i, entity := range []string{"frame version", "type", "version"} {
		v, err := r.uvarint()
		if err != nil {
			return namedSchema{}, 0, "", fmt.Errorf("Error while reading %s", entity)
		}
		if v > 0x7fff {
			return namedSchema{}, 0, "", fmt.Errorf("Value for %s was too large.", entity)
		}
		head[i] = int(v)
		if i > 0 {
			continue
		}
		switch v {
		case 1:
		case 0:
			return namedSchema{}, 0, "", errors.New("Could not deserialize metadata record with frame version 0. Note that upgrades from the preview release of KRaft in 2.8 to newer versions are not supported.")
		default:
			return namedSchema{}, 0, "", fmt.Errorf("Could not deserialize metadata record due to unknown frame version %d(only frame version 1 is supported)", v)
		}
	}
	key, ver := head[1], int16(head[2])
	s, ok := types[key]
	if !ok {
		return namedSchema{}, 0, "", fmt.Errorf("org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id %d", key)
	}
	var w strings.Builder
	if (s.versions > 0 && ver >= s.versions) || s.decode(r, s.fields, ver, &w) != nil {
		return namedSchema{}, 0, "", fmt.Errorf("Failed to deserialize record with type %d", key)
	}
	if len(r.b) > 0 {
		return namedSchema{}, 0, "", fmt.Errorf("Found %d byte(s) of garbage after %d", len(r.b), key)
	}
	return s, ver, w.String(), nil
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
		return "", errors.New("segmentLeaderEpochs can not be null or empty")
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

// state is a state's name; an unknown id fails as Apache's constructors
// fail on its null state (a segment's with a message, a partition's
// without: "null").
func state(names []string, id int8, msg string) (string, error) {
	if id < 0 || int(id) >= len(names) {
		return "", errors.New(msg)
	}
	return names[id], nil
}

// DecodeRemoteLogMetadata decodes a __remote_log_metadata record value
// into the text Apache's tool prints: the toString of the
// RemoteLogSegmentMetadata, RemoteLogSegmentMetadataUpdate,
// RemotePartitionDeleteMetadata or RemoteLogSegmentMetadataSnapshot.
func DecodeRemoteLogMetadata(value []byte) (string, error) {
	s, _, j, err := decodeFramed(value, remoteRecords)
	if err != nil {
		return "", err
	}
	var rec remoteRecord
	if err := json.Unmarshal([]byte(j), &rec); err != nil {
		return "", err
	}
	return rec.text(s.name)
}

func (r *remoteRecord) text(class string) (string, error) {
	switch class {
	case "RemoteLogSegmentMetadataRecord", "RemoteLogSegmentMetadataSnapshotRecord":
		// checked in the order of Apache's constructors
		st, err := state(segmentStates, r.SegmentState, "state can not be null")
		if err != nil {
			return "", err
		}
		if class == "RemoteLogSegmentMetadataRecord" {
			if r.StartOffset < 0 {
				return "", fmt.Errorf("Unexpected start offset = %d. StartOffset for a remote segment cannot be negative", r.StartOffset)
			}
			if r.EndOffset < r.StartOffset {
				return "", fmt.Errorf("Unexpected end offset = %d. EndOffset for a remote segment cannot be less than startOffset = %d", r.EndOffset, r.StartOffset)
			}
		}
		epochs, err := r.leaderEpochs()
		if err != nil {
			return "", err
		}
		if class == "RemoteLogSegmentMetadataSnapshotRecord" {
			return fmt.Sprintf("RemoteLogSegmentMetadataSnapshot{segmentId=%s, startOffset=%d, endOffset=%d, maxTimestampMs=%d, segmentLeaderEpochs=%s, segmentSizeInBytes=%d, customMetadata=%s, state=%s, txnIdxEmpty=%t}",
				r.SegmentID, r.StartOffset, r.EndOffset, r.MaxTimestampMs, epochs, r.SegmentSizeInBytes, r.customMetadata(), st, r.TxnIndexEmpty), nil
		}
		return fmt.Sprintf("RemoteLogSegmentMetadata{remoteLogSegmentId=%s, startOffset=%d, endOffset=%d, brokerId=%d, maxTimestampMs=%d, eventTimestampMs=%d, segmentLeaderEpochs=%s, segmentSizeInBytes=%d, customMetadata=%s, state=%s, txnIdxEmpty=%t}",
			r.segmentID(), r.StartOffset, r.EndOffset, r.BrokerID, r.MaxTimestampMs, r.EventTimestampMs, epochs, r.SegmentSizeInBytes, r.customMetadata(), st, r.TxnIndexEmpty), nil
	case "RemoteLogSegmentMetadataUpdateRecord":
		st, err := state(segmentStates, r.SegmentState, "state can not be null")
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("RemoteLogSegmentMetadataUpdate{remoteLogSegmentId=%s, customMetadata=%s, state=%s, eventTimestampMs=%d, brokerId=%d}",
			r.segmentID(), r.customMetadata(), st, r.EventTimestampMs, r.BrokerID), nil
	}
	st, err := state(partitionStates, r.PartitionState, "null")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("RemotePartitionDeleteMetadata{topicPartition=%s, state=%s, eventTimestampMs=%d, brokerId=%d}",
		r.TopicIDPartition, st, r.EventTimestampMs, r.BrokerID), nil
}
