// Package verify holds the verifiable producer and consumer event model
// (byte-compatible with Apache's VerifiableProducer/VerifiableConsumer JSON
// lines), their loops (Producer, Consumer) writing to an event Sink, the
// delivery checker (rules R1-R9 of the reliability reference) and the
// in-process verification run built on the loops.
package verify

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/kboxdev/kbox/pkg/javafmt"
)

// Event names of the Apache tools.
const (
	EvStartupComplete   = "startup_complete"
	EvShutdownComplete  = "shutdown_complete"
	EvShutdownRequested = "shutdown_requested"
	EvSendSuccess       = "producer_send_success"
	EvSendError         = "producer_send_error"
	EvToolData          = "tool_data"
	EvAssigned          = "partitions_assigned"
	EvRevoked           = "partitions_revoked"
	EvRecordsConsumed   = "records_consumed"
	EvRecordData        = "record_data"
	EvOffsetsCommitted  = "offsets_committed"
	// EvTxnEnd is kbox's own event (not in the Apache tools) for the end
	// of a producer transaction: its result and the values it held.
	EvTxnEnd = "transaction_end"
)

// Results of a transaction_end event.
const (
	TxnCommitted = "committed" // the commit succeeded
	TxnAborted   = "aborted"   // aborted deliberately, the abort succeeded
	TxnFailed    = "failed"    // a send or the commit was refused, then aborted
	TxnUnknown   = "unknown"   // the commit's outcome is unconfirmed
)

// TP is a topic partition.
type TP struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// Event is any line of either tool, decoded. Fields absent from an event
// keep their zero value.
type Event struct {
	Timestamp int64           `json:"timestamp"`
	Name      string          `json:"name"`
	Key       *string         `json:"key"`
	Value     *string         `json:"value"`
	Topic     string          `json:"topic"`
	Partition int32           `json:"partition"`
	Offset    int64           `json:"offset"`
	Exception string          `json:"exception"`
	Message   *string         `json:"message"`
	Count     int64           `json:"count"`
	Parts     []PartitionData `json:"partitions"`
	Offsets   []CommitData    `json:"offsets"`
	Error     *string         `json:"error"`
	Success   *bool           `json:"success"`
	Sent      int64           `json:"sent"`
	Acked     int64           `json:"acked"`
	Result    string          `json:"result"`
	Values    []string        `json:"values"`
}

// PartitionData is an element of "partitions": assignment entries carry
// topic and partition; records_consumed summaries the counts too.
type PartitionData struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Count     int64  `json:"count"`
	MinOffset int64  `json:"minOffset"`
	MaxOffset int64  `json:"maxOffset"`
}

// CommitData is an element of offsets_committed's "offsets".
type CommitData struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
}

// ---- encoding: Jackson-compatible compact JSON, written by hand so the
// field order is Apache's and nothing is HTML- or U+2028-escaped.

// JSONBuf builds one JSON object line.
type JSONBuf struct {
	b     []byte
	first bool
}

func newObj(ts int64, name string) *JSONBuf {
	j := &JSONBuf{b: make([]byte, 0, 160)}
	j.b = append(j.b, '{')
	j.first = true
	j.Int("timestamp", ts)
	j.Str("name", name)
	return j
}

func (j *JSONBuf) key(k string) {
	if !j.first {
		j.b = append(j.b, ',')
	}
	j.first = false
	j.b = append(j.b, '"')
	j.b = append(j.b, k...)
	j.b = append(j.b, '"', ':')
}

// Int writes a number field.
func (j *JSONBuf) Int(k string, v int64) {
	j.key(k)
	j.b = strconv.AppendInt(j.b, v, 10)
}

// Bool writes a boolean field.
func (j *JSONBuf) Bool(k string, v bool) {
	j.key(k)
	j.b = strconv.AppendBool(j.b, v)
}

// Str writes a string field.
func (j *JSONBuf) Str(k, v string) {
	j.key(k)
	j.b = appendJSONString(j.b, v)
}

// StrP writes a nullable string field.
func (j *JSONBuf) StrP(k string, v *string) {
	if v == nil {
		j.key(k)
		j.b = append(j.b, "null"...)
		return
	}
	j.Str(k, *v)
}

// Double writes a Java double as Jackson does: Double.toString, NaN and
// infinities as quoted strings.
func (j *JSONBuf) Double(k string, v float64) {
	j.key(k)
	s := javafmt.DoubleToString(v)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		j.b = append(j.b, '"')
		j.b = append(j.b, s...)
		j.b = append(j.b, '"')
		return
	}
	j.b = append(j.b, s...)
}

// Raw writes a pre-encoded value.
func (j *JSONBuf) Raw(k string, raw []byte) {
	j.key(k)
	j.b = append(j.b, raw...)
}

// Line closes the object and returns it with a trailing newline.
func (j *JSONBuf) Line() []byte {
	return append(j.b, '}', '\n')
}

const hexDigits = "0123456789ABCDEF"

// appendJSONString escapes like Jackson: ", \ and control characters
// (\b \t \n \f \r short, others \u00XX with upper-case hex); everything
// else, including '/', '<', '&', non-ASCII and U+2028, is written raw.
// Invalid UTF-8 becomes U+FFFD, as Java's String decoding does.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\ufffd"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// ---- producer events

