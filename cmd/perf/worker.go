package perf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/e2elatency"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/distrib"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kgo"
)

const workerLong = `Run one share of a distributed load test as a Trogdor worker.

A Trogdor agent runs this command for an ExternalCommandSpec task (kbox perf
distributed submits them): it reads the task line {"id":..,"workload":..} on
stdin, waits for the workload's shared start time, runs the produce or consume
load it describes and prints {"status":..} lines on stdout with the cumulative
counters and the encoded HDR histogram of the run so far (twice a second),
then the final result. A failure ends with an {"error":..} line and exit 1.

With --k8s-job it is a pod of kbox perf k8s-job's Indexed Job instead: the
run comes from $KBOX_PERF_JOB and the pod's share from $JOB_COMPLETION_INDEX;
the status lines are the same.
`

// statusWriter prints status lines, one at a time, with a growing sequence.
type statusWriter struct {
	mu     sync.Mutex
	w      io.Writer
	seq    int64
	base   distrib.WorkerStatus
	last   distrib.WorkerStatus
	lastAt time.Time
}

// heartbeat repeats the last status (with a new sequence number) when
// nothing was written for a second, until stop is closed: a worker waiting
// on a slow record (e2e) or an idle topic still shows that it is alive.
func (s *statusWriter) heartbeat(stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.mu.Lock()
			idle, st := time.Since(s.lastAt) >= time.Second && s.seq > 0, s.last
			s.mu.Unlock()
			if idle {
				s.write(st)
			}
		}
	}
}

func (s *statusWriter) write(st distrib.WorkerStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last, s.lastAt = st, time.Now()
	s.seq++
	st.Seq, st.UpdatedMs = s.seq, time.Now().UnixMilli()
	st.Agent, st.TaskMs = s.base.Agent, s.base.TaskMs
	if st.StartMs == 0 {
		st.StartMs = s.base.StartMs
	}
	b, err := distrib.StatusLine(&st)
	if err != nil {
		b = distrib.ErrorLine(err.Error())
	}
	_, _ = s.w.Write(b)
}

func newWorkerCmd(f *cmdutil.Factory) *cobra.Command {
	var k8sJob bool
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Trogdor ExternalCommand worker: one agent's share of kbox perf distributed",
		Long:  workerLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var task *distrib.Task
			var err error
			if k8sJob {
				task, err = distrib.JobTask(f.Getenv(distrib.JobEnv), f.Getenv(distrib.IndexEnv))
			} else {
				task, err = distrib.ReadTask(f.IO.In)
			}
			if err != nil {
				_, _ = f.IO.Out.Write(distrib.ErrorLine(err.Error()))
				return err
			}
			ctx := cmd.Context()
			defer cmdutil.CancelOnInterrupt(ctx)()
			sw := &statusWriter{w: f.IO.Out, base: distrib.WorkerStatus{Agent: task.Workload.Agent, TaskMs: time.Now().UnixMilli()}}
			hbStop, hbDone := make(chan struct{}), make(chan struct{})
			go func() { sw.heartbeat(hbStop); close(hbDone) }()
			res, err := runWorker(ctx, f, &task.Workload, sw)
			close(hbStop)
			<-hbDone // the final status below is the last line
			if err != nil {
				st := distrib.WorkerStatus{State: distrib.WorkerFailed, Error: err.Error(), Result: res}
				if res != nil {
					st.Records, st.Bytes, st.Histogram = res.Records, res.Bytes, res.Histogram
				}
				sw.write(st)
				_, _ = f.IO.Out.Write(distrib.ErrorLine(err.Error()))
				return err
			}
			sw.write(distrib.WorkerStatus{State: distrib.WorkerDone, Records: res.Records, Bytes: res.Bytes, Histogram: res.Histogram, Result: res})
			return nil
		},
	}
	cmd.Flags().BoolVar(&k8sJob, "k8s-job", false, "run share $JOB_COMPLETION_INDEX of the run in $KBOX_PERF_JOB (a pod of kbox perf k8s-job's Indexed Job) instead of reading a Trogdor task line on stdin")
	return cmd
}

