package console

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// LineReaderConfig is the configuration of Kafka's LineMessageReader (the
// console producer's default --line-reader), built from its reader
// properties with NewLineReaderConfig.
type LineReaderConfig struct {
	Topic               string
	ParseKey            bool
	KeySeparator        string
	ParseHeaders        bool
	HeadersDelimiter    string
	HeadersSeparator    string // a regular expression, as in Java's Pattern.split
	HeadersKeySeparator string
	IgnoreError         bool
	NullMarker          *string // nil: no null marker

	headersSep *regexp.Regexp
}

// ReaderError is an exception LineMessageReader throws: Class is the Java
// class the Apache tool names when it prints the stack trace.
type ReaderError struct {
	Class string
	Msg   string
}

func (e *ReaderError) Error() string { return e.Msg }

func kafkaError(format string, a ...any) error {
	return &ReaderError{Class: "org.apache.kafka.common.KafkaException", Msg: fmt.Sprintf(format, a...)}
}

// NewLineReaderConfig is LineMessageReader.configure: props are the
// reader properties (--reader-config, then "topic", then --reader-property).
func NewLineReaderConfig(props map[string]string) (*LineReaderConfig, error) {
	c := &LineReaderConfig{
		Topic:               props["topic"],
		KeySeparator:        "\t",
		HeadersDelimiter:    "\t",
		HeadersSeparator:    ",",
		HeadersKeySeparator: ":",
	}
	isTrue := func(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "true") }
	if v, ok := props["parse.key"]; ok {
		c.ParseKey = isTrue(v)
	}
	if v, ok := props["key.separator"]; ok {
		c.KeySeparator = v
	}
	if v, ok := props["parse.headers"]; ok {
		c.ParseHeaders = isTrue(v)
	}
	if v, ok := props["headers.delimiter"]; ok {
		c.HeadersDelimiter = v
	}
	if v, ok := props["headers.separator"]; ok {
		c.HeadersSeparator = v
	}
	re, err := regexp.Compile(c.HeadersSeparator)
	if err != nil {
		return nil, &ReaderError{Class: "java.util.regex.PatternSyntaxException", Msg: fmt.Sprintf("headers.separator %q: %v", c.HeadersSeparator, err)}
	}
	c.headersSep = re
	if v, ok := props["headers.key.separator"]; ok {
		c.HeadersKeySeparator = v
	}
	if v, ok := props["ignore.error"]; ok {
		c.IgnoreError = isTrue(v)
	}
	switch {
	case c.HeadersDelimiter == c.HeadersSeparator:
		return nil, kafkaError("headers.delimiter and headers.separator may not be equal")
	case c.HeadersDelimiter == c.HeadersKeySeparator:
		return nil, kafkaError("headers.delimiter and headers.key.separator may not be equal")
	case c.HeadersSeparator == c.HeadersKeySeparator:
		return nil, kafkaError("headers.separator and headers.key.separator may not be equal")
	}
	if v, ok := props["null.marker"]; ok {
		c.NullMarker = &v
		switch v {
		case c.KeySeparator:
			return nil, kafkaError("null.marker and key.separator may not be equal")
		case c.HeadersSeparator:
			return nil, kafkaError("null.marker and headers.separator may not be equal")
		case c.HeadersDelimiter:
			return nil, kafkaError("null.marker and headers.delimiter may not be equal")
		case c.HeadersKeySeparator:
			return nil, kafkaError("null.marker and headers.key.separator may not be equal")
		}
	}
	return c, nil
}

// LineReader reads records from text lines as LineMessageReader does:
// lines end at \n, \r or \r\n; bytes that are not UTF-8 become U+FFFD (one
// per maximal invalid subsequence, as Java's decoder does).
type LineReader struct {
	cfg  *LineReaderConfig
	in   lineSplitter
	line int
	// Prompt, when set, is called before each line is read (the Apache
	// tool prints ">" when it runs on a console).
	Prompt func()
}

// NewLineReader returns a reader of r's lines.
func NewLineReader(cfg *LineReaderConfig, r io.Reader) *LineReader {
	return &LineReader{cfg: cfg, in: lineSplitter{r: bufio.NewReaderSize(r, 64<<10)}}
}

// LineNumber is the number of the last line read (1-based).
func (lr *LineReader) LineNumber() int { return lr.line }

// Next returns the next record, io.EOF at the end of the input, or the
// reader's error for a line it cannot parse. The record's partition,
// offset and timestamp are -1 (the producer chooses).
func (lr *LineReader) Next() (Record, error) {
	lr.line++
	if lr.Prompt != nil {
		lr.Prompt()
	}
	raw, err := lr.in.next()
	if err != nil {
		return Record{}, err
	}
	return lr.cfg.ParseLine(javaString(raw), lr.line)
}

