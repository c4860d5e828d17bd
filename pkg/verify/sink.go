package verify

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// Sink receives one tool's events, in order, from any goroutine: the
// drop-in tools print them (LineWriter), `kbox verify run` feeds them to
// the streaming Checker (LogSink) and mirrors them to files (Mirror).
type Sink interface {
	// AddLine takes e, whose JSON line is line (nil: EncodeEvent(&e)).
	AddLine(e Event, line []byte)
}

// Recorder is a Sink that collects one tool's events in memory (for
// tests) and, when its writer is set, also writes them as the tool's
// JSON lines.
type Recorder struct {
	mu  sync.Mutex
	log Log
	w   io.Writer
	err error
}

// NewRecorder returns a recorder named name (used in anomaly examples),
// mirroring events to w when w is not nil.
func NewRecorder(name string, w io.Writer) *Recorder {
	return &Recorder{log: Log{Name: name}, w: w}
}

// Add records e.
func (r *Recorder) Add(e Event) { r.AddLine(e, nil) }

// AddLine records e whose JSON line is line (nil: encode e).
func (r *Recorder) AddLine(e Event, line []byte) {
	r.mu.Lock()
	r.log.Events = append(r.log.Events, e)
	if r.w != nil && r.err == nil {
		if line == nil {
			line = EncodeEvent(&e)
		}
		_, r.err = r.w.Write(line)
	}
	r.mu.Unlock()
}

// Log returns the recorded events.
func (r *Recorder) Log() *Log {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.log
	return &l
}

// Err is the first error writing the mirror.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// LineWriter is a Sink that writes the events' JSON lines to w, keeping
// nothing. It serialises lines from several goroutines and flushes them
// at least every 50 ms (Java's System.out flushes every println; a short
// delay keeps the tools fast while harnesses still tail them live).
// Write errors are ignored, as Java's System.out does.
type LineWriter struct {
	mu   sync.Mutex
	w    *bufio.Writer
	done chan struct{}
	wg   sync.WaitGroup
}

// NewLineWriter starts a LineWriter on w; Close it to flush the rest.
func NewLineWriter(w io.Writer) *LineWriter {
	lw := &LineWriter{w: bufio.NewWriterSize(w, 64<<10), done: make(chan struct{})}
	lw.wg.Add(1)
	go func() {
		defer lw.wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-lw.done:
				return
			case <-t.C:
				lw.Flush()
			}
		}
	}()
	return lw
}

// AddLine writes line (nil: EncodeEvent(&e)).
func (lw *LineWriter) AddLine(e Event, line []byte) {
	if line == nil {
		line = EncodeEvent(&e)
	}
	lw.mu.Lock()
	_, _ = lw.w.Write(line)
	lw.mu.Unlock()
}

// Flush writes out the buffered lines.
func (lw *LineWriter) Flush() {
	lw.mu.Lock()
	_ = lw.w.Flush()
	lw.mu.Unlock()
}

// Close stops the periodic flush and flushes the rest.
func (lw *LineWriter) Close() {
	close(lw.done)
	lw.wg.Wait()
	lw.Flush()
}

// EncodeEvent renders e as the JSON line the drop-in tools print.
// tool_data is rendered without its throughputs (they are not part of
// Event): the producer passes that line itself.
func EncodeEvent(e *Event) []byte {
	switch e.Name {
	case EvSendSuccess:
		return SendSuccess(e.Timestamp, e.Key, deref(e.Value), e.Topic, e.Partition, e.Offset)
	case EvSendError:
		return SendError(e.Timestamp, e.Topic, e.Key, deref(e.Value), e.Exception, e.Message)
	case EvAssigned, EvRevoked:
		tps := make([]TP, len(e.Parts))
		for i, p := range e.Parts {
			tps[i] = TP{p.Topic, p.Partition}
		}
		if e.Name == EvAssigned {
			return PartitionsAssigned(e.Timestamp, tps)
		}
		return PartitionsRevoked(e.Timestamp, tps)
	case EvRecordsConsumed:
		return RecordsConsumed(e.Timestamp, e.Count, e.Parts)
	case EvRecordData:
		return RecordData(e.Timestamp, e.Key, e.Value, e.Topic, e.Partition, e.Offset)
	case EvOffsetsCommitted:
		return OffsetsCommitted(e.Timestamp, e.Offsets, e.Error)
	case EvTxnEnd:
		return TxnEnd(e.Timestamp, e.Result, e.Values, e.Error)
	}
	return newObj(e.Timestamp, e.Name).Line()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Mirror is a Sink that writes the events' JSON lines to w through a
// buffer, keeping nothing; Flush writes the buffer out.
type Mirror struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

// NewMirror returns a mirror writing to w.
func NewMirror(w io.Writer) *Mirror { return &Mirror{w: bufio.NewWriterSize(w, 64<<10)} }

// AddLine writes line (nil: EncodeEvent(&e)).
func (m *Mirror) AddLine(e Event, line []byte) {
	if line == nil {
		line = EncodeEvent(&e)
	}
	m.mu.Lock()
	if m.err == nil {
		_, m.err = m.w.Write(line)
	}
	m.mu.Unlock()
}

// Flush writes out the buffered lines and returns the first error.
func (m *Mirror) Flush() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err == nil {
		m.err = m.w.Flush()
	}
	return m.err
}

// Tee is a Sink passing each event to every sink (nil ones skipped).
func Tee(sinks ...Sink) Sink {
	var out tee
	for _, s := range sinks {
		if s != nil && !isNilSink(s) {
			out = append(out, s)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return out
}

type tee []Sink

func (t tee) AddLine(e Event, line []byte) {
	for _, s := range t {
		s.AddLine(e, line)
	}
}

func isNilSink(s Sink) bool {
	switch v := s.(type) {
	case *Mirror:
		return v == nil
	case *Recorder:
		return v == nil
	case *LogSink:
		return v == nil
	}
	return false
}
