package segment

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/pkg/javafmt"
)

// A field of a Kafka message schema, as the generated JSON converters
// write it: versions [min, max] (max -1: no upper bound), nullable from
// version null (-1: never), tagged with tag (-1: not tagged) and then
// written only when it differs from def.
type field struct {
	name     string
	typ      string // bool int8 int16 uint16 int32 uint32 int64 float64 string bytes uuid []int16 []int32 []int64 []uuid []string struct []struct
	min, max int16
	null     int16
	tag      int
	def      string // the default's JSON text, for tagged fields
	fields   []field
}

type schema struct {
	flexible int16 // first flexible version (-1: none)
	fields   []field
	versions int16 // Apache knows versions below it (0: not checked)
}

func (f *field) in(v int16) bool { return v >= f.min && (f.max < 0 || v <= f.max) }

// errTruncated is a read past the end (Java's BufferUnderflowException,
// whose message is null).
var errTruncated = errors.New("null")

type msgReader struct {
	b    []byte
	flex bool
	// hook may replace a bytes field's JSON (the consumer protocol's
	// subscription and assignment inside group metadata)
	hook func(name string, b []byte) (string, bool)
}

func (r *msgReader) take(n int) ([]byte, error) {
	if n < 0 || len(r.b) < n {
		return nil, errTruncated
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v, nil
}

func (r *msgReader) uvarint() (uint64, error) {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		return 0, errTruncated
	}
	r.b = r.b[n:]
	return v, nil
}

// length reads a string, bytes or array length (-1 null).
func (r *msgReader) length(array bool) (int, error) {
	if r.flex {
		v, err := r.uvarint()
		return int(v) - 1, err
	}
	if array {
		b, err := r.take(4)
		if err != nil {
			return 0, err
		}
		return int(int32(binary.BigEndian.Uint32(b))), nil
	}
	b, err := r.take(2)
	if err != nil {
		return 0, err
	}
	return int(int16(binary.BigEndian.Uint16(b))), nil
}

