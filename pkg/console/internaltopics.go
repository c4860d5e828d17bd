package console

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The formatters of Kafka's internal topics (4.4): the subclasses of
// org.apache.kafka.tools.consumer.CoordinatorRecordMessageFormatter. Each
// record of __consumer_offsets is a coordinator record: the key starts with
// an int16 record type, the value with an int16 version. A record the
// formatter prints is one JSON object, with no line separator (Apache's
// quirk):
//
//	{"key":{"type":T,"data":{...}},"value":{"version":V,"data":{...}}}
//
// and "value":null for a tombstone. Records with a null key, an unknown
// record type or a type the formatter does not show print nothing (but are
// counted). A record that cannot be read is an error.

// Class names of the internal-topic formatters.
const (
	OffsetsFormatterClass        = "org.apache.kafka.tools.consumer.OffsetsMessageFormatter"
	GroupMetadataFormatterClass  = "org.apache.kafka.tools.consumer.GroupMetadataMessageFormatter"
	TransactionLogFormatterClass = "org.apache.kafka.tools.consumer.TransactionLogMessageFormatter"
)

// Group coordinator record types (CoordinatorRecordType).
const (
	recLegacyOffsetCommit int16 = 0
	recOffsetCommit       int16 = 1
	recGroupMetadata      int16 = 2
)

// groupValueVersions are the valid value versions of every record type the
// 4.4 group coordinator serde knows (types 9 and 18 are retired); a type
// missing here is unknown to it.
var groupValueVersions = map[int16][2]int16{
	0: {0, 0}, 1: {0, 4}, 2: {0, 4},
	3: {0, 0}, 4: {0, 0}, 5: {0, 0}, 6: {0, 0}, 7: {0, 0}, 8: {0, 0},
	10: {0, 0}, 11: {0, 0}, 12: {0, 0}, 13: {0, 0}, 14: {0, 0}, 15: {0, 0},
	16: {0, 0}, 17: {0, 0}, 19: {0, 0}, 20: {0, 0}, 21: {0, 0}, 22: {0, 0}, 23: {0, 0},
}

// txnValueVersions are the record types of the transaction coordinator
// (__transaction_state): only TransactionLog (type 0, values 0-1).
var txnValueVersions = map[int16][2]int16{0: {0, 1}}

// CoordinatorFormatter prints the coordinator records of the types it is
// made for.
type CoordinatorFormatter struct {
	allowed  map[int16]bool
	versions map[int16][2]int16
	txn      bool // the transaction coordinator's records
}

// NewOffsetsFormatter is OffsetsMessageFormatter: offset commits.
func NewOffsetsFormatter() *CoordinatorFormatter {
	return &CoordinatorFormatter{allowed: map[int16]bool{recLegacyOffsetCommit: true, recOffsetCommit: true}, versions: groupValueVersions}
}

// NewGroupMetadataFormatter is GroupMetadataMessageFormatter: classic group
// metadata.
func NewGroupMetadataFormatter() *CoordinatorFormatter {
	return &CoordinatorFormatter{allowed: map[int16]bool{recGroupMetadata: true}, versions: groupValueVersions}
}

// NewTransactionLogFormatter is TransactionLogMessageFormatter: the
// records of __transaction_state.
func NewTransactionLogFormatter() *CoordinatorFormatter {
	return &CoordinatorFormatter{allowed: map[int16]bool{0: true}, versions: txnValueVersions, txn: true}
}

// Append implements Formatter.
func (f *CoordinatorFormatter) Append(dst []byte, r *kgo.Record) ([]byte, error) {
	if r.Key == nil {
		return dst, nil
	}
	out, skip, err := f.appendRecord(dst, r.Key, r.Value)
	if err != nil {
		return dst, javaErrorf("java.lang.RuntimeException: Could not read record at offset %d due to: %s", r.Offset, err)
	}
	if skip {
		return dst, nil
	}
	return out, nil
}

