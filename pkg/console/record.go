// Package console holds what kbox's console consumer and producer share: the
// JSON record schema (`kbox consume -o json` writes it, `kbox produce -f json`
// reads it) and the record formatting of the consumer.
package console

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Timestamp types as Kafka names them (Java's TimestampType.name).
const (
	CreateTime      = "CreateTime"
	LogAppendTime   = "LogAppendTime"
	NoTimestampType = "NoTimestampType"
)

// EncodingBase64 is the value of a `*_encoding` field when the bytes are not
// valid UTF-8 and the string holds their standard base64 (with padding).
const EncodingBase64 = "base64"

// Header is one record header. A nil Value is a null header value.
type Header struct {
	Key   string
	Value []byte
}

// Record is one record in the shared JSON schema, one object per line:
//
//	{"topic":"t","partition":0,"offset":5,"timestamp":1700000000000,
//	 "timestamp_type":"CreateTime","key":"k","value":"v",
//	 "headers":[{"key":"h","value":"x"}]}
//
// key, value and a header's value are JSON strings when the bytes are valid
// UTF-8 and null when the bytes are null (a nil slice; an empty non-nil slice
// is ""). Bytes that are not valid UTF-8 are written as base64 and the object
// carries "key_encoding":"base64" / "value_encoding":"base64" (for a header,
// "value_encoding":"base64" inside the header object).
//
// Decoding: partition, offset and timestamp that are absent decode as -1
// (Kafka's "none": let the producer choose); a missing key, value or header
// value is null; a missing timestamp_type is "". Unknown fields are ignored.
type Record struct {
	Topic         string
	Partition     int32
	Offset        int64
	Timestamp     int64 // Unix milliseconds
	TimestampType string
	Key           []byte
	Value         []byte
	Headers       []Header
}

// FromKgo converts a fetched record.
func FromKgo(r *kgo.Record) Record {
	rec := Record{
		Topic:         r.Topic,
		Partition:     r.Partition,
		Offset:        r.Offset,
		Timestamp:     r.Timestamp.UnixMilli(),
		TimestampType: TimestampTypeName(r.Attrs.TimestampType()),
		Key:           r.Key,
		Value:         r.Value,
	}
	if len(r.Headers) > 0 {
		rec.Headers = make([]Header, len(r.Headers))
		for i, h := range r.Headers {
			rec.Headers[i] = Header{Key: h.Key, Value: h.Value}
		}
	}
	return rec
}

// ToKgo converts the record for producing. A partition of -1 leaves it to
// the partitioner's default; a timestamp of -1 leaves it unset (the client
// stamps it). Offset and timestamp type are not produced.
func (r Record) ToKgo() *kgo.Record {
	out := &kgo.Record{Topic: r.Topic, Partition: r.Partition, Key: r.Key, Value: r.Value}
	if r.Timestamp >= 0 {
		out.Timestamp = time.UnixMilli(r.Timestamp)
	}
	if len(r.Headers) > 0 {
		out.Headers = make([]kgo.RecordHeader, len(r.Headers))
		for i, h := range r.Headers {
			out.Headers[i] = kgo.RecordHeader{Key: h.Key, Value: h.Value}
		}
	}
	return out
}

// TimestampTypeName names kgo's timestamp type (0 create, 1 log append, -1
// none) as Java does.
func TimestampTypeName(t int8) string {
	switch t {
	case 0:
		return CreateTime
	case 1:
		return LogAppendTime
	default:
		return NoTimestampType
	}
}

// AppendJSON appends the record's JSON object (no newline) to dst. It writes
// the fields in the schema's order and allocates nothing beyond dst's growth.
func (r *Record) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"topic":`...)
	dst = appendJSONString(dst, r.Topic)
	dst = append(dst, `,"partition":`...)
	dst = strconv.AppendInt(dst, int64(r.Partition), 10)
	dst = append(dst, `,"offset":`...)
	dst = strconv.AppendInt(dst, r.Offset, 10)
	dst = append(dst, `,"timestamp":`...)
	dst = strconv.AppendInt(dst, r.Timestamp, 10)
	dst = append(dst, `,"timestamp_type":`...)
	dst = appendJSONString(dst, r.TimestampType)
	dst = appendBytesField(dst, "key", r.Key)
	dst = appendBytesField(dst, "value", r.Value)
	return appendHeaders(dst, r.Headers)
}

// appendHeaders appends the headers field and closes the object.
func appendHeaders(dst []byte, hs []Header) []byte {
	dst = append(dst, `,"headers":[`...)
	for i, h := range hs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"key":`...)
		dst = appendJSONString(dst, h.Key)
		dst = appendBytesField(dst, "value", h.Value)
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}

