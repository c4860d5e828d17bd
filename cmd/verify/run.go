package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/trogdor"
	"github.com/kboxdev/kbox/pkg/verify"
	"github.com/spf13/cobra"
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
	duration      time.Duration
	window        time.Duration
	during        string
	duringAt      []string
	duringScript  string
	duringTrogdor []string
	coordinator   string
	trog          *trogdor.Client
	schedule      []verify.FaultSpec
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
		Use:   "run --topic T (--messages N | --duration D)",
		Short: "Produce and consume in one process, then say whether acknowledged data was lost",
		Long: `Runs K producers and M consumers (one consumer group) in this process with
the semantics of kafka-verifiable-producer/-consumer: producer i sends the
values "i.0", "i.1", ... (Apache's throttler, retries=0 unless --idempotent);
consumers commit maxOffset+1 synchronously after every poll. When the
producers are done, the run waits until the consumers have consumed every
partition up to its last acknowledged offset (or --timeout), then applies the
rules of 'kbox verify check' to the recorded events.

With --duration instead of --messages the producers send until the time is
up (soak mode). --window prints a verdict at the end of every window (default
1m with --duration, off with --messages): acked, consumed, lag (acked values
not consumed yet) and the anomalies found so far by the rules judged as
events arrive (duplicates, order, commits; lost records are judged at the
end), and whether that is valid; as a line of text, or with -o json one JSON
object per line, written out at once. The final verdict over the whole run
follows as usual.

Faults: --during runs a shell command (for example a rolling restart) while
the run is in flight, or with every=INTERVAL:COMMAND a command every interval
(the first after one interval, never two at once); --during-at OFFSET:COMMAND
(repeatable) runs a command at an offset; --during-script FILE runs FILE once,
and its stdout lines "fault-start NAME" and "fault-end NAME" mark the fault
windows (a script that marks none is one fault); --during-trogdor SPEC
(repeatable) submits a Trogdor fault through the coordinator of
--coordinator (default $TROGDOR_COORDINATOR), see below. Offsets count from
the start of producing. Each fault's window (command start to exit) and exit
status is in the report, and the run still waits for the consumers to catch
up. Progress (acked, consumed, lag) goes to stderr.

Trogdor faults (Apache Kafka's fault injection, for faults across machines):
  ProcessStop:nodes=AGENT[,AGENT..]:process=NAME:duration=D[:at=OFFSET]
    the agents SIGSTOP every JVM of their machine whose jcmd line (PID, main
    class, arguments) contains NAME, and SIGCONT it after D: give a NAME
    that singles out the process meant, e.g. one broker's config path
  NetworkPartition:partitions=A[,B..]/C[,D..]:duration=D[:at=OFFSET]
    the agents of the groups drop each other's TCP traffic (sudo iptables on
    the agents' machines) for D
A Trogdor fault's window is its task's start and end as the coordinator
reports them, a task error is the fault's error (exit status 1; -1 when it
could not be submitted); an interrupt stops the tasks at once (the agents
undo the faults), and every task is deleted from the coordinator at the
end. Should kbox die, Trogdor still ends each fault after D.

Ctrl-C (SIGINT) or SIGTERM stops producing, gives the consumers up to 30s to
catch up (a second signal stops waiting), kills running fault commands, and
prints the verdict over what was seen, marked interrupted; records not
consumed by then are unseen (a warning), not lost.

Exit status: 0 valid, 3 invalid (also for an interrupted run: the verdict's
status), 1 on error, 2 on a bad flag.`,
		Example: `  # 3 brokers, new topic, 2 producers and 2 consumers, a broker restart in flight
  kbox verify run --bootstrap-server b1:9092 --topic verify-1 --create-topic \
    --partitions 3 --replication-factor 3 --config min.insync.replicas=2 \
    --messages 100000 --producers 2 --consumers 2 --throughput 5000 --idempotent \
    --during './restart-broker.sh 2'
  # machine-readable verdict
  kbox verify run --topic verify-1 --messages 10000 -o json
  # a 2-hour soak, a verdict every 5 minutes, the leader killed every 10
  kbox verify run --topic verify-1 --duration 2h --window 5m --throughput 2000 \
    --idempotent --during 'every=10m:./kill-leader.sh' -o json
  # broker 2's JVM stopped for 10s, 5s in, by Trogdor agent agent2
  kbox verify run --topic verify-1 --messages 50000 --idempotent \
    --coordinator http://coord:8889 \
    --during-trogdor 'ProcessStop:nodes=agent2:process=/etc/kafka/server-2.properties:at=5s:duration=10s'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRun(cmdutil.Context(cmd), f, cmd, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.topic, "topic", "", "topic to verify (required)")
	o.conn.Register(cmd, false)
	fl.BoolVar(&o.createTopic, "create-topic", false, "create the topic first (it must not exist)")
	fl.Int32Var(&o.partitions, "partitions", 3, "partitions of the created topic")
	fl.Int16Var(&o.rf, "replication-factor", -1, "replication factor of the created topic (-1: broker default)")
	fl.StringArrayVar(&o.topicConfigs, "config", nil, "config of the created topic, key=value (repeatable), e.g. min.insync.replicas=2")
	fl.Int64Var(&o.messages, "messages", 0, "messages to produce over all producers (or --duration)")
	fl.DurationVar(&o.duration, "duration", 0, "produce until this much time has passed (soak mode; or --messages)")
	fl.DurationVar(&o.window, "window", 0, "print a verdict at the end of every window of this length (default 1m with --duration; 0: none)")
	fl.IntVar(&o.producers, "producers", 1, "number of producers")
	fl.IntVar(&o.consumers, "consumers", 1, "number of consumers in the group")
	fl.Int64Var(&o.throughput, "throughput", -1, "total messages/s over all producers (-1: unthrottled)")
	fl.BoolVar(&o.idempotent, "idempotent", false, "idempotent producers (unbounded retries); duplicates become a failure")
	fl.BoolVar(&o.transactional, "transactional", false, "transactional producers, read_committed consumers: checks R7 (no aborted read, output == committed input, no duplicates)")
	fl.IntVar(&o.txnSize, "transaction-size", 100, "records per transaction (with --transactional)")
	fl.IntVar(&o.abortEvery, "abort-every", 5, "abort every K-th transaction on purpose (with --transactional; 0: never)")
	fl.IntVar(&o.minAcks, "min-acks", -1, "with faults: fail unless at least this many records were acked (default min(5000, messages/2); 5000 with --duration)")
	fl.StringVar(&o.acks, "acks", "-1", "producer acks: -1/all, 1 or 0")
	fl.DurationVar(&o.timeout, "timeout", 5*time.Minute, "deadline of the whole run; consumers not caught up by then fail the run (default with --duration: the duration + 5m)")
	fl.StringVar(&o.during, "during", "", "shell command to run while the run is in flight, or every=INTERVAL:COMMAND")
	fl.StringArrayVar(&o.duringAt, "during-at", nil, "OFFSET:COMMAND: run COMMAND at OFFSET after producing starts (repeatable)")
	fl.StringVar(&o.duringScript, "during-script", "", "run this executable once while the run is in flight; its stdout lines fault-start NAME / fault-end NAME mark fault windows")
	fl.StringArrayVar(&o.duringTrogdor, "during-trogdor", nil, "a Trogdor fault through the coordinator (repeatable): ProcessStop:nodes=AGENTS:process=NAME:duration=D[:at=OFFSET] or NetworkPartition:partitions=A,B/C:duration=D[:at=OFFSET]")
	fl.StringVar(&o.coordinator, "coordinator", f.Getenv("TROGDOR_COORDINATOR"), "Trogdor coordinator URL of --during-trogdor, http://host:port (default $TROGDOR_COORDINATOR)")
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
	fl0 := cmd.Flags()
	switch {
	case fl0.Changed("messages") && fl0.Changed("duration"):
		return nil, fe("--messages and --duration cannot be used together: give one of them")
	case fl0.Changed("duration"):
		if o.duration <= 0 {
			return nil, fe("--duration must be positive")
		}
		if !fl0.Changed("window") {
			o.window = time.Minute
		}
		if !fl0.Changed("timeout") {
			o.timeout = o.duration + 5*time.Minute
		} else if o.timeout <= o.duration {
			return nil, fe("--timeout (the deadline of the whole run) must be longer than --duration")
		}
	case !fl0.Changed("messages"):
		return nil, fe("one of --messages N and --duration D is required")
	case o.messages <= 0:
		return nil, fe("--messages must be a positive number of messages")
	}
	if o.window < 0 {
		return nil, fe("--window must not be negative (0: no window verdicts)")
	}
	sched, err := verify.ParseSchedule(o.during, o.duringAt, o.duringScript, o.duringTrogdor)
	if err != nil {
		return nil, &cmdutil.FlagError{Err: err}
	}
	o.schedule = sched
	if len(o.duringTrogdor) > 0 {
		if o.coordinator == "" {
			return nil, fe("--during-trogdor needs --coordinator URL (or TROGDOR_COORDINATOR)")
		}
		if o.trog, err = trogdor.New(o.coordinator); err != nil {
			return nil, fe("--coordinator: %v", err)
		}
	} else if fl0.Changed("coordinator") {
		return nil, fe("--coordinator needs --during-trogdor")
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
	if !o.transactional && (fl0.Changed("transaction-size") || fl0.Changed("abort-every")) {
		return nil, fe("--transaction-size and --abort-every need --transactional")
	}
	if o.txnSize < 1 {
		return nil, fe("--transaction-size must be at least 1")
	}
	if o.abortEvery < 0 {
		return nil, fe("--abort-every must be 0 (never) or positive")
	}
	if fl0.Changed("min-acks") && len(o.schedule) == 0 {
		return nil, fe("--min-acks needs --during, --during-at, --during-script or --during-trogdor")
	}
	if o.minAcks < 0 {
		if fl0.Changed("min-acks") {
			return nil, fe("--min-acks must not be negative")
		}
		o.minAcks = 5000
		if o.messages > 0 {
			o.minAcks = int(min(5000, o.messages/2))
		}
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
	topicConfigs, err := o.validate(cmd)
	if err != nil {
		return err
	}
	format := output.Format(o.output)
	if o.trog != nil {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := o.trog.Ping(pctx)
		cancel()
		if err != nil {
			return err
		}
	}
	if o.group == "" {
		o.group = fmt.Sprintf("kbox-verify-%s-%d", o.topic, time.Now().UnixMilli())
	}
	conn, err := o.conn.Connection(f, nil)
	if err != nil {
		return err
	}
	pr := f.IO.Progress()
	h, err := verify.NewHarness(verify.HarnessRequest{
		Topic: o.topic, Group: o.group, CreateTopic: o.createTopic, Partitions: o.partitions, ReplicationFactor: o.rf,
		TopicConfigs: topicConfigs, Messages: o.messages, Duration: o.duration, Producers: o.producers, Consumers: o.consumers,
		Throughput: o.throughput, Idempotent: o.idempotent, Transactional: o.transactional, TxnSize: o.txnSize,
		AbortEvery: o.abortEvery, MinAcks: o.minAcks, Acks: o.acks, Timeout: o.timeout, Window: o.window,
		Schedule: o.schedule, Trogdor: o.trog, Examples: o.examples,
		NewClient: func(role kafka.Role, opts kafka.Options) (*kafka.Client, error) {
			return f.Client(conn, role, opts)
		},
		Interrupts: func() (<-chan os.Signal, func()) { return cmdutil.Interrupts(ctx) }, Stderr: f.IO.ErrOut, Warn: f.Warn,
		Windows: f.IO.Out, WindowFormat: format,
		BeforeWindow: func() {
			if o.progress == "auto" && pr.Enabled() && f.IO.IsStdoutTTY() {
				pr.Clear()
			}
		},
		Progress: func(run *verify.Run, start time.Time) func() { return startProgress(f, o, run, start).stop },
	})
	if err != nil {
		return err
	}
	// A single-purpose process: its heap is the clients' buffers and the
	// checker's state, whatever the run's length or the machine's load.
	cmdutil.SoftMemoryLimit(f.Getenv, h.MemoryBudget())
	var logs verify.HarnessLogs
	var closeProd, closeCons func()
	logs.Producers, logs.ProducerNames, closeProd, err = logFiles(o.producerLog, o.producers)
	if err != nil {
		return err
	}
	defer closeProd()
	logs.Consumers, logs.ConsumerNames, closeCons, err = logFiles(o.consumerLog, o.consumers)
	if err != nil {
		return err
	}
	defer closeCons()
	admCl, err := f.ConnectedClient(ctx, conn, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer admCl.Close()
	rep, err := h.Run(ctx, admCl, logs)
	if err != nil {
		return err
	}
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
		total := ""
		if o.messages > 0 {
			total = "/" + strconv.FormatInt(o.messages, 10)
		}
		return fmt.Sprintf("%5.1fs %s: acked %d%s, send errors %d, consumed %d, lag %d",
			time.Since(start).Seconds(), phase, s.Acked, total, s.SendErrors, s.Consumed, s.Lag)
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