// appendRecord is CoordinatorRecordSerde.deserialize followed by the JSON
// converters of the record's key and value.
func (f *CoordinatorFormatter) appendRecord(dst, key, value []byte) (out []byte, skip bool, err error) {
	kr := &reader{b: key}
	typ := kr.i16()
	if kr.err != nil {
		return nil, false, javaErr("Could not read version from key's buffer.")
	}
	versions, known := f.versions[typ]
	if !known {
		return nil, true, nil // UnknownRecordTypeException: skipped.
	}
	if !f.allowed[typ] {
		// The serde reads the whole record first; kbox checks only what
		// fails without decoding the types it does not print: the value
		// version.
		if value != nil {
			vr := &reader{b: value}
			v := vr.i16()
			if vr.err != nil {
				return nil, false, javaErr("Could not read version from value's buffer.")
			}
			if v < versions[0] || v > versions[1] {
				return nil, false, javaErrorf("Found an unknown record version %d for %d type", v, typ)
			}
		}
		return nil, true, nil
	}
	var kj []byte
	switch {
	case f.txn:
		kj = transactionLogKeyJSON(nil, kr)
	case typ == recLegacyOffsetCommit, typ == recOffsetCommit:
		kj = offsetCommitKeyJSON(nil, kr)
	case typ == recGroupMetadata:
		kj = groupMetadataKeyJSON(nil, kr)
	}
	if kr.err != nil {
		// The serde reads the key with its record type as version.
		return nil, false, javaErrorf("Could not read record with version %d from key's buffer due to: %s.", typ, kr.err)
	}
	var vj []byte
	var version int16
	if value != nil {
		vr := &reader{b: value}
		version = vr.i16()
		if vr.err != nil {
			return nil, false, javaErr("Could not read version from value's buffer.")
		}
		if version < versions[0] || version > versions[1] {
			return nil, false, javaErrorf("Found an unknown record version %d for %d type", version, typ)
		}
		switch {
		case f.txn:
			vj = transactionLogValueJSON(nil, vr, version)
		case typ == recLegacyOffsetCommit, typ == recOffsetCommit:
			vj = offsetCommitValueJSON(nil, vr, version)
		case typ == recGroupMetadata:
			vj = groupMetadataValueJSON(nil, vr, version)
		}
		if vr.err != nil {
			return nil, false, javaErrorf("Could not read record with version %d from value's buffer due to: %s.", version, vr.err)
		}
	}
	dst = append(dst, `{"key":{"type":`...)
	dst = strconv.AppendInt(dst, int64(typ), 10)
	dst = append(dst, `,"data":`...)
	dst = append(dst, kj...)
	dst = append(dst, `},"value":`...)
	if value == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, `{"version":`...)
		dst = strconv.AppendInt(dst, int64(version), 10)
		dst = append(dst, `,"data":`...)
		dst = append(dst, vj...)
		dst = append(dst, '}')
	}
	return append(dst, '}'), false, nil
}

// OffsetCommitKey and LegacyOffsetCommitKey (version 0).
func offsetCommitKeyJSON(dst []byte, r *reader) []byte {
	group := r.str(false, "group")
	topic := r.str(false, "topic")
	partition := r.i32()
	dst = append(dst, `{"group":`...)
	dst = appendJacksonString(dst, group.s)
	dst = append(dst, `,"topic":`...)
	dst = appendJacksonString(dst, topic.s)
	dst = append(dst, `,"partition":`...)
	dst = strconv.AppendInt(dst, int64(partition), 10)
	return append(dst, '}')
}

// GroupMetadataKey (version 0).
func groupMetadataKeyJSON(dst []byte, r *reader) []byte {
	group := r.str(false, "group")
	dst = append(dst, `{"group":`...)
	dst = appendJacksonString(dst, group.s)
	return append(dst, '}')
}

