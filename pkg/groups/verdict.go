package groups

import (
	"encoding/json"
	"math"
	"time"
)

// Verdict is a consumer's status on a partition, or a group's worst, by
// the rules of Burrow's evaluator (linkedin/Burrow), judged over a
// sliding window of the partition's last WindowCommits commits. The zero
// Verdict is unknown: printed "-", null in JSON.
type Verdict string

// Verdicts, from the best to the worst.
const (
	VerdictUnknown Verdict = ""
	// OK: caught up, or lag that the window does not flag.
	VerdictOK Verdict = "OK"
	// WARN: the lag never decreased over the window (at least three
	// commits): the consumer is slower than the producers.
	VerdictWarn Verdict = "WARN"
	// STALL: the committed offset has not moved, while there is lag, for
	// more than twice the longest gap between two commits of the window.
	VerdictStall Verdict = "STALL"
	// STOP: no commit, while there is lag, for longer than the window
	// spans (its first to its last commit).
	VerdictStop Verdict = "STOP"
	// REWIND: the committed offset went back within the window.
	VerdictRewind Verdict = "REWIND"
)

// WindowCommits is how many commits a partition's window holds
// (Burrow's default).
const WindowCommits = 10

// MarshalJSON writes an unknown verdict as null.
func (v Verdict) MarshalJSON() ([]byte, error) {
	if v == VerdictUnknown {
		return []byte("null"), nil
	}
	return json.Marshal(string(v))
}

// String is the verdict as tables print it ("-" when unknown).
func (v Verdict) String() string {
	if v == VerdictUnknown {
		return "-"
	}
	return string(v)
}

// Rank orders verdicts from the best (OK, 0) to the worst (REWIND, 5);
// unknown ranks just above OK, so that a group with one partition not
// judged yet is not called OK.
func (v Verdict) Rank() int {
	switch v {
	case VerdictOK:
		return 0
	case VerdictUnknown:
		return 1
	case VerdictWarn:
		return 2
	case VerdictStall:
		return 3
	case VerdictStop:
		return 4
	case VerdictRewind:
		return 5
	}
	return 1
}

// Worse returns the worse of two verdicts.
func Worse(a, b Verdict) Verdict {
	if b.Rank() > a.Rank() {
		return b
	}
	return a
}

// commit is one entry of a partition's window: a sample in which the
// group's committed offset had changed (or the first sample of the
// partition), or in which the partition was caught up. It holds no
// pointer and takes 24 bytes (the windows of 100,000 partitions are 27 MB
// the garbage collector does not scan): its times are milliseconds on
// the Sampler's clock (since its first report, monotonic when the clock
// is), and its lag is max(end-offset, 0), as Lag measures it.
type commit struct {
	offset int64
	end    int64 // the log-end offset in that sample
	// bits: when the committed offsets were fetched, in ms on the
	// window's clock (bits 22 to 63, signed: ±69 years); when the log-end
	// offsets were listed, in ms after that (bits 1 to 21, signed,
	// clamped to ±17 minutes: both are instants of one report); and
	// whether the committed offset changed since the previous sample
	// (bit 0: a commit kbox saw; not for the first sample, nor for a
	// caught-up sample whose offset had not moved).
	bits int64
}

const (
	commitDtBits = 21
	commitDtMax  = 1<<(commitDtBits-1) - 1
	commitAtMax  = 1<<(63-commitDtBits-1) - 1
)

// newCommit packs an entry (at and endAt on the window's clock).
func newCommit(at, endAt time.Duration, offset, end int64, moved bool) commit {
	atMs := min(max(at.Milliseconds(), -commitAtMax), commitAtMax)
	dt := min(max(endAt.Milliseconds()-atMs, -commitDtMax), commitDtMax)
	c := commit{offset: offset, end: end, bits: atMs<<(commitDtBits+1) | (dt&(1<<commitDtBits-1))<<1}
	if moved {
		c.bits |= 1
	}
	return c
}

// at is when the entry's committed offset was fetched.
func (c *commit) at() time.Duration {
	return time.Duration(c.bits>>(commitDtBits+1)) * time.Millisecond
}

// endAt is when the entry's log-end offset was listed.
func (c *commit) endAt() time.Duration {
	dt := c.bits << (63 - commitDtBits) >> (64 - commitDtBits) // sign-extended
	return c.at() + time.Duration(dt)*time.Millisecond
}

// moved reports whether the entry is a commit kbox saw.
func (c *commit) moved() bool { return c.bits&1 == 1 }

// lag is the lag at the entry.
func (c *commit) lag() int64 { return max(c.end-c.offset, 0) }

// noMembers reports whether a group state means nobody is in the group.
func noMembers(state string) bool { return state == "Empty" || state == "Dead" }

