package segment

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode"
)

func st(name string, fields ...field) field {
	return field{name: name, typ: "struct", max: -1, null: -1, tag: -1, fields: fields}
}

// namedSchema is a record's schema and its class name (schemas_gen.go).
type namedSchema struct {
	name string
	*schema
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
	s, ver, j, err := decodeFramed(value, metadataRecords)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(`{"type":"%s","version":%d,"data":%s}`, enumName(s.name), ver, j), nil
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
