package config

import (
	"fmt"
	"os"
	"strings"
	"unicode/utf16"
)

// Properties is an ordered set of Java properties; later Set of the same key
// replaces the value but keeps the first position.
//
// The zero value is an empty set ready to use.
type Properties struct {
	keys []string
	vals map[string]string
}

// NewProperties returns an empty property set.
func NewProperties() *Properties {
	return &Properties{}
}

// PropertiesError is a syntax error found while loading properties. Its text
// is the one java.util.Properties.load uses, prefixed by the line number.
type PropertiesError struct {
	Line int    // 1-based natural line on which the logical line starts
	Msg  string // e.g. `Malformed \uxxxx encoding.`
}

func (e *PropertiesError) Error() string {
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

const malformedUnicode = `Malformed \uxxxx encoding.`

// ParseProperties parses data with the semantics of
// java.util.Properties.load(InputStream): every byte is one ISO-8859-1
// character, so non-ASCII text must be written as \uXXXX escapes (as Kafka's
// Utils.loadProps reads it).
func ParseProperties(data []byte) (*Properties, error) {
	in := make([]uint16, len(data))
	for i, b := range data {
		in[i] = uint16(b)
	}
	return parseProperties(in)
}

// ParsePropertiesString parses already-decoded text with the semantics of
// java.util.Properties.load(Reader). Invalid UTF-8 decodes as U+FFFD.
//
// In both parsers a \uXXXX escape that leaves an unpaired UTF-16 surrogate
// (legal in a Java String) yields U+FFFD.
func ParsePropertiesString(s string) (*Properties, error) {
	return parseProperties(utf16.Encode([]rune(s)))
}

// LoadPropertiesFile reads and parses a Java properties file the way Kafka's
// Utils.loadProps does (bytes decoded as ISO-8859-1).
func LoadPropertiesFile(path string) (*Properties, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read properties file %s: %w", path, err)
	}
	p, err := ParseProperties(data)
	if err != nil {
		return nil, fmt.Errorf("read properties file %s: %w", path, err)
	}
	return p, nil
}

// Get returns the value of key and whether it is set.
func (p *Properties) Get(key string) (string, bool) {
	if p == nil {
		return "", false
	}
	v, ok := p.vals[key]
	return v, ok
}

// Set sets key to value. A new key goes last; an existing one keeps its
// position.
func (p *Properties) Set(key, value string) {
	if p.vals == nil {
		p.vals = make(map[string]string)
	}
	if _, ok := p.vals[key]; !ok {
		p.keys = append(p.keys, key)
	}
	p.vals[key] = value
}

// Delete removes key, if present.
func (p *Properties) Delete(key string) {
	if p == nil {
		return
	}
	if _, ok := p.vals[key]; !ok {
		return
	}
	delete(p.vals, key)
	for i, k := range p.keys {
		if k == key {
			p.keys = append(p.keys[:i:i], p.keys[i+1:]...)
			break
		}
	}
}

// Keys returns the keys in first-insertion order. The slice is a copy.
func (p *Properties) Keys() []string {
	if p == nil || len(p.keys) == 0 {
		return nil
	}
	return append([]string(nil), p.keys...)
}

// Len returns the number of keys.
func (p *Properties) Len() int {
	if p == nil {
		return 0
	}
	return len(p.keys)
}

// Clone returns an independent copy.
func (p *Properties) Clone() *Properties {
	c := NewProperties()
	if p == nil {
		return c
	}
	c.keys = append([]string(nil), p.keys...)
	c.vals = make(map[string]string, len(p.vals))
	for k, v := range p.vals {
		c.vals[k] = v
	}
	return c
}

// Merge sets every key of other on p, in other's order; other's values win.
func (p *Properties) Merge(other *Properties) {
	if other == nil {
		return
	}
	for _, k := range other.keys {
		p.Set(k, other.vals[k])
	}
}

// Map returns the properties as a new map.
func (p *Properties) Map() map[string]string {
	m := make(map[string]string, p.Len())
	if p != nil {
		for k, v := range p.vals {
			m[k] = v
		}
	}
	return m
}

// Store formats the properties the way java.util.Properties.store(OutputStream)
// writes its entries (without the leading date comment), one "key=value" line
// per key in insertion order, each ending in "\n". Keys escape space, '=',
// ':', '#', '!', tab, newline, carriage return, form feed and backslash;
// values escape the same except that only a leading space is escaped. Every
// character outside ' '..'~' is written as \uXXXX (UTF-16, upper-case hex), so
// the result is ASCII and parses back to the same keys and values.
func (p *Properties) Store() string {
	var b strings.Builder
	for _, k := range p.Keys() {
		saveConvert(&b, k, true)
		b.WriteByte('=')
		saveConvert(&b, p.vals[k], false)
		b.WriteByte('\n')
	}
	return b.String()
}

// saveConvert is Properties.saveConvert with escapeUnicode=true.
func saveConvert(b *strings.Builder, s string, escapeSpace bool) {
	const hexDigits = "0123456789ABCDEF"
	for x, c := range utf16.Encode([]rune(s)) {
		if c > 61 && c < 127 {
			if c == '\\' {
				b.WriteString(`\\`)
			} else {
				b.WriteByte(byte(c))
			}
			continue
		}
		switch c {
		case ' ':
			if x == 0 || escapeSpace {
				b.WriteByte('\\')
			}
			b.WriteByte(' ')
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\f':
			b.WriteString(`\f`)
		case '=', ':', '#', '!':
			b.WriteByte('\\')
			b.WriteByte(byte(c))
		default:
			if c < 0x20 || c > 0x7e {
				b.WriteString(`\u`)
				b.WriteByte(hexDigits[c>>12&0xF])
				b.WriteByte(hexDigits[c>>8&0xF])
				b.WriteByte(hexDigits[c>>4&0xF])
				b.WriteByte(hexDigits[c&0xF])
			} else {
				b.WriteByte(byte(c))
			}
		}
	}
}