// StartupComplete is {"timestamp":..,"name":"startup_complete"}.
func StartupComplete(ts int64) []byte { return newObj(ts, EvStartupComplete).Line() }

// ShutdownComplete is {"timestamp":..,"name":"shutdown_complete"}.
func ShutdownComplete(ts int64) []byte { return newObj(ts, EvShutdownComplete).Line() }

// ShutdownRequested is the 4.x consumer's event printed by its shutdown hook.
func ShutdownRequested(ts int64) []byte { return newObj(ts, EvShutdownRequested).Line() }

// SendSuccess is producer_send_success in the field order of JDK 17 runs:
// key, value, offset, topic, partition.
func SendSuccess(ts int64, key *string, value, topic string, partition int32, offset int64) []byte {
	j := newObj(ts, EvSendSuccess)
	j.StrP("key", key)
	j.Str("value", value)
	j.Int("offset", offset)
	j.Str("topic", topic)
	j.Int("partition", int64(partition))
	return j.Line()
}

// SendError is producer_send_error; exception is "class <java class>".
func SendError(ts int64, topic string, key *string, value, exception string, message *string) []byte {
	j := newObj(ts, EvSendError)
	j.Str("topic", topic)
	j.StrP("key", key)
	j.Str("value", value)
	j.Str("exception", exception)
	j.StrP("message", message)
	return j.Line()
}

// ToolData is the producer's final tool_data event.
func ToolData(ts, sent, acked, target int64, avg float64) []byte {
	j := newObj(ts, EvToolData)
	j.Int("sent", sent)
	j.Int("acked", acked)
	j.Int("target_throughput", target)
	j.Double("avg_throughput", avg)
	return j.Line()
}

// TxnEnd is kbox's transaction_end event: result (TxnCommitted, ...),
// the transaction's values, and the error (nil if none).
func TxnEnd(ts int64, result string, values []string, errMsg *string) []byte {
	j := newObj(ts, EvTxnEnd)
	j.Str("result", result)
	b := []byte{'['}
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, v)
	}
	j.Raw("values", append(b, ']'))
	if errMsg != nil {
		j.Str("error", *errMsg)
	}
	return j.Line()
}

// ---- consumer events

func tpList(tps []TP) []byte {
	b := []byte{'['}
	for i, tp := range tps {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"topic":`...)
		b = appendJSONString(b, tp.Topic)
		b = append(b, `,"partition":`...)
		b = strconv.AppendInt(b, int64(tp.Partition), 10)
		b = append(b, '}')
	}
	return append(b, ']')
}

// PartitionsAssigned is partitions_assigned.
func PartitionsAssigned(ts int64, tps []TP) []byte {
	j := newObj(ts, EvAssigned)
	j.Raw("partitions", tpList(tps))
	return j.Line()
}

// PartitionsRevoked is partitions_revoked.
func PartitionsRevoked(ts int64, tps []TP) []byte {
	j := newObj(ts, EvRevoked)
	j.Raw("partitions", tpList(tps))
	return j.Line()
}

// RecordsConsumed is records_consumed; count is the whole poll's count.
func RecordsConsumed(ts, count int64, sums []PartitionData) []byte {
	j := newObj(ts, EvRecordsConsumed)
	j.Int("count", count)
	b := []byte{'['}
	for i, s := range sums {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"topic":`...)
		b = appendJSONString(b, s.Topic)
		b = append(b, `,"partition":`...)
		b = strconv.AppendInt(b, int64(s.Partition), 10)
		b = append(b, `,"count":`...)
		b = strconv.AppendInt(b, s.Count, 10)
		b = append(b, `,"minOffset":`...)
		b = strconv.AppendInt(b, s.MinOffset, 10)
		b = append(b, `,"maxOffset":`...)
		b = strconv.AppendInt(b, s.MaxOffset, 10)
		b = append(b, '}')
	}
	j.Raw("partitions", append(b, ']'))
	return j.Line()
}

// RecordData is record_data (--verbose).
func RecordData(ts int64, key, value *string, topic string, partition int32, offset int64) []byte {
	j := newObj(ts, EvRecordData)
	j.StrP("key", key)
	j.StrP("value", value)
	j.Str("topic", topic)
	j.Int("partition", int64(partition))
	j.Int("offset", offset)
	return j.Line()
}

// OffsetsCommitted is offsets_committed; errMsg nil means success.
func OffsetsCommitted(ts int64, offsets []CommitData, errMsg *string) []byte {
	j := newObj(ts, EvOffsetsCommitted)
	b := []byte{'['}
	for i, o := range offsets {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"topic":`...)
		b = appendJSONString(b, o.Topic)
		b = append(b, `,"partition":`...)
		b = strconv.AppendInt(b, int64(o.Partition), 10)
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, o.Offset, 10)
		b = append(b, '}')
	}
	j.Raw("offsets", append(b, ']'))
	if errMsg != nil {
		j.Str("error", *errMsg)
	}
	j.Bool("success", errMsg == nil)
	return j.Line()
}
