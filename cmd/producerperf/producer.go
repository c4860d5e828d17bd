package producerperf

import (
	"context"
	crand "crypto/rand"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/argparse"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/metrics"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Applet is kafka-producer-perf-test.
var Applet = cmdutil.Applet{
	Name:  "kafka-producer-perf-test",
	Alias: "producer-perf-test",
	Short: "Producer throughput and latency test (Apache-compatible)",
	Run:   runProducerApplet,

	ConnOptions:   []string{"bootstrap-server"},
	AbbrevOptions: true,
}

// producerHelp is the 4.4.0 tool's help at argparse4j's default width (75).
//
//go:embed producer_help.txt
var producerHelp string

const prodProg = "kafka-producer-perf-test"

// producerParser is the argparse4j parser of the 4.4.0 tool. --throughput
// (a Double) and the nargs("+") property options are declared as strings
// and converted by the applet.
func producerParser() *argparse.Parser {
	p := argparse.New(prodProg, "")
	p.DefaultHelp = true
	s := argparse.String
	p.Add(argparse.Arg{Flags: []string{"--bootstrap-server"}, Dest: "bootstrapServer", Metavar: "BOOTSTRAP-SERVER", Type: s})
	p.Add(argparse.Arg{Flags: []string{"--topic"}, Dest: "topic", Metavar: "TOPIC", Type: s, Required: true})
	p.Add(argparse.Arg{Flags: []string{"--num-records"}, Dest: "numRecords", Metavar: "NUM-RECORDS", Type: argparse.Long, Required: true})
	p.Add(argparse.Arg{Flags: []string{"--payload-delimiter"}, Dest: "payloadDelimiter", Metavar: "PAYLOAD-DELIMITER", Type: s, Default: `\n`})
	p.Add(argparse.Arg{Flags: []string{"--throughput"}, Dest: "throughput", Metavar: "THROUGHPUT", Type: s, Required: true})
	p.Add(argparse.Arg{Flags: []string{"--producer-props"}, Dest: "producerConfig", Metavar: "PROP-NAME=PROP-VALUE", Type: s})
	p.Add(argparse.Arg{Flags: []string{"--command-property"}, Dest: "commandProperties", Metavar: "PROP-NAME=PROP-VALUE", Type: s})
	p.Add(argparse.Arg{Flags: []string{"--producer.config"}, Dest: "producerConfigFile", Metavar: "CONFIG-FILE", Type: s})
	p.Add(argparse.Arg{Flags: []string{"--command-config"}, Dest: "commandConfigFile", Metavar: "CONFIG-FILE", Type: s})
	p.Add(argparse.Arg{Flags: []string{"--print-metrics"}, Dest: "printMetrics", Type: argparse.StoreTrue})
	p.Add(argparse.Arg{Flags: []string{"--transactional-id"}, Dest: "transactionalId", Metavar: "TRANSACTIONAL-ID", Type: s})
	p.Add(argparse.Arg{Flags: []string{"--transaction-duration-ms"}, Dest: "transactionDurationMs", Metavar: "TRANSACTION-DURATION", Type: argparse.Long})
	p.Add(argparse.Arg{Flags: []string{"--warmup-records"}, Dest: "warmupRecords", Metavar: "WARMUP-RECORDS", Type: argparse.Long, Default: int64(0)})
	p.Add(argparse.Arg{Flags: []string{"--reporting-interval"}, Dest: "reportingInterval", Metavar: "INTERVAL-MS", Type: argparse.Long, Default: int64(5000)})
	p.Add(argparse.Arg{Flags: []string{"--record-key-range"}, Dest: "recordKeyRange", Metavar: "KEY-RANGE", Type: argparse.Int})
	p.Add(argparse.Arg{Flags: []string{"--key-distribution"}, Dest: "keyDistribution", Metavar: "KEY-DISTRIBUTION", Type: s, Default: "none", Choices: []string{"none", "range", "random"}})
	p.Add(argparse.Arg{Flags: []string{"--random-seed"}, Dest: "randomSeed", Metavar: "RANDOM-SEED", Type: argparse.Long, Default: int64(0)})
	g := p.AddGroup("", "Note that you must provide exactly one of --record-size, --payload-file or --payload-monotonic.", true, true)
	g.Add(argparse.Arg{Flags: []string{"--record-size"}, Dest: "recordSize", Metavar: "RECORD-SIZE", Type: argparse.Int})
	g.Add(argparse.Arg{Flags: []string{"--payload-file"}, Dest: "payloadFile", Metavar: "PAYLOAD-FILE", Type: s})
	g.Add(argparse.Arg{Flags: []string{"--payload-monotonic"}, Dest: "payloadMonotonic", Type: argparse.StoreTrue})
	return p
}

var multiValued = []string{"--producer-props", "--command-property"}

const valueSep = "\x00"

// foldMultiValued rewrites "--producer-props a=b c=d" (also abbreviated)
// into one "--producer-props=a=b\x00c=d" token, argparse4j's nargs("+").
func foldMultiValued(args []string) ([]string, error) {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasEq := strings.Cut(a, "=")
		full := ""
		if strings.HasPrefix(name, "--") && len(name) > 2 && !hasEq {
			for _, m := range multiValued {
				if strings.HasPrefix(m, name) && !strings.HasPrefix("--producer.config", name) && !strings.HasPrefix("--command-config", name) {
					full = m
				}
			}
		}
		if full == "" {
			out = append(out, a)
			continue
		}
		var vals []string
		for i+1 < len(args) && !(strings.HasPrefix(args[i+1], "-") && len(args[i+1]) > 1) {
			i++
			vals = append(vals, args[i])
		}
		if len(vals) == 0 {
			return nil, argparse.Errorf("argument %s: expected 1 argument(s)", full)
		}
		out = append(out, full+"="+strings.Join(vals, valueSep))
	}
	return out, nil
}