// OffsetCommitValue versions 0-4 (LegacyOffsetCommitValue is its version 0).
func offsetCommitValueJSON(dst []byte, r *reader, v int16) []byte {
	flex := v >= 4
	offset := r.i64()
	leaderEpoch := int32(-1)
	if v >= 3 {
		leaderEpoch = r.i32()
	}
	metadata := r.strf(flex, false, "metadata")
	commit := r.i64()
	expire := int64(-1)
	if v == 1 {
		expire = r.i64()
	}
	var topicID [16]byte
	if flex {
		r.tags(func(tag uint64, data []byte) {
			if tag == 0 {
				if len(data) < 16 {
					r.fail("buffer underflow")
					return
				}
				copy(topicID[:], data)
			}
		})
	}
	dst = append(dst, `{"offset":`...)
	dst = strconv.AppendInt(dst, offset, 10)
	if v >= 3 {
		dst = append(dst, `,"leaderEpoch":`...)
		dst = strconv.AppendInt(dst, int64(leaderEpoch), 10)
	}
	dst = append(dst, `,"metadata":`...)
	dst = appendJacksonString(dst, metadata.s)
	dst = append(dst, `,"commitTimestamp":`...)
	dst = strconv.AppendInt(dst, commit, 10)
	if v == 1 {
		dst = append(dst, `,"expireTimestamp":`...)
		dst = strconv.AppendInt(dst, expire, 10)
	}
	if flex && topicID != [16]byte{} {
		// Uuid.toString: URL-safe base64 without padding.
		dst = append(dst, `,"topicId":"`...)
		dst = base64.RawURLEncoding.AppendEncode(dst, topicID[:])
		dst = append(dst, '"')
	}
	return append(dst, '}')
}

// GroupMetadataValue versions 0-4.
func groupMetadataValueJSON(dst []byte, r *reader, v int16) []byte {
	flex := v >= 4
	dst = append(dst, `{"protocolType":`...)
	dst = appendJacksonString(dst, r.strf(flex, false, "protocolType").s)
	dst = append(dst, `,"generation":`...)
	dst = strconv.AppendInt(dst, int64(r.i32()), 10)
	dst = append(dst, `,"protocol":`...)
	dst = r.strf(flex, true, "protocol").appendJSON(dst)
	dst = append(dst, `,"leader":`...)
	dst = r.strf(flex, true, "leader").appendJSON(dst)
	if v >= 2 {
		dst = append(dst, `,"currentStateTimestamp":`...)
		dst = strconv.AppendInt(dst, r.i64(), 10)
	}
	dst = append(dst, `,"members":[`...)
	n := r.arrayLen(flex, "members")
	for i := 0; i < n && r.err == nil; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"memberId":`...)
		dst = appendJacksonString(dst, r.strf(flex, false, "memberId").s)
		if v >= 3 {
			dst = append(dst, `,"groupInstanceId":`...)
			dst = r.strf(flex, true, "groupInstanceId").appendJSON(dst)
		}
		dst = append(dst, `,"clientId":`...)
		dst = appendJacksonString(dst, r.strf(flex, false, "clientId").s)
		dst = append(dst, `,"clientHost":`...)
		dst = appendJacksonString(dst, r.strf(flex, false, "clientHost").s)
		if v >= 1 {
			dst = append(dst, `,"rebalanceTimeout":`...)
			dst = strconv.AppendInt(dst, int64(r.i32()), 10)
		}
		dst = append(dst, `,"sessionTimeout":`...)
		dst = strconv.AppendInt(dst, int64(r.i32()), 10)
		dst = append(dst, `,"subscription":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, r.bytesf(flex, "subscription"))
		dst = append(dst, `","assignment":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, r.bytesf(flex, "assignment"))
		dst = append(dst, `"}`...)
		if flex {
			r.tags(nil)
		}
	}
	dst = append(dst, ']')
	if flex {
		r.tags(nil)
	}
	return append(dst, '}')
}

// TransactionLogKey (version 0).
func transactionLogKeyJSON(dst []byte, r *reader) []byte {
	id := r.str(false, "transactionalId")
	dst = append(dst, `{"transactionalId":`...)
	dst = appendJacksonString(dst, id.s)
	return append(dst, '}')
}

// txnStates are TransactionState.stateName by id.
var txnStates = []string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}

