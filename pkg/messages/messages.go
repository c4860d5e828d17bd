// Package messages reads one page of a topic's records, bounded in
// records, bytes and records scanned, decoded and masked as kbox consume
// shows them (pkg/console's Decoding over pkg/serde). It is the Messages
// page of kbox ui; it prints nothing.
//
// A page is read with Fetch requests of its own on the client it is given
// (no consumer state, no group): any number of pages may be read at once
// on one client, and memory is bounded by the page, not by the topic.
package messages

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/pkg/console"
	"github.com/kboxdev/kbox/pkg/serde"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Start is where a page begins.
type Start string

// The starts. Newest reads backwards from the end: the newest records
// first, the next page older ones. The others read forwards.
const (
	Newest    Start = "newest"
	Oldest    Start = "oldest"
	Offset    Start = "offset"
	Timestamp Start = "timestamp"
)

// ParseStart reads a start name.
func ParseStart(s string) (Start, error) {
	switch st := Start(s); st {
	case Newest, Oldest, Offset, Timestamp:
		return st, nil
	}
	return "", fmt.Errorf("start %q: want newest, oldest, offset or timestamp", s)
}

// The bounds of a page.
const (
	// DefaultLimit and MaxLimit are the records of a page.
	DefaultLimit = 50
	MaxLimit     = 500
	// MaxBytes is the byte cap of a page: the keys, values and headers
	// it holds, and each Fetch request's max bytes (a broker answers at
	// least one whole batch, however large).
	MaxBytes = 1 << 20
	// FieldBytes is how much of a key, value or header value a page
	// shows; the rest is cut (Field.Truncated).
	FieldBytes = 16 << 10
	// DefaultScan and MaxScan bound the records a filtered page examines.
	DefaultScan = 10_000
	MaxScan     = 200_000
)

// Request is one page to read.
type Request struct {
	Topic string
	// Partitions to read; none: all.
	Partitions []int32
	Start      Start
	// Offset is the first offset of Start offset (per partition).
	Offset int64
	// TimestampMs is the time of Start timestamp: each partition from
	// its first record at or after it.
	TimestampMs int64
	// Cursor, from a previous page's Next, continues it (Start says in
	// which direction).
	Cursor string
	// Limit is the records of the page (DefaultLimit when 0).
	Limit int
	// Key and Value keep only records whose key or value, as shown
	// (decoded, masked), contains the text (case-insensitive).
	Key, Value string
	// Header keeps only records with a header NAME (the name exactly),
	// or, as NAME=TEXT (cut at the first '='), a header NAME whose value
	// as shown (text, or base64 when not printable UTF-8) contains TEXT
	// (case-insensitive). Any one matching header is enough.
	Header string
	// From and To keep only records whose timestamp is in [From, To):
	// From inclusive, To exclusive (Unix milliseconds; nil: unbounded).
	// Records outside are skipped, and count as scanned.
	From, To *int64
	// Scan bounds the records examined (DefaultScan when 0).
	Scan int
	// Decoding decodes and masks keys and values (nil: auto, no
	// registry, no mask).
	Decoding *console.Decoding
}

// Field is a key, value or header value as shown.
type Field struct {
	// Text is the text shown (null: the record has none).
	Text *string `json:"text"`
	// Format is how it was read (auto's outcome: avro, protobuf,
	// json-schema, string or bytes; base64 text for bytes).
	Format   string `json:"format"`
	SchemaID int    `json:"schema_id,omitempty"`
	Subject  string `json:"subject,omitempty"`
	// Error is why a value is shown raw.
	Error     string `json:"error,omitempty"`
	SizeBytes int    `json:"size_bytes"`
	Truncated bool   `json:"truncated,omitempty"`
}

// Header is a record header.
type Header struct {
	Key   string `json:"key"`
	Value Field  `json:"value"`
}

// Message is one record of a page.
type Message struct {
	Partition   int32    `json:"partition"`
	Offset      int64    `json:"offset"`
	TimestampMs int64    `json:"timestamp_ms"`
	Key         Field    `json:"key"`
	Value       Field    `json:"value"`
	Headers     []Header `json:"headers"`
}

