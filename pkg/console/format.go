package console

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Formatter turns one record into output bytes appended to dst.
type Formatter interface {
	Append(dst []byte, r *kgo.Record) ([]byte, error)
}

// DefaultFormatter is Kafka's org.apache.kafka.tools.consumer.
// DefaultMessageFormatter (4.4), byte for byte.
type DefaultFormatter struct {
	PrintTimestamp, PrintKey, PrintValue, PrintPartition, PrintOffset bool
	PrintDelivery, PrintEpoch, PrintHeaders                           bool
	KeySeparator, LineSeparator, HeadersSeparator, NullLiteral        []byte
	KeyDeserializer, ValueDeserializer, HeadersDeserializer           Deserializer
}

// DefaultFormatterClass is the default --formatter.
const DefaultFormatterClass = "org.apache.kafka.tools.consumer.DefaultMessageFormatter"

// NewDefaultFormatter is DefaultMessageFormatter.configure(props). Problems
// Java only logs (an unknown deserializer class) come back as warnings.
func NewDefaultFormatter(props map[string]string) (f *DefaultFormatter, warnings []string) {
	f = &DefaultFormatter{
		PrintValue:       true,
		KeySeparator:     []byte("\t"),
		LineSeparator:    []byte("\n"),
		HeadersSeparator: []byte(","),
		NullLiteral:      []byte("null"),
	}
	bools := []struct {
		name string
		p    *bool
	}{
		{"print.timestamp", &f.PrintTimestamp}, {"print.key", &f.PrintKey}, {"print.offset", &f.PrintOffset},
		{"print.delivery", &f.PrintDelivery}, {"print.epoch", &f.PrintEpoch}, {"print.partition", &f.PrintPartition},
		{"print.headers", &f.PrintHeaders}, {"print.value", &f.PrintValue},
	}
	for _, b := range bools {
		if v, ok := props[b.name]; ok {
			*b.p = strings.EqualFold(strings.TrimSpace(v), "true")
		}
	}
	seps := []struct {
		name string
		p    *[]byte
	}{
		{"key.separator", &f.KeySeparator}, {"line.separator", &f.LineSeparator},
		{"headers.separator", &f.HeadersSeparator}, {"null.literal", &f.NullLiteral},
	}
	for _, s := range seps {
		if v, ok := props[s.name]; ok {
			*s.p = []byte(v)
		}
	}
	des := []struct {
		name string
		p    *Deserializer
	}{
		{"key.deserializer", &f.KeyDeserializer}, {"value.deserializer", &f.ValueDeserializer}, {"headers.deserializer", &f.HeadersDeserializer},
	}
	for _, d := range des {
		name, ok := props[d.name]
		if !ok {
			continue
		}
		ds, known := Deserializers[name]
		if !known {
			warnings = append(warnings, "Unable to instantiate a deserializer from "+name)
			continue
		}
		*d.p = ds
	}
	return f, warnings
}

func (f *DefaultFormatter) sep(dst []byte, column bool) []byte {
	if column {
		return append(dst, f.KeySeparator...)
	}
	return append(dst, f.LineSeparator...)
}

func (f *DefaultFormatter) field(dst, b []byte, d Deserializer) ([]byte, error) {
	if b == nil {
		b = f.NullLiteral
	}
	if d == nil {
		return append(dst, b...), nil
	}
	return d(dst, b)
}

func (f *DefaultFormatter) shown(dst []byte, s *Shown) []byte {
	if s.IsNull() {
		return append(dst, f.NullLiteral...)
	}
	return append(dst, s.Bytes()...)
}

// Append writes the record as DefaultMessageFormatter.writeTo does (the
// console consumer passes no leader epoch and no delivery count, so both
// print NOT_PRESENT).
func (f *DefaultFormatter) Append(dst []byte, r *kgo.Record) ([]byte, error) {
	return f.AppendDecoded(dst, r, nil)
}

