package verify

import (
	"math"
	"sort"
	"strconv"

	"github.com/RoaringBitmap/roaring/v2"
)

// The value space of the streaming checker. Producer values are
// "P.i" (or "i") with i a dense integer per prefix P, so each set of
// values is a roaring bitmap of i per prefix. Values of any other form
// are interned (their memory grows with their number: only hand-made
// logs have them).

// valKey is a value: its prefix's index and its integer (for the
// fallback prefix: its intern id).
type valKey struct {
	p uint32
	i uint32
}

// prefixSets are the value sets of one prefix.
type prefixSets struct {
	name     string
	fallback bool
	acked    *roaring.Bitmap // acked at least once
	seen     *roaring.Bitmap // consumed at least once
	dup      *roaring.Bitmap // consumed at least twice
	failed   *roaring.Bitmap // in a producer_send_error
	exc      map[string]*roaring.Bitmap
	txnAll   *roaring.Bitmap // in any transaction_end
	txnRes   map[string]*roaring.Bitmap
	// rev maps values to where they were acked: runs sorted by i;
	// revOver holds the last offset of values acked more than once.
	rev     []revRun
	revOver map[uint32]revAt
}

type revRun struct {
	i, n uint32
	s    *tpState
	off  int64
}

type revAt struct {
	s   *tpState
	off int64
}

// noteAck records that i was acked at s, off; again says it was acked
// before.
func (ps *prefixSets) noteAck(i uint32, s *tpState, off int64, again bool) {
	if again {
		if ps.revOver == nil {
			ps.revOver = map[uint32]revAt{}
		}
		ps.revOver[i] = revAt{s, off}
		return
	}
	j := len(ps.rev)
	if j > 0 && ps.rev[j-1].i > i {
		j = sort.Search(len(ps.rev), func(j int) bool { return ps.rev[j].i > i })
	}
	if j > 0 {
		r := &ps.rev[j-1]
		if r.s == s && r.i+r.n == i && r.off+int64(r.n) == off && (j == len(ps.rev) || ps.rev[j].i > i) {
			r.n++
			return
		}
	}
	ps.rev = append(ps.rev, revRun{})
	copy(ps.rev[j+1:], ps.rev[j:])
	ps.rev[j] = revRun{i: i, n: 1, s: s, off: off}
}

// ackedAt returns where i was (last) acked.
func (ps *prefixSets) ackedAt(i uint32) (*tpState, int64, bool) {
	if a, ok := ps.revOver[i]; ok {
		return a.s, a.off, true
	}
	j := sort.Search(len(ps.rev), func(j int) bool { return ps.rev[j].i > i })
	if j > 0 && i < ps.rev[j-1].i+ps.rev[j-1].n {
		r := &ps.rev[j-1]
		return r.s, r.off + int64(i-r.i), true
	}
	return nil, 0, false
}

func newPrefixSets(name string, fallback bool) *prefixSets {
	return &prefixSets{name: name, fallback: fallback, acked: roaring.New(), seen: roaring.New(), dup: roaring.New(),
		failed: roaring.New(), exc: map[string]*roaring.Bitmap{}, txnAll: roaring.New(), txnRes: map[string]*roaring.Bitmap{}}
}

// txnIs reports whether i's (last) transaction result is res.
func (ps *prefixSets) txnIs(res string, i uint32) bool {
	b := ps.txnRes[res]
	return b != nil && b.Contains(i)
}

func (ps *prefixSets) txnSet(res string) *roaring.Bitmap {
	if b := ps.txnRes[res]; b != nil {
		return b
	}
	return roaring.New()
}

type valueSpace struct {
	prefixes []*prefixSets
	byName   map[string]uint32
	fallback int64 // index of the fallback prefix, -1 before the first
	intern   map[string]uint32
	strs     []string
}

func newValueSpace() valueSpace {
	return valueSpace{byName: map[string]uint32{}, fallback: -1, intern: map[string]uint32{}}
}

// splitValue splits "P.i" into P. and i when i is a canonical decimal
// that fits in 32 bits.
func splitValue(v string) (string, uint32, bool) {
	j := len(v)
	for j > 0 && v[j-1] >= '0' && v[j-1] <= '9' {
		j--
	}
	num := v[j:]
	if num == "" || (len(num) > 1 && num[0] == '0') || len(num) > 10 || (j > 0 && v[j-1] != '.') {
		return "", 0, false
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || n > math.MaxUint32 {
		return "", 0, false
	}
	return v[:j], uint32(n), true
}

func (vs *valueSpace) key(v string) valKey {
	if p, i, ok := splitValue(v); ok {
		id, ok := vs.byName[p]
		if !ok {
			id = uint32(len(vs.prefixes))
			vs.byName[p] = id
			vs.prefixes = append(vs.prefixes, newPrefixSets(p, false))
		}
		return valKey{id, i}
	}
	if vs.fallback < 0 {
		vs.fallback = int64(len(vs.prefixes))
		vs.prefixes = append(vs.prefixes, newPrefixSets("", true))
	}
	id, ok := vs.intern[v]
	if !ok {
		id = uint32(len(vs.strs))
		vs.intern[v] = id
		vs.strs = append(vs.strs, v)
	}
	return valKey{uint32(vs.fallback), id}
}

func (vs *valueSpace) str(k valKey) string {
	ps := vs.prefixes[k.p]
	if ps.fallback {
		return vs.strs[k.i]
	}
	return ps.name + strconv.FormatUint(uint64(k.i), 10)
}

func (vs *valueSpace) set(k valKey) *prefixSets { return vs.prefixes[k.p] }

// firstSorted returns the first n values of sets (one bitmap per prefix,
// nil for none) in valueLess order, and their total count.
func (vs *valueSpace) firstSorted(sets []*roaring.Bitmap, n int) ([]valKey, int) {
	var cand []valKey
	total := 0
	for p, b := range sets {
		if b == nil || b.IsEmpty() {
			continue
		}
		total += int(b.GetCardinality())
		if vs.prefixes[p].fallback {
			it := b.Iterator()
			for it.HasNext() {
				cand = append(cand, valKey{uint32(p), it.Next()})
			}
			continue
		}
		// valueLess orders by length first: within a prefix, take the
		// first n values of each number of digits.
		lo := uint64(0)
		for hi := uint64(10); lo <= math.MaxUint32; lo, hi = hi, hi*10 {
			it := b.Iterator()
			it.AdvanceIfNeeded(uint32(lo))
			for k := 0; k < n && it.HasNext(); k++ {
				v := it.Next()
				if uint64(v) >= hi {
					break
				}
				cand = append(cand, valKey{uint32(p), v})
			}
		}
	}
	strs := make([]string, len(cand))
	idx := make([]int, len(cand))
	for i, k := range cand {
		strs[i], idx[i] = vs.str(k), i
	}
	sort.Slice(idx, func(a, b int) bool { return valueLess(strs[idx[a]], strs[idx[b]]) })
	out := make([]valKey, 0, min(n, len(idx)))
	for _, i := range idx {
		if len(out) == n {
			break
		}
		out = append(out, cand[i])
	}
	return out, total
}
