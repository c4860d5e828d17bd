package serde

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hamba/avro/v2"
)

// avroAPI reads and writes Avro. Strings and bytes may be as large as a
// record (the default caps them at 1 MiB).
var avroAPI = avro.Config{MaxByteSliceSize: math.MaxInt32}.Freeze()

// avroCodec is one registered Avro schema, parsed with the named types of
// its references.
type avroCodec struct {
	schema avro.Schema
}

// parseAvro parses text after the referenced schemas (refs, in dependency
// order) into a cache of its own: two versions of one record name never
// meet.
func parseAvro(text string, refs []string) (*avroCodec, error) {
	cache := &avro.SchemaCache{}
	for _, r := range refs {
		if _, err := avro.ParseWithCache(r, "", cache); err != nil {
			return nil, fmt.Errorf("referenced Avro schema: %w", err)
		}
	}
	s, err := avro.ParseWithCache(text, "", cache)
	if err != nil {
		return nil, fmt.Errorf("avro schema: %w", err)
	}
	return &avroCodec{schema: s}, nil
}

// decode reads one Avro datum and returns it as JSON (see the package
// documentation for the mapping).
func (c *avroCodec) decode(b []byte) ([]byte, error) {
	r := avro.NewReader(nil, 0, avro.WithReaderConfig(avroAPI)).Reset(b)
	v := r.ReadNext(c.schema)
	if r.Error != nil {
		return nil, fmt.Errorf("avro: %w", r.Error)
	}
	return appendAvroJSON(make([]byte, 0, 2*len(b)+16), c.schema, v)
}

// encode turns a JSON value into one Avro datum; a value that does not
// match the schema is a *FieldError naming where.
func (c *avroCodec) encode(js []byte) ([]byte, error) {
	v, err := decodeJSON(js)
	if err != nil {
		return nil, err
	}
	g, err := avroFromJSON(c.schema, v, "$")
	if err != nil {
		return nil, err
	}
	b, err := avroAPI.Marshal(c.schema, g)
	if err != nil {
		return nil, &FieldError{Path: "$", Msg: err.Error()}
	}
	return b, nil
}

// unionBranchName is the key hamba's generic reader gives a union branch:
// the full name of a named type, else the type and its logical type.
func unionBranchName(s avro.Schema) string {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	if n, ok := s.(avro.NamedSchema); ok {
		return n.FullName()
	}
	name := string(s.Type())
	if l, ok := s.(avro.LogicalTypeSchema); ok && l.Logical() != nil {
		name += "." + string(l.Logical().Type())
	}
	return name
}

func logicalOf(s avro.Schema) avro.LogicalType {
	if l, ok := s.(avro.LogicalTypeSchema); ok && l.Logical() != nil {
		return l.Logical().Type()
	}
	return ""
}

func decimalScale(s avro.Schema) int {
	if l, ok := s.(avro.LogicalTypeSchema); ok {
		if d, ok := l.Logical().(*avro.DecimalLogicalSchema); ok {
			return d.Scale()
		}
	}
	return 0
}

