package reassign

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/output"
)

// Snapshot is one look at the reassignments in progress: each one's
// replicas and the log-dir size of every replica that matters.
type Snapshot struct {
	At       time.Time
	Ongoing  map[TP]Ongoing
	Leaders  map[TP]int32
	Sizes    map[Replica]int64 // current replica's bytes
	Live     map[int32]bool    // registered brokers
	Throttle map[int32]string  // follower.replication.throttled.rate per broker ("" none)
}

// Snap takes a Snapshot of the reassignments of tps (nil: all).
func (s *Service) Snap(ctx context.Context, tps []TP) (*Snapshot, error) {
	on, err := s.ListReassignments(ctx, tps)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{At: time.Now(), Ongoing: on, Leaders: map[TP]int32{}, Sizes: map[Replica]int64{}, Live: map[int32]bool{}, Throttle: map[int32]string{}}
	bs, err := s.Brokers(ctx)
	if err != nil {
		return nil, err
	}
	for _, b := range bs {
		snap.Live[b.ID] = true
	}
	if len(on) == 0 {
		return snap, nil
	}
	parts := SortedTPs(on)
	topics := map[string]bool{}
	for _, tp := range parts {
		topics[tp.Topic] = true
	}
	var names []string
	for t := range topics {
		names = append(names, t)
	}
	ls, err := s.Leaders(ctx, names...)
	if err != nil {
		return nil, err
	}
	for _, l := range ls {
		snap.Leaders[l.TP] = l.Leader
	}
	dirs, err := s.ReplicaDirs(ctx, parts)
	if err != nil {
		return nil, err
	}
	for r, d := range dirs {
		if d.Current != "" {
			snap.Sizes[r] = d.Size
		}
	}
	ids := make([]int32, 0, len(snap.Live))
	for id := range snap.Live {
		ids = append(ids, id)
	}
	if rcs, err := s.Admin.DescribeBrokerConfigs(ctx, ids...); err == nil {
		for _, rc := range rcs {
			id, _ := strconv.Atoi(rc.Name)
			for _, c := range rc.Configs {
				if c.Key == FollowerRate && c.Value != nil {
					snap.Throttle[int32(id)] = *c.Value
				}
			}
		}
	}
	return snap, nil
}

// PartitionProgress is one reassignment's copy progress: the adding
// replicas' bytes against the leader's.
type PartitionProgress struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Replicas  []int32 `json:"replicas"`
	Adding    []int32 `json:"adding"`
	Removing  []int32 `json:"removing"`
	// TargetBytes is the leader's size times the adding replicas; Copied
	// the adding replicas' sizes (each capped at the leader's).
	TargetBytes  int64    `json:"target_bytes"`
	CopiedBytes  int64    `json:"copied_bytes"`
	Percent      float64  `json:"percent"`
	BytesPerSec  float64  `json:"bytes_per_sec"`
	EtaSec       *float64 `json:"eta_sec"`
	Stuck        string   `json:"stuck,omitempty"`
	ThrottleRate string   `json:"follower_throttle_bytes_per_sec,omitempty"`
}

// Progress is kbox reassign status: every reassignment in progress and
// the total.
type Progress struct {
	Partitions  []PartitionProgress `json:"partitions"`
	TargetBytes int64               `json:"target_bytes"`
	CopiedBytes int64               `json:"copied_bytes"`
	Percent     float64             `json:"percent"`
	BytesPerSec float64             `json:"bytes_per_sec"`
	EtaSec      *float64            `json:"eta_sec"`
	// SampleSec is the interval BytesPerSec is measured over;
	// EtaWindowSec the span of the rate the ETA comes from.
	SampleSec    float64 `json:"sample_sec"`
	EtaWindowSec float64 `json:"eta_window_sec"`
}