// PartitionRange is a partition's offsets when the page was read.
type PartitionRange struct {
	Partition   int32 `json:"partition"`
	StartOffset int64 `json:"start_offset"`
	EndOffset   int64 `json:"end_offset"`
}

// Why a page ended.
const (
	StopLimit = "limit"      // it holds Limit records
	StopEnd   = "end"        // nothing more to read in its direction
	StopScan  = "scan_limit" // Scan records examined
	StopBytes = "bytes"      // MaxBytes reached
)

// Page is a page of records.
type Page struct {
	Topic    string    `json:"topic"`
	Start    Start     `json:"start"`
	Messages []Message `json:"messages"`
	// Scanned is the records examined (more than Messages when filtered).
	Scanned int `json:"scanned"`
	// Bytes is the page's keys, values and headers as read.
	Bytes int `json:"bytes"`
	// Stopped says why the page ended: limit, end, scan_limit or bytes.
	Stopped string `json:"stopped"`
	// Next continues the page (empty at the end).
	Next       string           `json:"next"`
	Partitions []PartitionRange `json:"partitions"`
}

// badRequest is an error in the request itself.
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

// IsBadRequest reports whether err is about the request, not the cluster.
func IsBadRequest(err error) bool {
	var b *badRequest
	return errors.As(err, &b)
}

func badf(format string, a ...any) error { return &badRequest{fmt.Sprintf(format, a...)} }

// check validates the request's own fields and fills in the defaults.
func (r *Request) check() error {
	if r.Topic == "" {
		return badf("topic: a name is needed")
	}
	if r.Start == "" {
		r.Start = Newest
	}
	if _, err := ParseStart(string(r.Start)); err != nil {
		return badf("%s", err)
	}
	if r.Limit == 0 {
		r.Limit = DefaultLimit
	}
	if r.Limit < 1 || r.Limit > MaxLimit {
		return badf("limit %d: want 1 to %d", r.Limit, MaxLimit)
	}
	if r.Scan == 0 {
		r.Scan = DefaultScan
	}
	if r.Scan < 1 || r.Scan > MaxScan {
		return badf("scan %d: want 1 to %d", r.Scan, MaxScan)
	}
	if r.From != nil && r.To != nil && *r.From >= *r.To {
		return badf("from %d is not before to %d: the range [from, to) is empty", *r.From, *r.To)
	}
	if r.Offset < 0 {
		return badf("offset %d: must not be negative", r.Offset)
	}
	if r.Decoding == nil {
		r.Decoding = &console.Decoding{Decoder: &serde.Decoder{}, Key: serde.Auto, Value: serde.Auto}
	}
	return nil
}

// ParseCursor reads a cursor: "P:O,P:O" (partition: offset).
func ParseCursor(s string) (map[int32]int64, error) {
	out := map[int32]int64{}
	if s == "" {
		return out, nil
	}
	for _, kv := range strings.Split(s, ",") {
		p, o, ok := strings.Cut(kv, ":")
		pn, err1 := strconv.ParseInt(p, 10, 32)
		on, err2 := strconv.ParseInt(o, 10, 64)
		if !ok || err1 != nil || err2 != nil || pn < 0 || on < 0 {
			return nil, badf("cursor: %q is not partition:offset", kv)
		}
		out[int32(pn)] = on
	}
	return out, nil
}

func formatCursor(m map[int32]int64) string {
	ps := make([]int32, 0, len(m))
	for p := range m {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(p)))
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(m[p], 10))
	}
	return b.String()
}

// page is a page being read.
type page struct {
	req      *Request
	out      *Page
	key, val string // lower-cased filters
	// hdr: a header filter is set; hdrName the header, hdrVal the
	// lower-cased text its value must contain ("" when any).
	hdr             bool
	hdrName, hdrVal string
}

