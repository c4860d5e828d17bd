package console

import (
	"math/bits"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// RecordPool is a kgo.PoolRecords: the client decodes each fetched batch
// into a []kgo.Record taken from it, and a Consumer with Recycle set gives
// every record back once written, so a long run reuses a few slices
// instead of allocating (and collecting) one per batch. Slices are kept in
// power-of-two size classes. Use it with kgo.WithPools.
type RecordPool struct {
	classes [33]sync.Pool // class c holds slices of capacity 1<<c
}

// GetRecords returns an empty slice with capacity >= n.
func (p *RecordPool) GetRecords(n int) []kgo.Record {
	if n <= 0 {
		return nil
	}
	c := bits.Len(uint(n - 1))
	if c >= len(p.classes) {
		return make([]kgo.Record, 0, n)
	}
	if s, ok := p.classes[c].Get().(*[]kgo.Record); ok {
		return (*s)[:0]
	}
	return make([]kgo.Record, 0, 1<<c)
}

// PutRecords takes back a slice whose records were all recycled (kgo
// zeroes each record on Recycle).
func (p *RecordPool) PutRecords(s []kgo.Record) {
	n := cap(s)
	if n == 0 {
		return
	}
	c := bits.Len(uint(n)) - 1 // the class whose size it covers
	if c >= len(p.classes) {
		return
	}
	s = s[:0]
	p.classes[c].Put(&s)
}
