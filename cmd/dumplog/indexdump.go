package dumplog

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kboxdev/kbox/pkg/segment"
)

// reports are the per-file offset pairs printed on stderr at the end (a
// Java TreeMap per file: one value per key; descending keys for index
// mismatches, ascending for gaps).
type reports struct {
	files []string
	pairs map[string]map[int64]int64
	desc  bool
}

func (r *reports) add(file string, k, v int64) {
	if r.pairs == nil {
		r.pairs = map[string]map[int64]int64{}
	}
	m := r.pairs[file]
	if m == nil {
		m = map[int64]int64{}
		r.pairs[file] = m
		r.files = append(r.files, file)
	}
	m[k] = v
}

func (r *reports) print(w io.Writer, head, line string) {
	for _, f := range r.files {
		fmt.Fprintf(w, head, f)
		m := r.pairs[f]
		keys := make([]int64, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return (keys[i] < keys[j]) != r.desc })
		for _, k := range keys {
			fmt.Fprintf(w, line, k, m[k])
		}
	}
}

// timeIndexErrors are TimeIndexDumpErrors: per file, in the order found.
type timeIndexErrors struct {
	mismatch, outOfOrder, notFound pairLists
}

type pairLists struct {
	files []string
	pairs map[string][][2]int64
}

func (p *pairLists) add(file string, a, b int64) {
	if p.pairs == nil {
		p.pairs = map[string][][2]int64{}
	}
	if _, ok := p.pairs[file]; !ok {
		p.files = append(p.files, file)
	}
	p.pairs[file] = append(p.pairs[file], [2]int64{a, b})
}

func (p *pairLists) print(w io.Writer, head, line string) {
	for _, f := range p.files {
		fmt.Fprintf(w, head, f)
		for _, x := range p.pairs[f] {
			fmt.Fprintf(w, line, x[0], x[1])
		}
	}
}

func (t *timeIndexErrors) print(w io.Writer) {
	t.mismatch.print(w, "Found timestamp mismatch in :%s\n", "  Index timestamp: %d, log timestamp: %d\n")
	t.outOfOrder.print(w, "Found out of order timestamp in :%s\n", "  Index timestamp: %d, Previously indexed timestamp: %d\n")
	t.notFound.print(w, "The following indexed offsets are not found in :%s\n", "Indexed offset: %d, found log offset: %d\n")
}

// sibling is the file of the same segment with another suffix.
func sibling(name, suffix string) string {
	abs := absPath(name)
	return filepath.Join(filepath.Dir(abs), strings.SplitN(filepath.Base(abs), ".", 2)[0]+suffix)
}

func (d *dumper) maxMessageSize() (int64, error) {
	v, ok, err := d.s.Int("max-message-size")
	if err != nil {
		return 0, &javaException{"joptsimple.OptionArgumentConversionException", err.Error()}
	}
	if !ok {
		return 5 * 1024 * 1024, nil
	}
	return v, nil
}

// dumpIndex prints an offset index's entries and checks each against the
// batch it points at.
func (d *dumper) dumpIndex(name string) error {
	base, err := startOffset(name)
	if err != nil {
		return err
	}
	logf, logSize, err := open(sibling(name, ".log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	fh, size, err := open(name)
	if err != nil {
		return err
	}
	defer fh.Close()
	idx := segment.OffsetIndex(fh, absPath(name), size, base)
	if idx.Entries() == 0 {
		fmt.Fprintf(d.out, "%s is empty.\n", name)
		return nil
	}
	if d.indexOnly {
		if err := idx.SanityCheck(); err != nil {
			return &javaException{"org.apache.kafka.storage.internals.log.CorruptIndexException", err.Error()}
		}
		fmt.Fprintf(d.out, "%s passed sanity check.\n", name)
		return nil
	}
	maxSize, err := d.maxMessageSize()
	if err != nil {
		return err
	}
	d.mismatches.desc = true
	for i := range idx.Entries() {
		off, pos, err := idx.Entry(i)
		if err != nil {
			return err
		}
		if off == base && i > 0 {
			return nil
		}
		b, err := segment.FirstBatch(logf, sibling(name, ".log"), pos, min(logSize, pos+maxSize))
		if err != nil {
			return err
		}
		if b == nil {
			return &javaException{"java.util.NoSuchElementException", ""}
		}
		if b.LastOffset() != off {
			d.mismatches.add(absPath(name), off, b.LastOffset())
		}
		if !d.verifyOnly {
			fmt.Fprintf(d.out, "offset: %d position: %d\n", off, pos)
		}
	}
	return nil
}

// dumpTimeIndex prints a time index's entries and checks each against the
// batch of its offset.
func (d *dumper) dumpTimeIndex(name string) error {
	base, err := startOffset(name)
	if err != nil {
		return err
	}
	logName := sibling(name, ".log")
	logf, logSize, err := open(logName)
	if err != nil {
		return err
	}
	defer logf.Close()
	ixf, ixSize, err := open(sibling(name, ".index"))
	if err != nil {
		return err
	}
	defer ixf.Close()
	fh, size, err := open(name)
	if err != nil {
		return err
	}
	defer fh.Close()
	idx := segment.OffsetIndex(ixf, sibling(name, ".index"), ixSize, base)
	tix := segment.TimeIndex(fh, absPath(name), size, base)
	if d.indexOnly {
		if err := tix.SanityCheck(); err != nil {
			return &javaException{"org.apache.kafka.storage.internals.log.CorruptIndexException", err.Error()}
		}
		fmt.Fprintf(d.out, "%s passed sanity check.\n", name)
		return nil
	}
	prev := segment.NoTimestamp
	for i := range tix.Entries() {
		off, ts, err := tix.Entry(i)
		if err != nil {
			return err
		}
		if off == base && i > 0 {
			return nil
		}
		if err := d.checkTimeEntry(idx, logf, logName, logSize, absPath(name), off, ts, prev); err != nil {
			return err
		}
		if !d.verifyOnly {
			fmt.Fprintf(d.out, "timestamp: %d offset: %d\n", ts, off)
		}
		prev = ts
	}
	return nil
}

func (d *dumper) checkTimeEntry(idx *segment.Index, logf io.ReaderAt, logName string, logSize int64, file string, off, ts, prev int64) error {
	_, pos, err := idx.Lookup(off)
	if err != nil {
		return err
	}
	sc := segment.NewScanner(logf, logName, pos, min(logSize, pos+math.MaxInt32))
	var found *segment.Batch
	for sc.Next() {
		if b := sc.Batch(); b.LastOffset() >= off {
			found = b
			break
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	switch {
	case found == nil:
		d.timeErrs.notFound.add(file, off, -1)
	case found.LastOffset() != off:
		d.timeErrs.notFound.add(file, off, found.LastOffset())
	default:
		maxTS := segment.NoTimestamp
		if err := found.Records(func(r *segment.Record) error { maxTS = max(maxTS, r.Timestamp); return nil }); err != nil {
			return err
		}
		if maxTS != ts {
			d.timeErrs.mismatch.add(file, ts, maxTS)
		}
		if prev >= ts {
			d.timeErrs.outOfOrder.add(file, ts, prev)
		}
	}
	return nil
}
