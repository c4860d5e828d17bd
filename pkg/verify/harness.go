package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/trogdor"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The use case of `kbox verify run`: K producers and M consumers in this
// process, faults injected on a schedule, a verdict over what was seen.
// The command parses and validates its flags into a HarnessRequest, then
// NewHarness (a bad client property fails here, before anything is
// created), opens its event logs, connects an admin client and calls
// Harness.Run; it prints the RunReport.

// HarnessRequest is one verify run.
type HarnessRequest struct {
	Topic             string
	Group             string // the consumers' group
	CreateTopic       bool   // create Topic (it must not exist) with:
	Partitions        int32
	ReplicationFactor int16
	TopicConfigs      map[string]*string
	Messages          int64 // over all producers (with Duration: ignored)
	Duration          time.Duration
	Producers         int
	Consumers         int
	Throughput        int64 // messages/s over all producers; < 0 unthrottled
	Idempotent        bool
	Transactional     bool
	TxnSize           int
	AbortEvery        int
	MinAcks           int    // with faults: the liveness floor (-1: default)
	Acks              string // the producers' acks
	Timeout           time.Duration
	Window            time.Duration // a window verdict every Window (0: none)
	Schedule          []FaultSpec
	Trogdor           *trogdor.Client // the coordinator of the Trogdor faults
	Examples          int

	// NewClient builds (without dialing) a client of the run's cluster.
	NewClient func(role kafka.Role, o kafka.Options) (*kafka.Client, error)
	// Interrupts, once the topic is ready, starts the delivery of the
	// interrupts until release: the first stops producing and starts a
	// bounded drain, a second ends the drain. Nil: none.
	Interrupts func() (sigs <-chan os.Signal, release func())
	// Stderr receives the interruption notices and the faults' lines.
	Stderr io.Writer
	// Warn, when set, reports an event log that could not be written.
	Warn func(format string, a ...any)
	// Windows receives the window verdicts in WindowFormat; BeforeWindow,
	// when set, runs before each is written (a live progress line cleared).
	Windows      io.Writer
	WindowFormat output.Format
	BeforeWindow func()
	// Progress, when set, is started once the run is (its start time the
	// run's); the function it returns stops it before the verdict.
	Progress func(run *Run, start time.Time) (stop func())
}

// HarnessLogs are the event log files of a run (nil: none).
type HarnessLogs struct {
	Producers, Consumers         []io.Writer
	ProducerNames, ConsumerNames []string
}

// Harness is a run whose client settings are checked.
type Harness struct {
	req        HarnessRequest
	idempotent bool // the producers' effective enable.idempotence
	maxPoll    int
	txnID      string
	memory     int64 // the clients' budgets and the checker's (MemoryBudget)
}

// MemoryBudget is what the run holds at most: every producer's buffer
// and every consumer's buffered fetch (bounded by bytes, see
// tuneProducer and boundFetches) and the checker's state. A single-purpose
// process may set its soft memory limit from it.
func (h *Harness) MemoryBudget() int64 { return h.memory }

// InterruptDrain bounds the consumers' catch-up after an interrupt.
const InterruptDrain = 30 * time.Second

// NewHarness builds (without dialing) one producer and one consumer, so a
// bad property fails before the topic is created.
func NewHarness(req HarnessRequest) (*Harness, error) {
	h := &Harness{req: req, txnID: fmt.Sprintf("kbox-verify-%s-%d", req.Topic, time.Now().UnixMilli())}
	probeP, err := req.NewClient(kafka.Producer, kafka.Options{Defaults: h.producerProps(0), Tune: tuneProducer})
	if err != nil {
		return nil, err
	}
	h.idempotent = probeP.Settings.Idempotent
	probeP.Close()
	probeC, err := req.NewClient(kafka.Consumer, kafka.Options{Tune: h.tuneConsumer})
	if err != nil {
		return nil, err
	}
	h.maxPoll = probeC.Settings.MaxPollRecords
	probeC.Close()
	h.memory = int64(req.Producers)*probeP.Settings.ProducerMemory(verifyValueBytes) +
		int64(req.Consumers)*consumerMemory(probeC.Settings) + checkerMemory
	return h, nil
}

