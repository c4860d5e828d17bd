package console

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/kboxdev/kbox/pkg/serde"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Decoding is how kbox consume reads keys and values (--key-format,
// --value-format, through pkg/serde) and masks JSON fields (--mask-field).
type Decoding struct {
	Decoder *serde.Decoder
	// Key and Value are the formats; "" leaves the bytes as they are
	// (masked, when Mask is set and they are a JSON object or array).
	Key, Value serde.Format
	// Mask, when set, replaces the value of every JSON field whose name
	// it matches, at any depth, with "***".
	Mask *regexp.Regexp
	// OnRaw, when set, sees each key (key true) or value that could not
	// be read as asked: it is shown raw, v.Err says why.
	OnRaw func(r *kgo.Record, key bool, v *Shown)
}

// Shown is a key or value as kbox consume shows it.
type Shown struct {
	serde.Value
	// Decoded: read with a format, Value holds the result. Otherwise Raw
	// are the bytes to show (the record's, or a masked copy).
	Decoded bool
	Raw     []byte
}

// Decoded is a record's key and value as shown.
type Decoded struct{ Key, Value Shown }

// IsNull reports whether the key or value is null.
func (s *Shown) IsNull() bool {
	if s.Decoded {
		return s.Format == serde.Null
	}
	return s.Raw == nil
}

// Bytes is what a format string or the default formatter prints: the
// decoded text (JSON, text, base64), or the raw bytes.
func (s *Shown) Bytes() []byte {
	if s.Decoded {
		if s.Format == serde.Null {
			return nil
		}
		return []byte(s.Text)
	}
	return s.Raw
}

// Decode fills out with r's key and value as shown.
func (d *Decoding) Decode(ctx context.Context, r *kgo.Record, out *Decoded) {
	out.Key = d.side(ctx, r.Key, d.Key)
	out.Value = d.side(ctx, r.Value, d.Value)
	if d.OnRaw != nil {
		if out.Key.Decoded && out.Key.Err != nil {
			d.OnRaw(r, true, &out.Key)
		}
		if out.Value.Decoded && out.Value.Err != nil {
			d.OnRaw(r, false, &out.Value)
		}
	}
}

func (d *Decoding) side(ctx context.Context, data []byte, f serde.Format) Shown {
	if f == "" {
		s := Shown{Raw: data}
		if d.Mask != nil && data != nil {
			if m, ok := MaskJSON(data, d.Mask); ok {
				s.Raw = m
			}
		}
		return s
	}
	v := d.Decoder.Decode(ctx, data, f)
	if d.Mask != nil {
		switch {
		case v.JSON != nil:
			if m, ok := MaskJSON(v.JSON, d.Mask); ok {
				v.JSON, v.Text = m, string(m)
			}
		case v.Format == serde.String:
			if m, ok := MaskJSON([]byte(v.Text), d.Mask); ok {
				v.Text = string(m)
			}
		}
	}
	return Shown{Value: v, Decoded: true}
}

// Grep reports whether re matches the key, the value (as shown) or a
// header's key or value.
func (d *Decoded) Grep(re *regexp.Regexp, r *kgo.Record) bool {
	if re.Match(d.Key.Bytes()) || re.Match(d.Value.Bytes()) {
		return true
	}
	for _, h := range r.Headers {
		if re.MatchString(h.Key) || re.Match(h.Value) {
			return true
		}
	}
	return false
}

// MaskedValue replaces a masked field's value.
const MaskedValue = `"***"`