// runWorker waits for the shared start time and runs the workload.
func runWorker(ctx context.Context, f *cmdutil.Factory, w *distrib.AgentWorkload, sw *statusWriter) (*perf.Result, error) {
	props := config.NewProperties()
	for k, v := range w.Properties {
		props.Set(k, v)
	}
	role := kafka.Producer
	extra := []kgo.Opt(nil)
	if w.Kind == "consume" {
		role = kafka.Consumer
		reset := "earliest"
		if _, ok := w.Properties["auto.offset.reset"]; ok {
			reset = w.Properties["auto.offset.reset"]
		}
		props.Set("group.id", w.Group)
		props.Set("auto.offset.reset", reset)
		extra = append(extra, kgo.ConsumeTopics(w.Topic))
	}
	if w.Kind == perf.KindE2E {
		return runWorkerE2E(ctx, f, w, props, sw)
	}
	conn, err := f.Connection(config.Overrides{Bootstrap: w.Bootstrap, Properties: props})
	if err != nil {
		return nil, err
	}
	defaults := config.NewProperties()
	defaults.Set("client.id", w.ClientID)
	var clients []*kgo.Client
	var settings []string
	maxPoll := 0
	for i := 0; i < w.Clients; i++ {
		cl, err := f.ConnectedClient(ctx, conn, role, kafka.Options{Defaults: defaults, Extra: extra,
			Tune: func(s *kafka.Settings) {
				if w.Kind == "produce" {
					s.MaxRecordBytes = w.RecordSize
				}
			}})
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		clients = append(clients, cl.Client)
		settings = cl.Settings.EffectiveSorted()
		maxPoll = cl.Settings.MaxPollRecords
	}

	// A consumer joins its group while it waits for the shared start, but
	// fetches nothing: records buffered before the start would be counted
	// at memory speed when it comes (3,000 records in under 1 ms was seen).
	// Pausing drops anything already buffered.
	if w.Kind != "produce" {
		for _, cl := range clients {
			cl.PauseFetchTopics(w.Topic)
		}
	}
	if err := waitStart(ctx, w, sw); err != nil {
		return nil, err
	}
	if w.Kind != "produce" {
		for _, cl := range clients {
			cl.ResumeFetchTopics(w.Topic)
		}
	}
	progress := func(p perf.Progress) {
		st := distrib.WorkerStatus{State: distrib.WorkerRunning, Done: p.Done, Records: p.Records, Bytes: p.Bytes, Rate: p.Rate}
		if p.Hist != nil {
			if enc, err := p.Hist.Encode(); err == nil {
				st.Histogram = enc
			}
		}
		sw.write(st)
	}
	interval := time.Duration(w.IntervalMs) * time.Millisecond
	settings = append(settings, fmt.Sprintf("trogdor.agent=%s", w.Agent))
	switch w.Kind {
	case "produce":
		cfg := perf.ProduceConfig{Topic: w.Topic, Records: w.Records, Duration: time.Duration(w.DurationMs) * time.Millisecond,
			RecordSize: w.RecordSize, Rate: w.Rate, KeyCardinality: w.KeyCardinality, KeyFirst: w.KeyFirst, WarmupRecords: w.WarmupRecords,
			WarmupDuration: time.Duration(w.WarmupMs) * time.Millisecond, RepeatPayload: w.RepeatPayload,
			Seed: w.Seed + int64(w.Index), Interval: interval, Settings: settings}
		return perf.Produce(ctx, clients, cfg, progress)
	default:
		cfg := perf.ConsumeConfig{Topic: w.Topic, Records: w.Records, Duration: time.Duration(w.DurationMs) * time.Millisecond,
			IdleTimeout: time.Duration(w.IdleTimeoutMs) * time.Millisecond, WarmupRecords: w.WarmupRecords,
			WarmupDuration: time.Duration(w.WarmupMs) * time.Millisecond, MaxPollRecords: maxPoll, Interval: interval, Settings: settings}
		res, err := perf.Consume(ctx, clients, cfg, progress)
		if errors.Is(err, perf.ErrIdle) {
			err = fmt.Errorf("stopped after %d of %d measured records: %v", res.Records, w.Records, err)
		}
		return res, err
	}
}

