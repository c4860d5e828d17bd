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
	StatusCatchingUp    = "catching_up"    // the lag shrinks over the window: ETA known
	StatusKeepingUp     = "keeping_up"     // lag, about steady over the window (within 2 % of the rates or 1 record/s)
	StatusFallingBehind = "falling_behind" // the lag grows over the window
	StatusStalled       = "stalled"        // lag, and neither producing nor consuming over the window
	StatusUnknown       = "unknown"        // the window shows no trend yet
)

// Trend of the lag over the window of commits.
const (
	TrendGrowing   = "growing"
	TrendShrinking = "shrinking"
	TrendSteady    = "steady"
	TrendUnknown   = "unknown" // fewer than two commits in the window
)

// RateLag is the lag, rates, trend, catch-up estimate and verdict of a
// group, or of one group on one topic, over the windows of commits of its
// partitions.
type RateLag struct {
	Lag       int64  `json:"lag"`
	TimeLagMs *int64 `json:"time_lag_ms"`
	// LagPerSec is how fast the lag changed over the windows (positive:
	// growing): the slope of the lag at the commits, summed over the
	// partitions; null while some lagging partition has no trend yet.
	LagPerSec *float64 `json:"lag_per_sec"`
	// ProduceRecordsPerSec is how fast the log-end offsets of the
	// partitions grew over their windows; ConsumeRecordsPerSec how fast
	// the committed offsets did. Null until a partition has a window.
	ProduceRecordsPerSec *float64 `json:"produce_records_per_sec"`
	ConsumeRecordsPerSec *float64 `json:"consume_records_per_sec"`
	Trend                string   `json:"trend"`
	Status               string   `json:"status"`
	// EtaSec is the estimated time to catch up, lag / -LagPerSec, while
	// the windows show the lag shrinking; null otherwise.
	EtaSec *float64 `json:"eta_sec"`
	// Verdict is the worst verdict of the partitions (Burrow's rules).
	Verdict Verdict `json:"verdict"`
}

// TopicRate is one group's RateLag on one topic.
type TopicRate struct {
	Topic string `json:"topic"`
	RateLag
}

// PartitionRate is one group's rates and verdict on one partition, over
// the partition's window of commits.
type PartitionRate struct {
	Topic           string `json:"topic"`
	Partition       int32  `json:"partition"`
	CommittedOffset int64  `json:"committed_offset"`
	// LogEndOffset is null when the end offset could not be listed.
	LogEndOffset         *int64   `json:"log_end_offset"`
	Lag                  int64    `json:"lag"`
	LagPerSec            *float64 `json:"lag_per_sec"`
	ProduceRecordsPerSec *float64 `json:"produce_records_per_sec"`
	ConsumeRecordsPerSec *float64 `json:"consume_records_per_sec"`
	Trend                string   `json:"trend"`
	Verdict              Verdict  `json:"verdict"`
	// WindowCommits is how many entries the window holds (at most
	// WindowCommits): samples in which the committed offset had moved,
	// the first sample of the partition, and caught-up samples.
	WindowCommits int `json:"window_commits"`
	// WindowSpanMs is the time from the window's first entry to its last;
	// SinceCommitMs the time since its last entry.
	WindowSpanMs  int64  `json:"window_span_ms"`
	SinceCommitMs int64  `json:"since_commit_ms"`
	Error         string `json:"error,omitempty"`
}

// GroupRate is one group's RateLag, overall, per topic and per partition.
type GroupRate struct {
	Group string `json:"group"`
	State string `json:"state"`
	RateLag
	Topics     []TopicRate     `json:"topics"`
	Partitions []PartitionRate `json:"partitions"`
	Error      string          `json:"error,omitempty"`
}

// WatchSample is one sample of a watch. IntervalSec (the time since the
// previous sample) is null on the first sample.
type WatchSample struct {
	Time        time.Time   `json:"time"`
	Sample      int         `json:"sample"`
	IntervalSec *float64    `json:"interval_sec"`
	Groups      []GroupRate `json:"groups"`
}

