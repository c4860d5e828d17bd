package groups

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Catch-up status of a group or topic in a watch sample.
const (
	StatusCaughtUp      = "caught_up"      // no lag
	StatusCatchingUp    = "catching_up"    // consuming faster than producing: ETA known
	StatusKeepingUp     = "keeping_up"     // lag, consuming about as fast as producing (within 2 % or 1 record/s)
	StatusFallingBehind = "falling_behind" // lag, producing faster than consuming
	StatusStalled       = "stalled"        // lag, and neither producing nor consuming
	StatusUnknown       = "unknown"        // first sample: no rates yet
)

// Trend of the lag between two samples.
const (
	TrendGrowing   = "growing"
	TrendShrinking = "shrinking"
	TrendSteady    = "steady"
)

// RateLag is the lag, rates and catch-up estimate of a group, or of one
// group on one topic, between two samples.
type RateLag struct {
	Lag       int64  `json:"lag"`
	TimeLagMs *int64 `json:"time_lag_ms"`
	// LagChange is the lag now minus the lag at the previous sample,
	// over the partitions in both samples (a partition committed for the
	// first time is not growth); null on the first sample.
	LagChange *int64 `json:"lag_change"`
	// ProduceRecordsPerSec is how fast the log-end offsets of the
	// partitions grew; ConsumeRecordsPerSec how fast the committed offsets
	// did. Both null on the first sample.
	ProduceRecordsPerSec *float64 `json:"produce_records_per_sec"`
	ConsumeRecordsPerSec *float64 `json:"consume_records_per_sec"`
	Trend                string   `json:"trend"`
	Status               string   `json:"status"`
	// EtaSec is the estimated time to catch up, lag / (consume rate -
	// produce rate), while catching up; null otherwise.
	EtaSec *float64 `json:"eta_sec"`
}

// TopicRate is one group's RateLag on one topic.
type TopicRate struct {
	Topic string `json:"topic"`
	RateLag
}

// GroupRate is one group's RateLag, overall and per topic.
type GroupRate struct {
	Group string `json:"group"`
	State string `json:"state"`
	RateLag
	Topics []TopicRate `json:"topics"`
	Error  string      `json:"error,omitempty"`
}

// WatchSample is one sample of a watch: the rates since the previous
// sample. IntervalSec is null on the first sample.
type WatchSample struct {
	Time        time.Time   `json:"time"`
	Sample      int         `json:"sample"`
	IntervalSec *float64    `json:"interval_sec"`
	Groups      []GroupRate `json:"groups"`
}

// Sampler turns successive lag reports into watch samples: produce and
// consume rates per group and topic, the lag trend and an ETA to catch up.
type Sampler struct {
	prev *LagReport
	n    int
}

type pkey struct {
	group, topic string
	partition    int32
}

// Add takes the next report (its Time must be later than the previous
// one's) and returns the sample. Rates count only partitions present in
// both reports with known offsets; a partition whose committed offset went
// back (a reset) counts no consumption for that interval.
func (s *Sampler) Add(r *LagReport) *WatchSample {
	s.n++
	ws := &WatchSample{Time: r.Time, Sample: s.n, Groups: []GroupRate{}}
	prev := map[pkey]LagPartition{}
	var dt, dtc float64
	if s.prev != nil {
		dt = r.Time.Sub(s.prev.Time).Seconds()
		dtc = dt
		if !r.committedAt.IsZero() && !s.prev.committedAt.IsZero() {
			dtc = r.committedAt.Sub(s.prev.committedAt).Seconds()
		}
		ws.IntervalSec = ptrTo(round3(dt))
		for _, g := range s.prev.Groups {
			for _, p := range g.Partitions {
				prev[pkey{g.Group, p.Topic, p.Partition}] = p
			}
		}
	}
	for _, g := range r.Groups {
		gr := GroupRate{Group: g.Group, State: g.State, Error: g.Error, Topics: []TopicRate{}}
		gr.Lag, gr.TimeLagMs = g.Lag, g.TimeLagMs
		var gProd, gCons float64
		var gChange int64
		gRated := false
		for _, tt := range g.topicTotals() {
			trate := TopicRate{Topic: tt.topic}
			trate.Lag = tt.lag
			trate.TimeLagMs = tt.timeLag
			if tt.unknown && tt.timeLag != nil && *tt.timeLag == 0 {
				trate.TimeLagMs = nil
			}
			var prod, cons float64
			var change int64
			rated := false
			for _, p := range g.Partitions {
				if p.Topic != tt.topic || p.LogEndOffset == nil {
					continue
				}
				q, ok := prev[pkey{g.Group, p.Topic, p.Partition}]
				if !ok || q.LogEndOffset == nil || dt <= 0 || dtc <= 0 {
					continue
				}
				rated = true
				prod += float64(max(*p.LogEndOffset-*q.LogEndOffset, 0))
				cons += float64(max(p.CommittedOffset-q.CommittedOffset, 0))
				change += p.Lag - q.Lag
			}
			if rated {
				gRated = true
				gProd += prod
				gCons += cons
				gChange += change
				trate.RateLag.rate(prod/dt, cons/dtc, change)
			} else {
				trate.Trend, trate.Status = TrendSteady, StatusUnknown
				if tt.lag == 0 && tt.caughtUp {
					trate.Status = StatusCaughtUp
				}
			}
			gr.Topics = append(gr.Topics, trate)
		}
		if gRated {
			gr.RateLag.rate(gProd/dt, gCons/dtc, gChange)
		} else {
			gr.Trend, gr.Status = TrendSteady, StatusUnknown
			if g.CaughtUp {
				gr.Status = StatusCaughtUp
			}
		}
		ws.Groups = append(ws.Groups, gr)
	}
	s.prev = r
	return ws
}