// appendAvroJSON writes v, read by hamba's generic reader with schema s,
// as JSON.
func appendAvroJSON(b []byte, s avro.Schema, v any) ([]byte, error) {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	switch s.Type() {
	case avro.Null:
		return append(b, "null"...), nil
	case avro.Boolean:
		return strconv.AppendBool(b, v.(bool)), nil
	case avro.Int, avro.Long:
		switch x := v.(type) {
		case int:
			return strconv.AppendInt(b, int64(x), 10), nil
		case int64:
			switch logicalOf(s) {
			case avro.LocalTimestampMillis:
				return appendJSONString(b, time.UnixMilli(x).UTC().Format("2006-01-02T15:04:05.000")), nil
			case avro.LocalTimestampMicros:
				return appendJSONString(b, time.UnixMicro(x).UTC().Format("2006-01-02T15:04:05.000000")), nil
			}
			return strconv.AppendInt(b, x, 10), nil
		case time.Time:
			switch logicalOf(s) {
			case avro.Date:
				return appendJSONString(b, x.UTC().Format(time.DateOnly)), nil
			case avro.TimestampMicros:
				return appendJSONString(b, x.UTC().Format("2006-01-02T15:04:05.000000Z07:00")), nil
			}
			return appendJSONString(b, x.UTC().Format("2006-01-02T15:04:05.000Z07:00")), nil
		case time.Duration:
			return appendJSONString(b, clockString(x, logicalOf(s) == avro.TimeMicros)), nil
		}
	case avro.Float:
		return appendFloat(b, float64(v.(float32)), 32), nil
	case avro.Double:
		return appendFloat(b, v.(float64), 64), nil
	case avro.String, avro.Enum:
		return appendJSONString(b, v.(string)), nil
	case avro.Bytes, avro.Fixed:
		switch x := v.(type) {
		case []byte:
			return appendJSONString(b, base64.StdEncoding.EncodeToString(x)), nil
		case *big.Rat:
			return appendJSONString(b, x.FloatString(decimalScale(s))), nil
		default: // a fixed: [n]byte
			rv := reflect.ValueOf(v)
			if rv.Kind() == reflect.Array {
				raw := make([]byte, rv.Len())
				reflect.Copy(reflect.ValueOf(raw), rv)
				return appendJSONString(b, base64.StdEncoding.EncodeToString(raw)), nil
			}
		}
	case avro.Array:
		items := s.(*avro.ArraySchema).Items()
		b = append(b, '[')
		for i, e := range v.([]any) {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendAvroJSON(b, items, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case avro.Map:
		m := v.(map[string]any)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		values := s.(*avro.MapSchema).Values()
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendJSONString(b, k), ':')
			var err error
			if b, err = appendAvroJSON(b, values, m[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case avro.Record:
		m := v.(map[string]any)
		b = append(b, '{')
		for i, f := range s.(*avro.RecordSchema).Fields() {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendJSONString(b, f.Name()), ':')
			var err error
			if b, err = appendAvroJSON(b, f.Type(), m[f.Name()]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case avro.Union:
		u := s.(*avro.UnionSchema)
		if v == nil {
			return append(b, "null"...), nil
		}
		m := v.(map[string]any)
		for _, t := range u.Types() {
			name := unionBranchName(t)
			bv, ok := m[name]
			if !ok {
				continue
			}
			if u.Nullable() {
				return appendAvroJSON(b, t, bv)
			}
			b = append(appendJSONString(append(b, '{'), name), ':')
			b, err := appendAvroJSON(b, t, bv)
			if err != nil {
				return nil, err
			}
			return append(b, '}'), nil
		}
	}
	return nil, fmt.Errorf("avro: unexpected %T for %s", v, s.Type())
}

// clockString formats a time of day (time-millis, time-micros).
func clockString(d time.Duration, micros bool) string {
	t := time.Unix(0, 0).UTC().Add(d)
	if micros {
		return t.Format("15:04:05.000000")
	}
	return t.Format("15:04:05.000")
}

func appendFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}

// avroFromJSON turns a JSON value (numbers as json.Number) into the generic
// value hamba encodes with schema s, checking it on the way; path is where
// v is, for errors.
func avroFromJSON(s avro.Schema, v any, path string) (any, error) {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	mismatch := func(want string) error { return mismatchJSON(path, v, want) }
	switch s.Type() {
	case avro.Null:
		if v != nil {
			return nil, mismatch("null")
		}
		return nil, nil
	case avro.Boolean:
		if x, ok := v.(bool); ok {
			return x, nil
		}
		return nil, mismatch("a boolean")
	case avro.Int:
		return avroIntFromJSON(s, v, path)
	case avro.Long:
		return avroLongFromJSON(s, v, path)
	case avro.Float, avro.Double:
		f, err := jsonFloat(v)
		if err != nil {
			return nil, mismatch("a number")
		}
		if s.Type() == avro.Float {
			return float32(f), nil
		}
		return f, nil
	case avro.String:
		if x, ok := v.(string); ok {
			return x, nil
		}
		return nil, mismatch("a string")
	case avro.Enum:
		x, ok := v.(string)
		if !ok {
			return nil, mismatch("a string (enum symbol)")
		}
		syms := s.(*avro.EnumSchema).Symbols()
		for _, sym := range syms {
			if sym == x {
				return x, nil
			}
		}
		return nil, &FieldError{Path: path, Msg: fmt.Sprintf("%q is not one of the enum's symbols %s", x, strings.Join(syms, ", "))}
	case avro.Bytes, avro.Fixed:
		return avroBytesFromJSON(s, v, path)
	case avro.Array:
		a, ok := v.([]any)
		if !ok {
			return nil, mismatch("an array")
		}
		items := s.(*avro.ArraySchema).Items()
		out := make([]any, len(a))
		for i, e := range a {
			g, err := avroFromJSON(items, e, path+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			out[i] = g
		}
		return out, nil
	case avro.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, mismatch("an object (map)")
		}
		values := s.(*avro.MapSchema).Values()
		out := make(map[string]any, len(m))
		for k, e := range m {
			g, err := avroFromJSON(values, e, childPath(path, k))
			if err != nil {
				return nil, err
			}
			out[k] = g
		}
		return out, nil
	case avro.Record:
		return avroRecordFromJSON(s, v, path)
	case avro.Union:
		return avroUnionFromJSON(s.(*avro.UnionSchema), v, path)
	}
	return nil, &FieldError{Path: path, Msg: "unsupported Avro type " + string(s.Type())}
}

// mismatchJSON is the error of a JSON value v at path that is not the
// wanted type.
func mismatchJSON(path string, v any, want string) error {
	return &FieldError{Path: path, Msg: fmt.Sprintf("expected %s, got %s", want, describeJSON(v))}
}

// avroIntFromJSON is an int, or a date or a time-millis as a string.
func avroIntFromJSON(s avro.Schema, v any, path string) (any, error) {
	switch logicalOf(s) {
	case avro.Date:
		if str, ok := v.(string); ok {
			t, err := time.Parse(time.DateOnly, str)
			if err != nil {
				return nil, &FieldError{Path: path, Msg: fmt.Sprintf("expected a date (2006-01-02), got %q", str)}
			}
			return t, nil
		}
	case avro.TimeMillis:
		if str, ok := v.(string); ok {
			d, err := parseClock(str)
			if err != nil {
				return nil, &FieldError{Path: path, Msg: err.Error()}
			}
			return d.Truncate(time.Millisecond), nil
		}
	}
	n, err := jsonInt(v, math.MinInt32, math.MaxInt32)
	if err != nil {
		return nil, &FieldError{Path: path, Msg: fmt.Sprintf("expected an int, got %s", err)}
	}
	return int(n), nil
}

// avroLongFromJSON is a long, or a timestamp or a time-micros as a string.
func avroLongFromJSON(s avro.Schema, v any, path string) (any, error) {
	switch logicalOf(s) {
	case avro.TimestampMillis, avro.TimestampMicros:
		if str, ok := v.(string); ok {
			t, err := time.Parse(time.RFC3339Nano, str)
			if err != nil {
				return nil, &FieldError{Path: path, Msg: fmt.Sprintf("expected an RFC 3339 timestamp, got %q", str)}
			}
			return t, nil
		}
	case avro.LocalTimestampMillis, avro.LocalTimestampMicros:
		if str, ok := v.(string); ok {
			t, err := time.Parse("2006-01-02T15:04:05.999999999", str)
			if err != nil {
				return nil, &FieldError{Path: path, Msg: fmt.Sprintf("expected a local timestamp (2006-01-02T15:04:05.000), got %q", str)}
			}
			if logicalOf(s) == avro.LocalTimestampMillis {
				return t.UnixMilli(), nil
			}
			return t.UnixMicro(), nil
		}
	case avro.TimeMicros:
		if str, ok := v.(string); ok {
			d, err := parseClock(str)
			if err != nil {
				return nil, &FieldError{Path: path, Msg: err.Error()}
			}
			return d.Truncate(time.Microsecond), nil
		}
	}
	n, err := jsonInt(v, math.MinInt64, math.MaxInt64)
	if err != nil {
		return nil, &FieldError{Path: path, Msg: fmt.Sprintf("expected a long, got %s", err)}
	}
	switch logicalOf(s) {
	case avro.TimestampMillis:
		return time.UnixMilli(n).UTC(), nil
	case avro.TimestampMicros:
		return time.UnixMicro(n).UTC(), nil
	case avro.TimeMicros:
		return time.Duration(n) * time.Microsecond, nil
	}
	return n, nil
}

// avroBytesFromJSON is bytes or fixed: base64, or a decimal number.
func avroBytesFromJSON(s avro.Schema, v any, path string) (any, error) {
	if logicalOf(s) == avro.Decimal {
		r, ok := jsonDecimal(v)
		if !ok {
			return nil, mismatchJSON(path, v, "a decimal number")
		}
		return r, nil
	}
	str, ok := v.(string)
	if !ok {
		return nil, mismatchJSON(path, v, "a base64 string")
	}
	raw, err := base64.StdEncoding.DecodeString(str)
	if err != nil {
		return nil, &FieldError{Path: path, Msg: "expected a base64 string: " + err.Error()}
	}
	if s.Type() == avro.Bytes {
		return raw, nil
	}
	size := s.(*avro.FixedSchema).Size()
	if len(raw) != size {
		return nil, &FieldError{Path: path, Msg: fmt.Sprintf("expected %d bytes (fixed), got %d", size, len(raw))}
	}
	arr := reflect.New(reflect.ArrayOf(size, reflect.TypeOf(byte(0)))).Elem()
	reflect.Copy(arr, reflect.ValueOf(raw))
	return arr.Interface(), nil
}

// avroRecordFromJSON is a record: an object with its fields, no others.
func avroRecordFromJSON(s avro.Schema, v any, path string) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, mismatchJSON(path, v, "an object (record "+s.(*avro.RecordSchema).FullName()+")")
	}
	fields := s.(*avro.RecordSchema).Fields()
	known := make(map[string]bool, len(fields))
	out := make(map[string]any, len(fields))
	for _, f := range fields {
		known[f.Name()] = true
		e, ok := m[f.Name()]
		if !ok {
			if !f.HasDefault() {
				return nil, &FieldError{Path: childPath(path, f.Name()), Msg: "missing (the field has no default)"}
			}
			// hamba writes the default of a field the map lacks.
			continue
		}
		g, err := avroFromJSON(f.Type(), e, childPath(path, f.Name()))
		if err != nil {
			return nil, err
		}
		out[f.Name()] = g
	}
	for _, k := range sortedKeys(m) {
		if !known[k] {
			return nil, &FieldError{Path: childPath(path, k), Msg: "not a field of record " + s.(*avro.RecordSchema).FullName()}
		}
	}
	return out, nil
}

// avroUnionFromJSON accepts a union value as Avro's JSON encoding writes it
// ({"branch": value}) or bare: null, or the first branch it fits.
func avroUnionFromJSON(u *avro.UnionSchema, v any, path string) (any, error) {
	types := u.Types()
	if v == nil {
		for _, t := range types {
			if t.Type() == avro.Null {
				return nil, nil
			}
		}
		return nil, &FieldError{Path: path, Msg: "expected a value, got null (the union has no null)"}
	}
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		for k, e := range m {
			for _, t := range types {
				if unionBranchName(t) == k {
					g, err := avroFromJSON(t, e, childPath(path, k))
					if err != nil {
						return nil, err
					}
					return map[string]any{k: g}, nil
				}
			}
		}
	}
	var names []string
	for _, t := range types {
		if t.Type() == avro.Null {
			continue
		}
		names = append(names, unionBranchName(t))
		if g, err := avroFromJSON(t, v, path); err == nil {
			return map[string]any{unionBranchName(t): g}, nil
		} else if len(types) == 2 && u.Nullable() {
			return nil, err // one candidate: its error is the precise one
		}
	}
	return nil, &FieldError{Path: path, Msg: fmt.Sprintf("%s fits none of the union's types (%s)", describeJSON(v), strings.Join(names, ", "))}
}

// parseClock reads HH:MM:SS[.fraction] as a time of day.
func parseClock(s string) (time.Duration, error) {
	t, err := time.Parse("15:04:05.999999999", s)
	if err != nil {
		return 0, fmt.Errorf("expected a time of day (15:04:05.000), got %q", s)
	}
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute +
		time.Duration(t.Second())*time.Second + time.Duration(t.Nanosecond()), nil
}

// jsonDecimal reads a decimal given as a JSON number or string.
func jsonDecimal(v any) (*big.Rat, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = x
	default:
		return nil, false
	}
	return new(big.Rat).SetString(s)
}