// Sampler turns successive lag reports into watch samples. It keeps, per
// group and partition, a sliding window of the last WindowCommits
// commits it saw (a sample in which the committed offset had moved; the
// first sample of the partition; a sample that found it caught up), and
// judges from the windows: produce and consume rates, the lag trend, an
// ETA to catch up, and Burrow's verdicts (see judge). A sample in which a
// partition's committed offset did not move, while it lags, adds nothing
// to its window: consumers commit every few seconds, and a sample between
// two commits says nothing about the trend.
//
// Reports may cover different groups (the dashboard asks for one group,
// then for all): a partition's window is kept while it is out of the
// reports, for up to an hour.
//
// The windows are fixed-size rings of 24-byte entries in chunks, found
// through a map without pointers (the group and topic names are interned
// once): 100,000 partitions take about 27 MB that the garbage collector
// does not scan, and a sample allocates no window. Times are kept to the
// millisecond.
type Sampler struct {
	// OmitPartitions leaves the per-partition rates out of the samples
	// (GroupRate.Partitions stays empty): the windows are kept and the
	// verdicts judged as without it (each LagPartition's Verdict is set),
	// for callers that serve groups and topics only.
	OmitPartitions bool

	origin   time.Time // the windows' clock: durations since the first report
	started  bool
	names    map[groupTopic]uint32 // interned group and topic names
	nameRefs []int32               // windows per interned name (0: free)
	freeName []uint32
	parts    map[pkey]int32 // the index of each partition's window in wins
	wins     [][]window     // chunks of winChunk windows (no copy as they grow)
	nWins    int32          // window slots made
	freeWin  []int32
	prevTime time.Time
	n        int
}

type groupTopic struct{ group, topic string }

// pkey is a partition of a group: its interned group and topic, and the
// partition.
type pkey struct {
	name      uint32
	partition int32
}

// window is one partition's entries (a ring: the oldest at head) and what
// the last sample saw.
type window struct {
	ring   [WindowCommits]commit
	offset int64         // the committed offset at the last sample
	seen   time.Duration // the last sample that had the partition
	key    pkey
	head   uint8
	n      uint8 // entries in the ring; 0: a free slot
}

// forget is how long a partition's window is kept while no report has it.
const forget = time.Hour

// winChunk is how many windows a chunk of Sampler.wins holds.
const winChunk = 1024

func (s *Sampler) win(i int32) *window { return &s.wins[i/winChunk][i%winChunk] }

// clock is t on the windows' clock, to the millisecond (as the windows
// keep it).
func (s *Sampler) clock(t time.Time) time.Duration {
	return t.Sub(s.origin).Truncate(time.Millisecond)
}

// name interns a group and topic.
func (s *Sampler) name(group, topic string) uint32 {
	k := groupTopic{group, topic}
	if id, ok := s.names[k]; ok {
		return id
	}
	var id uint32
	if n := len(s.freeName); n > 0 {
		id, s.freeName = s.freeName[n-1], s.freeName[:n-1]
	} else {
		id = uint32(len(s.nameRefs))
		s.nameRefs = append(s.nameRefs, 0)
	}
	s.names[k] = id
	return id
}

// window returns the partition's window, nil when it has none yet.
func (s *Sampler) window(k pkey) *window {
	if i, ok := s.parts[k]; ok {
		return s.win(i)
	}
	return nil
}

// newWindow makes an empty window for the partition.
func (s *Sampler) newWindow(k pkey) *window {
	var i int32
	if n := len(s.freeWin); n > 0 {
		i, s.freeWin = s.freeWin[n-1], s.freeWin[:n-1]
	} else {
		if s.nWins%winChunk == 0 {
			s.wins = append(s.wins, make([]window, winChunk))
		}
		i = s.nWins
		s.nWins++
	}
	s.parts[k] = i
	s.nameRefs[k.name]++
	w := s.win(i)
	*w = window{key: k}
	return w
}

