package console

import (
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/kgo"
)

// FormatHelp documents the verbs of a format string (kbox consume -f).
const FormatHelp = `Format string verbs (kcat-like):
  %t  topic            %p  partition        %o  offset
  %k  key              %v  value (also %s)  %h  headers as k=v,k=v
  %K  key length       %V  value length (also %S); -1 for null
  %T  timestamp (Unix ms)                   %Y  timestamp type
  %%  a percent sign
Escapes: \n newline, \t tab, \r carriage return, \0 NUL, \\ backslash.
A null key, value or header value prints as nothing. Bytes are written as they are.`

type fmtPart struct {
	lit  []byte
	verb byte // 0: literal
}

// FormatString is a compiled -f format.
type FormatString struct{ parts []fmtPart }

// CompileFormat parses a format string (see FormatHelp).
func CompileFormat(s string) (*FormatString, error) {
	f := &FormatString{}
	var lit []byte
	flush := func() {
		if len(lit) > 0 {
			f.parts = append(f.parts, fmtPart{lit: lit})
			lit = nil
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("format %q: trailing backslash", s)
			}
			i++
			switch s[i] {
			case 'n':
				lit = append(lit, '\n')
			case 't':
				lit = append(lit, '\t')
			case 'r':
				lit = append(lit, '\r')
			case '0':
				lit = append(lit, 0)
			case '\\':
				lit = append(lit, '\\')
			default:
				return nil, fmt.Errorf("format %q: unknown escape \\%c (want \\n, \\t, \\r, \\0 or \\\\)", s, s[i])
			}
		case '%':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("format %q: trailing %%", s)
			}
			i++
			v := s[i]
			switch v {
			case '%':
				lit = append(lit, '%')
			case 's':
				flush()
				f.parts = append(f.parts, fmtPart{verb: 'v'})
			case 'S':
				flush()
				f.parts = append(f.parts, fmtPart{verb: 'V'})
			case 't', 'p', 'o', 'k', 'v', 'h', 'K', 'V', 'T', 'Y':
				flush()
				f.parts = append(f.parts, fmtPart{verb: v})
			default:
				return nil, fmt.Errorf("format %q: unknown verb %%%c (see kbox consume --help)", s, v)
			}
		default:
			lit = append(lit, c)
		}
	}
	flush()
	return f, nil
}

func appendLen(dst, b []byte) []byte {
	if b == nil {
		return append(dst, "-1"...)
	}
	return strconv.AppendInt(dst, int64(len(b)), 10)
}

// Append implements Formatter.
func (f *FormatString) Append(dst []byte, r *kgo.Record) ([]byte, error) {
	return f.AppendDecoded(dst, r, nil)
}

// AppendDecoded implements DecodedFormatter: %k, %v, %K and %V are the key
// and value as shown (d nil: the record's bytes).
func (f *FormatString) AppendDecoded(dst []byte, r *kgo.Record, d *Decoded) ([]byte, error) {
	key, value := r.Key, r.Value
	if d != nil {
		key, value = d.Key.Bytes(), d.Value.Bytes()
	}
	for _, p := range f.parts {
		switch p.verb {
		case 0:
			dst = append(dst, p.lit...)
		case 't':
			dst = append(dst, r.Topic...)
		case 'p':
			dst = strconv.AppendInt(dst, int64(r.Partition), 10)
		case 'o':
			dst = strconv.AppendInt(dst, r.Offset, 10)
		case 'k':
			dst = append(dst, key...)
		case 'v':
			dst = append(dst, value...)
		case 'K':
			dst = appendLen(dst, key)
		case 'V':
			dst = appendLen(dst, value)
		case 'T':
			dst = strconv.AppendInt(dst, r.Timestamp.UnixMilli(), 10)
		case 'Y':
			dst = append(dst, TimestampTypeName(r.Attrs.TimestampType())...)
		case 'h':
			for i, h := range r.Headers {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, h.Key...)
				dst = append(dst, '=')
				dst = append(dst, h.Value...)
			}
		}
	}
	return dst, nil
}

// JSONFormatter writes each record as one line of the shared JSON schema.
type JSONFormatter struct{}

// Append implements Formatter.
func (JSONFormatter) Append(dst []byte, r *kgo.Record) ([]byte, error) {
	rec := FromKgo(r)
	dst = rec.AppendJSON(dst)
	return append(dst, '\n'), nil
}

// AppendDecoded implements DecodedFormatter.
func (JSONFormatter) AppendDecoded(dst []byte, r *kgo.Record, d *Decoded) ([]byte, error) {
	rec := FromKgo(r)
	dst = rec.AppendDecodedJSON(dst, d)
	return append(dst, '\n'), nil
}