// MaskJSON returns in, a JSON object or array, with the value of every
// field whose name re matches (at any depth) replaced by "***", compact,
// fields in their order. ok is false when in is not one JSON object or
// array, or no field matched (in is then to be shown as it is).
func MaskJSON(in []byte, re *regexp.Regexp) (out []byte, ok bool) {
	t := bytes.TrimLeft(in, " \t\r\n")
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber()
	type frame struct {
		obj       bool
		n         int
		expectKey bool
	}
	var st []frame
	masked, maskNext, skip := false, false, 0
	out = make([]byte, 0, len(in))
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		if skip > 0 { // inside a masked object or array
			if dl, isDelim := tok.(json.Delim); isDelim {
				if dl == '{' || dl == '[' {
					skip++
				} else {
					skip--
				}
			}
		} else if dl, isDelim := tok.(json.Delim); isDelim && (dl == '}' || dl == ']') {
			out = append(out, byte(dl))
			st = st[:len(st)-1]
		} else {
			if len(st) > 0 {
				f := &st[len(st)-1]
				if f.obj && f.expectKey {
					if f.n > 0 {
						out = append(out, ',')
					}
					f.n++
					key, _ := tok.(string)
					out = appendJSONString(out, key)
					out = append(out, ':')
					f.expectKey = false
					if re.MatchString(key) {
						masked, maskNext = true, true
						out = append(out, MaskedValue...)
					}
					continue
				}
				if f.obj {
					f.expectKey = true
				} else {
					if f.n > 0 {
						out = append(out, ',')
					}
					f.n++
				}
			}
			if maskNext {
				maskNext = false
				if _, isDelim := tok.(json.Delim); isDelim {
					skip = 1
				}
				continue
			}
			switch v := tok.(type) {
			case json.Delim:
				out = append(out, byte(v))
				st = append(st, frame{obj: v == '{', expectKey: v == '{'})
			case string:
				out = appendJSONString(out, v)
			case json.Number:
				out = append(out, v...)
			case bool:
				out = strconv.AppendBool(out, v)
			case nil:
				out = append(out, "null"...)
			}
		}
		if len(st) == 0 && skip == 0 {
			break
		}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false // more than one value
	}
	return out, masked
}

// appendShownField appends `,"name":…` for a key or value as shown, with
// its format, schema and error fields (see docs/json.md).
func appendShownField(dst []byte, name string, s *Shown) []byte {
	if !s.Decoded {
		return appendBytesField(dst, name, s.Raw)
	}
	extra := func(suffix string) []byte {
		dst = append(dst, ',', '"')
		dst = append(dst, name...)
		dst = append(dst, '_')
		dst = append(dst, suffix...)
		return append(dst, '"', ':')
	}
	v := &s.Value
	switch {
	case v.Format == serde.Null:
		dst = append(dst, ',', '"')
		dst = append(dst, name...)
		return append(dst, `":null`...)
	case v.JSON != nil:
		dst = append(dst, ',', '"')
		dst = append(dst, name...)
		dst = append(dst, '"', ':')
		dst = append(dst, v.JSON...)
	case v.Format == serde.Bytes:
		dst = append(dst, ',', '"')
		dst = append(dst, name...)
		dst = append(dst, '"', ':')
		dst = appendJSONString(dst, v.Text)
		dst = extra("encoding")
		dst = appendJSONString(dst, EncodingBase64)
	default: // text
		if utf8.ValidString(v.Text) {
			dst = append(dst, ',', '"')
			dst = append(dst, name...)
			dst = append(dst, '"', ':')
			dst = appendJSONString(dst, v.Text)
		} else {
			dst = append(dst, ',', '"')
			dst = append(dst, name...)
			dst = append(dst, '"', ':', '"')
			dst = base64.StdEncoding.AppendEncode(dst, []byte(v.Text))
			dst = append(dst, '"')
			dst = extra("encoding")
			dst = appendJSONString(dst, EncodingBase64)
		}
	}
	dst = extra("format")
	dst = appendJSONString(dst, string(v.Format))
	if v.SchemaID != 0 {
		dst = extra("schema_id")
		dst = strconv.AppendInt(dst, int64(v.SchemaID), 10)
		if v.Err == nil {
			dst = extra("subject")
			if v.Subject == "" {
				dst = append(dst, "null"...)
			} else {
				dst = appendJSONString(dst, v.Subject)
				dst = extra("schema_version")
				dst = strconv.AppendInt(dst, int64(v.Version), 10)
			}
		}
	}
	if v.Message != "" {
		dst = extra("message")
		dst = appendJSONString(dst, v.Message)
	}
	if v.Err != nil {
		dst = extra("error")
		dst = appendJSONString(dst, v.Err.Error())
	}
	return dst
}

// AppendDecodedJSON is AppendJSON with the key and value as shown.
func (r *Record) AppendDecodedJSON(dst []byte, d *Decoded) []byte {
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
	dst = appendShownField(dst, "key", &d.Key)
	dst = appendShownField(dst, "value", &d.Value)
	return appendHeaders(dst, r.Headers)
}

// DecodedFormatter is a Formatter that can print a record's key and value
// as shown (decoded, masked).
type DecodedFormatter interface {
	Formatter
	AppendDecoded(dst []byte, r *kgo.Record, d *Decoded) ([]byte, error)
}