// forgetOld drops the windows no report has had for longer than forget,
// and the names no window uses (any more, or at all: a name interned for
// partitions without a window, in error or without an end offset).
func (s *Sampler) forgetOld(now time.Duration) {
	for i := int32(0); i < s.nWins; i++ {
		w := s.win(i)
		if w.n == 0 || now-w.seen <= forget {
			continue
		}
		delete(s.parts, w.key)
		s.nameRefs[w.key.name]--
		*w = window{}
		s.freeWin = append(s.freeWin, i)
	}
	for k, id := range s.names {
		if s.nameRefs[id] == 0 {
			delete(s.names, k)
			s.freeName = append(s.freeName, id)
		}
	}
}

// Add takes the next report (its Time later than the previous one's) and
// returns the sample. It also sets each partition's and group's Verdict
// in r from the windows.
func (s *Sampler) Add(r *LagReport) *WatchSample {
	if s.parts == nil {
		s.parts, s.names = map[pkey]int32{}, map[groupTopic]uint32{}
	}
	s.n++
	ws := &WatchSample{Time: r.Time, Sample: s.n, Groups: make([]GroupRate, 0, len(r.Groups))}
	if !s.prevTime.IsZero() {
		ws.IntervalSec = ptrTo(round3(r.Time.Sub(s.prevTime).Seconds()))
	}
	s.prevTime = r.Time
	nowT := r.committedAt
	if nowT.IsZero() {
		nowT = r.Time
	}
	if !s.started {
		s.origin, s.started = nowT, true
	}
	now, endsAt := s.clock(nowT), s.clock(r.Time)
	for gi := range r.Groups {
		g := &r.Groups[gi]
		gr := GroupRate{Group: g.Group, State: g.State, Error: g.Error, Topics: []TopicRate{}, Partitions: []PartitionRate{}}
		if !s.OmitPartitions && len(g.Partitions) > 0 {
			gr.Partitions = make([]PartitionRate, 0, len(g.Partitions))
		}
		gr.Lag, gr.TimeLagMs = g.Lag, g.TimeLagMs
		var gAgg, tAgg aggregate
		gAgg.caughtUp = g.CaughtUp
		var name uint32
		flush := func() {
			if tAgg.topic == "" {
				return
			}
			tr := TopicRate{Topic: tAgg.topic}
			tr.Lag, tr.TimeLagMs = tAgg.lag, tAgg.timeLag
			tr.RateLag.fill(&tAgg)
			gr.Topics = append(gr.Topics, tr)
		}
		for pi := range g.Partitions {
			p := &g.Partitions[pi]
			if p.Topic != tAgg.topic || pi == 0 {
				flush()
				tAgg = aggregate{topic: p.Topic, caughtUp: true}
				name = s.name(g.Group, p.Topic)
			}
			pa := s.partition(g, p, pkey{name, p.Partition}, now, endsAt)
			p.Verdict = pa.verdict
			if !s.OmitPartitions {
				gr.Partitions = append(gr.Partitions, pa.rate(p))
			}
			tAgg.add(p, &pa)
			gAgg.add(p, &pa)
		}
		flush()
		gr.RateLag.fill(&gAgg)
		g.total()
		ws.Groups = append(ws.Groups, gr)
	}
	s.forgetOld(now)
	return ws
}

// partAssess is a partition's judgement: what it adds to its topic's and
// group's aggregate, and what its PartitionRate shows of its window.
type partAssess struct {
	prod, cons            float64
	hasProd, hasCons      bool
	slope                 float64
	hasSlope              bool
	slopeMargin           float64 // how far from 0 the slope must be to show a trend
	trendSlope            float64 // the slope the trend is judged on (0 within one commit of the end)
	projectedLag          float64 // the lag now, projected from the last commit along the trend
	verdict               Verdict
	lagging, judged       bool
	commits               int
	spanMs, sinceCommitMs int64
}