// producerProps are the client settings of producer i: the drop-in
// producer's defaults (acks from the request, retries=0), or the
// harness's idempotent variant; the user's properties go on top.
func (h *Harness) producerProps(i int) *config.Properties {
	p := config.NewProperties()
	p.Set("acks", h.req.Acks)
	if h.req.Idempotent || h.req.Transactional {
		p.Set("enable.idempotence", "true")
		p.Set("retries", "2147483647")
		p.Set("max.in.flight.requests.per.connection", "5")
	} else {
		p.Set("retries", "0")
	}
	if h.req.Transactional {
		p.Set("transactional.id", h.txnID+"-"+strconv.Itoa(i))
	}
	return p
}

func (h *Harness) tuneConsumer(s *kafka.Settings) {
	boundFetches(s)
	s.GroupID = h.req.Group
	s.AutoCommit = false
	s.AutoOffsetReset = "earliest"
	if h.req.Transactional {
		s.IsolationLevel = "read_committed"
	}
}

// runState is what the phases of a run share.
type runState struct {
	run         *Run
	faults      *faultRunner
	deadline    context.Context
	interrupted chan struct{} // closed by the first interrupt
	hurry       chan struct{} // closed by the second
	runStart    time.Time
	t0          time.Time // producing started
}

// Run prepares the topic (admin, connected), runs the producers and
// consumers with the faults, waits for the consumers to catch up and
// returns the verdict.
func (h *Harness) Run(ctx context.Context, admin *kafka.Client, logs HarnessLogs) (*RunReport, error) {
	req := h.req
	adm := admin.Admin()
	start, err := prepareTopic(ctx, admin, adm, req)
	if err != nil {
		return nil, err
	}
	if start.hasData {
		// An existing topic with records: start the new group at the end
		// so earlier runs' values do not count.
		if err := commitStart(ctx, adm, req.Group, req.Topic, start.offsets); err != nil {
			return nil, admin.Explain(err)
		}
	}
	st := &runState{runStart: time.Now(), interrupted: make(chan struct{}), hurry: make(chan struct{})}
	deadline, cancelDeadline := context.WithTimeout(ctx, req.Timeout)
	defer cancelDeadline()
	st.deadline = deadline
	if req.Interrupts != nil {
		sigs, release := req.Interrupts()
		defer release()
		h.watchSignals(st, sigs)
	}

	var reread *kafka.Client
	defer func() {
		if reread != nil {
			reread.Close()
		}
	}()
	opts := Options{Idempotent: h.idempotent, Examples: req.Examples, Transactional: req.Transactional}
	if len(req.Schedule) > 0 {
		opts.MinAcks = req.MinAcks
	}
	// The checker judges events as they come; the R1b re-read of missing
	// records uses a client of its own, built only if needed.
	opts.Present = func(m []Missing) (RereadResult, error) {
		var err error
		if reread == nil {
			if reread, err = req.NewClient(kafka.Consumer, kafka.Options{}); err != nil {
				return RereadResult{}, err
			}
		}
		rctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		return Reread(rctx, reread.Client, m)
	}
	st.run, err = StartRun(h.runConfig(opts, logs, start.offsets))
	if err != nil {
		return nil, err
	}
	return h.supervise(st, logs)
}

// watchSignals turns the request's interrupts into st.interrupted (the
// first) and st.hurry (the second), with a notice on Stderr each.
func (h *Harness) watchSignals(st *runState, sigs <-chan os.Signal) {
	go func() {
		for n := 0; n < 2; n++ {
			select {
			case <-sigs:
			case <-st.deadline.Done():
				return
			}
			if n == 0 {
				fmt.Fprintf(h.req.Stderr, "kbox verify run: interrupted: stopping producers, waiting up to %s for the consumers to catch up (interrupt again to stop now)\n", InterruptDrain)
				close(st.interrupted)
			} else {
				fmt.Fprintln(h.req.Stderr, "kbox verify run: interrupted again: stopping now")
				close(st.hurry)
			}
		}
	}()
}