// ParseLine turns one line (without its terminator, valid UTF-8) into a
// record; lineNumber appears in errors.
func (c *LineReaderConfig) ParseLine(line string, lineNumber int) (Record, error) {
	rec := Record{Topic: c.Topic, Partition: -1, Offset: -1, Timestamp: -1}
	headers, ok, err := c.field(c.ParseHeaders, line, 0, c.HeadersDelimiter, "headers delimiter", lineNumber)
	if err != nil {
		return rec, err
	}
	headerOffset := 0
	if ok {
		headerOffset = len(headers) + len(c.HeadersDelimiter)
	}
	key, keyOK, err := c.field(c.ParseKey, line, headerOffset, c.KeySeparator, "key separator", lineNumber)
	if err != nil {
		return rec, err
	}
	keyOffset := 0
	if keyOK {
		keyOffset = len(key) + len(c.KeySeparator)
	}
	value := line[headerOffset+keyOffset:]
	if keyOK && !c.isNull(key) {
		rec.Key = []byte(key)
	}
	if !c.isNull(value) {
		rec.Value = []byte(value)
	}
	if ok && !c.isNull(headers) {
		for _, pair := range javaSplit(c.headersSep, headers) {
			i := strings.Index(pair, c.HeadersKeySeparator)
			if i < 0 {
				if c.IgnoreError {
					rec.Headers = append(rec.Headers, Header{Key: pair})
					continue
				}
				return rec, kafkaError("No header key separator found in pair '%s' on line number %d", pair, lineNumber)
			}
			hk := pair[:i]
			if c.isNull(hk) {
				return rec, kafkaError("Header keys should not be equal to the null marker '%s' as they can't be null", *c.NullMarker)
			}
			hv := pair[i+len(c.HeadersKeySeparator):]
			h := Header{Key: hk}
			if !c.isNull(hv) {
				h.Value = []byte(hv)
			}
			rec.Headers = append(rec.Headers, h)
		}
	}
	return rec, nil
}

func (c *LineReaderConfig) isNull(s string) bool { return c.NullMarker != nil && s == *c.NullMarker }

// field is LineMessageReader.parse: the text from start to the next
// demarcation; ok is false when the field is not parsed (disabled, or
// missing with ignore.error).
func (c *LineReaderConfig) field(enabled bool, line string, start int, demarcation, name string, lineNumber int) (string, bool, error) {
	if !enabled {
		return "", false, nil
	}
	i := -1
	if start <= len(line) {
		i = strings.Index(line[start:], demarcation)
	}
	if i < 0 {
		if c.IgnoreError {
			return "", false, nil
		}
		return "", false, kafkaError("No %s found on line number %d: '%s'", name, lineNumber, line)
	}
	return line[start : start+i], true, nil
}

// javaSplit is Pattern.split(input) (limit 0): no match gives the input
// itself; a zero-width match at the start gives no leading empty string;
// trailing empty strings are removed.
func javaSplit(re *regexp.Regexp, s string) []string {
	matches := re.FindAllStringIndex(s, -1)
	if len(matches) == 0 {
		return []string{s}
	}
	var out []string
	from := 0
	for _, m := range matches {
		if m[0] == 0 && m[1] == 0 {
			continue
		}
		out = append(out, s[from:m[0]])
		from = m[1]
	}
	out = append(out, s[from:])
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// lineSplitter is BufferedReader.readLine on bytes: a line ends at \n, \r
// or \r\n; the last line needs no terminator; io.EOF when nothing is left.
type lineSplitter struct {
	r      *bufio.Reader
	skipLF bool // the last line ended with \r: a \n next is its terminator
}

func (s *lineSplitter) next() ([]byte, error) {
	if s.skipLF {
		s.skipLF = false
		if b, err := s.r.Peek(1); err == nil && b[0] == '\n' {
			_, _ = s.r.Discard(1)
		}
	}
	var line []byte
	consumed := false
	for {
		if _, err := s.r.Peek(1); err != nil {
			if !errors.Is(err, io.EOF) {
				return nil, err
			}
			if !consumed {
				return nil, io.EOF
			}
			return line, nil
		}
		data, _ := s.r.Peek(s.r.Buffered())
		consumed = true
		if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
			line = append(line, data[:i]...)
			s.skipLF = data[i] == '\r'
			_, _ = s.r.Discard(i + 1)
			return line, nil
		}
		line = append(line, data...)
		_, _ = s.r.Discard(len(data))
	}
}

// javaString decodes b as Java's UTF-8 decoder with REPLACE does: each
// maximal invalid subsequence becomes one U+FFFD.
func javaString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r != utf8.RuneError || n > 1 {
			sb.Write(b[:n])
			b = b[n:]
			continue
		}
		sb.WriteRune(utf8.RuneError)
		b = b[maximalSubpart(b):]
	}
	return sb.String()
}

// maximalSubpart is the length of the invalid sequence at the start of b
// (at least 1): a lead byte and the continuation bytes that could still
// have completed it (Unicode's "maximal subpart" practice, which Java's
// decoder follows, except that it takes an encoded surrogate whole).
func maximalSubpart(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEF:
		// Java takes a surrogate's encoding (ED A0..BF ..) as one
		// malformed sequence.
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	default:
		return 1
	}
	n := 1
	for i := 1; i <= need && i < len(b); i++ {
		if b[i] < lo || b[i] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
		n++
	}
	return n
}
