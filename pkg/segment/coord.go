package segment

import (
	"encoding/binary"
	"fmt"
	"strings"
)

func f(name, typ string, min, max, null int16) field {
	return field{name: name, typ: typ, min: min, max: max, null: null, tag: -1}
}

func tagged(name, typ string, min int16, tag int, def string) field {
	return field{name: name, typ: typ, min: min, max: -1, null: -1, tag: tag, def: def}
}

func structs(name string, min, null int16, fields ...field) field {
	return field{name: name, typ: "[]struct", min: min, max: -1, null: null, tag: -1, fields: fields}
}

// The consumer protocol's messages inside classic group metadata and the
// transaction log's records (Kafka 4.4's schemas, described here; the group
// and share coordinators' records are in schemas_gen.go).
var (
	consumerSubscription = &schema{flexible: -1, fields: []field{
		f("topics", "[]string", 0, -1, -1), f("userData", "bytes", 0, -1, 0),
		structs("ownedPartitions", 1, -1, f("topic", "string", 1, -1, -1), f("partitions", "[]int32", 1, -1, -1)),
		f("generationId", "int32", 2, -1, -1), f("rackId", "string", 3, -1, 3),
	}}
	consumerAssignment = &schema{flexible: -1, fields: []field{
		structs("assignedPartitions", 0, -1, f("topic", "string", 0, -1, -1), f("partitions", "[]int32", 0, -1, -1)),
		f("userData", "bytes", 0, -1, 0),
	}}
	transactionLogKey   = &schema{flexible: -1, fields: []field{f("transactionalId", "string", 0, -1, -1)}}
	transactionLogValue = &schema{flexible: 1, fields: []field{
		f("producerId", "int64", 0, -1, -1),
		tagged("previousProducerId", "int64", 1, 0, "-1"), tagged("nextProducerId", "int64", 1, 1, "-1"),
		f("producerEpoch", "int16", 0, -1, -1), tagged("nextProducerEpoch", "int16", 1, 3, "-1"),
		f("transactionTimeoutMs", "int32", 0, -1, -1), f("transactionStatus", "int8", 0, -1, -1),
		structs("transactionPartitions", 0, 0, f("topic", "string", 0, -1, -1), f("partitionIds", "[]int32", 0, -1, -1)),
		f("transactionLastUpdateTimestampMs", "int64", 0, -1, -1), f("transactionStartTimestampMs", "int64", 0, -1, -1),
		tagged("clientTransactionVersion", "int16", 1, 2, "0"),
	}}
)

// UnknownTypeError is a coordinator record key of a type kbox does not decode.
type UnknownTypeError struct{ Type int16 }

func (e *UnknownTypeError) Error() string { return fmt.Sprintf("unknown record type %d", e.Type) }

// CoordinatorRecord is a decoded __consumer_offsets or __transaction_state
// record: the key's JSON ({"type":"N","data":{...}}) and the value's
// ({"version":"N","data":{...}}), "" for a tombstone.
type CoordinatorRecord struct{ Key, Value string }

type recordType struct {
	key   *schema
	value *schema
}

var txnTypes = map[int16]recordType{0: {transactionLogKey, transactionLogValue}}

// groupMetadataType is the classic group's metadata record.
const groupMetadataType = 2

// DecodeOffsets decodes a __consumer_offsets record (the classic group
// records: offset commits and group metadata, whose consumer-protocol
// subscriptions and assignments are decoded too).
func DecodeOffsets(key, value []byte) (*CoordinatorRecord, error) {
	return decodeCoordinator(groupRecords, key, value)
}

// DecodeShareGroupState decodes a __share_group_state record (share
// snapshots and updates).
func DecodeShareGroupState(key, value []byte) (*CoordinatorRecord, error) {
	return decodeCoordinator(shareRecords, key, value)
}

// DecodeTransactionLog decodes a __transaction_state record.
func DecodeTransactionLog(key, value []byte) (*CoordinatorRecord, error) {
	c, err := decodeCoordinator(txnTypes, key, value)
	if re, ok := err.(*readError); ok { // the transaction log has its own words
		if re.err == nil {
			return nil, errTruncated
		}
		return nil, re.err
	}
	return c, err
}

func decodeCoordinator(types map[int16]recordType, key, value []byte) (*CoordinatorRecord, error) {
	if len(key) < 2 {
		return nil, &readError{what: "key", ver: -1}
	}
	typ := int16(binary.BigEndian.Uint16(key))
	rt, ok := types[typ]
	if !ok {
		return nil, &UnknownTypeError{Type: typ}
	}
	k, err := rt.key.Decode(key[2:], 0)
	if err != nil {
		return nil, &readError{"key", typ, err} // the key's "version" is its type
	}
	out := &CoordinatorRecord{Key: fmt.Sprintf(`{"type":"%d","data":%s}`, typ, k)}
	if value == nil {
		return out, nil
	}
	if len(value) < 2 {
		return nil, &readError{what: "value", ver: -1}
	}
	ver := int16(binary.BigEndian.Uint16(value))
	var hook func(string, []byte) (string, bool)
	if rt.value == groupRecords[groupMetadataType].value && consumerProtocol(value[2:], ver, rt.value.flexible) {
		hook = consumerMember
	}
	v, err := rt.value.decodeWith(value[2:], ver, hook)
	if err != nil {
		return nil, &readError{"value", ver, err}
	}
	if rt.value == transactionLogValue {
		v = txnStatusName(v)
	}
	out.Value = fmt.Sprintf(`{"version":"%d","data":%s}`, ver, v)
	return out, nil
}

// readError is a coordinator record's key or value that does not decode,
// worded as Apache's coordinator record serde words it (ver -1: its
// version is missing); the cause is kbox's.
type readError struct {
	what string
	ver  int16
	err  error
}

func (e *readError) Error() string {
	if e.ver < 0 {
		return fmt.Sprintf("Could not read version from %s's buffer.", e.what)
	}
	return fmt.Sprintf("Could not read record with version %d from %s's buffer due to: %s.", e.ver, e.what, e.err)
}

var txnStates = []string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}

// txnStatusName replaces the transactionStatus number by the state's name.
func txnStatusName(j string) string {
	const k = `"transactionStatus":`
	i := strings.Index(j, k)
	if i < 0 {
		return j
	}
	rest := j[i+len(k):]
	end := strings.IndexByte(rest, ',')
	if end < 0 {
		return j
	}
	var n int
	if _, err := fmt.Sscan(rest[:end], &n); err != nil || n < 0 || n >= len(txnStates) {
		return j
	}
	return j[:i+len(k)] + `"` + txnStates[n] + `"` + rest[end:]
}

// consumerProtocol says whether group metadata names the "consumer"
// protocol type (its first field).
func consumerProtocol(b []byte, ver, flexible int16) bool {
	r := &msgReader{b: b, flex: ver >= flexible}
	n, err := r.length(false)
	if err != nil || n < 0 {
		return false
	}
	p, err := r.take(n)
	return err == nil && string(p) == "consumer"
}

// consumerMember decodes a member's subscription or assignment (a version,
// then the consumer protocol's message); on failure the bytes stay.
func consumerMember(name string, b []byte) (string, bool) {
	s := consumerSubscription
	if name == "assignment" {
		s = consumerAssignment
	} else if name != "subscription" {
		return "", false
	}
	if len(b) < 2 {
		return "", false
	}
	j, err := s.Decode(b[2:], int16(binary.BigEndian.Uint16(b)))
	return j, err == nil
}