// rate fills rates, trend, status and ETA from the rates and the lag
// change since the previous sample.
func (rl *RateLag) rate(prod, cons float64, change int64) {
	rl.ProduceRecordsPerSec = ptrTo(round3(prod))
	rl.ConsumeRecordsPerSec = ptrTo(round3(cons))
	rl.LagChange = ptrTo(change)
	switch {
	case change > 0:
		rl.Trend = TrendGrowing
	case change < 0:
		rl.Trend = TrendShrinking
	default:
		rl.Trend = TrendSteady
	}
	switch {
	case rl.Lag == 0:
		rl.Status = StatusCaughtUp
	case prod == 0 && cons == 0:
		rl.Status = StatusStalled
	case math.Abs(cons-prod) <= math.Max(1, 0.02*math.Max(prod, cons)):
		rl.Status = StatusKeepingUp
	case cons > prod:
		rl.Status = StatusCatchingUp
		rl.EtaSec = ptrTo(round3(float64(rl.Lag) / (cons - prod)))
	default:
		rl.Status = StatusFallingBehind
	}
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// Header is the watch table header: one row per group and topic.
func (w *WatchSample) Header() []string {
	return []string{"GROUP", "TOPIC", "LAG", "TIME-LAG", "PRODUCE/S", "CONSUME/S", "TREND", "ETA"}
}

// Rows are the watch table rows: each group's total, then its topics.
func (w *WatchSample) Rows() [][]string {
	rows := [][]string{}
	for _, g := range w.Groups {
		rows = append(rows, g.RateLag.row(g.Group, "*"))
		if len(g.Topics) > 1 {
			for _, t := range g.Topics {
				rows = append(rows, t.RateLag.row(g.Group, t.Topic))
			}
		} else if len(g.Topics) == 1 {
			rows[len(rows)-1][1] = g.Topics[0].Topic
		}
	}
	return rows
}

func (rl RateLag) row(group, topic string) []string {
	return []string{group, topic, strconv.FormatInt(rl.Lag, 10),
		FormatTimeLag(rl.TimeLagMs, rl.Status == StatusCaughtUp),
		fmtRate(rl.ProduceRecordsPerSec), fmtRate(rl.ConsumeRecordsPerSec), rl.Trend, rl.ETA()}
}

// ETA prints the catch-up estimate: a duration, "caught up", "keeping
// up", "falling behind", "stalled", or "-" before rates are known.
func (rl RateLag) ETA() string {
	switch rl.Status {
	case StatusCaughtUp:
		return "caught up"
	case StatusCatchingUp:
		if rl.EtaSec != nil {
			return FormatDuration(time.Duration(*rl.EtaSec * float64(time.Second)))
		}
	case StatusFallingBehind:
		return "falling behind"
	case StatusKeepingUp:
		return "keeping up"
	case StatusStalled:
		return "stalled"
	}
	return "-"
}

func fmtRate(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", *v)
}

// Filter keeps only lagging groups and topics when onlyLagging, and sorts
// the groups. The sampler sees every partition; filtering the sample
// afterwards keeps the rates of a group that just caught up right.
func (w *WatchSample) Filter(onlyLagging bool, order string) {
	if onlyLagging {
		gs := w.Groups[:0]
		for _, g := range w.Groups {
			if g.Lag == 0 {
				continue
			}
			ts := []TopicRate{}
			for _, t := range g.Topics {
				if t.Lag > 0 {
					ts = append(ts, t)
				}
			}
			g.Topics = ts
			gs = append(gs, g)
		}
		w.Groups = gs
	}
	sortGroups(w.Groups, order, func(g GroupRate) (string, int64, int64) {
		return g.Group, g.Lag, timeKey(g.TimeLagMs)
	})
}