func producerUsage() string {
	i := strings.Index(producerHelp, "\n\n")
	return producerHelp[:i+1]
}

// producerArgs is the validated configuration (ConfigPostProcessor).
type producerArgs struct {
	bootstrap   string
	configFile  string
	props       *config.Properties
	txnID       string
	printMetric bool
	cfg         perf.ApacheProducerConfig
}

func reportArgError(p *argparse.Parser, err error, w io.Writer, getenv func(string) string) error {
	width := argparse.FormatWidth(getenv)
	msg := p.FormatError(err, width)
	msg = producerUsage() + strings.TrimPrefix(msg, p.FormatUsage(width))
	_, _ = io.WriteString(w, msg)
	return cmdutil.Exit(1)
}

func parseProducerArgs(args []string, stdout io.Writer, getenv func(string) string) (*producerArgs, *argparse.Parser, error) {
	p := producerParser()
	if len(args) == 0 {
		_, _ = io.WriteString(stdout, producerHelp)
		return nil, p, cmdutil.Exit(0)
	}
	folded, err := foldMultiValued(args)
	if err != nil {
		return nil, p, err
	}
	ns, err := p.Parse(folded)
	if errors.Is(err, argparse.ErrHelp) {
		_, _ = io.WriteString(stdout, producerHelp)
		return nil, p, cmdutil.Exit(1)
	}
	if err != nil {
		return nil, p, err
	}
	pa := &producerArgs{props: config.NewProperties()}
	c := &pa.cfg
	pa.bootstrap, _ = ns.String("bootstrapServer")
	c.Topic, _ = ns.String("topic")
	c.NumRecords, _ = ns.Int("numRecords")
	w, _ := ns.Int("warmupRecords")
	c.WarmupRecords = max(w, 0)
	if rs, ok := ns.Int("recordSize"); ok {
		c.RecordSize = int(rs)
		if rs <= 0 {
			return nil, p, argparse.Errorf("--record-size should be greater than zero.")
		}
	}
	tp, _ := ns.String("throughput")
	if c.Throughput, err = javafmt.ParseDouble(tp); err != nil { // Double.valueOf
		return nil, p, argparse.Errorf("argument --throughput: could not convert '%s' to Double (%s)", tp, err.Error())
	}
	c.Monotonic = ns.Bool("payloadMonotonic")
	pa.printMetric = ns.Bool("printMetrics")
	c.ReportingIntervalMs, _ = ns.Int("reportingInterval")
	producerProps, hasPP := ns.String("producerConfig")
	producerFile, hasPF := ns.String("producerConfigFile")
	cmdProps, hasCP := ns.String("commandProperties")
	cmdFile, hasCF := ns.String("commandConfigFile")
	payloadFile, hasPayload := ns.String("payloadFile")
	txnDur, hasTD := ns.Int("transactionDurationMs")
	pa.txnID, _ = ns.String("transactionalId")
	switch {
	case c.NumRecords <= 0:
		return nil, p, argparse.Errorf("--num-records should be greater than zero.")
	case c.WarmupRecords >= c.NumRecords:
		return nil, p, argparse.Errorf("The value for --warmup-records must be strictly fewer than the number of records in the test, --num-records.")
	case c.RecordSize < 0:
		return nil, p, argparse.Errorf("--record-size should be greater than zero.")
	case pa.bootstrap == "" && !hasCP && !hasPP && !hasPF && !hasCF:
		return nil, p, argparse.Errorf("At least one of --bootstrap-server, --command-property, --producer-props, --producer.config or --command-config must be specified.")
	case hasCP && hasPP:
		return nil, p, argparse.Errorf("--command-property and --producer-props cannot be specified together.")
	case hasCF && hasPF:
		return nil, p, argparse.Errorf("--command-config and --producer.config cannot be specified together.")
	case hasTD && txnDur <= 0:
		return nil, p, argparse.Errorf("--transaction-duration-ms should be greater than zero.")
	case c.ReportingIntervalMs <= 0:
		return nil, p, argparse.Errorf("--reporting-interval should be greater than zero.")
	}
	if kr, ok := ns.Int("recordKeyRange"); ok {
		if kr <= 0 {
			return nil, p, argparse.Errorf("--record-key-range should be greater than zero.")
		}
		c.KeyRange = int32(kr)
	}
	c.KeyDistribution, _ = ns.String("keyDistribution")
	if c.KeyDistribution != perf.KeysNone && c.KeyRange == 0 {
		return nil, p, argparse.Errorf("--record-key-range is required when --key-distribution is 'range' or 'random'.")
	}
	if c.KeyDistribution == perf.KeysNone && c.KeyRange != 0 {
		return nil, p, argparse.Errorf("--key-distribution must be 'range' or 'random' when --record-key-range is specified.")
	}
	c.Seed, _ = ns.Int("randomSeed")
	if hasTD {
		c.TxnDurationMs = txnDur
	}
	delim, _ := ns.String("payloadDelimiter")
	if delim == `\n` {
		delim = "\n"
	}
	if hasPayload {
		abs, _ := filepath.Abs(payloadFile)
		fmt.Fprintf(stdout, "Reading payloads from: %s\n", abs)
		payloads, err := readPayloadFile(payloadFile, delim)
		if err != nil {
			return nil, p, &fatalError{err}
		}
		c.Payloads = payloads
		fmt.Fprintf(stdout, "Number of messages read: %d\n", len(payloads))
	}
	if hasPP {
		fmt.Fprintln(stdout, "Option --producer-props has been deprecated and will be removed in a future version. Use --command-property instead.")
		cmdProps, hasCP = producerProps, true
	}
	if hasPF {
		fmt.Fprintln(stdout, "Option --producer.config has been deprecated and will be removed in a future version. Use --command-config instead.")
		cmdFile = producerFile
	}
	pa.configFile = cmdFile
	if hasCP {
		for _, kv := range strings.Split(cmdProps, valueSep) {
			pieces := strings.Split(kv, "=")
			// Java's String.split drops trailing empty strings.
			for len(pieces) > 0 && pieces[len(pieces)-1] == "" {
				pieces = pieces[:len(pieces)-1]
			}
			if len(pieces) != 2 {
				return nil, p, &fatalError{cmdutil.JavaError(fmt.Sprintf("Invalid property: %s", kv))}
			}
			pa.props.Set(pieces[0], pieces[1])
		}
	}
	return pa, p, nil
}

