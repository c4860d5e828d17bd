package segment

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// CorruptError is Kafka's CorruptRecordException: the file cannot be read
// on from here.
type CorruptError struct{ Msg string }

func (e *CorruptError) Error() string { return e.Msg }

// Scanner streams the batches of a segment file between two positions, as
// Kafka's FileLogInputStream does: it stops quietly at a batch that does
// not fit before the end (the tool then reports trailing bytes) and fails
// on a size smaller than any record. Only the current batch is in memory.
type Scanner struct {
	name     string
	br       *bufio.Reader
	pos, end int64
	buf      []byte
	batch    Batch
	err      error
}

// NewScanner reads r (a file named name in messages) from start to end.
func NewScanner(r io.ReaderAt, name string, start, end int64) *Scanner {
	return &Scanner{
		name: name,
		br:   bufio.NewReaderSize(io.NewSectionReader(r, start, end-start), 1<<16),
		pos:  start, end: end,
	}
}

// Next reads the next batch; false at the end or on an error (Err).
func (s *Scanner) Next() bool {
	if s.err != nil || s.pos >= s.end-headerUpToMagic {
		return false
	}
	head, err := s.br.Peek(headerUpToMagic)
	if err != nil {
		s.err = err
		return false
	}
	size := int32(binary.BigEndian.Uint32(head[8:]))
	magic := int8(head[16])
	if size < minRecordOverhead {
		s.err = &CorruptError{Msg: fmt.Sprintf("Found record size %d smaller than minimum record overhead (%d) in file %s.", size, minRecordOverhead, s.name)}
		return false
	}
	total := int64(size) + logOverhead
	if s.pos > s.end-total {
		return false
	}
	if int64(cap(s.buf)) < total {
		s.buf = make([]byte, total)
	}
	s.buf = s.buf[:total]
	if _, err := io.ReadFull(s.br, s.buf); err != nil {
		s.err = err
		return false
	}
	s.batch = Batch{Position: s.pos, Raw: s.buf, Magic: magic}
	s.pos += total
	return true
}

// Batch is the batch Next read; its bytes are reused by the next call.
func (s *Scanner) Batch() *Batch { return &s.batch }

// Err is the error that ended the scan, nil at a clean end.
func (s *Scanner) Err() error { return s.err }

// FirstBatch reads the batch at position pos (nil when none fits before
// end): what an index entry points at.
func FirstBatch(r io.ReaderAt, name string, pos, end int64) (*Batch, error) {
	s := NewScanner(r, name, pos, end)
	if s.Next() {
		b := *s.Batch()
		return &b, nil
	}
	return nil, s.Err()
}
