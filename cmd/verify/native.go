// Package verify is kbox's own `kbox verify check|run`: the verdict on
// verifiable producer/consumer logs, and an in-process verification run
// on the pkg/verify engine.
package verify

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/verify"
	"github.com/spf13/cobra"
)

// NativeApplet is `kbox verify`: the verdict on verifiable tool logs.
var NativeApplet = cmdutil.Applet{
	Kind:  cmdutil.Group,
	Alias: "verify",
	Short: "Check verifiable producer/consumer logs: was acknowledged data lost, duplicated or reordered?",
	New:   newVerifyCmd,
}

// reportFormats: the verdict as a table, JSON or YAML.
var reportFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML}}

func newVerifyCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check verifiable producer/consumer logs: was acknowledged data lost, duplicated or reordered?",
	}
	cmd.AddCommand(newCheckCmd(f), newRunCmd(f))
	return cmd
}

type checkOptions struct {
	producerLogs    []string
	consumerLogs    []string
	idempotent      bool
	allowRedelivery bool
	conn            cmdutil.ConnFlags
	examples        int
	output          string
	transactional   bool
	faultWindow     string
	minAcks         int
}

func newCheckCmd(f *cmdutil.Factory) *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use:   "check --producer-log FILE --consumer-log FILE",
		Short: "Apply the delivery rules R1-R9 to producer and consumer event logs",
		Long: `Reads the JSON event streams of kafka-verifiable-producer and
kafka-verifiable-consumer (kbox's or Apache's; non-JSON lines are ignored)
and reports lost, duplicated, reordered and inconsistent records. With
--bootstrap-server it re-reads the missing records; a batch it cannot read
(its CRC no longer matches) is reported as corrupt-batch, not as loss.
Logs are streamed (any size; gzip-compressed logs are recognised; "-" reads
one log from standard input); memory grows with partitions and anomalies,
not with records.
Run the consumers with --verbose so values can be compared.
The consumer logs must be members of one consumer group.

Exit status: 0 valid, 3 invalid, 1 on error.`,
		Example: `  # logs of a run against a cluster under a rolling restart
  kbox verify check --producer-log p.log --consumer-log c1.log --consumer-log c2.log
  # with the re-read diagnosis of missing records, as JSON
  kbox verify check --producer-log p.log --consumer-log c.log --bootstrap-server b:9092 -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return checkRun(cmdutil.Context(cmd), f, o)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&o.producerLogs, "producer-log", nil, "producer event log, plain or gzip, - for stdin (repeatable)")
	fl.StringArrayVar(&o.consumerLogs, "consumer-log", nil, "consumer event log, plain or gzip, - for stdin (repeatable)")
	fl.BoolVar(&o.idempotent, "idempotent", false, "producers ran with idempotence or transactions: duplicate values are a failure")
	fl.BoolVar(&o.allowRedelivery, "allow-redelivery", false, "consumers were killed hard: duplicate offsets are only a warning")
	o.conn.Register(cmd, false)
	fl.Lookup("bootstrap-server").Usage = "re-read missing records from this cluster (lost-in-log vs lost-in-consumption)"
	fl.BoolVar(&o.transactional, "transactional", false, "apply R7 (transactions) even if no producer log has transaction_end events")
	fl.StringVar(&o.faultWindow, "fault-window", "", "START,END of an injected fault (RFC3339 or Unix ms): applies R8 liveness")
	fl.IntVar(&o.minAcks, "min-acks", 5000, "with --fault-window: fail unless at least this many records were acked")
	fl.IntVar(&o.examples, "examples", 10, "examples shown per anomaly type")
	cmdutil.AddOutputFlag(f, cmd, &o.output, reportFormats)
	return cmd
}

// parseFaultWindow reads "START,END", each RFC3339 or Unix milliseconds.
func parseFaultWindow(s string) (*verify.FaultWindow, error) {
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return nil, fmt.Errorf("--fault-window %q is not START,END", s)
	}
	parse := func(v string) (int64, error) {
		v = strings.TrimSpace(v)
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms >= 0 {
			return ms, nil
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return 0, fmt.Errorf("--fault-window: %q is neither RFC3339 nor Unix milliseconds", v)
		}
		return t.UnixMilli(), nil
	}
	start, err := parse(a)
	if err != nil {
		return nil, err
	}
	end, err := parse(b)
	if err != nil {
		return nil, err
	}
	if end < start {
		return nil, fmt.Errorf("--fault-window: end %s is before start %s", b, a)
	}
	return &verify.FaultWindow{StartMs: start, EndMs: end}, nil
}

// openLogs opens each path ("-": standard input, at most once) as a
// streaming log reader (gzip detected by its magic bytes).
func openLogs(f *cmdutil.Factory, paths []string, stdinUsed *bool) ([]*verify.LogReader, func(), error) {
	var out []*verify.LogReader
	var files []*os.File
	closeAll := func() {
		for _, fh := range files {
			_ = fh.Close()
		}
	}
	for _, p := range paths {
		var r io.Reader
		name := p
		if p == "-" {
			if *stdinUsed {
				closeAll()
				return nil, func() {}, cmdutil.FlagErrorf("standard input (-) can be given only once")
			}
			*stdinUsed = true
			r, name = f.IO.In, "stdin"
		} else {
			fh, err := os.Open(p)
			if err != nil {
				closeAll()
				return nil, func() {}, err
			}
			files = append(files, fh)
			r = fh
		}
		lr, err := verify.NewLogReader(name, r)
		if err != nil {
			closeAll()
			return nil, func() {}, err
		}
		out = append(out, lr)
	}
	return out, closeAll, nil
}

func checkRun(ctx context.Context, f *cmdutil.Factory, o checkOptions) error {
	if len(o.producerLogs) == 0 || len(o.consumerLogs) == 0 {
		return cmdutil.FlagErrorf("need at least one --producer-log and one --consumer-log")
	}
	format := output.Format(o.output)
	var fault *verify.FaultWindow
	if o.faultWindow != "" {
		var err error
		if fault, err = parseFaultWindow(o.faultWindow); err != nil {
			return &cmdutil.FlagError{Err: err}
		}
	}
	if o.minAcks < 0 {
		return cmdutil.FlagErrorf("--min-acks must not be negative")
	}
	stdinUsed := false
	prods, closeProds, err := openLogs(f, o.producerLogs, &stdinUsed)
	if err != nil {
		return err
	}
	defer closeProds()
	cons, closeCons, err := openLogs(f, o.consumerLogs, &stdinUsed)
	if err != nil {
		return err
	}
	defer closeCons()
	opts := verify.Options{Idempotent: o.idempotent, AllowRedelivery: o.allowRedelivery, Examples: o.examples, Transactional: o.transactional, Fault: fault}
	if fault != nil {
		opts.MinAcks = o.minAcks
	}
	if o.conn.Bootstrap != "" {
		cl, err := o.conn.Connect(ctx, f, kafka.Consumer, kafka.Options{})
		if err != nil {
			return err
		}
		defer cl.Close()
		opts.Present = func(m []verify.Missing) (verify.RereadResult, error) {
			rctx, cancel := context.WithTimeout(ctx, 60*time.Second)
			defer cancel()
			return verify.Reread(rctx, cl.Client, m)
		}
	}
	c := verify.NewChecker(opts)
	if err := verify.FeedLogs(c, prods, cons); err != nil {
		return err
	}
	r := c.Finish()
	if format == output.Table {
		if err := r.WriteText(f.IO.Out); err != nil {
			return err
		}
	} else if err := output.Print(f.IO, format, r); err != nil {
		return err
	}
	if !r.Valid {
		return cmdutil.Exit(cmdutil.ExitVerifyFailed)
	}
	return nil
}