// fatalError is an exception the Java tool does not catch (stack trace,
// exit 1); kbox prints its message in one line.
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }

func readPayloadFile(path, delim string) ([][]byte, error) {
	st, err := os.Stat(path)
	if err != nil || st.Size() == 0 {
		return nil, cmdutil.JavaError("File does not exist or empty file provided.")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(delim)
	if err != nil {
		return nil, fmt.Errorf("invalid --payload-delimiter regular expression: %v", err)
	}
	var out [][]byte
	for _, s := range re.Split(string(data), -1) {
		if s != "" { // Scanner skips empty tokens
			out = append(out, []byte(s))
		}
	}
	return out, nil
}

func runProducerApplet(ctx context.Context, f *cmdutil.Factory, args []string) error {
	pa, p, err := parseProducerArgs(args, f.IO.Out, f.Getenv)
	var ee *cmdutil.ExitError
	var fe *fatalError
	switch {
	case errors.As(err, &ee):
		return err
	case errors.As(err, &fe):
		fmt.Fprintf(f.IO.ErrOut, "Exception in thread \"main\" java.lang.IllegalArgumentException: %s\n", fe.Error())
		return cmdutil.Exit(1)
	case err != nil:
		return reportArgError(p, err, f.IO.ErrOut, f.Getenv)
	}
	// --bootstrap-server takes precedence over bootstrap.servers in
	// --command-property and --command-config (Resolve puts the flag last);
	// one the layer added from a profile yields to both.
	conn, err := f.Connection(config.Overrides{Bootstrap: pa.bootstrap, CommandConfig: pa.configFile, Properties: pa.props})
	if err != nil {
		return err
	}
	// Transactions (4.x): enabled by a duration, --transactional-id or
	// transactional.id in the properties.
	c := &pa.cfg
	txnProp, hasTxnProp := conn.Props.Get("transactional.id")
	if pa.txnID != "" || hasTxnProp || c.TxnDurationMs > 0 {
		c.Transactional = true
		id := pa.txnID
		if id == "" {
			id = txnProp
		}
		if id == "" {
			id = "performance-producer-" + randomUUID()
		}
		conn.Props.Set("transactional.id", id)
		if c.TxnDurationMs == 0 {
			c.TxnDurationMs = 3000
		}
	}
	defaults := config.NewProperties()
	defaults.Set("client.id", "perf-producer-client")
	size := c.RecordSize
	for _, pl := range c.Payloads {
		size = max(size, len(pl))
	}
	cl, err := f.ConnectedClient(ctx, conn, kafka.Producer, kafka.Options{
		Defaults: defaults,
		Tune: func(s *kafka.Settings) {
			s.MaxRecordBytes = size
			s.BoundBufferByBytes(size, 0)
		},
		Extra:            []kgo.Opt{kgo.DefaultProduceTopic(c.Topic)},
		Metrics:          pa.printMetric,
		MetricsPushError: func(err error) { f.Warn("%v", err) },
	})
	if err != nil {
		return err
	}
	defer cl.Close()
	// A single-purpose process: its heap is the producer's buffer.
	cmdutil.SoftMemoryLimit(f.Getenv, cl.Settings.ProducerMemory(size))
	c.FlushBeforeTotal = pa.printMetric
	failures := 0
	res, err := perf.RunApacheProducer(ctx, cl.Client, *c, f.IO.Out, func(err error) {
		failures++
		if failures <= 10 {
			fmt.Fprintf(f.IO.ErrOut, "kbox: error: send failed: %v\n", cl.Explain(err))
		}
	})
	if err != nil {
		return cl.Explain(err)
	}
	if pa.printMetric {
		// After the final line and before close, as Java does.
		if err := metrics.WriteTable(f.IO.Out, cl.Metrics.Snapshot()); err != nil {
			return err
		}
	}
	if res.Failed > 10 {
		fmt.Fprintf(f.IO.ErrOut, "kbox: error: %d sends failed in total\n", res.Failed)
	}
	return nil
}

func randomUUID() string {
	var b [16]byte
	_, _ = crand.Read(b[:])
	// Kafka's Uuid.toString is URL-safe base64 without padding.
	const enc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var out strings.Builder
	var acc, bits uint
	for _, x := range b {
		acc = acc<<8 | uint(x)
		bits += 8
		for bits >= 6 {
			bits -= 6
			out.WriteByte(enc[(acc>>bits)&63])
		}
	}
	if bits > 0 {
		out.WriteByte(enc[(acc<<(6-bits))&63])
	}
	return out.String()
}