// oneShotVerdict is the verdict one sample can give: OK when caught up;
// STOP when there is lag and the group has no members (no member can
// commit); otherwise unknown (it takes a window of commits: --watch).
func oneShotVerdict(lag int64, state string) Verdict {
	switch {
	case lag == 0:
		return VerdictOK
	case noMembers(state):
		return VerdictStop
	}
	return VerdictUnknown
}

// windowStats are the gaps of a window: the longest gap that ends at a
// commit kbox saw (the commit cadence), and the span from the first entry
// to the last.
func windowStats(w []commit) (gap, span time.Duration) {
	for i := 1; i < len(w); i++ {
		if d := w[i].at() - w[i-1].at(); w[i].moved() && d > gap {
			gap = d
		}
	}
	if len(w) > 1 {
		span = w[len(w)-1].at() - w[0].at()
	}
	return gap, span
}

// judge applies Burrow's rules to a partition's window w (oldest first,
// at most WindowCommits entries), its lag now and the time now (on the
// window's clock), in this order:
//
//   - no lag now: OK;
//   - REWIND: an entry's offset is lower than the one before it;
//   - STOP: no entry for longer than the window spans, and for more than
//     twice its longest gap between commits;
//   - STALL: no entry for more than twice the longest gap between commits;
//   - OK if the lag was zero at some entry of the window;
//   - WARN: at least three entries and the lag never decreased;
//   - OK.
//
// kbox sees a commit when the committed offset changed between two
// samples, so a consumer that commits an unchanged offset looks like one
// that does not commit: STALL and STOP are told apart by how long the
// offset has not moved. A window without a gap ending at a commit (the
// first sample, or only caught-up samples) cannot time a silence: the
// verdict then falls back to what one sample says (oneShotVerdict).
// Burrow checks "lag zero in the window" first; kbox checks it after
// REWIND, STOP and STALL, so that a consumer that was caught up and then
// was reset back, or died, is not called OK.
func judge(w []commit, lag int64, now time.Duration, state string) Verdict {
	if lag == 0 {
		return VerdictOK
	}
	for i := 1; i < len(w); i++ {
		if w[i].offset < w[i-1].offset {
			return VerdictRewind
		}
	}
	gap, span := windowStats(w)
	if gap <= 0 {
		return oneShotVerdict(lag, state)
	}
	since := now - w[len(w)-1].at()
	switch {
	case since > span && since > 2*gap:
		return VerdictStop
	case since > 2*gap:
		return VerdictStall
	}
	for i := range w {
		if w[i].lag() == 0 {
			return VerdictOK
		}
	}
	if len(w) >= 3 {
		decreased := false
		for i := 1; i < len(w); i++ {
			if w[i].lag() < w[i-1].lag() {
				decreased = true
				break
			}
		}
		if !decreased {
			return VerdictWarn
		}
	}
	return VerdictOK
}

// tCrit99 are Student's t critical values, two-sided 99 %, by degrees of
// freedom (1 to 8; beyond, 3.36 is kept, a little above the limit 2.58).
var tCrit99 = []float64{63.66, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355}

// lagSlope is the least-squares slope of lag over time through the
// points, in records per second, and its margin: how far from 0 the slope
// must be for the points to show it (its standard error times Student's
// t at 99 %; 0 with fewer than five points, too few to judge a scatter).
// False with fewer than two distinct times.
func lagSlope(ts []time.Duration, lags []int64) (slope, margin float64, ok bool) {
	n := float64(len(ts))
	if len(ts) < 2 {
		return 0, 0, false
	}
	t0 := ts[0]
	var mx, my float64
	var buf [WindowCommits + 1]float64 // a window and now: no allocation
	xs := buf[:0]
	for i := range ts {
		xs = append(xs, (ts[i] - t0).Seconds())
		mx += xs[i]
		my += float64(lags[i])
	}
	mx, my = mx/n, my/n
	var sxx, sxy float64
	for i, x := range xs {
		sxx += (x - mx) * (x - mx)
		sxy += (x - mx) * (float64(lags[i]) - my)
	}
	if sxx <= 1e-9 {
		return 0, 0, false
	}
	slope = sxy / sxx
	if len(ts) >= 5 {
		var sse float64
		for i, x := range xs {
			r := float64(lags[i]) - (my + slope*(x-mx))
			sse += r * r
		}
		dof := len(ts) - 2
		margin = math.Sqrt(sse/float64(dof)/sxx) * tCrit99[min(dof, len(tCrit99))-1]
	}
	if math.IsNaN(slope) || math.IsInf(slope, 0) || math.IsNaN(margin) {
		return 0, 0, false
	}
	return slope, margin, true
}
