package segment

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode"
)

// nullable field from version min.
func fn(name, typ string, min int16) field { return f(name, typ, min, -1, min) }

// tg is a tagged field from version min with a JSON default.
func tg(name, typ string, min int16, tag int, def string) field {
	x := tagged(name, typ, min, tag, def)
	if def == "null" {
		x.null = min
	}
	return x
}

func st(name string, fields ...field) field {
	return field{name: name, typ: "struct", max: -1, null: -1, tag: -1, fields: fields}
}

var (
	endpoint = []field{f("name", "string", 0, -1, -1), f("host", "string", 0, -1, -1), f("port", "uint16", 0, -1, -1), f("securityProtocol", "int16", 0, -1, -1)}
	feature  = []field{f("name", "string", 0, -1, -1), f("minSupportedVersion", "int16", 0, -1, -1), f("maxSupportedVersion", "int16", 0, -1, -1)}
)

// The KRaft metadata records kbox decodes, by api key (Kafka 4.4's
// schemas, described here; every version is flexible).
var metadataRecords = map[int]*schema{
	0: {fields: []field{f("brokerId", "int32", 0, -1, -1), f("isMigratingZkBroker", "bool", 2, -1, -1), f("incarnationId", "uuid", 0, -1, -1),
		f("brokerEpoch", "int64", 0, -1, -1), structs("endPoints", 0, -1, endpoint...), structs("features", 0, -1, feature...),
		fn("rack", "string", 0), f("fenced", "bool", 0, -1, -1), f("inControlledShutdown", "bool", 1, -1, -1),
		tg("logDirs", "[]uuid", 3, 0, "[]"), tg("cordonedLogDirs", "[]uuid", 4, 1, "null")}},
	1: {fields: []field{f("brokerId", "int32", 0, -1, -1), f("brokerEpoch", "int64", 0, -1, -1)}},
	2: {fields: []field{f("name", "string", 0, -1, -1), f("topicId", "uuid", 0, -1, -1)}},
	3: {fields: []field{f("partitionId", "int32", 0, -1, -1), f("topicId", "uuid", 0, -1, -1), f("replicas", "[]int32", 0, -1, -1),
		f("isr", "[]int32", 0, -1, -1), f("removingReplicas", "[]int32", 0, -1, -1), f("addingReplicas", "[]int32", 0, -1, -1),
		f("leader", "int32", 0, -1, -1), tg("leaderRecoveryState", "int8", 0, 0, "0"), f("leaderEpoch", "int32", 0, -1, -1),
		f("partitionEpoch", "int32", 0, -1, -1), f("directories", "[]uuid", 1, -1, -1),
		tg("eligibleLeaderReplicas", "[]int32", 2, 1, "null"), tg("lastKnownElr", "[]int32", 2, 2, "null")}},
	4: {fields: []field{f("resourceType", "int8", 0, -1, -1), f("resourceName", "string", 0, -1, -1), f("name", "string", 0, -1, -1), fn("value", "string", 0)}},
	5: {fields: []field{f("partitionId", "int32", 0, -1, -1), f("topicId", "uuid", 0, -1, -1),
		tg("isr", "[]int32", 0, 0, "null"), tg("leader", "int32", 0, 1, "-2"), tg("replicas", "[]int32", 0, 2, "null"),
		tg("removingReplicas", "[]int32", 0, 3, "null"), tg("addingReplicas", "[]int32", 0, 4, "null"),
		tg("leaderRecoveryState", "int8", 0, 5, "-1"), tg("directories", "[]uuid", 1, 8, "null"),
		tg("eligibleLeaderReplicas", "[]int32", 2, 6, "null"), tg("lastKnownElr", "[]int32", 2, 7, "null")}},
	7:  {fields: []field{f("id", "int32", 0, -1, -1), f("epoch", "int64", 0, -1, -1)}},
	8:  {fields: []field{f("id", "int32", 0, -1, -1), f("epoch", "int64", 0, -1, -1)}},
	9:  {fields: []field{f("topicId", "uuid", 0, -1, -1)}},
	12: {fields: []field{f("name", "string", 0, -1, -1), f("featureLevel", "int16", 0, -1, -1)}},
	15: {fields: []field{f("brokerId", "int32", 0, -1, -1), f("brokerEpoch", "int64", 0, -1, -1), f("nextProducerId", "int64", 0, -1, -1)}},
	17: {fields: []field{f("brokerId", "int32", 0, -1, -1), f("brokerEpoch", "int64", 0, -1, -1),
		tg("fenced", "int8", 0, 0, "0"), tg("inControlledShutdown", "int8", 1, 1, "0"),
		tg("logDirs", "[]uuid", 2, 2, "[]"), tg("cordonedLogDirs", "[]uuid", 3, 3, "null")}},
	20: {},
	23: {fields: []field{tg("name", "string", 0, 0, "null")}},
	24: {},
	27: {fields: []field{f("controllerId", "int32", 0, -1, -1), f("incarnationId", "uuid", 0, -1, -1), f("zkMigrationReady", "bool", 0, -1, -1),
		structs("endPoints", 0, -1, endpoint...), structs("features", 0, -1, feature...)}},
	28: {fields: []field{f("topicName", "string", 0, -1, -1)}},
}