// rate is the partition's PartitionRate.
func (pa *partAssess) rate(p *LagPartition) PartitionRate {
	pr := PartitionRate{Topic: p.Topic, Partition: p.Partition, CommittedOffset: p.CommittedOffset, LogEndOffset: p.LogEndOffset,
		Lag: p.Lag, Trend: TrendUnknown, Error: p.Error, Verdict: pa.verdict,
		WindowCommits: pa.commits, WindowSpanMs: pa.spanMs, SinceCommitMs: pa.sinceCommitMs}
	var prod, cons float64
	if pa.hasProd {
		prod = pa.prod
		pr.ProduceRecordsPerSec = ptrTo(round3(pa.prod))
	}
	if pa.hasCons {
		cons = pa.cons
		pr.ConsumeRecordsPerSec = ptrTo(round3(pa.cons))
	}
	if pa.hasSlope {
		pr.LagPerSec = ptrTo(round3(pa.slope))
		pr.Trend = trendOf(pa.trendSlope, pa.slopeMargin, prod, cons)
	}
	return pr
}

// partition updates one partition's window with the report and judges it
// (now and endsAt on the windows' clock).
func (s *Sampler) partition(g *LagGroup, p *LagPartition, k pkey, now, endsAt time.Duration) partAssess {
	pa := partAssess{lagging: p.Lag > 0, projectedLag: float64(p.Lag)}
	if p.Error != "" || p.LogEndOffset == nil {
		return pa
	}
	pa.judged = true
	moved := false
	w := s.window(k)
	switch {
	case w != nil && now < w.seen:
		// An older report than the last one (two requests crossed):
		// judged against the window, not added to it.
	case w == nil:
		w = s.newWindow(k)
		w.add(newCommit(now, endsAt, p.CommittedOffset, *p.LogEndOffset, moved))
		w.offset, w.seen = p.CommittedOffset, now
	case p.CommittedOffset != w.offset:
		moved = true
		w.add(newCommit(now, endsAt, p.CommittedOffset, *p.LogEndOffset, moved))
	case p.Lag == 0:
		w.add(newCommit(now, endsAt, p.CommittedOffset, *p.LogEndOffset, moved)) // caught up: nothing to commit
	}
	if now > w.seen {
		w.offset, w.seen = p.CommittedOffset, now
	}
	var buf [WindowCommits]commit
	cs := w.entries(&buf)
	gap, span := windowStats(cs)
	last := cs[len(cs)-1]
	pa.verdict = judge(cs, p.Lag, now, g.State)
	pa.commits = len(cs)
	pa.spanMs = span.Milliseconds()
	lastAt := last.at()
	pa.sinceCommitMs = (now - lastAt).Milliseconds()

	// Rates and trend: over the window since the last rewind, at the
	// commits; up to now when caught up or when the commits stopped
	// coming at their cadence.
	from := 0
	for i := 1; i < len(cs); i++ {
		if cs[i].offset < cs[i-1].offset {
			from = i
		}
	}
	ww := cs[from:]
	if dt := (endsAt - ww[0].endAt()).Seconds(); dt > 0 && *p.LogEndOffset >= ww[0].end {
		pa.prod, pa.hasProd = float64(*p.LogEndOffset-ww[0].end)/dt, true
	}
	if gap > 0 || p.Lag == 0 {
		var tsBuf [WindowCommits + 1]time.Duration
		var lagBuf [WindowCommits + 1]int64
		ts, lags := tsBuf[:0], lagBuf[:0]
		for i := range ww {
			ts, lags = append(ts, ww[i].at()), append(lags, ww[i].lag())
		}
		endAt, endOff := lastAt, last.offset
		onCadence := gap > 0 && now-lastAt <= 2*gap
		if (p.Lag == 0 || !onCadence) && now > lastAt {
			endAt, endOff = now, p.CommittedOffset
			ts, lags = append(ts, now), append(lags, p.Lag)
		}
		if dt := (endAt - ww[0].at()).Seconds(); dt > 0 {
			pa.cons, pa.hasCons = float64(max(endOff-ww[0].offset, 0))/dt, true
		}
		if sl, margin, ok := lagSlope(ts, lags); ok {
			pa.slope, pa.hasSlope, pa.slopeMargin, pa.trendSlope = sl, true, margin, sl
			if endAt == lastAt {
				pa.projectedLag = max(float64(last.lag())+sl*(now-lastAt).Seconds(), 0)
			}
			// Within one commit of the log end: a consumer that commits
			// every few seconds stands, at its commits, about what the
			// producers wrote since its previous commit behind. Its lag
			// cannot shrink further: it is not catching up any more,
			// whatever the window remembers of a catch-up.
			if sl < 0 && onCadence && pa.hasProd && float64(last.lag()) <= pa.prod*gap.Seconds() {
				pa.trendSlope = 0
			}
		}
	}
	return pa
}