func copied(s *Snapshot, tp TP, o Ongoing) (target, done int64) {
	leader := s.Sizes[Replica{tp.Topic, tp.Partition, s.Leaders[tp]}]
	for _, b := range o.Adding {
		target += leader
		done += min(s.Sizes[Replica{tp.Topic, tp.Partition, b}], leader)
	}
	return target, done
}

func pct(done, target int64) float64 {
	if target == 0 {
		return 100
	}
	return math.Round(float64(done)*1000/float64(target)) / 10
}

// BuildProgress compares two snapshots (prev may be nil: no rate): the
// rate and the ETA over the one interval between them (kbox reassign
// status without --watch). A Tracker follows a watch.
func BuildProgress(prev, cur *Snapshot) *Progress {
	if prev == nil {
		return buildProgress([]*Snapshot{cur})
	}
	return buildProgress([]*Snapshot{prev, cur})
}

// EtaWindow is how far back a watch looks for the ETA's rate: long enough
// to span four or more of a throttled follower's copy bursts (on the test
// bed about 0.95 MiB every 6 s at 150 kB/s, every 11 s at 10 kB/s; with two
// bursts, the sampling interval's jitter on one period was 20% of the
// rate), and at least three intervals.
func EtaWindow(interval time.Duration) time.Duration {
	return max(45*time.Second, 3*interval)
}

// Tracker follows reassignments across the snapshots of a watch: RATE/S is
// the rate over the last interval, the ETA comes from the rate over the
// last Window (see windowRate).
type Tracker struct {
	Window time.Duration
	hist   []*Snapshot
}

// Add takes the next snapshot and returns the progress it shows.
func (t *Tracker) Add(s *Snapshot) *Progress {
	t.hist = append(t.hist, s)
	// Keep the newest snapshot at or before the window's start, and all after.
	for len(t.hist) > 2 && !t.hist[1].At.After(s.At.Add(-t.Window)) {
		t.hist = t.hist[1:]
	}
	return buildProgress(t.hist)
}

// point is an adding replica's copied bytes at one snapshot.
type point struct {
	at    time.Time
	bytes int64
}

// windowRate is the rate the points show, robust to bursts: a throttled
// follower copies in bursts (about 0.8 MiB every 9 s at 150 kB/s), so the
// bytes between two samples are a step function, and the average over a
// window depends on how many steps it happens to hold. With two or more
// steps seen, the rate is from the first step to the last (whole periods
// only), stretched when no step came for longer than the steps' mean gap
// (the copy slowed); since is then the time from the last step to the last
// point (less than a gap), which the ETA counts as already spent on the
// next burst; whole is true. With fewer steps, the rate is the average
// over the points.
func windowRate(pts []point) (rate float64, since time.Duration, whole bool) {
	if len(pts) < 2 {
		return 0, 0, false
	}
	var steps []int
	for i := 1; i < len(pts); i++ {
		if pts[i].bytes > pts[i-1].bytes {
			steps = append(steps, i)
		}
	}
	now := pts[len(pts)-1].at
	if len(steps) >= 2 {
		a, b := pts[steps[0]], pts[steps[len(steps)-1]]
		span := b.at.Sub(a.at).Seconds()
		gap := span / float64(len(steps)-1)
		since = now.Sub(b.at)
		if s := now.Sub(a.at).Seconds() - gap; s > span {
			span, since = s, 0
		}
		if span > 0 {
			return float64(b.bytes-a.bytes) / span, since, true
		}
	}
	dt := now.Sub(pts[0].at).Seconds()
	if dt <= 0 {
		return 0, 0, false
	}
	return math.Max(0, float64(pts[len(pts)-1].bytes-pts[0].bytes)/dt), 0, false
}

