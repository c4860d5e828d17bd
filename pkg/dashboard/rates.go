package dashboard

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/status"
)

// maxFrames is how many rate intervals a cluster keeps (the charts'
// width: 120 at the default 3 s is 6 minutes).
const maxFrames = 120

// idleStop: a sampler whose rates nobody asked for this long stops (and
// starts again on the next request).
const idleStop = 2 * time.Minute

// RateFrame is one interval of rates: totals, per topic and per broker
// (pkg/status's top frame without its per-partition rows).
type RateFrame struct {
	Time          time.Time           `json:"time"`
	IntervalMs    int64               `json:"interval_ms"`
	RecordsPerSec float64             `json:"records_per_sec"`
	BytesPerSec   *float64            `json:"bytes_per_sec"`
	Topics        []status.TopicRate  `json:"topics"`
	Brokers       []status.BrokerRate `json:"brokers"`
}

// rateSampler samples one cluster every interval (pkg/status Sampler, as
// kbox top does) while someone watches its rates.
type rateSampler struct {
	cs       *clusterState
	interval time.Duration

	mu       sync.Mutex
	running  bool
	lastAsk  time.Time
	frames   []RateFrame
	lastErr  string
	done     chan struct{}
	sampling time.Duration
}

type ratesResponse struct {
	IntervalMs int64       `json:"interval_ms"`
	Error      *string     `json:"error"`
	Frames     []RateFrame `json:"frames"`
	// SampleMs is how long the last sample took (end offsets and log
	// dirs of every partition).
	SampleMs int64 `json:"sample_ms"`
}

func (rs *rateSampler) snapshot(ctx context.Context) ratesResponse {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.lastAsk = time.Now()
	if !rs.running {
		rs.running = true
		rs.done = make(chan struct{})
		go rs.loop(ctx, rs.done)
	}
	out := ratesResponse{IntervalMs: rs.interval.Milliseconds(), Frames: append([]RateFrame{}, rs.frames...), SampleMs: rs.sampling.Milliseconds()}
	if rs.lastErr != "" {
		e := rs.lastErr
		out.Error = &e
	}
	return out
}

func (rs *rateSampler) wait() {
	rs.mu.Lock()
	done := rs.done
	rs.mu.Unlock()
	if done != nil {
		<-done
	}
}

func (rs *rateSampler) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	var prev *status.TopSample
	t := time.NewTicker(rs.interval)
	defer t.Stop()
	for {
		rs.mu.Lock()
		idle := time.Since(rs.lastAsk) > idleStop
		if idle {
			rs.running = false
			rs.frames = nil
			rs.mu.Unlock()
			return
		}
		rs.mu.Unlock()
		cur, took, err := rs.sample(ctx)
		rs.mu.Lock()
		rs.sampling = took
		if err != nil {
			rs.lastErr = oneLine(err.Error())
		} else {
			rs.lastErr = ""
			if prev != nil {
				f := status.Frame(prev, cur, status.SortRecords)
				rs.frames = append(rs.frames, RateFrame{Time: f.Time, IntervalMs: f.IntervalMs, RecordsPerSec: f.RecordsPerSec, BytesPerSec: f.BytesPerSec, Topics: f.Topics, Brokers: f.Brokers})
				if len(rs.frames) > maxFrames {
					rs.frames = append([]RateFrame(nil), rs.frames[len(rs.frames)-maxFrames:]...)
				}
			}
			prev = cur
		}
		rs.mu.Unlock()
		select {
		case <-ctx.Done():
			rs.mu.Lock()
			rs.running = false
			rs.mu.Unlock()
			return
		case <-t.C:
		}
	}
}

func (rs *rateSampler) sample(ctx context.Context) (*status.TopSample, time.Duration, error) {
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	start := time.Now()
	cl, err := rs.cs.connect(sctx)
	if err != nil {
		return nil, time.Since(start), err
	}
	smp, err := (&status.Sampler{Client: cl.Client}).Sample(sctx)
	return smp, time.Since(start), err
}

// ratesHandler returns the cluster's rate history (records/s and bytes/s
// in, per topic and per broker), sampling in the background while asked.
func (s *Server) ratesHandler(w http.ResponseWriter, _ *http.Request, cs *clusterState) {
	writeJSON(w, http.StatusOK, cs.rates.snapshot(s.ctx))
}
