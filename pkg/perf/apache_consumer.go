package perf

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ApacheConsumerConfig is the parsed configuration of
// kafka-consumer-perf-test.
type ApacheConsumerConfig struct {
	NumRecords          int64
	TimeoutMs           int64
	ReportingIntervalMs int64
	ShowDetailedStats   bool
	HideHeader          bool
	MaxPollRecords      int
	// DateFormat formats a millisecond timestamp (SimpleDateFormat).
	DateFormat func(ms int64) string
	// OnPoll, if set, sees every poll's fetches (client metrics).
	OnPoll func(kgo.Fetches)
}

// RebalanceTimer is ConsumerPerfRebListener: install its hooks on the
// client (kgo.OnPartitionsRevoked/OnPartitionsAssigned via Opts) before
// the client is built, then call Start when the test starts.
type RebalanceTimer struct {
	mu        sync.Mutex
	joinStart int64
	total     int64
	interval  int64
}

// Opts are the kgo options that feed the timer.
func (r *RebalanceTimer) Opts() []kgo.Opt {
	return []kgo.Opt{
		kgo.OnPartitionsRevoked(func(context.Context, *kgo.Client, map[string][]int32) {
			r.mu.Lock()
			r.joinStart = NowMs()
			r.mu.Unlock()
		}),
		kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) {
			r.mu.Lock()
			d := NowMs() - r.joinStart
			r.total += d
			r.interval += d
			r.mu.Unlock()
		}),
	}
}

// Start sets the initial join start (the test start).
func (r *RebalanceTimer) Start(ms int64) {
	r.mu.Lock()
	r.joinStart = ms
	r.mu.Unlock()
}

func (r *RebalanceTimer) takeInterval() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := r.interval
	r.interval = 0
	return v
}

func (r *RebalanceTimer) totalMs() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

// ApacheConsumerDateFormat is kafka-consumer-perf-test's default
// --date-format.
const ApacheConsumerDateFormat = "yyyy-MM-dd HH:mm:ss:SSS"

// ApacheConsumerHeader returns the header line (without newline).
func ApacheConsumerHeader(detailed bool) string {
	tail := ", rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec"
	if detailed {
		return "time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec" + tail
	}
	return "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec" + tail
}

// ApacheConsumerResult is what the run measured.
type ApacheConsumerResult struct {
	Records int64
	Bytes   int64
	StartMs int64
	EndMs   int64
	JoinMs  int64
}

// RunApacheConsumer runs the ConsumerPerformance loop. The client must be
// subscribed already, check CRCs and carry rt's hooks; startMs is when it
// was built.
//
// Java's tool forces check.crcs=false: a batch whose CRC no longer matches
// is read as long as its records parse, and a record that does not parse
// ends the run with Java's exception. franz-go without CRC checks would
// read such a record as garbage or stop without a word, so the client
// checks CRCs and a batch it refuses is read here with Java's rules
// (integrity.Batch.JavaRecords): counted and skipped when Java reads it,
// else returned as the *integrity.Corruption that ends the run (the result
// is nil then: Java prints no summary).
func RunApacheConsumer(ctx context.Context, cl *kgo.Client, rt *RebalanceTimer, startMs int64, cfg ApacheConsumerConfig, out io.Writer) (*ApacheConsumerResult, error) {
	var bytesRead, msgsRead, lastBytes, lastMsgs int64
	now := NowMs()
	lastReport, lastConsumed := now, now
	w := integrity.NewWatcher(cl)
	for msgsRead < cfg.NumRecords && now-lastConsumed <= cfg.TimeoutMs && ctx.Err() == nil {
		pctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		fs := cl.PollRecords(pctx, cfg.MaxPollRecords)
		cancel()
		if cfg.OnPoll != nil {
			cfg.OnPoll(fs)
		}
		now = NowMs()
		n := fs.NumRecords()
		if n > 0 {
			lastConsumed = now
		}
		fs.EachRecord(func(r *kgo.Record) {
			w.See(r)
			msgsRead++
			bytesRead += int64(len(r.Key) + len(r.Value))
			if now-lastReport >= cfg.ReportingIntervalMs {
				if cfg.ShowDetailedStats {
					printConsumerProgress(out, cfg.DateFormat, bytesRead, lastBytes, msgsRead, lastMsgs, lastReport, now, rt.takeInterval())
				} else {
					rt.takeInterval()
				}
				lastReport, lastMsgs, lastBytes = now, msgsRead, bytesRead
			}
		})
		corrupt, _ := w.Check(ctx, fs) // the client retries the others
		for _, corr := range corrupt {
			if corr.Java != nil {
				return nil, corr
			}
			for _, r := range corr.Records {
				msgsRead++
				bytesRead += int64(max(r.KeySize, 0) + max(r.ValueSize, 0))
			}
			if len(corr.Records) > 0 {
				lastConsumed = now
			}
			w.Skip(cl, corr)
		}
	}
	if msgsRead < cfg.NumRecords {
		fmt.Fprintf(out, "WARNING: Exiting before consuming the expected number of records: timeout (%d ms) exceeded. You can use the --timeout option to increase the timeout.\n", cfg.TimeoutMs)
	}
	endMs := NowMs()
	return &ApacheConsumerResult{Records: msgsRead, Bytes: bytesRead, StartMs: startMs, EndMs: endMs, JoinMs: rt.totalMs()}, nil
}

// WriteApacheConsumerSummary prints the final summary line.
func WriteApacheConsumerSummary(out io.Writer, res *ApacheConsumerResult, dateFormat func(int64) string) {
	elapsedSec := float64(res.EndMs-res.StartMs) / 1000.0
	fetchMs := (res.EndMs - res.StartMs) - res.JoinMs
	mb := float64(res.Bytes) * 1.0 / (1024 * 1024)
	f := javafmt.Fixed
	fmt.Fprintf(out, "%s, %s, %s, %s, %d, %s, %d, %d, %s, %s\n",
		dateFormat(res.StartMs), dateFormat(res.EndMs),
		f(mb, 4), f(mb/elapsedSec, 4), res.Records, f(float64(res.Records)/elapsedSec, 4),
		res.JoinMs, fetchMs, f(mb/(float64(fetchMs)/1000.0), 4), f(float64(res.Records)/(float64(fetchMs)/1000.0), 4))
}

func printConsumerProgress(out io.Writer, df func(int64) string, bytesRead, lastBytes, msgs, lastMsgs, startMs, endMs, joinMs int64) {
	f := javafmt.Fixed
	elapsedMs := float64(endMs - startMs)
	totalMb := float64(bytesRead) * 1.0 / (1024 * 1024)
	intervalMb := float64(bytesRead-lastBytes) * 1.0 / (1024 * 1024)
	intervalMbPerSec := 1000.0 * intervalMb / elapsedMs
	intervalMsgsPerSec := (float64(msgs-lastMsgs) / elapsedMs) * 1000.0
	fetchMs := endMs - startMs - joinMs
	fetchMbPerSec, fetchMsgsPerSec := 0.0, 0.0
	if fetchMs > 0 {
		fetchMbPerSec = 1000.0 * intervalMb / float64(fetchMs)
		fetchMsgsPerSec = 1000.0 * float64(msgs-lastMsgs) / float64(fetchMs)
	}
	fmt.Fprintf(out, "%s, %d, %s, %s, %d, %s, %d, %d, %s, %s\n", df(endMs), 0,
		f(totalMb, 4), f(intervalMbPerSec, 4), msgs, f(intervalMsgsPerSec, 4),
		joinMs, fetchMs, f(fetchMbPerSec, 4), f(fetchMsgsPerSec, 4))
}