func newPage(req *Request) *page {
	pg := &page{req: req, out: &Page{Topic: req.Topic, Start: req.Start, Messages: []Message{}, Partitions: []PartitionRange{}},
		key: strings.ToLower(req.Key), val: strings.ToLower(req.Value), hdr: req.Header != ""}
	name, val, _ := strings.Cut(req.Header, "=")
	pg.hdrName, pg.hdrVal = name, strings.ToLower(val)
	return pg
}

// filtered reports whether the page skips some records.
func (pg *page) filtered() bool {
	return pg.key != "" || pg.val != "" || pg.hdr || pg.req.From != nil || pg.req.To != nil
}

// keepRaw applies the filters that need no decoding: the time range and
// the header.
func (pg *page) keepRaw(r *kgo.Record) bool {
	ts := r.Timestamp.UnixMilli()
	if (pg.req.From != nil && ts < *pg.req.From) || (pg.req.To != nil && ts >= *pg.req.To) {
		return false
	}
	if !pg.hdr {
		return true
	}
	for _, h := range r.Headers {
		if h.Key != pg.hdrName {
			continue
		}
		if pg.hdrVal == "" || strings.Contains(strings.ToLower(headerText(h.Value)), pg.hdrVal) {
			return true
		}
	}
	return false
}

// take examines one record: it is scanned, and kept when it passes the
// filters. It reports whether the page can take more.
func (pg *page) take(ctx context.Context, r *kgo.Record) {
	pg.out.Scanned++
	if !pg.keepRaw(r) {
		return
	}
	var d console.Decoded
	pg.req.Decoding.Decode(ctx, r, &d)
	if pg.key != "" && !strings.Contains(strings.ToLower(shownText(&d.Key)), pg.key) {
		return
	}
	if pg.val != "" && !strings.Contains(strings.ToLower(shownText(&d.Value)), pg.val) {
		return
	}
	m := Message{Partition: r.Partition, Offset: r.Offset, TimestampMs: r.Timestamp.UnixMilli(),
		Key: field(&d.Key, len(r.Key)), Value: field(&d.Value, len(r.Value)), Headers: []Header{}}
	size := len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		m.Headers = append(m.Headers, Header{Key: h.Key, Value: rawField(h.Value)})
		size += len(h.Key) + len(h.Value)
	}
	pg.out.Messages = append(pg.out.Messages, m)
	pg.out.Bytes += size
}

// full reports why the page can take no more ("" while it can).
func (pg *page) full() string {
	switch {
	case len(pg.out.Messages) >= pg.req.Limit:
		return StopLimit
	case pg.out.Bytes >= MaxBytes:
		return StopBytes
	case pg.out.Scanned >= pg.req.Scan:
		return StopScan
	}
	return ""
}

func shownText(s *console.Shown) string {
	if s.IsNull() {
		return ""
	}
	return string(s.Bytes())
}

// field is a decoded key or value as a page shows it.
func field(s *console.Shown, size int) Field {
	f := Field{Format: string(s.Format), SchemaID: s.SchemaID, Subject: s.Subject, SizeBytes: size}
	if s.Err != nil {
		f.Error = s.Err.Error()
	}
	if s.IsNull() {
		f.Format = string(serde.Null)
		return f
	}
	text := s.Text
	if !s.Decoded {
		return rawField(s.Raw)
	}
	f.Text, f.Truncated = cut(text)
	return f
}

// headerText is a header value's text as shown, uncut ("" when null).
func headerText(b []byte) string {
	if b == nil {
		return ""
	}
	return (&serde.Decoder{}).Decode(context.Background(), b, serde.Auto).Text
}

// rawField is bytes shown as auto shows an unframed value: text when
// printable UTF-8, else base64.
func rawField(b []byte) Field {
	if b == nil {
		return Field{Format: string(serde.Null)}
	}
	v := (&serde.Decoder{}).Decode(context.Background(), b, serde.Auto)
	f := Field{Format: string(v.Format), SizeBytes: len(b)}
	f.Text, f.Truncated = cut(v.Text)
	return f
}

// cut keeps FieldBytes of text, on a rune boundary.
func cut(s string) (*string, bool) {
	if len(s) <= FieldBytes {
		return &s, false
	}
	n := FieldBytes
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	t := s[:n]
	return &t, true
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
