package verify

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"container/heap"
	"encoding/json"
	"fmt"
	"io"
)

// LogReader decodes one tool's event stream a line at a time; a gzip
// stream (detected by its magic bytes) is decompressed. Lines that are
// not JSON objects with a "name" (log lines, deprecation notices) are
// skipped, as the ducktape services do.
type LogReader struct {
	Name string
	sc   *bufio.Scanner
	gz   *gzip.Reader
}

// NewLogReader starts reading r; name is used in errors and examples.
func NewLogReader(name string, r io.Reader) (*LogReader, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	lr := &LogReader{Name: name}
	var src io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		lr.gz = gz
		src = gz
	}
	lr.sc = bufio.NewScanner(src)
	lr.sc.Buffer(make([]byte, 256<<10), 64<<20)
	return lr, nil
}

// Next decodes the next event into e; false at the end of the stream.
func (lr *LogReader) Next(e *Event) (bool, error) {
	for lr.sc.Scan() {
		line := bytes.TrimSpace(lr.sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		if !decodeFast(line, e) {
			*e = Event{}
			if err := json.Unmarshal(line, e); err != nil {
				continue
			}
		}
		if e.Name == "" {
			continue
		}
		return true, nil
	}
	if err := lr.sc.Err(); err != nil {
		return false, fmt.Errorf("%s: %v", lr.Name, err)
	}
	return false, nil
}

// ReadLog decodes a whole event stream into memory (see LogReader).
func ReadLog(name string, r io.Reader) (*Log, error) {
	lr, err := NewLogReader(name, r)
	if err != nil {
		return nil, err
	}
	l := &Log{Name: name}
	for {
		var e Event
		ok, err := lr.Next(&e)
		if err != nil {
			return nil, err
		}
		if !ok {
			return l, nil
		}
		l.Events = append(l.Events, e)
	}
}

// FeedLogs streams logs into c: each producer log in turn, then
// ProducersDone, then the consumer logs merged by timestamp (each log in
// its own order), the order Check uses. Call c.Finish for the report.
func FeedLogs(c *Checker, producers, consumers []*LogReader) error {
	for _, lr := range producers {
		s := c.Producer(lr.Name)
		for {
			var e Event
			ok, err := lr.Next(&e)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			s.Add(e)
		}
	}
	c.ProducersDone()
	h := &mergeHeap{}
	for i, lr := range consumers {
		hd := &head{idx: i, lr: lr, sink: c.Consumer(lr.Name)}
		ok, err := lr.Next(&hd.e)
		if err != nil {
			return err
		}
		if ok {
			h.items = append(h.items, hd)
		}
	}
	heap.Init(h)
	for h.Len() > 0 {
		hd := h.items[0]
		hd.sink.Add(hd.e)
		ok, err := hd.lr.Next(&hd.e)
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	return nil
}

type head struct {
	idx  int
	lr   *LogReader
	sink *LogSink
	e    Event
}

// mergeHeap orders the logs' next events by timestamp, then log.
type mergeHeap struct{ items []*head }

func (h *mergeHeap) Len() int { return len(h.items) }
func (h *mergeHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if a.e.Timestamp != b.e.Timestamp {
		return a.e.Timestamp < b.e.Timestamp
	}
	return a.idx < b.idx
}
func (h *mergeHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *mergeHeap) Push(x any)    { h.items = append(h.items, x.(*head)) }
func (h *mergeHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