func (h *Harness) runConfig(opts Options, logs HarnessLogs, offsets map[int32]int64) RunConfig {
	req := h.req
	messages := req.Messages
	if req.Duration > 0 {
		messages = -1
	}
	return RunConfig{
		Topic: req.Topic, Messages: messages, Producers: req.Producers, Consumers: req.Consumers,
		Throughput: req.Throughput, MaxPollRecords: h.maxPoll,
		ProducerLogs: logs.Producers, ConsumerLogs: logs.Consumers, StartOffsets: offsets,
		Transactional: req.Transactional, TxnSize: req.TxnSize, AbortEvery: req.AbortEvery, Check: opts,
		NewProducer: func(i int, onLoss func(string, int32)) (*kgo.Client, error) {
			cl, err := req.NewClient(kafka.Producer, kafka.Options{Defaults: h.producerProps(i), Tune: tuneProducer,
				Extra: []kgo.Opt{kgo.ProducerOnDataLossDetected(onLoss)}})
			if err != nil {
				return nil, err
			}
			return cl.Client, nil
		},
		NewConsumer: func(_ int, extra []kgo.Opt) (*kgo.Client, error) {
			cl, err := req.NewClient(kafka.Consumer, kafka.Options{Tune: h.tuneConsumer, Extra: extra})
			if err != nil {
				return nil, err
			}
			return cl.Client, nil
		},
	}
}

// supervise runs the faults, the windows and the progress beside the
// started run, ends producing (done, deadline, duration or interrupt),
// drains the consumers and judges.
func (h *Harness) supervise(st *runState, logs HarnessLogs) (*RunReport, error) {
	req, run := h.req, st.run
	st.t0 = run.ProduceStart()
	var until time.Time
	if req.Duration > 0 {
		until = st.t0.Add(req.Duration)
		stopAt := time.AfterFunc(time.Until(until), run.StopProducers)
		defer stopAt.Stop()
	}
	st.faults = newFaultRunner(req.Stderr)
	st.faults.trog = req.Trogdor
	st.faults.onEnd = func(fi FaultInfo) { run.Checker().AddFault(fi.Window()) }
	st.faults.start(req.Schedule, st.t0, until)
	// An interrupt stops the Trogdor faults at once (a stopped broker
	// resumes, a partition heals); fault commands run on as before.
	go func() {
		select {
		case <-st.interrupted:
			st.faults.stopTrogdor("stopped: the run was interrupted")
		case <-st.deadline.Done():
		}
	}()
	stopProgress := func() {}
	if req.Progress != nil {
		stopProgress = req.Progress(run, st.runStart)
	}
	wins := startWindows(req.Windows, req.WindowFormat, req.Window, st.t0, run.Verdict, st.faults.list, req.BeforeWindow)

	wasInterrupted := false
	select {
	case <-run.ProducersDone():
	case <-st.deadline.Done():
	case <-st.interrupted:
		wasInterrupted = true
	}
	run.StopProducers()
	// Producers flush what they sent (bounded by delivery.timeout.ms).
	select {
	case <-run.ProducersDone():
	case <-st.deadline.Done():
	case <-st.hurry:
	}
	produceMs := time.Since(st.t0).Milliseconds()
	caughtUp := h.drain(st)
	nWindows, werr := wins.stop()
	checked := run.Finish(30 * time.Second)
	stopProgress()
	if werr != nil {
		return nil, werr
	}
	if werr := run.WriteErr(); werr != nil && req.Warn != nil {
		req.Warn("writing an event log: %v", werr)
	}
	select {
	case <-st.interrupted:
		wasInterrupted = true
	default:
	}
	info := h.runInfo(st, logs, caughtUp, produceMs, nWindows, wasInterrupted)
	return NewRunReportFrom(checked, info), nil
}

// drain waits for the consumers to catch up until the deadline; after an
// interrupt (before or while catching up) for InterruptDrain at most, and
// a second interrupt ends the wait. Running faults finish (a restart cut
// short leaves a broker down); at the deadline, or when an interrupted
// run's drain is over, they are killed.
func (h *Harness) drain(st *runState) bool {
	drain, cancelDrain := context.WithCancel(st.deadline)
	defer cancelDrain()
	go func() {
		select {
		case <-st.interrupted:
		case <-drain.Done():
			return
		}
		t := time.NewTimer(InterruptDrain)
		defer t.Stop()
		select {
		case <-t.C:
		case <-st.hurry:
		case <-drain.Done():
		}
		cancelDrain()
	}()
	st.faults.wait(drain, func() string {
		select {
		case <-st.interrupted:
			return "killed: the run was interrupted"
		default:
			return "killed at the run's deadline"
		}
	})
	return st.run.WaitCaughtUp(drain)
}