// AppendDecoded implements DecodedFormatter: a decoded key or value as
// shown (no deserializer applies to it), a null one as null.literal; the
// others through their deserializers; d nil is Append.
func (f *DefaultFormatter) AppendDecoded(dst []byte, r *kgo.Record, d *Decoded) ([]byte, error) {
	var err error
	if f.PrintTimestamp {
		if t := r.Attrs.TimestampType(); t >= 0 {
			dst = append(dst, TimestampTypeName(t)...)
			dst = append(dst, ':')
			dst = strconv.AppendInt(dst, r.Timestamp.UnixMilli(), 10)
		} else {
			dst = append(dst, "NO_TIMESTAMP"...)
		}
		dst = f.sep(dst, f.PrintPartition || f.PrintOffset || f.PrintDelivery || f.PrintEpoch || f.PrintHeaders || f.PrintKey || f.PrintValue)
	}
	if f.PrintPartition {
		dst = append(dst, "Partition:"...)
		dst = strconv.AppendInt(dst, int64(r.Partition), 10)
		dst = f.sep(dst, f.PrintOffset || f.PrintDelivery || f.PrintEpoch || f.PrintHeaders || f.PrintKey || f.PrintValue)
	}
	if f.PrintOffset {
		dst = append(dst, "Offset:"...)
		dst = strconv.AppendInt(dst, r.Offset, 10)
		dst = f.sep(dst, f.PrintDelivery || f.PrintEpoch || f.PrintHeaders || f.PrintKey || f.PrintValue)
	}
	if f.PrintDelivery {
		dst = append(dst, "Delivery:NOT_PRESENT"...)
		dst = f.sep(dst, f.PrintEpoch || f.PrintHeaders || f.PrintKey || f.PrintValue)
	}
	if f.PrintEpoch {
		dst = append(dst, "Epoch:NOT_PRESENT"...)
		dst = f.sep(dst, f.PrintHeaders || f.PrintKey || f.PrintValue)
	}
	if f.PrintHeaders {
		if len(r.Headers) == 0 {
			dst = append(dst, "NO_HEADERS"...)
		}
		for i, h := range r.Headers {
			dst = appendJavaString(dst, h.Key)
			dst = append(dst, ':')
			if dst, err = f.field(dst, h.Value, f.HeadersDeserializer); err != nil {
				return dst, err
			}
			if i < len(r.Headers)-1 {
				dst = append(dst, f.HeadersSeparator...)
			}
		}
		dst = f.sep(dst, f.PrintKey || f.PrintValue)
	}
	if f.PrintKey {
		b := r.Key
		if d != nil {
			b = d.Key.Raw
		}
		if d != nil && d.Key.Decoded {
			dst = f.shown(dst, &d.Key)
		} else if dst, err = f.field(dst, b, f.KeyDeserializer); err != nil {
			return dst, err
		}
		dst = f.sep(dst, f.PrintValue)
	}
	if f.PrintValue {
		b := r.Value
		if d != nil {
			b = d.Value.Raw
		}
		if d != nil && d.Value.Decoded {
			dst = f.shown(dst, &d.Value)
		} else if dst, err = f.field(dst, b, f.ValueDeserializer); err != nil {
			return dst, err
		}
		dst = append(dst, f.LineSeparator...)
	}
	return dst, nil
}

// appendJavaString appends s as Java's PrintStream.print(String) writes it
// in UTF-8: a header key came off the wire as UTF-8 and was decoded with
// replacement, so invalid bytes become U+FFFD.
func appendJavaString(dst []byte, s string) []byte {
	if utf8.ValidString(s) {
		return append(dst, s...)
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return dst
}

// Deserializer is one of Kafka's built-in deserializers followed by
// toString() and UTF-8 encoding, as DefaultMessageFormatter applies it.
type Deserializer func(dst, b []byte) ([]byte, error)

// Deserializers are the built-in deserializer classes kbox emulates.
var Deserializers = map[string]Deserializer{
	"org.apache.kafka.common.serialization.StringDeserializer": func(dst, b []byte) ([]byte, error) {
		return appendJavaString(dst, string(b)), nil
	},
	"org.apache.kafka.common.serialization.IntegerDeserializer": fixedInt("IntegerDeserializer", 4),
	"org.apache.kafka.common.serialization.LongDeserializer":    fixedInt("LongDeserializer", 8),
	"org.apache.kafka.common.serialization.ShortDeserializer":   fixedInt("ShortDeserializer", 2),
	"org.apache.kafka.common.serialization.UUIDDeserializer": func(dst, b []byte) ([]byte, error) {
		// UUIDDeserializer reads the bytes as a UTF-8 string and parses it.
		s := string(b)
		if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
			return dst, fmt.Errorf("org.apache.kafka.common.errors.SerializationException: Error parsing data into UUID")
		}
		return append(dst, strings.ToLower(s)...), nil
	},
}

func fixedInt(name string, size int) Deserializer {
	return func(dst, b []byte) ([]byte, error) {
		if len(b) != size {
			return dst, fmt.Errorf("org.apache.kafka.common.errors.SerializationException: Size of data received by %s is not %d", name, size)
		}
		var v int64
		switch size {
		case 2:
			v = int64(int16(binary.BigEndian.Uint16(b)))
		case 4:
			v = int64(int32(binary.BigEndian.Uint32(b)))
		default:
			v = int64(binary.BigEndian.Uint64(b))
		}
		return strconv.AppendInt(dst, v, 10), nil
	}
}