// add appends c, dropping the oldest entry of a full window.
func (w *window) add(c commit) {
	if int(w.n) < WindowCommits {
		w.ring[(int(w.head)+int(w.n))%WindowCommits] = c
		w.n++
		return
	}
	w.ring[w.head] = c
	w.head = uint8((int(w.head) + 1) % WindowCommits)
}

// entries copies the window's entries, oldest first, into buf.
func (w *window) entries(buf *[WindowCommits]commit) []commit {
	n, h := int(w.n), int(w.head)
	k := copy(buf[:n], w.ring[h:min(h+n, WindowCommits)])
	copy(buf[k:n], w.ring[:n-k])
	return buf[:n]
}

// trendOf classifies a lag slope: steady within 2 % of the larger rate,
// 1 record/s, or the slope's margin (the lag at the commits scatters
// more than it moves: no trend at 99 %).
func trendOf(slope, margin, prod, cons float64) string {
	switch tol := math.Max(math.Max(1, 0.02*math.Max(prod, cons)), margin); {
	case slope > tol:
		return TrendGrowing
	case slope < -tol:
		return TrendShrinking
	}
	return TrendSteady
}

// aggregate sums partitions into a topic's or group's RateLag.
type aggregate struct {
	topic            string
	lag              int64
	timeLag          *int64
	timeUnknown      bool
	caughtUp         bool
	prod, cons       float64
	prodN, consN     int
	slope, projected float64
	trendSlope       float64
	slopeMargin2     float64 // the sum of the squared slope margins
	parts, slopes    int
	noTrend          bool // a lagging partition without a trend
	verdict          Verdict
}

func (a *aggregate) add(p *LagPartition, pa *partAssess) {
	if a.parts == 0 {
		a.verdict = pa.verdict
	} else {
		a.verdict = Worse(a.verdict, pa.verdict)
	}
	a.parts++
	a.lag += p.Lag
	a.caughtUp = a.caughtUp && p.CaughtUp
	if p.TimeLagMs == nil {
		a.timeUnknown = a.timeUnknown || p.Lag > 0 || p.Error != ""
	} else if a.timeLag == nil || *p.TimeLagMs > *a.timeLag {
		a.timeLag = ptrTo(*p.TimeLagMs)
	}
	if pa.hasProd {
		a.prod += pa.prod
		a.prodN++
	}
	if pa.hasCons {
		a.cons += pa.cons
		a.consN++
	}
	switch {
	case pa.hasSlope:
		a.slopes++
		a.slope += pa.slope
		a.trendSlope += pa.trendSlope
		a.slopeMargin2 += pa.slopeMargin * pa.slopeMargin
		a.projected += pa.projectedLag
	case pa.lagging || !pa.judged:
		a.noTrend = true
	}
}