func (h *Harness) runInfo(st *runState, logs HarnessLogs, caughtUp bool, produceMs int64, nWindows int, interrupted bool) RunInfo {
	req := h.req
	p := st.run.Progress()
	info := RunInfo{
		Topic: req.Topic, Group: req.Group, Created: req.CreateTopic, Messages: req.Messages,
		Producers: req.Producers, Consumers: req.Consumers, Idempotent: h.idempotent, Transactional: req.Transactional, Acks: req.Acks,
		Sent: p.Sent, Acked: p.Acked, SendErrors: p.SendErrors, Consumed: p.Consumed,
		CaughtUp: caughtUp, ProduceMs: produceMs, DurationMs: time.Since(st.runStart).Milliseconds(),
		ProducerLogs: logs.ProducerNames, ConsumerLogs: logs.ConsumerNames,
		DurationLimitMs: req.Duration.Milliseconds(), WindowMs: req.Window.Milliseconds(), Windows: nWindows,
		Interrupted: interrupted, Faults: st.faults.list(),
	}
	if len(req.Schedule) == 1 && req.Schedule[0].name == "during" && len(info.Faults) == 1 {
		fi := info.Faults[0]
		info.During = &DuringInfo{Command: fi.Command, ExitCode: fi.ExitCode, DurationMs: fi.DurationMs, Error: fi.Error, StartMs: fi.StartMs, EndMs: fi.EndMs}
	}
	if produceMs > 0 {
		info.AckedPerSec = float64(p.Acked) * 1000 / float64(produceMs)
	}
	return info
}

type topicStart struct {
	offsets map[int32]int64
	hasData bool
}

// prepareTopic creates the topic (CreateTopic) or checks that it exists,
// waits until every partition has a leader, and returns the end offsets
// the run starts from.
func prepareTopic(ctx context.Context, cl *kafka.Client, adm *kadm.Client, req HarnessRequest) (topicStart, error) {
	if req.CreateTopic {
		resp, err := adm.CreateTopic(ctx, req.Partitions, req.ReplicationFactor, req.TopicConfigs, req.Topic)
		if err == nil {
			err = resp.Err
		}
		if err != nil {
			if errors.Is(err, kerr.TopicAlreadyExists) {
				return topicStart{}, fmt.Errorf("topic %s already exists: drop --create-topic to verify on it", req.Topic)
			}
			msg := cl.Explain(err).Error()
			if resp.ErrMessage != "" {
				msg += ": " + resp.ErrMessage
			}
			return topicStart{}, fmt.Errorf("cannot create topic %s: %s", req.Topic, msg)
		}
	} else {
		tds, err := adm.ListTopics(ctx, req.Topic)
		if err != nil {
			return topicStart{}, cl.Explain(err)
		}
		td, ok := tds[req.Topic]
		if !ok || errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
			return topicStart{}, fmt.Errorf("topic %s does not exist (use --create-topic to create it)", req.Topic)
		}
		if td.Err != nil {
			return topicStart{}, fmt.Errorf("topic %s: %v", req.Topic, cl.Explain(td.Err))
		}
	}
	return waitLeaders(ctx, cl, adm, req.Topic)
}

// waitLeaders waits (30 s at most) until every partition of a new topic
// has a leader, and returns its end offsets.
func waitLeaders(ctx context.Context, cl *kafka.Client, adm *kadm.Client, topic string) (topicStart, error) {
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		ends, err := adm.ListEndOffsets(wctx, topic)
		if err == nil && ends.Error() == nil {
			st := topicStart{offsets: map[int32]int64{}}
			n := 0
			ends.Each(func(lo kadm.ListedOffset) {
				st.offsets[lo.Partition] = lo.Offset
				st.hasData = st.hasData || lo.Offset > 0
				n++
			})
			if n > 0 {
				return st, nil
			}
		}
		select {
		case <-wctx.Done():
			if err == nil {
				err = ends.Error()
			}
			return topicStart{}, fmt.Errorf("topic %s is not ready: %v", topic, cl.Explain(err))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func commitStart(ctx context.Context, adm *kadm.Client, group, topic string, offsets map[int32]int64) error {
	os := kadm.Offsets{}
	for p, off := range offsets {
		os.Add(kadm.Offset{Topic: topic, Partition: p, At: off, LeaderEpoch: -1})
	}
	resp, err := adm.CommitOffsets(ctx, group, os)
	if err != nil {
		return err
	}
	return resp.Error()
}