// TransactionLogValue versions 0-1, with TransactionLogMessageFormatter's
// state name in place of transactionStatus (the number, as a string, when
// the id is unknown).
func transactionLogValueJSON(dst []byte, r *reader, v int16) []byte {
	flex := v >= 1
	pid := r.i64()
	epoch := r.i16()
	timeout := r.i32()
	status := int8(r.take1())
	var parts []byte
	n := r.nullableArrayLen(flex)
	if n < 0 {
		parts = append(parts, "null"...)
	} else {
		parts = append(parts, '[')
		for i := 0; i < n && r.err == nil; i++ {
			if i > 0 {
				parts = append(parts, ',')
			}
			parts = append(parts, `{"topic":`...)
			parts = appendJacksonString(parts, r.strf(flex, false, "topic").s)
			parts = append(parts, `,"partitionIds":[`...)
			m := r.arrayLen(flex, "partitionIds")
			for j := 0; j < m && r.err == nil; j++ {
				if j > 0 {
					parts = append(parts, ',')
				}
				parts = strconv.AppendInt(parts, int64(r.i32()), 10)
			}
			parts = append(parts, "]}"...)
			if flex {
				r.tags(nil)
			}
		}
		parts = append(parts, ']')
	}
	lastUpdate := r.i64()
	start := r.i64()
	prevPid, nextPid, nextEpoch, clientTV := int64(-1), int64(-1), int16(-1), int16(0)
	if flex {
		r.tags(func(tag uint64, data []byte) {
			tr := &reader{b: data}
			switch tag {
			case 0:
				prevPid = tr.i64()
			case 1:
				nextPid = tr.i64()
			case 2:
				clientTV = tr.i16()
			case 3:
				nextEpoch = tr.i16()
			default:
				return
			}
			if tr.err != nil {
				r.fail(tr.err.Error())
			}
		})
	}
	dst = append(dst, `{"producerId":`...)
	dst = strconv.AppendInt(dst, pid, 10)
	if flex && prevPid != -1 {
		dst = append(dst, `,"previousProducerId":`...)
		dst = strconv.AppendInt(dst, prevPid, 10)
	}
	if flex && nextPid != -1 {
		dst = append(dst, `,"nextProducerId":`...)
		dst = strconv.AppendInt(dst, nextPid, 10)
	}
	dst = append(dst, `,"producerEpoch":`...)
	dst = strconv.AppendInt(dst, int64(epoch), 10)
	if flex && nextEpoch != -1 {
		dst = append(dst, `,"nextProducerEpoch":`...)
		dst = strconv.AppendInt(dst, int64(nextEpoch), 10)
	}
	dst = append(dst, `,"transactionTimeoutMs":`...)
	dst = strconv.AppendInt(dst, int64(timeout), 10)
	dst = append(dst, `,"transactionStatus":"`...)
	if status >= 0 && int(status) < len(txnStates) {
		dst = append(dst, txnStates[status]...)
	} else {
		dst = strconv.AppendInt(dst, int64(status), 10)
	}
	dst = append(dst, `","transactionPartitions":`...)
	dst = append(dst, parts...)
	dst = append(dst, `,"transactionLastUpdateTimestampMs":`...)
	dst = strconv.AppendInt(dst, lastUpdate, 10)
	dst = append(dst, `,"transactionStartTimestampMs":`...)
	dst = strconv.AppendInt(dst, start, 10)
	if flex && clientTV != 0 {
		dst = append(dst, `,"clientTransactionVersion":`...)
		dst = strconv.AppendInt(dst, int64(clientTV), 10)
	}
	return append(dst, '}')
}

// reader reads Kafka's message encoding as the generated Java readers do;
// the first failure sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(msg string) {
	if r.err == nil {
		r.err = javaErr(msg)
	}
	r.b = nil
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.b) < n {
		// BufferUnderflowException has no message: Java prints "null".
		r.fail("null")
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) take1() byte {
	b := r.take(1)
	if b == nil {
		return 0
	}
	return b[0]
}

// nullableArrayLen is an array length, -1 for null.
func (r *reader) nullableArrayLen(flex bool) int {
	var n int
	if flex {
		n = int(r.uvarint()) - 1
	} else {
		n = int(r.i32())
	}
	if r.err != nil {
		return 0
	}
	if n < 0 {
		return -1
	}
	return n
}