// fill sets rates, trend, status, ETA and verdict from the aggregate.
func (rl *RateLag) fill(a *aggregate) {
	if a.timeUnknown && a.timeLag != nil && *a.timeLag == 0 {
		rl.TimeLagMs = nil
	}
	rl.Verdict = a.verdict
	if a.prodN > 0 {
		rl.ProduceRecordsPerSec = ptrTo(round3(a.prod))
	}
	if a.consN > 0 {
		rl.ConsumeRecordsPerSec = ptrTo(round3(a.cons))
	}
	rl.Trend, rl.Status = TrendUnknown, StatusUnknown
	if a.slopes > 0 && !a.noTrend {
		rl.LagPerSec = ptrTo(round3(a.slope))
		rl.Trend = trendOf(a.trendSlope, math.Sqrt(a.slopeMargin2), a.prod, a.cons)
	}
	switch {
	case rl.Lag == 0 && a.caughtUp:
		rl.Status = StatusCaughtUp
	case rl.LagPerSec == nil:
	case a.prodN > 0 && a.consN > 0 && a.prod == 0 && a.cons == 0:
		rl.Status = StatusStalled
	case rl.Trend == TrendSteady:
		rl.Status = StatusKeepingUp
	case rl.Trend == TrendShrinking:
		rl.Status = StatusCatchingUp
		rl.EtaSec = ptrTo(round3(a.projected / -a.trendSlope))
	default:
		rl.Status = StatusFallingBehind
	}
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// Header is the watch table header: one row per group and topic.
func (w *WatchSample) Header() []string {
	return []string{"GROUP", "TOPIC", "LAG", "TIME-LAG", "PRODUCE/S", "CONSUME/S", "TREND", "ETA", "VERDICT"}
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

// WideHeader is the wide watch table header: one row per partition.
func (w *WatchSample) WideHeader() []string {
	return []string{"GROUP", "TOPIC", "PARTITION", "COMMITTED", "LAG", "PRODUCE/S", "CONSUME/S", "LAG/S", "TREND", "VERDICT", "COMMITS", "SINCE-COMMIT"}
}

// WideRows are the wide watch rows, one per partition.
func (w *WatchSample) WideRows() [][]string {
	rows := [][]string{}
	for _, g := range w.Groups {
		if len(g.Partitions) == 0 {
			rows = append(rows, []string{g.Group, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", lagErrCell(g.Error, "-")})
			continue
		}
		for _, p := range g.Partitions {
			since, commits := "-", "-"
			if p.WindowCommits > 0 {
				commits = strconv.Itoa(p.WindowCommits)
				since = FormatDuration(time.Duration(p.SinceCommitMs) * time.Millisecond)
			}
			if p.Error != "" {
				since = "error: " + p.Error
			}
			rows = append(rows, []string{g.Group, p.Topic, strconv.Itoa(int(p.Partition)), strconv.FormatInt(p.CommittedOffset, 10),
				strconv.FormatInt(p.Lag, 10), fmtRate(p.ProduceRecordsPerSec), fmtRate(p.ConsumeRecordsPerSec), fmtRate(p.LagPerSec),
				p.Trend, p.Verdict.String(), commits, since})
		}
	}
	return rows
}

func (rl RateLag) row(group, topic string) []string {
	return []string{group, topic, strconv.FormatInt(rl.Lag, 10),
		FormatTimeLag(rl.TimeLagMs, rl.Status == StatusCaughtUp),
		fmtRate(rl.ProduceRecordsPerSec), fmtRate(rl.ConsumeRecordsPerSec), rl.Trend, rl.ETA(), rl.Verdict.String()}
}

// ETA prints the catch-up estimate: a duration, "caught up", "keeping
// up", "falling behind", "stalled", or "-" while the window shows no
// trend.
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

// Filter keeps only lagging groups, topics and partitions when
// onlyLagging, and sorts the groups. The sampler sees every partition;
// filtering the sample afterwards keeps the windows of a group that just
// caught up right.
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
			ps := []PartitionRate{}
			for _, p := range g.Partitions {
				if p.Lag > 0 {
					ps = append(ps, p)
				}
			}
			g.Topics, g.Partitions = ts, ps
			gs = append(gs, g)
		}
		w.Groups = gs
	}
	sortGroups(w.Groups, order, func(g GroupRate) (string, int64, int64) {
		return g.Group, g.Lag, timeKey(g.TimeLagMs)
	})
}
