package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/verify"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

type runOptions struct {
	topic         string
	conn          cmdutil.ConnFlags
	createTopic   bool
	partitions    int32
	rf            int16
	topicConfigs  []string
	messages      int64
	producers     int
	consumers     int
	throughput    int64
	idempotent    bool
	transactional bool
	txnSize       int
	abortEvery    int
	minAcks       int
	acks          string
	timeout       time.Duration
	during        string
	group         string
	producerLog   string
	consumerLog   string
	examples      int
	output        string
	progress      string
}

func newRunCmd(f *cmdutil.Factory) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run --topic T --messages N",
		Short: "Produce and consume in one process, then say whether acknowledged data was lost",
		Long: `Runs K producers and M consumers (one consumer group) in this process with
the semantics of kafka-verifiable-producer/-consumer: producer i sends the
values "i.0", "i.1", ... (Apache's throttler, retries=0 unless --idempotent);
consumers commit maxOffset+1 synchronously after every poll. When the
producers are done, the run waits until the consumers have consumed every
partition up to its last acknowledged offset (or --timeout), then applies the
rules of 'kbox verify check' to the recorded events.

--during runs a shell command (for example a rolling restart) while the run is
in flight; its exit status is part of the report and the run still waits for
the consumers to catch up. Progress (acked, consumed, lag) goes to stderr.

Exit status: 0 valid, 3 invalid, 1 on error, 2 on a bad flag.`,
		Example: `  # 3 brokers, new topic, 2 producers and 2 consumers, a broker restart in flight
  kbox verify run --bootstrap-server b1:9092 --topic verify-1 --create-topic \
    --partitions 3 --replication-factor 3 --config min.insync.replicas=2 \
    --messages 100000 --producers 2 --consumers 2 --throughput 5000 --idempotent \
    --during './restart-broker.sh 2'
  # machine-readable verdict
  kbox verify run --topic verify-1 --messages 10000 -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRun(cmd.Context(), f, cmd, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.topic, "topic", "", "topic to verify (required)")
	o.conn.Register(cmd, false)
	fl.BoolVar(&o.createTopic, "create-topic", false, "create the topic first (it must not exist)")
	fl.Int32Var(&o.partitions, "partitions", 3, "partitions of the created topic")
	fl.Int16Var(&o.rf, "replication-factor", -1, "replication factor of the created topic (-1: broker default)")
	fl.StringArrayVar(&o.topicConfigs, "config", nil, "config of the created topic, key=value (repeatable), e.g. min.insync.replicas=2")
	fl.Int64Var(&o.messages, "messages", 0, "messages to produce over all producers (required)")
	fl.IntVar(&o.producers, "producers", 1, "number of producers")
	fl.IntVar(&o.consumers, "consumers", 1, "number of consumers in the group")
	fl.Int64Var(&o.throughput, "throughput", -1, "total messages/s over all producers (-1: unthrottled)")
	fl.BoolVar(&o.idempotent, "idempotent", false, "idempotent producers (unbounded retries); duplicates become a failure")
	fl.BoolVar(&o.transactional, "transactional", false, "transactional producers, read_committed consumers: checks R7 (no aborted read, output == committed input, no duplicates)")
	fl.IntVar(&o.txnSize, "transaction-size", 100, "records per transaction (with --transactional)")
	fl.IntVar(&o.abortEvery, "abort-every", 5, "abort every K-th transaction on purpose (with --transactional; 0: never)")
	fl.IntVar(&o.minAcks, "min-acks", -1, "with --during: fail unless at least this many records were acked (default min(5000, messages/2))")
	fl.StringVar(&o.acks, "acks", "-1", "producer acks: -1/all, 1 or 0")
	fl.DurationVar(&o.timeout, "timeout", 5*time.Minute, "deadline of the whole run; consumers not caught up by then fail the run")
	fl.StringVar(&o.during, "during", "", "shell command to run while the run is in flight")
	fl.StringVar(&o.group, "group-id", "", "consumer group (default kbox-verify-<topic>-<time>)")
	fl.StringVar(&o.producerLog, "producer-log", "", "also write the producers' events to this file (with several producers: FILE.0, FILE.1, ...)")
	fl.StringVar(&o.consumerLog, "consumer-log", "", "also write the consumers' events to this file (with several consumers: FILE.0, FILE.1, ...)")
	fl.IntVar(&o.examples, "examples", 10, "examples shown per anomaly type")
	cmdutil.AddOutputFlag(f, cmd, &o.output, reportFormats)
	fl.StringVar(&o.progress, "progress", "auto", "progress on stderr: auto (live on a terminal, periodic lines otherwise), plain, none")
	return cmd
}

var topicNameRe = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)

// validTopic applies Apache's Topic.validate.
func validTopic(n string) error {
	switch {
	case n == "":
		return errors.New("topic name is invalid: the empty string is not allowed")
	case n == "." || n == "..":
		return fmt.Errorf("topic name is invalid: '%s' is not allowed", n)
	case len(n) > 249:
		return fmt.Errorf("topic name is invalid: the length of '%s' is longer than the max allowed length 249", n)
	case !topicNameRe.MatchString(n):
		return fmt.Errorf("topic name is invalid: '%s' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'", n)
	}
	return nil
}

// validate checks every flag before anything touches the network.
func (o *runOptions) validate(cmd *cobra.Command) (map[string]*string, error) {
	fe := cmdutil.FlagErrorf
	if o.topic == "" {
		return nil, fe("--topic is required")
	}
	if err := validTopic(o.topic); err != nil {
		return nil, &cmdutil.FlagError{Err: err}
	}
	if o.messages <= 0 {
		return nil, fe("--messages must be a positive number of messages")
	}
	if o.producers < 1 || o.producers > 1000 {
		return nil, fe("--producers must be between 1 and 1000")
	}
	if o.consumers < 1 || o.consumers > 1000 {
		return nil, fe("--consumers must be between 1 and 1000")
	}
	if o.throughput == 0 || o.throughput < -1 {
		return nil, fe("--throughput must be positive or -1 (unthrottled)")
	}
	if o.timeout <= 0 {
		return nil, fe("--timeout must be positive")
	}
	switch strings.ToLower(o.acks) {
	case "all":
		o.acks = "-1"
	case "-1", "0", "1":
	default:
		return nil, fe("--acks must be -1, all, 1 or 0, not %q", o.acks)
	}
	if (o.idempotent || o.transactional) && o.acks != "-1" {
		return nil, fe("--idempotent and --transactional need --acks -1 (all)")
	}
	fl0 := cmd.Flags()
	if !o.transactional && (fl0.Changed("transaction-size") || fl0.Changed("abort-every")) {
		return nil, fe("--transaction-size and --abort-every need --transactional")
	}
	if o.txnSize < 1 {
		return nil, fe("--transaction-size must be at least 1")
	}
	if o.abortEvery < 0 {
		return nil, fe("--abort-every must be 0 (never) or positive")
	}
	if fl0.Changed("min-acks") && o.during == "" {
		return nil, fe("--min-acks needs --during")
	}
	if o.minAcks < 0 {
		if fl0.Changed("min-acks") {
			return nil, fe("--min-acks must not be negative")
		}
		o.minAcks = int(min(5000, o.messages/2))
	}
	switch o.progress {
	case "auto", "plain", "none":
	default:
		return nil, fe("--progress must be auto, plain or none")
	}
	fl := cmd.Flags()
	if !o.createTopic {
		for _, n := range []string{"partitions", "replication-factor", "config"} {
			if fl.Changed(n) {
				return nil, fe("--%s needs --create-topic", n)
			}
		}
	}
	if o.partitions < 1 {
		return nil, fe("--partitions must be at least 1")
	}
	if o.rf == 0 || o.rf < -1 {
		return nil, fe("The replication factor must be between 1 and 32767 inclusive")
	}
	configs := map[string]*string{}
	for _, c := range o.topicConfigs {
		k, v, ok := strings.Cut(c, "=")
		if !ok || k == "" {
			return nil, fe("--config %q is not of the form key=value", c)
		}
		configs[k] = &v
	}
	return configs, nil
}

// logFiles opens FILE, or FILE.0..FILE.n-1 when n > 1.
func logFiles(path string, n int) ([]io.Writer, []string, func(), error) {
	if path == "" {
		return nil, nil, func() {}, nil
	}
	var ws []io.Writer
	var names []string
	var fhs []*os.File
	closeAll := func() {
		for _, fh := range fhs {
			_ = fh.Close()
		}
	}
	for i := 0; i < n; i++ {
		p := path
		if n > 1 {
			p = path + "." + strconv.Itoa(i)
		}
		fh, err := os.Create(p)
		if err != nil {
			closeAll()
			return nil, nil, func() {}, err
		}
		fhs = append(fhs, fh)
		ws = append(ws, fh)
		names = append(names, p)
	}
	return ws, names, closeAll, nil
}

func runRun(ctx context.Context, f *cmdutil.Factory, cmd *cobra.Command, o runOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	topicConfigs, err := o.validate(cmd)
	if err != nil {
		return err
	}
	format := output.Format(o.output)
	if o.group == "" {
		o.group = fmt.Sprintf("kbox-verify-%s-%d", o.topic, time.Now().UnixMilli())
	}
	conn, err := o.conn.Connection(f, nil)
	if err != nil {
		return err
	}
	// Client settings: the drop-in producer's defaults (acks from the
	// flag, retries=0), or the harness's idempotent variant; the user's
	// properties file goes on top, as with the Apache tool.
	prodDefaults := config.NewProperties()
	prodDefaults.Set("acks", o.acks)
	if o.idempotent || o.transactional {
		prodDefaults.Set("enable.idempotence", "true")
		prodDefaults.Set("retries", "2147483647")
		prodDefaults.Set("max.in.flight.requests.per.connection", "5")
	} else {
		prodDefaults.Set("retries", "0")
	}
	tuneConsumer := func(s *kafka.Settings) {
		s.GroupID = o.group
		s.AutoCommit = false
		s.AutoOffsetReset = "earliest"
		if o.transactional {
			s.IsolationLevel = "read_committed"
		}
	}
	txnID := fmt.Sprintf("kbox-verify-%s-%d", o.topic, time.Now().UnixMilli())
	prodProps := func(i int) *config.Properties {
		if !o.transactional {
			return prodDefaults
		}
		p := prodDefaults.Clone()
		p.Set("transactional.id", txnID+"-"+strconv.Itoa(i))
		return p
	}
	// Build (without dialing) one producer and one consumer first, so a
	// bad property fails before the topic is created.
	probeP, err := f.Client(conn, kafka.Producer, kafka.Options{Defaults: prodProps(0)})
	if err != nil {
		return err
	}
	idempotent := probeP.Settings.Idempotent
	probeP.Close()
	probeC, err := f.Client(conn, kafka.Consumer, kafka.Options{Tune: tuneConsumer})
	if err != nil {
		return err
	}
	maxPoll := probeC.Settings.MaxPollRecords
	probeC.Close()

	prodWs, prodNames, closeProd, err := logFiles(o.producerLog, o.producers)
	if err != nil {
		return err
	}
	defer closeProd()
	consWs, consNames, closeCons, err := logFiles(o.consumerLog, o.consumers)
	if err != nil {
		return err
	}
	defer closeCons()

	admCl, err := f.ConnectedClient(ctx, conn, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer admCl.Close()
	adm := admCl.Admin()
	start, err := prepareTopic(ctx, adm, admCl, o, topicConfigs)
	if err != nil {
		return err
	}
	if start.hasData {
		// An existing topic with records: start the new group at the end
		// so earlier runs' values do not count.
		if err := commitStart(ctx, adm, o.group, o.topic, start.offsets); err != nil {
			return admCl.Explain(err)
		}
	}

	runStart := time.Now()
	deadline, cancelDeadline := context.WithTimeout(ctx, o.timeout)
	defer cancelDeadline()
	sigs, stopSignals := verify.Signals()
	defer stopSignals()
	go func() {
		select {
		case <-sigs:
			fmt.Fprintln(f.IO.ErrOut, "kbox verify run: interrupted: stopping producers, checking what was acknowledged so far")
			cancelDeadline()
		case <-deadline.Done():
		}
	}()

	// The checker judges events as they come; the R1b re-read of missing
	// records uses a client of its own, built only if needed.
	opts := verify.Options{Idempotent: idempotent, Examples: o.examples, Transactional: o.transactional}
	if o.during != "" {
		opts.MinAcks = o.minAcks
	}
	var reread *kafka.Client
	defer func() {
		if reread != nil {
			reread.Close()
		}
	}()
	opts.Present = func(m []verify.Missing) (map[verify.Missing]bool, error) {
		var err error
		if reread == nil {
			if reread, err = f.Client(conn, kafka.Consumer, kafka.Options{}); err != nil {
				return nil, err
			}
		}
		rctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		return verify.Reread(rctx, reread.Client, m)
	}
	run, err := verify.StartRun(verify.RunConfig{
		Topic: o.topic, Messages: o.messages, Producers: o.producers, Consumers: o.consumers,
		Throughput: o.throughput, MaxPollRecords: maxPoll,
		ProducerLogs: prodWs, ConsumerLogs: consWs, StartOffsets: start.offsets,
		Transactional: o.transactional, TxnSize: o.txnSize, AbortEvery: o.abortEvery, Check: opts,
		NewProducer: func(i int, onLoss func(string, int32)) (*kgo.Client, error) {
			cl, err := f.Client(conn, kafka.Producer, kafka.Options{Defaults: prodProps(i), Extra: []kgo.Opt{kgo.ProducerOnDataLossDetected(onLoss),
				kgo.MaxBufferedRecords(maxBufferedRecords)}})
			if err != nil {
				return nil, err
			}
			return cl.Client, nil
		},
		NewConsumer: func(_ int, extra []kgo.Opt) (*kgo.Client, error) {
			cl, err := f.Client(conn, kafka.Consumer, kafka.Options{Tune: tuneConsumer, Extra: extra})
			if err != nil {
				return nil, err
			}
			return cl.Client, nil
		},
	})
	if err != nil {
		return err
	}

	var during *verify.DuringInfo
	duringDone := make(chan struct{})
	if o.during != "" {
		go func() {
			defer close(duringDone)
			during = runDuring(deadline, o.during, f.IO.ErrOut)
			if during.StartMs > 0 {
				// R8 judges the window after the fault's end as acks come.
				run.Checker().AddFault(verify.FaultWindow{StartMs: during.StartMs, EndMs: during.EndMs})
			}
		}()
	} else {
		close(duringDone)
	}
	prog := startProgress(f, o, run, runStart)

	var produceMs int64
	select {
	case <-run.ProducersDone():
	case <-deadline.Done():
		run.StopProducers()
		<-run.ProducersDone()
	}
	produceMs = time.Since(run.ProduceStart()).Milliseconds()
	<-duringDone
	caughtUp := run.WaitCaughtUp(deadline)
	checked := run.Finish(30 * time.Second)
	prog.stop()
	if werr := run.WriteErr(); werr != nil {
		f.Warn("writing an event log: %v", werr)
	}
	p := run.Progress()

	info := verify.RunInfo{
		Topic: o.topic, Group: o.group, Created: o.createTopic, Messages: o.messages,
		Producers: o.producers, Consumers: o.consumers, Idempotent: idempotent, Transactional: o.transactional, Acks: o.acks,
		Sent: p.Sent, Acked: p.Acked, SendErrors: p.SendErrors, Consumed: p.Consumed,
		CaughtUp: caughtUp, ProduceMs: produceMs, DurationMs: time.Since(runStart).Milliseconds(),
		ProducerLogs: prodNames, ConsumerLogs: consNames, During: during,
	}
	if produceMs > 0 {
		info.AckedPerSec = float64(p.Acked) * 1000 / float64(produceMs)
	}
	rep := verify.NewRunReportFrom(checked, info)
	if format == output.Table {
		if err := rep.WriteText(f.IO.Out); err != nil {
			return err
		}
	} else if err := output.Print(f.IO, format, rep); err != nil {
		return err
	}
	if !rep.Valid {
		return cmdutil.Exit(cmdutil.ExitVerifyFailed)
	}
	return nil
}

// maxBufferedRecords bounds each producer's records in flight: buffer.memory
// alone (bytes of values) lets an unthrottled producer of tiny values
// buffer millions of records (hundreds of bytes each in the client), so
// memory would grow with the run's size.
const maxBufferedRecords = 50_000

type topicStart struct {
	offsets map[int32]int64
	hasData bool
}

// prepareTopic creates the topic (--create-topic) or checks that it
// exists, waits until every partition has a leader, and returns the end
// offsets the run starts from.
func prepareTopic(ctx context.Context, adm *kadm.Client, cl *kafka.Client, o runOptions, configs map[string]*string) (topicStart, error) {
	if o.createTopic {
		resp, err := adm.CreateTopic(ctx, o.partitions, o.rf, configs, o.topic)
		if err == nil {
			err = resp.Err
		}
		if err != nil {
			if errors.Is(err, kerr.TopicAlreadyExists) {
				return topicStart{}, fmt.Errorf("topic %s already exists: drop --create-topic to verify on it", o.topic)
			}
			msg := cl.Explain(err).Error()
			if resp.ErrMessage != "" {
				msg += ": " + resp.ErrMessage
			}
			return topicStart{}, fmt.Errorf("cannot create topic %s: %s", o.topic, msg)
		}
	} else {
		tds, err := adm.ListTopics(ctx, o.topic)
		if err != nil {
			return topicStart{}, cl.Explain(err)
		}
		td, ok := tds[o.topic]
		if !ok || errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
			return topicStart{}, fmt.Errorf("topic %s does not exist (use --create-topic to create it)", o.topic)
		}
		if td.Err != nil {
			return topicStart{}, fmt.Errorf("topic %s: %v", o.topic, cl.Explain(td.Err))
		}
	}
	// A new topic takes a moment to have leaders everywhere.
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		ends, err := adm.ListEndOffsets(wctx, o.topic)
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
			return topicStart{}, fmt.Errorf("topic %s is not ready: %v", o.topic, cl.Explain(err))
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

// runDuring runs command with sh -c, its output on stderr; at the
// deadline its process group is killed.
func runDuring(ctx context.Context, command string, stderr io.Writer) *verify.DuringInfo {
	d := &verify.DuringInfo{Command: command}
	start := time.Now()
	d.StartMs = start.UnixMilli()
	defer func() { d.EndMs = time.Now().UnixMilli() }()
	c := exec.Command("/bin/sh", "-c", command)
	c.Stdout, c.Stderr = stderr, stderr
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		d.ExitCode, d.Error = -1, err.Error()
		return d
	}
	waited := make(chan error, 1)
	go func() { waited <- c.Wait() }()
	var err error
	select {
	case err = <-waited:
	case <-ctx.Done():
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		err = <-waited
		d.Error = "killed at the run's deadline"
	}
	d.DurationMs = time.Since(start).Milliseconds()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		d.ExitCode = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			d.ExitCode = 128 + int(ws.Signal())
		}
	default:
		d.ExitCode, d.Error = -1, err.Error()
	}
	return d
}

type progress struct {
	done chan struct{}
	wg   sync.WaitGroup
}

func (p *progress) stop() {
	close(p.done)
	p.wg.Wait()
}

// startProgress prints acked/consumed/lag on stderr: a live line on a
// terminal, a plain line every 5 s otherwise.
func startProgress(f *cmdutil.Factory, o runOptions, run *verify.Run, start time.Time) *progress {
	p := &progress{done: make(chan struct{})}
	if o.progress == "none" {
		return p
	}
	w := f.IO.ErrOut
	pr := f.IO.Progress()
	tty := o.progress == "auto" && pr.Enabled()
	every := 5 * time.Second
	if tty {
		every = 250 * time.Millisecond
	}
	line := func() string {
		s := run.Progress()
		phase := "producing"
		if s.ProducersDone {
			phase = "catching up"
		}
		return fmt.Sprintf("%5.1fs %s: acked %d/%d, send errors %d, consumed %d, lag %d",
			time.Since(start).Seconds(), phase, s.Acked, o.messages, s.SendErrors, s.Consumed, s.Lag)
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				if tty {
					pr.Println("%s", line())
				} else {
					fmt.Fprintf(w, "kbox verify run: %s\n", line())
				}
				return
			case <-t.C:
				if tty {
					pr.Update("%s", line())
				} else {
					fmt.Fprintf(w, "kbox verify run: %s\n", line())
				}
			}
		}
	}()
	return p
}