func (r *reader) i16() int16 {
	b := r.take(2)
	if b == nil {
		return 0
	}
	return int16(b[0])<<8 | int16(b[1])
}

func (r *reader) i32() int32 {
	b := r.take(4)
	if b == nil {
		return 0
	}
	return int32(b[0])<<24 | int32(b[1])<<16 | int32(b[2])<<8 | int32(b[3])
}

func (r *reader) i64() int64 {
	b := r.take(8)
	if b == nil {
		return 0
	}
	return int64(r.u32of(b[:4]))<<32 | int64(r.u32of(b[4:]))
}

func (r *reader) u32of(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// uvarint is ByteUtils.readUnsignedVarint (at most 5 bytes).
func (r *reader) uvarint() uint64 {
	var v uint64
	for i := 0; i < 5; i++ {
		b := r.take(1)
		if b == nil {
			return 0
		}
		v |= uint64(b[0]&0x7f) << (7 * i)
		if b[0]&0x80 == 0 {
			return v
		}
	}
	r.fail("java.lang.IllegalArgumentException: Varint is too long, the most significant bit in the 5th byte is set, converted value: " + strconv.FormatUint(v, 16))
	return 0
}

// jstr is a read string field: null or a (Java-decoded) value.
type jstr struct {
	s    string
	null bool
}

func (s jstr) appendJSON(dst []byte) []byte {
	if s.null {
		return append(dst, "null"...)
	}
	return appendJacksonString(dst, s.s)
}

// str reads a non-flexible string.
func (r *reader) str(nullable bool, name string) jstr { return r.strf(false, nullable, name) }

func (r *reader) strf(flex, nullable bool, name string) jstr {
	var n int
	if flex {
		n = int(r.uvarint()) - 1
	} else {
		n = int(r.i16())
	}
	if r.err != nil {
		return jstr{}
	}
	if n < 0 {
		if !nullable {
			r.fail("java.lang.RuntimeException: non-nullable field " + name + " was serialized as null")
		}
		return jstr{null: true}
	}
	if n > 0x7fff {
		r.fail("java.lang.RuntimeException: string field " + name + " had invalid length " + strconv.Itoa(n))
		return jstr{}
	}
	return jstr{s: string(r.take(n))}
}

func (r *reader) bytesf(flex bool, name string) []byte {
	var n int
	if flex {
		n = int(r.uvarint()) - 1
	} else {
		n = int(r.i32())
	}
	if r.err != nil {
		return nil
	}
	if n < 0 {
		r.fail("java.lang.RuntimeException: non-nullable field " + name + " was serialized as null")
		return nil
	}
	return r.take(n)
}

func (r *reader) arrayLen(flex bool, name string) int {
	var n int
	if flex {
		n = int(r.uvarint()) - 1
	} else {
		n = int(r.i32())
	}
	if r.err != nil {
		return 0
	}
	if n < 0 {
		r.fail("java.lang.RuntimeException: non-nullable field " + name + " was serialized as null")
		return 0
	}
	return n
}

// tags reads a tagged-field section, handing each field to fn (if set).
func (r *reader) tags(fn func(tag uint64, data []byte)) {
	n := r.uvarint()
	for i := uint64(0); i < n && r.err == nil; i++ {
		tag := r.uvarint()
		size := r.uvarint()
		data := r.take(int(size))
		if r.err == nil && fn != nil {
			fn(tag, data)
		}
	}
}

// appendJacksonString appends s as Jackson writes a TextNode: the bytes were
// decoded as UTF-8 with replacement, '"' and '\\' and the control
// characters are escaped (\b \t \n \f \r, else \u00XX upper-case).
func appendJacksonString(dst []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[i:i+n]...)
			}
			i += n
			continue
		}
		i++
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			if c < 0x20 {
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			} else {
				dst = append(dst, c)
			}
		}
	}
	return append(dst, '"')
}

// javaErr is an error whose text is a Java exception's message, verbatim
// (capitalised, often ending with a period).
type javaErr string

func (e javaErr) Error() string { return string(e) }

func javaErrorf(format string, a ...any) error { return javaErr(fmt.Sprintf(format, a...)) }
