package segment

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Index is an offset index (.index, 8-byte entries: relative offset,
// position) or a time index (.timeindex, 12-byte entries: timestamp,
// relative offset) read as Kafka opens one read-only: every whole entry of
// the file counts, zeros of a preallocated file included.
type Index struct {
	r      io.ReaderAt
	Path   string // the absolute path, as Kafka's messages name it
	Base   int64  // the segment's base offset
	Length int64  // the file's length in bytes
	size   int64  // the entry size
	Time   bool
}

// OffsetIndex opens an offset index of the segment at base.
func OffsetIndex(r io.ReaderAt, path string, length, base int64) *Index {
	return &Index{r: r, Path: path, Base: base, Length: length, size: 8}
}

// TimeIndex opens a time index of the segment at base.
func TimeIndex(r io.ReaderAt, path string, length, base int64) *Index {
	return &Index{r: r, Path: path, Base: base, Length: length, size: 12, Time: true}
}

// Entries is the number of whole entries.
func (x *Index) Entries() int { return int(x.Length / x.size) }

// Entry is entry i: the absolute offset, and the position (offset index)
// or timestamp (time index).
func (x *Index) Entry(i int) (offset, value int64, err error) {
	var b [12]byte
	if _, err := x.r.ReadAt(b[:x.size], int64(i)*x.size); err != nil {
		return 0, 0, err
	}
	if x.Time {
		return x.Base + int64(int32(binary.BigEndian.Uint32(b[8:]))), int64(binary.BigEndian.Uint64(b[:])), nil
	}
	return x.Base + int64(int32(binary.BigEndian.Uint32(b[:]))), int64(int32(binary.BigEndian.Uint32(b[4:]))), nil
}

// Lookup is OffsetIndex.lookup: the entry with the largest offset not
// above target (Kafka's binary search over every entry), or the base
// offset at position 0.
func (x *Index) Lookup(target int64) (offset, position int64, err error) {
	n := x.Entries()
	if n == 0 {
		return x.Base, 0, nil
	}
	first, pos, err := x.Entry(0)
	if err != nil || first > target {
		return x.Base, 0, err
	}
	lo, hi := 0, n-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		off, _, err := x.Entry(mid)
		if err != nil {
			return 0, 0, err
		}
		switch {
		case off > target:
			hi = mid - 1
		case off < target:
			lo = mid
		default:
			lo, hi = mid, mid
		}
	}
	if lo == 0 {
		return first, pos, nil
	}
	return x.Entry(lo)
}

// SanityCheck is the index's sanityCheck (what the broker runs at start
// to decide on a rebuild); the error is Kafka's CorruptIndexException
// message.
func (x *Index) SanityCheck() error {
	n := x.Entries()
	if x.Time {
		return x.timeSanity(n)
	}
	if n != 0 {
		last, _, err := x.Entry(n - 1)
		if err != nil {
			return err
		}
		if last < x.Base {
			return fmt.Errorf("Corrupt index found, index file %s has non-zero size but the last offset is %d which is less than the base offset %d", x.Path, last, x.Base)
		}
	}
	if x.Length%x.size != 0 {
		return fmt.Errorf("Index file %s is corrupt, found %d bytes which is neither positive nor a multiple of %d", x.Path, x.Length, x.size)
	}
	return nil
}

func (x *Index) timeSanity(n int) error {
	if n != 0 {
		lastOff, lastTS, err := x.Entry(n - 1)
		if err != nil {
			return err
		}
		_, firstTS, err := x.Entry(0)
		if err != nil {
			return err
		}
		if lastTS < firstTS {
			return fmt.Errorf("Corrupt time index found, time index file (%s) has non-zero size but the last timestamp is %d which is less than the first timestamp %d", x.Path, lastTS, firstTS)
		}
		if lastOff < x.Base {
			return fmt.Errorf("Corrupt time index found, time index file (%s) has non-zero size but the last offset is %d which is less than the first offset %d", x.Path, lastOff, x.Base)
		}
	}
	if x.Length%x.size != 0 {
		return fmt.Errorf("Time index file %s is corrupt, found %d bytes which is neither positive nor a multiple of %d", x.Path, x.Length, x.size)
	}
	return nil
}
