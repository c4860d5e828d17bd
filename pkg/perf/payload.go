package perf

import "strconv"

// Payloads hands out record values for native runs. By default every record
// gets a distinct value: a window of a shared random A-Z buffer at an
// offset that advances by a prime stride, so compression sees realistic,
// non-repeating data at no per-record cost. Values are read-only slices of
// the buffer and stay valid while the client holds them.
type Payloads struct {
	buf    []byte
	size   int
	span   int64
	repeat bool
}

const payloadStride = 7919

// NewPayloads builds the source for size-byte values. repeat gives every
// record the same value (what Apache 2.x did).
func NewPayloads(size int, seed int64, repeat bool) *Payloads {
	n := max(8<<20, 4*size)
	if repeat {
		n = size
	}
	buf := make([]byte, n)
	NewSplittableRandom(seed).FillUpper(buf)
	return &Payloads{buf: buf, size: size, span: int64(n - size + 1), repeat: repeat}
}

// Value returns the value of record i.
func (p *Payloads) Value(i int64) []byte {
	if p.repeat {
		return p.buf[:p.size]
	}
	off := (i * payloadStride) % p.span
	return p.buf[off : off+int64(p.size) : off+int64(p.size)]
}

// Distinct is how many distinct values the source yields before repeating.
func (p *Payloads) Distinct() int64 {
	if p.repeat {
		return 1
	}
	return p.span
}

// Keys precomputes K decimal keys "0".."K-1" (nil when K <= 0).
func Keys(k int) [][]byte { return KeyRange(0, k) }

// KeyRange is the k keys first, first+1, ... (decimal): disjoint ranges
// give each agent of a distributed run its own keys.
func KeyRange(first int64, k int) [][]byte {
	if k <= 0 {
		return nil
	}
	out := make([][]byte, k)
	for i := range out {
		out[i] = strconv.AppendInt(nil, first+int64(i), 10)
	}
	return out
}