// parseProperties is Properties.load0 over a sequence of Java chars.
func parseProperties(in []uint16) (*Properties, error) {
	p := NewProperties()
	lr := lineReader{in: in, lineNo: 1}
	for {
		limit := lr.readLine()
		if limit < 0 {
			return p, nil
		}
		buf := lr.lineBuf[:limit]

		keyLen := 0
		valueStart := limit
		hasSep := false
		precedingBackslash := false
		for keyLen < limit {
			c := buf[keyLen]
			if (c == '=' || c == ':') && !precedingBackslash {
				valueStart = keyLen + 1
				hasSep = true
				break
			} else if (c == ' ' || c == '\t' || c == '\f') && !precedingBackslash {
				valueStart = keyLen + 1
				break
			}
			if c == '\\' {
				precedingBackslash = !precedingBackslash
			} else {
				precedingBackslash = false
			}
			keyLen++
		}
		for valueStart < limit {
			c := buf[valueStart]
			if c != ' ' && c != '\t' && c != '\f' {
				if !hasSep && (c == '=' || c == ':') {
					hasSep = true
				} else {
					break
				}
			}
			valueStart++
		}
		key, ok := loadConvert(buf[:keyLen])
		if !ok {
			return nil, &PropertiesError{Line: lr.startLine, Msg: malformedUnicode}
		}
		value, ok := loadConvert(buf[valueStart:])
		if !ok {
			return nil, &PropertiesError{Line: lr.startLine, Msg: malformedUnicode}
		}
		p.Set(key, value)
	}
}

// lineReader is Properties.LineReader (JDK 9+) over a fully read input.
type lineReader struct {
	in        []uint16
	off       int
	lineBuf   []uint16
	lineNo    int // natural line number of in[off]
	startLine int // natural line on which the last logical line started
}

// readLine reads the next logical line into lineBuf and returns its length,
// or -1 at the end of the input.
func (r *lineReader) readLine() int {
	r.lineBuf = r.lineBuf[:0]
	skipWhiteSpace := true
	appendedLineBegin := false
	precedingBackslash := false
	in := r.in

	for {
		if r.off >= len(in) {
			n := len(r.lineBuf)
			if n == 0 {
				return -1
			}
			if precedingBackslash {
				return n - 1
			}
			return n
		}
		c := in[r.off]
		r.off++

		if skipWhiteSpace {
			if c == ' ' || c == '\t' || c == '\f' {
				continue
			}
			if !appendedLineBegin && (c == '\r' || c == '\n') {
				r.newline(c)
				continue
			}
			skipWhiteSpace = false
			appendedLineBegin = false
		}
		if len(r.lineBuf) == 0 {
			r.startLine = r.lineNo
			if c == '#' || c == '!' {
				// A comment: consume the rest of the natural line. It never
				// continues, whatever it ends with.
				for {
					if r.off >= len(in) {
						return -1
					}
					b := in[r.off]
					r.off++
					if b == '\r' || b == '\n' {
						r.newline(b)
						break
					}
				}
				skipWhiteSpace = true
				continue
			}
		}

		if c != '\n' && c != '\r' {
			r.lineBuf = append(r.lineBuf, c)
			precedingBackslash = c == '\\' && !precedingBackslash
			continue
		}

		// End of a natural line.
		r.newline(c)
		n := len(r.lineBuf)
		if n == 0 {
			skipWhiteSpace = true
			continue
		}
		if r.off >= len(in) {
			if precedingBackslash {
				return n - 1
			}
			return n
		}
		if !precedingBackslash {
			return n
		}
		// An odd number of backslashes: the backslash is not part of the
		// line, which continues on the next natural line after its
		// leading whitespace.
		r.lineBuf = r.lineBuf[:n-1]
		skipWhiteSpace = true
		appendedLineBegin = true
		precedingBackslash = false
		if c == '\r' && in[r.off] == '\n' {
			r.off++
		}
	}
}

// newline counts a natural line end; a '\n' right after '\r' is the same one.
func (r *lineReader) newline(c uint16) {
	if c == '\n' && r.off >= 2 && r.in[r.off-2] == '\r' {
		return
	}
	r.lineNo++
}

// loadConvert is Properties.loadConvert: it decodes escapes and returns false
// for a malformed \uXXXX escape.
func loadConvert(in []uint16) (string, bool) {
	out := make([]uint16, 0, len(in))
	for i := 0; i < len(in); {
		c := in[i]
		i++
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i >= len(in) {
			// Not produced by readLine/load0 (a trailing unescaped
			// backslash is removed); keep Java's outcome of dropping it.
			break
		}
		c = in[i]
		i++
		switch c {
		case 'u':
			if i > len(in)-4 {
				return "", false
			}
			var v uint16
			for k := 0; k < 4; k++ {
				d := in[i]
				i++
				switch {
				case d >= '0' && d <= '9':
					v = v<<4 + d - '0'
				case d >= 'a' && d <= 'f':
					v = v<<4 + 10 + d - 'a'
				case d >= 'A' && d <= 'F':
					v = v<<4 + 10 + d - 'A'
				default:
					return "", false
				}
			}
			out = append(out, v)
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'n':
			out = append(out, '\n')
		case 'f':
			out = append(out, '\f')
		default:
			out = append(out, c)
		}
	}
	return string(utf16.Decode(out)), true
}
