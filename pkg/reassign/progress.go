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
	SampleSec   float64             `json:"sample_sec"`
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

// BuildProgress compares two snapshots (prev may be nil: no rate).
//
// BytesPerSec is the rate observed between the snapshots. The ETA uses it
// capped by the follower throttle: a throttled broker lets its first few
// MB through at once (the quota is an average over a window of samples),
// so an early sample shows a rate far above the one the move keeps up. The
// cap is per adding broker (the throttle is the broker's, shared by every
// replica it copies): when the replicas a broker adds were observed faster
// than its follower.replication.throttled.rate together, each one's rate
// is scaled down to fit it.
func BuildProgress(prev, cur *Snapshot) *Progress {
	p := &Progress{Partitions: []PartitionProgress{}}
	var dt float64
	if prev != nil {
		dt = cur.At.Sub(prev.At).Seconds()
		p.SampleSec = math.Round(dt*10) / 10
	}
	tps := SortedTPs(cur.Ongoing)
	// Per adding replica: the bytes per second observed; per broker their sum.
	repRate := map[Replica]float64{}
	brokerRate := map[int32]float64{}
	if prev != nil && dt > 0 {
		for _, tp := range tps {
			po, ok := prev.Ongoing[tp]
			if !ok {
				continue
			}
			leader, before := cur.Sizes[Replica{tp.Topic, tp.Partition, cur.Leaders[tp]}], prev.Sizes[Replica{tp.Topic, tp.Partition, prev.Leaders[tp]}]
			for _, b := range cur.Ongoing[tp].Adding {
				if !contains32(po.Adding, b) {
					continue
				}
				r := Replica{tp.Topic, tp.Partition, b}
				d := float64(min(cur.Sizes[r], leader)-min(prev.Sizes[r], before)) / dt
				if d > 0 {
					repRate[r] = d
					brokerRate[b] += d
				}
			}
		}
	}
	// The factor that fits each broker's observed rate into its throttle.
	scale := map[int32]float64{}
	for b, r := range brokerRate {
		scale[b] = 1
		if t, err := strconv.ParseFloat(cur.Throttle[b], 64); err == nil && t > 0 && r > t {
			scale[b] = t / r
		}
	}
	var etaRate float64
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
			var r float64
			for _, b := range o.Adding {
				r += repRate[Replica{tp.Topic, tp.Partition, b}] * scale[b]
			}
			if pp.BytesPerSec > 0 {
				if r <= 0 || r > pp.BytesPerSec {
					r = pp.BytesPerSec
				}
				eta := math.Ceil(float64(target-done) / r)
				pp.EtaSec = &eta
				etaRate += r
			} else if done < target {
				pp.Stuck = stuckReason(cur, tp, o, dt)
			}
		}
		p.Partitions = append(p.Partitions, pp)
		p.TargetBytes += target
		p.CopiedBytes += done
		p.BytesPerSec += pp.BytesPerSec
	}
	p.Percent = pct(p.CopiedBytes, p.TargetBytes)
	if etaRate > 0 {
		eta := math.Ceil(float64(p.TargetBytes-p.CopiedBytes) / etaRate)
		p.EtaSec = &eta
	}
	return p
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
			return reason + " (follower throttle " + r + " B/s on broker " + strconv.Itoa(int(b)) + ")"
		}
	}
	return reason
}

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