// buildProgress computes the progress at the last snapshot of hist: the
// rate over the last interval (hist[len-2] to the last), and the ETA from
// each adding replica's windowRate over all of hist. A rate measured over
// whole burst periods is what the move keeps up, whatever the throttle says
// (at 10 kB/s the test bed's follower still got one 0.95 MiB fetch every
// 11 s). A rate from fewer steps is capped per adding broker
// by its follower throttle: a throttled broker lets its first few MB
// through at once; the throttle is the broker's, shared by every replica
// it copies, so when those replicas show more than its
// follower.replication.throttled.rate together, each one's rate is scaled
// down to fit it.
func buildProgress(hist []*Snapshot) *Progress {
	cur := hist[len(hist)-1]
	var prev *Snapshot
	if len(hist) > 1 {
		prev = hist[len(hist)-2]
	}
	p := &Progress{Partitions: []PartitionProgress{}}
	var dt float64
	if prev != nil {
		dt = cur.At.Sub(prev.At).Seconds()
		p.SampleSec = math.Round(dt*10) / 10
		p.EtaWindowSec = math.Round(cur.At.Sub(hist[0].At).Seconds()*10) / 10
	}
	tps := SortedTPs(cur.Ongoing)
	// Per adding replica: its window rate; per broker their sum.
	repRate := map[Replica]float64{}
	brokerRate := map[int32]float64{} // of the replicas the throttle caps
	capped := map[Replica]bool{}
	windowed := map[TP]bool{} // the partition was seen moving before cur
	// Per partition: the least time since one of its replicas' last burst.
	since := map[TP]time.Duration{}
	for _, tp := range tps {
		for _, b := range cur.Ongoing[tp].Adding {
			r := Replica{tp.Topic, tp.Partition, b}
			var pts []point
			for _, s := range hist {
				o, ok := s.Ongoing[tp]
				if !ok || !contains32(o.Adding, b) {
					pts = pts[:0] // not moving then: start after it
					continue
				}
				leader := s.Sizes[Replica{tp.Topic, tp.Partition, s.Leaders[tp]}]
				pts = append(pts, point{s.At, min(s.Sizes[r], leader)})
			}
			if len(pts) >= 2 {
				windowed[tp] = true
			}
			if v, d, whole := windowRate(pts); v > 0 {
				repRate[r] = v
				if !whole {
					brokerRate[b] += v
					capped[r] = true
				}
				if old, ok := since[tp]; !ok || d < old {
					since[tp] = d
				}
			}
		}
	}
	scale := map[int32]float64{}
	for b, r := range brokerRate {
		scale[b] = 1
		if t, err := strconv.ParseFloat(cur.Throttle[b], 64); err == nil && t > 0 && r > t {
			scale[b] = t / r
		}
	}
	var etaRate float64
	var latest time.Duration // since the most recent burst of any partition
	ok := false
	for _, tp := range tps {
		o := cur.Ongoing[tp]
		target, done := copied(cur, tp, o)
		pp := PartitionProgress{Topic: tp.Topic, Partition: tp.Partition, Replicas: o.Replicas, Adding: nonNil(o.Adding), Removing: nonNil(o.Removing),
			TargetBytes: target, CopiedBytes: done, Percent: pct(done, target)}
		for _, b := range o.Adding {
			if r := cur.Throttle[b]; r != "" {
				pp.ThrottleRate = r
			}
		}
		if prev != nil && dt > 0 {
			if po, ok := prev.Ongoing[tp]; ok {
				_, before := copied(prev, tp, po)
				pp.BytesPerSec = math.Max(0, float64(done-before)/dt)
			}
		}
		var r float64
		for _, b := range o.Adding {
			rep := Replica{tp.Topic, tp.Partition, b}
			if capped[rep] {
				r += repRate[rep] * scale[b]
			} else {
				r += repRate[rep]
			}
		}
		switch {
		case r > 0:
			pp.EtaSec = etaSec(target-done, r, since[tp])
			etaRate += r
			if !ok || since[tp] < latest {
				latest, ok = since[tp], true
			}
		case windowed[tp] && done < target:
			pp.Stuck = stuckReason(cur, tp, o, p.EtaWindowSec)
		}
		p.Partitions = append(p.Partitions, pp)
		p.TargetBytes += target
		p.CopiedBytes += done
		p.BytesPerSec += pp.BytesPerSec
	}
	p.Percent = pct(p.CopiedBytes, p.TargetBytes)
	if etaRate > 0 {
		p.EtaSec = etaSec(p.TargetBytes-p.CopiedBytes, etaRate, latest)
	}
	return p
}