// MarshalJSON implements json.Marshaler with AppendJSON.
func (r Record) MarshalJSON() ([]byte, error) {
	return r.AppendJSON(nil), nil
}

// appendBytesField appends `,"name":…` and, for bytes that are not valid
// UTF-8, `,"name_encoding":"base64"`.
func appendBytesField(dst []byte, name string, b []byte) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	switch {
	case b == nil:
		return append(dst, "null"...)
	case utf8.Valid(b):
		return appendJSONBytes(dst, b)
	}
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	dst = append(dst, `","`...)
	dst = append(dst, name...)
	return append(dst, `_encoding":"base64"`...)
}

const hexDigits = "0123456789abcdef"

func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendEscape(dst, c)
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func appendJSONBytes(dst, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendEscape(dst, c)
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func appendEscape(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// jsonRecord is the decoding form: pointers tell absent from zero.
type jsonRecord struct {
	Topic         string       `json:"topic"`
	Partition     *int32       `json:"partition"`
	Offset        *int64       `json:"offset"`
	Timestamp     *int64       `json:"timestamp"`
	TimestampType string       `json:"timestamp_type"`
	Key           *string      `json:"key"`
	KeyEncoding   string       `json:"key_encoding"`
	Value         *string      `json:"value"`
	ValueEncoding string       `json:"value_encoding"`
	Headers       []jsonHeader `json:"headers"`
}

type jsonHeader struct {
	Key           string  `json:"key"`
	Value         *string `json:"value"`
	ValueEncoding string  `json:"value_encoding"`
}

// UnmarshalJSON implements json.Unmarshaler for the schema (see Record).
func (r *Record) UnmarshalJSON(b []byte) error {
	var j jsonRecord
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	out := Record{Topic: j.Topic, Partition: -1, Offset: -1, Timestamp: -1, TimestampType: j.TimestampType}
	if j.Partition != nil {
		out.Partition = *j.Partition
	}
	if j.Offset != nil {
		out.Offset = *j.Offset
	}
	if j.Timestamp != nil {
		out.Timestamp = *j.Timestamp
	}
	var err error
	if out.Key, err = decodeBytes("key", j.Key, j.KeyEncoding); err != nil {
		return err
	}
	if out.Value, err = decodeBytes("value", j.Value, j.ValueEncoding); err != nil {
		return err
	}
	if len(j.Headers) > 0 {
		out.Headers = make([]Header, len(j.Headers))
		for i, h := range j.Headers {
			v, err := decodeBytes(fmt.Sprintf("headers[%d].value", i), h.Value, h.ValueEncoding)
			if err != nil {
				return err
			}
			out.Headers[i] = Header{Key: h.Key, Value: v}
		}
	}
	*r = out
	return nil
}

func decodeBytes(field string, s *string, encoding string) ([]byte, error) {
	switch encoding {
	case "":
		if s == nil {
			return nil, nil
		}
		return []byte(*s), nil
	case EncodingBase64:
		if s == nil {
			return nil, nil
		}
		b, err := base64.StdEncoding.DecodeString(*s)
		if err != nil {
			return nil, fmt.Errorf("%s: invalid base64: %v", field, err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("%s_encoding: unknown encoding %q (want %q)", field, encoding, EncodingBase64)
}

// DecodeJSON decodes one JSON record (one line of `kbox consume -o json`).
func DecodeJSON(line []byte) (Record, error) {
	var r Record
	err := r.UnmarshalJSON(bytes.TrimSpace(line))
	return r, err
}