var metadataNames = map[int]string{
	0: "RegisterBrokerRecord", 1: "UnregisterBrokerRecord", 2: "TopicRecord", 3: "PartitionRecord", 4: "ConfigRecord",
	5: "PartitionChangeRecord", 7: "FenceBrokerRecord", 8: "UnfenceBrokerRecord", 9: "RemoveTopicRecord",
	12: "FeatureLevelRecord", 15: "ProducerIdsRecord", 17: "BrokerRegistrationChangeRecord", 20: "NoOpRecord",
	23: "BeginTransactionRecord", 24: "EndTransactionRecord", 27: "RegisterControllerRecord", 28: "ClearElrRecord",
}

// enumName is MetadataRecordType's name of a record class: TopicRecord →
// TOPIC_RECORD.
func enumName(class string) string {
	var w strings.Builder
	for i, c := range class {
		if i > 0 && unicode.IsUpper(c) {
			w.WriteByte('_')
		}
		w.WriteRune(unicode.ToUpper(c))
	}
	return w.String()
}

// DecodeMetadata decodes a KRaft __cluster_metadata record value (a frame
// version, the record's api key and version, then the record) into
// {"type":"TOPIC_RECORD","version":0,"data":{...}}.
func DecodeMetadata(value []byte) (string, error) {
	r := &msgReader{b: value, flex: true}
	var head [3]uint64
	for i := range head {
		v, err := r.uvarint()
		if err != nil {
			return "", err
		}
		head[i] = v
	}
	if head[0] != 1 {
		return "", fmt.Errorf("Could not deserialize metadata record due to unknown frame version %d", head[0])
	}
	key, ver := int(head[1]), int16(head[2])
	s, ok := metadataRecords[key]
	if !ok {
		return "", fmt.Errorf("kbox does not decode metadata records of api key %d", key)
	}
	var w strings.Builder
	if err := s.decode(r, s.fields, ver, &w); err != nil {
		return "", err
	}
	return fmt.Sprintf(`{"type":"%s","version":%d,"data":%s}`, enumName(metadataNames[key]), ver, w.String()), nil
}

// The KRaft control records (their value: the message, whose first field
// is its version).
var controlRecords = map[int16]struct {
	label string
	s     *schema
}{
	2: {"LeaderChange:", &schema{fields: []field{f("version", "int16", 0, -1, -1), f("leaderId", "int32", 0, -1, -1),
		structs("voters", 0, -1, f("voterId", "int32", 0, -1, -1), f("voterDirectoryId", "uuid", 1, -1, -1)),
		structs("grantingVoters", 0, -1, f("voterId", "int32", 0, -1, -1), f("voterDirectoryId", "uuid", 1, -1, -1))}}},
	3: {"SnapshotHeader", &schema{fields: []field{f("version", "int16", 0, -1, -1), f("lastContainedLogTimestamp", "int64", 0, -1, -1)}}},
	4: {"SnapshotFooter", &schema{fields: []field{f("version", "int16", 0, -1, -1)}}},
	5: {"KRaftVersion", &schema{fields: []field{f("version", "int16", 0, -1, -1), f("kRaftVersion", "int16", 0, -1, -1)}}},
	6: {"KRaftVoters", &schema{fields: []field{f("version", "int16", 0, -1, -1),
		structs("voters", 0, -1, f("voterId", "int32", 0, -1, -1), f("voterDirectoryId", "uuid", 0, -1, -1),
			structs("endpoints", 0, -1, f("name", "string", 0, -1, -1), f("host", "string", 0, -1, -1), f("port", "uint16", 0, -1, -1)),
			st("kRaftVersionFeature", f("minSupportedVersion", "int16", 0, -1, -1), f("maxSupportedVersion", "int16", 0, -1, -1)))}}},
}

// DecodeControl decodes a KRaft control record of type typ: its label
// (LeaderChange, SnapshotHeader, ...) and JSON; ok false for a type that
// is not one of them. The label is what Apache's tool prints before the
// JSON ("LeaderChange:" has a colon, the others none).
func DecodeControl(typ int16, value []byte) (label, json string, ok bool, err error) {
	c, ok := controlRecords[typ]
	if !ok {
		return "", "", false, nil
	}
	if len(value) < 2 {
		return c.label, "", true, errTruncated
	}
	j, err := c.s.Decode(value, int16(binary.BigEndian.Uint16(value)))
	return c.label, j, true, err
}