// etaSec is the time the rest takes at rate, less the time already spent
// since the last burst; at least 1 s while anything is left.
func etaSec(rest int64, rate float64, since time.Duration) *float64 {
	eta := math.Ceil(float64(rest)/rate - since.Seconds())
	if rest > 0 && eta < 1 {
		eta = 1
	}
	return &eta
}

func contains32(ids []int32, id int32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func nonNil(ids []int32) []int32 {
	if ids == nil {
		return []int32{}
	}
	return ids
}

func stuckReason(s *Snapshot, tp TP, o Ongoing, dt float64) string {
	if l := s.Leaders[tp]; l < 0 || !s.Live[l] {
		return "no leader to copy from"
	}
	var down []string
	for _, b := range o.Adding {
		if !s.Live[b] {
			down = append(down, strconv.Itoa(int(b)))
		}
	}
	if len(down) > 0 {
		return "adding broker " + strings.Join(down, ",") + " is not registered"
	}
	reason := fmt.Sprintf("no bytes copied in %.0f s", dt)
	for _, b := range o.Adding {
		if r := s.Throttle[b]; r != "" {
			if dt < throttledQuiet {
				return "" // a throttled follower's pause between bursts
			}
			return reason + " (follower throttle " + r + " B/s on broker " + strconv.Itoa(int(b)) + ")"
		}
	}
	return reason
}

// throttledQuiet is how long a throttled follower may copy nothing between
// two bursts: the broker's quota is an average over 11 one-second samples,
// and at 10 kB/s one fetch (up to 1 MiB) came every 11 s on the test bed.
const throttledQuiet = 15

// Header is the status table's header.
func (p *Progress) Header() []string {
	return []string{"PARTITION", "ADDING", "REMOVING", "COPIED", "TARGET", "DONE%", "RATE/S", "ETA", "NOTE"}
}

// Rows is one row per reassignment, then the total.
func (p *Progress) Rows() [][]string {
	var rows [][]string
	for _, pp := range p.Partitions {
		rows = append(rows, []string{fmt.Sprintf("%s-%d", pp.Topic, pp.Partition), JoinIDs(pp.Adding, ","), JoinIDs(pp.Removing, ","),
			HumanBytes(pp.CopiedBytes), HumanBytes(pp.TargetBytes), strconv.FormatFloat(pp.Percent, 'f', 1, 64),
			rate(pp.BytesPerSec, p.SampleSec), eta(pp.EtaSec), pp.Stuck})
	}
	rows = append(rows, []string{"TOTAL", "", "", HumanBytes(p.CopiedBytes), HumanBytes(p.TargetBytes),
		strconv.FormatFloat(p.Percent, 'f', 1, 64), rate(p.BytesPerSec, p.SampleSec), eta(p.EtaSec), ""})
	return rows
}

func rate(r, sample float64) string {
	if sample == 0 {
		return "-"
	}
	return HumanBytes(int64(r))
}

func eta(e *float64) string {
	if e == nil {
		return "-"
	}
	return (time.Duration(*e) * time.Second).String()
}

// HumanBytes formats n in B, KiB, MiB, GiB (output.Bytes, as every
// native table).
func HumanBytes(n int64) string { return output.Bytes(n) }

// SortedPartitions is a helper for callers that list TPs of a plan.
func SortedPartitions(tps []TP) []TP {
	out := append([]TP(nil), tps...)
	sort.Slice(out, func(i, j int) bool { return LessTP(out[i], out[j]) })
	return out
}