func (r *msgReader) int(size int) (int64, error) {
	b, err := r.take(size)
	if err != nil {
		return 0, err
	}
	switch size {
	case 1:
		return int64(int8(b[0])), nil
	case 2:
		return int64(int16(binary.BigEndian.Uint16(b))), nil
	case 4:
		return int64(int32(binary.BigEndian.Uint32(b))), nil
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// decode reads a struct of the given fields at version v and writes its
// JSON object to w.
func (s *schema) decode(r *msgReader, fields []field, v int16, w *strings.Builder) error {
	vals := make([]string, len(fields))
	for i := range fields {
		f := &fields[i]
		if f.tag >= 0 || !f.in(v) {
			continue
		}
		j, err := s.value(r, f, v)
		if err != nil {
			return err
		}
		vals[i] = j
	}
	if r.flex {
		if err := s.tagged(r, fields, v, vals); err != nil {
			return err
		}
	}
	w.WriteByte('{')
	first := true
	for i := range fields {
		f := &fields[i]
		if f.tag >= 0 {
			// absent: a default; a struct is written when present, even
			// null (Apache's converters compare it with a new struct)
			if !r.flex || vals[i] == "" || (vals[i] == f.def && f.typ != "struct") {
				continue
			}
		} else if !f.in(v) {
			continue
		}
		if !first {
			w.WriteByte(',')
		}
		first = false
		w.WriteString(JSONString(f.name))
		w.WriteByte(':')
		w.WriteString(vals[i])
	}
	w.WriteByte('}')
	return nil
}

func (s *schema) tagged(r *msgReader, fields []field, v int16, vals []string) error {
	n, err := r.uvarint()
	if err != nil {
		return err
	}
	for range n {
		tag, err := r.uvarint()
		if err != nil {
			return err
		}
		size, err := r.uvarint()
		if err != nil {
			return err
		}
		// a known field is read from the message as Java reads it (its
		// size unchecked), an unknown one skipped
		known := false
		for i := range fields {
			if f := &fields[i]; f.tag == int(tag) && f.in(v) {
				known = true
				if vals[i], err = s.value(r, f, v); err != nil {
					return err
				}
			}
		}
		if !known {
			if size > uint64(len(r.b)) {
				return fmt.Errorf("Error reading byte array of %d byte(s): only %d byte(s) available", size, len(r.b))
			}
			r.b = r.b[size:]
		}
	}
	return nil
}

func (s *schema) value(r *msgReader, f *field, v int16) (string, error) {
	nullable := f.null >= 0 && v >= f.null
	switch f.typ {
	case "int8", "int16", "int32", "int64":
		size := map[string]int{"int8": 1, "int16": 2, "int32": 4, "int64": 8}[f.typ]
		n, err := r.int(size)
		return strconv.FormatInt(n, 10), err
	case "bool":
		b, err := r.take(1)
		if err != nil {
			return "", err
		}
		return strconv.FormatBool(b[0] != 0), nil
	case "uint16":
		b, err := r.take(2)
		if err != nil {
			return "", err
		}
		return strconv.Itoa(int(binary.BigEndian.Uint16(b))), nil
	case "uint32":
		b, err := r.take(4)
		if err != nil {
			return "", err
		}
		return strconv.FormatUint(uint64(binary.BigEndian.Uint32(b)), 10), nil
	case "float64":
		b, err := r.take(8)
		if err != nil {
			return "", err
		}
		return javafmt.DoubleToString(math.Float64frombits(binary.BigEndian.Uint64(b))), nil
	case "struct":
		if nullable { // a presence marker: a varint (flexible) or an int8, null when not positive
			var present bool
			if r.flex {
				n, err := r.uvarint()
				if err != nil {
					return "", err
				}
				present = n > 0
			} else {
				n, err := r.int(1)
				if err != nil {
					return "", err
				}
				present = n >= 0
			}
			if !present {
				return "null", nil
			}
		}
		var w strings.Builder
		err := s.decode(r, f.fields, v, &w)
		return w.String(), err
	case "uuid":
		b, err := r.take(16)
		return `"` + base64.RawURLEncoding.EncodeToString(b) + `"`, err
	case "string", "bytes":
		n, err := r.length(f.typ == "bytes") // bytes: an int32 length outside flexible versions
		if err != nil {
			return "", err
		}
		if n < 0 {
			if !nullable {
				return "", errors.New("non-nullable field " + f.name + " was serialized as null")
			}
			return "null", nil
		}
		if f.typ == "string" && n > 0x7fff {
			return "", fmt.Errorf("string field %s had invalid length %d", f.name, n)
		}
		if n > len(r.b) {
			return "", fmt.Errorf("Error reading byte array of %d byte(s): only %d byte(s) available", n, len(r.b))
		}
		b, err := r.take(n)
		if f.typ == "bytes" && r.hook != nil && err == nil {
			if j, ok := r.hook(f.name, b); ok {
				return j, nil
			}
		}
		if f.typ == "bytes" {
			return `"` + base64.StdEncoding.EncodeToString(b) + `"`, err
		}
		return JSONString(string(b)), err
	}
	return s.array(r, f, v, nullable)
}

func (s *schema) array(r *msgReader, f *field, v int16, nullable bool) (string, error) {
	n, err := r.length(true)
	if err != nil {
		return "", err
	}
	if n < 0 {
		if !nullable {
			return "", errors.New("non-nullable field " + f.name + " was serialized as null")
		}
		return "null", nil
	}
	if n > len(r.b) {
		return "", fmt.Errorf("Tried to allocate a collection of size %d, but there are only %d bytes remaining.", n, len(r.b))
	}
	var w strings.Builder
	w.WriteByte('[')
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		switch f.typ {
		case "[]int16", "[]int32", "[]int64":
			x, err := r.int(map[string]int{"[]int16": 2, "[]int32": 4, "[]int64": 8}[f.typ])
			if err != nil {
				return "", err
			}
			w.WriteString(strconv.FormatInt(x, 10))
		case "[]uuid":
			b, err := r.take(16)
			if err != nil {
				return "", err
			}
			w.WriteString(`"` + base64.RawURLEncoding.EncodeToString(b) + `"`)
		case "[]string":
			e := field{name: f.name + " element", typ: "string", null: -1}
			x, err := s.value(r, &e, v)
			if err != nil {
				return "", err
			}
			w.WriteString(x)
		default:
			if err := s.decode(r, f.fields, v, &w); err != nil {
				return "", err
			}
		}
	}
	w.WriteByte(']')
	return w.String(), nil
}

// Decode reads a message of schema s at version v from b into its JSON
// text, as Kafka's generated JsonConverter writes it.
func (s *schema) Decode(b []byte, v int16) (string, error) {
	return s.decodeWith(b, v, nil)
}

func (s *schema) decodeWith(b []byte, v int16, hook func(string, []byte) (string, bool)) (string, error) {
	r := &msgReader{b: b, flex: s.flexible >= 0 && v >= s.flexible, hook: hook}
	var w strings.Builder
	if err := s.decode(r, s.fields, v, &w); err != nil {
		return "", err
	}
	return w.String(), nil
}

// JSONString quotes s as Jackson does: '"', '\\' and control characters
// escaped (\n, \t, ... or \u00XX), everything else as is.
func JSONString(s string) string {
	var w strings.Builder
	w.WriteByte('"')
	for _, c := range s {
		switch c {
		case '"':
			w.WriteString(`\"`)
		case '\\':
			w.WriteString(`\\`)
		case '\n':
			w.WriteString(`\n`)
		case '\r':
			w.WriteString(`\r`)
		case '\t':
			w.WriteString(`\t`)
		case '\b':
			w.WriteString(`\b`)
		case '\f':
			w.WriteString(`\f`)
		default:
			if c < 0x20 {
				w.WriteString(`\u00`)
				w.WriteByte("0123456789ABCDEF"[c>>4])
				w.WriteByte("0123456789ABCDEF"[c&0xf])
			} else {
				w.WriteRune(c)
			}
		}
	}
	w.WriteByte('"')
	return w.String()
}
