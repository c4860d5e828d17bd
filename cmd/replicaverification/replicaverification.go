// Package replicaverification is the kafka-replica-verification drop-in
// (kbox replicas): Apache's ReplicaVerificationTool (deprecated, still
// shipped in 4.4), its options, its report lines, messages, streams and
// exit codes; and the native `kbox replicas verify`, a verdict: do the
// in-sync replicas of every partition hold the same records up to the high
// watermark (every batch's CRC recomputed on every replica, the batches
// compared byte for byte), the first differing offset and replica of any
// that do not, the lag of each; exit 1 on a divergence.
//
// The drop-in keeps Apache's comparison: the checksums stored in the batch
// headers and the batches' last offsets, so a byte flipped on a follower's
// disk, whose stored CRC is the leader's, goes unnoticed there as in
// Apache's tool (the native verdict names it).
//
// Deliberate differences from Apache 4.4's tool:
//   - Stack traces are left out: where Apache prints an exception's message
//     and then its stack trace, kbox prints the message only.
//   - Every option value is checked before connecting: Apache reads
//     --topics-include, --time, --report-interval-ms, --fetch-size and
//     --max-wait-ms after listing the topics (the same message, then).
//   - An unreachable --broker-list fails within kbox's connect timeout with
//     one line (kbox: error: ...), where the Java admin client retries
//     until its API timeout.
//   - --topics-include is a Go regular expression (RE2), matched whole, as
//     in kbox's other drop-ins; Java-only syntax (look-around, possessive
//     quantifiers) is refused as an invalid regex.
//   - Apache's log4j INFO and DEBUG lines are not printed (the tools' log
//     level is WARN); the WARN line of the deprecation and the ERROR line
//     for no topics are.
package replicaverification