// waitStart waits for the shared start time (reporting "waiting" twice a
// second, so the driver sees the agent alive), then marks the load start.
func waitStart(ctx context.Context, w *distrib.AgentWorkload, sw *statusWriter) error {
	if wait := time.Until(time.UnixMilli(w.StartMs)); wait > 0 {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		timer := time.NewTimer(wait)
		defer timer.Stop()
		sw.write(distrib.WorkerStatus{State: distrib.WorkerWaiting})
	waiting:
		for {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-timer.C:
				break waiting
			case <-t.C:
				sw.write(distrib.WorkerStatus{State: distrib.WorkerWaiting})
			}
		}
	}
	sw.mu.Lock()
	sw.base.StartMs = time.Now().UnixMilli()
	sw.mu.Unlock()
	sw.write(distrib.WorkerStatus{State: distrib.WorkerRunning})
	return nil
}

// runWorkerE2E is an e2e share: one record in flight on the agent's own
// topic (created with 1 partition when missing, as kafka-e2e-latency does).
// Progress statuses carry the round trips after the warm-up records.
func runWorkerE2E(ctx context.Context, f *cmdutil.Factory, w *distrib.AgentWorkload, props *config.Properties, sw *statusWriter) (*perf.Result, error) {
	acks := "all"
	if a, ok := w.Properties["acks"]; ok && a != "" {
		acks = a
	}
	if acks == "-1" {
		acks = "all"
	}
	prod, cons, err := e2elatency.Clients(ctx, f, config.Overrides{Bootstrap: w.Bootstrap, Properties: props}, acks)
	if err != nil {
		return nil, err
	}
	defer prod.Close()
	defer cons.Close()
	if err := waitStart(ctx, w, sw); err != nil {
		return nil, err
	}
	cfg := perf.E2EConfig{Topic: w.Topic + "-" + w.Agent, Records: int(w.Records), Duration: time.Duration(w.DurationMs) * time.Millisecond,
		RecordSize: w.RecordSize, WarmupRecords: int(w.WarmupRecords), WarmupDuration: time.Duration(w.WarmupMs) * time.Millisecond,
		PollTimeout: time.Duration(w.PollTimeoutMs) * time.Millisecond, Group: w.Group, Interval: time.Duration(w.IntervalMs) * time.Millisecond,
		Settings: append(prod.Settings.EffectiveSorted(), "trogdor.agent="+w.Agent)}
	hist := perf.NewLatency()
	var records, bytes int64
	last := time.Now()
	warmEnd := time.Now().Add(cfg.WarmupDuration)
	obs := perf.E2EObserver{Record: func(i int, d time.Duration) {
		if i >= cfg.WarmupRecords && !time.Now().Add(-d).Before(warmEnd) {
			hist.Record(d)
			records++
			bytes += int64(cfg.RecordSize)
		}
		if time.Since(last) >= 500*time.Millisecond {
			last = time.Now()
			st := distrib.WorkerStatus{State: distrib.WorkerRunning, Done: int64(i + 1), Records: records, Bytes: bytes}
			if enc, err := hist.Encode(); err == nil {
				st.Histogram = enc
			}
			sw.write(st)
		}
	}}
	run, err := perf.RunE2E(ctx, prod.Client, cons.Client, prod.Admin(), cfg, obs)
	if err != nil {
		return nil, prod.Explain(err)
	}
	return run.Result, nil
}