import (
	"context"
	_ "embed"
	"fmt"
	"regexp"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/replicas"
	"github.com/kboxdev/kbox/pkg/topics"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

//go:embed apache_help.txt
var apacheHelp string

// Applet registers kafka-replica-verification (kbox replicas).
var Applet = cmdutil.Applet{
	Kind:   cmdutil.Apache,
	Name:   "kafka-replica-verification",
	Alias:  "replicas",
	Short:  short,
	Run:    Run,
	Native: NewNativeCmd,

	ConnOptions: []string{"broker-list"},
}

const short = "Check that the replicas of every partition hold the same records"

const class = "org.apache.kafka.tools.ReplicaVerificationTool"

var parser = jopt.New(
	jopt.Spec{Name: "broker-list", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "fetch-size", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "max-wait-ms", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "topics-include", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "time", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "report-interval-ms", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
)

var tool = cmdutil.ApacheTool{
	Title:   "Validate that all replicas for a set of topics have the same data.",
	Options: apacheHelp,
}

// options are the tool's values, checked.
type options struct {
	brokers                string
	include                *topics.Filter
	time, reportIntervalMs int64
	fetchSize, maxWaitMs   int32
}

// caught is the tool's catch in main: the exception's message on stderr
// (the stack trace that follows is left out), exit 1.
func caught(f *cmdutil.Factory, msg string) error {
	fmt.Fprintln(f.IO.ErrOut, msg)
	return cmdutil.Exit(1)
}

func parse(f *cmdutil.Factory, args []string) (*options, error) {
	s, err := parser.Parse(args)
	if done, err := tool.Prologue(f, args, err, s.Has); done {
		return nil, err
	}
	if err := tool.Require(f, s.Has, "broker-list"); err != nil {
		return nil, err
	}
	o := &options{}
	bs, _, err := s.Value("broker-list")
	if err != nil {
		return nil, caught(f, err.Error())
	}
	if msg := cmdutil.ValidateBootstrap(bs, true); msg != "" {
		return nil, tool.Usage(f, msg)
	}
	o.brokers = bs
	rx := ".*"
	if v, ok, err := s.Value("topics-include"); err != nil {
		return nil, caught(f, err.Error())
	} else if ok {
		rx = v
	}
	if _, err := regexp.Compile(rx); err != nil {
		return nil, caught(f, rx+" is an invalid regex")
	}
	if o.include, err = topics.NewFilter(rx); err != nil {
		return nil, caught(f, err.Error())
	}
	ints := []struct {
		name string
		def  int64
		to   func(int64)
	}{
		{"time", -1, func(v int64) { o.time = v }},
		{"report-interval-ms", 30_000, func(v int64) { o.reportIntervalMs = v }},
		{"fetch-size", 1 << 20, func(v int64) { o.fetchSize = int32(v) }},
		{"max-wait-ms", 1000, func(v int64) { o.maxWaitMs = int32(v) }},
	}
	for _, i := range ints {
		v, ok, err := s.Int(i.name)
		if err != nil {
			return nil, caught(f, err.Error())
		}
		if !ok {
			v = i.def
		}
		i.to(v)
	}
	return o, nil
}

// Run is kafka-replica-verification: it verifies until killed.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	fmt.Fprint(f.IO.ErrOut, cmdutil.LogLine("WARN", class, "This tool is deprecated and may be removed in a future major release."))
	if bs := f.Injected(); bs != "" && len(args) >= 2 && args[0] == "--bootstrap-server" && args[1] == bs {
		args = append([]string{"--broker-list", bs}, args[2:]...) // the profile's servers
	}
	o, err := parse(f, args)
	if o == nil {
		return err
	}
	cl, err := f.Connect(ctx, config.Overrides{Bootstrap: o.brokers}, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer cl.Close()
	layout, err := replicas.Describe(ctx, cl.Client, func(t string) bool { return o.include.Allowed(t, false) })
	if err != nil {
		return cl.Explain(err)
	}
	if len(layout.Partitions) == 0 {
		fmt.Fprint(f.IO.ErrOut, cmdutil.LogLine("ERROR", class, "No topics found. [topics-include] if specified, is either filtering out all topics or there is no topic."))
		return cmdutil.Exit(1)
	}
	initial, err := initialOffsets(ctx, cl.Client, layout, o.time)
	if err != nil {
		if npe, ok := err.(nullOffset); ok {
			return caught(f, string(npe))
		}
		return cl.Explain(err)
	}
	w := replicas.NewWatch(cl.Client, layout, initial,
		replicas.FetchOptions{PartitionBytes: o.fetchSize, MaxWaitMs: o.maxWaitMs, MinBytes: 1}, o.reportIntervalMs)
	fmt.Fprintf(f.IO.Out, "%s: verification process is started\n", w.Now().Format(replicas.DateFormat))
	for ctx.Err() == nil {
		lines, stop := w.Round(ctx)
		for _, l := range lines {
			fmt.Fprintln(f.IO.Out, l)
		}
		if stop {
			return cmdutil.Exit(1)
		}
	}
	return nil
}

// nullOffset is an exception the tool dies of while looking up --time: a
// NullPointerException when it is later than every record of a partition
// (offsetsForTimes maps it to null), or a negative time refused.
type nullOffset string

func (e nullOffset) Error() string { return string(e) }

const npeMessage = `Cannot invoke "org.apache.kafka.clients.consumer.OffsetAndTimestamp.offset()" because the return value of "java.util.Map$Entry.getValue()" is null`

// initialOffsets is the tool's starting point: the high watermarks (-1),
// the log start offsets (-2), or the offsets of a timestamp.
func initialOffsets(ctx context.Context, cl *kgo.Client, l *replicas.Layout, ts int64) (map[replicas.TP]int64, error) {
	if ts < -2 { // offsetsForTimes refuses a negative time, naming a partition
		var tps []replicas.TP
		for _, p := range l.Partitions {
			tps = append(tps, p.TP)
		}
		return nil, nullOffset(fmt.Sprintf("The target time for partition %s is %d. The target time cannot be negative.", replicas.TPHashOrder(tps)[0], ts))
	}
	adm := kadm.NewClient(cl)
	names := l.Topics()
	var listed kadm.ListedOffsets
	var err error
	switch ts {
	case -1:
		listed, err = adm.ListEndOffsets(ctx, names...)
	case -2:
		listed, err = adm.ListStartOffsets(ctx, names...)
	default:
		listed, err = adm.ListOffsetsAfterMilli(ctx, ts, names...)
	}
	if err == nil {
		err = listed.Error()
	}
	if err != nil {
		return nil, err
	}
	out := map[replicas.TP]int64{}
	var npe error
	listed.Each(func(o kadm.ListedOffset) {
		if ts >= 0 && o.Timestamp < 0 {
			npe = nullOffset(npeMessage)
		}
		out[replicas.TP{Topic: o.Topic, Partition: o.Partition}] = o.Offset
	})
	return out, npe
}
