// Package consoleconsumer is kbox's drop-in kafka-console-consumer (Kafka
// 4.4's ConsoleConsumer with its DefaultMessageFormatter) and, under the
// name `kbox consume`, its native extensions: a format string (-f), -o json,
// --grep, start points (--start, --since), --exit-at-end and -n.
package consoleconsumer

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/console"
	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/twmb/franz-go/pkg/kgo"
)

// apacheOptions is the option table Kafka 4.4's kafka-console-consumer
// prints (captured from the real tool).
//
//go:embed apache_options.txt
var apacheOptions string

const helpMessage = "This tool helps to read data from Kafka topics and outputs it to standard output."

const nativeHelp = `
kbox extensions (not in Apache's kafka-console-consumer; also "kbox consume"):
  -f, --format FMT        print each record with a format string (see below)
  -o, --output FORMAT     apache (default: the formatter's output) or json (one object per line:
                          topic, partition, offset, timestamp, timestamp_type, key, value, headers;
                          bytes that are not UTF-8 are base64 with "key_encoding":"base64")
  --grep REGEX            only records whose key, value, or a header key or value matches
  --start START           read partitions directly (no group) from START: earliest, latest, N (an
                          offset), -N (N before the end), @TIME; per partition: "0=-10,2=earliest"
                          (then only those partitions). --partition limits the partitions.
  --since TIME            same as --start @TIME: Unix ms, RFC 3339, or a duration ago (15m, 2h, 1d)
  -e, --exit-at-end       stop at the end offsets the partitions had at the start
  -n N                    same as --max-messages N
  -X KEY=VALUE            client property (repeatable; as --command-property, which it overrides)
  --skip-corrupt          seek past a record batch that cannot be read (its CRC does not match
                          its bytes), with a warning, instead of stopping
  --profile NAME          connection profile (see "kbox profile")
  As "kbox consume" only (Schema Registry records, see docs/schema-registry.md):
  --value-format F        how to read values: auto (Confluent framing: the schema from the
                          registry; else UTF-8 text; else base64), avro, protobuf, json-schema,
                          json, string or bytes (base64). Unset: the bytes as they are.
  --key-format F          the same for keys
  --schema-registry URL   the registry (else KBOX_SCHEMA_REGISTRY, else the profile's)
  --mask-field REGEX      replace the value of every JSON field whose name matches with "***"
  A key or value that cannot be read as asked is shown raw, with the reason (-o json:
  "value_error"; else a warning on stderr); the stream goes on.
  Record counts and rate are shown on stderr when it is a terminal (native formats).
  As "kbox consume": a corrupt batch is an error naming the partition, its offset and the
  stored and computed CRC (exit 1); offsets that jump where the log has no reason to leave a
  gap (not transaction markers, not a compacted topic) are warnings, and exit 1 at the end.

`

// Applet is the drop-in kafka-console-consumer, also `kbox consume`.
var Applet = cmdutil.Applet{
	Kind:  cmdutil.Apache,
	Name:  "kafka-console-consumer",
	Alias: "consume",
	Short: "Read records from topics and print them (Apache-compatible; -f, -o json, --grep, --start)",
	Run:   Run,

	ConnOptions: []string{"bootstrap-server"},
}

var parser = jopt.New(
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "command-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "command-property", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "consumer-property", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "consumer.config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "enable-systest-events"},
	jopt.Spec{Name: "formatter", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "formatter-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "formatter-property", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "from-beginning"},
	jopt.Spec{Name: "group", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "include", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "isolation-level", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "key-deserializer", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "max-messages", Short: "n", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "offset", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "partition", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "property", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "skip-message-on-error"},
	jopt.Spec{Name: "timeout-ms", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "topic", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "value-deserializer", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "version"},
	// kbox extensions.
	jopt.Spec{Name: "format", Short: "f", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "output", Short: "o", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "grep", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "start", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "since", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "exit-at-end", Short: "e"},
	jopt.Spec{Name: "X", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "skip-corrupt"},
)

// nativeParser is parser plus the options of `kbox consume` only: the
// drop-in's behaviour does not change.
var nativeParser = jopt.New(append(parser.Specs(),
	jopt.Spec{Name: "value-format", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "key-format", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "schema-registry", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "mask-field", Arg: jopt.RequiredArg},
)...)

const kip848Notice = "The consumer rebalance protocol (KIP-848) is production-ready! Set group.protocol=consumer to try it out. See https://kafka.apache.org/documentation/#consumer_rebalance_protocol"

type runner struct {
	f        *cmdutil.Factory
	s        *jopt.Set
	out, err io.Writer
	// checkCRC is the consumer's check.crcs (Java names a CRC mismatch
	// only when it checks CRCs).
	checkCRC bool
	// anomalies are the offset jumps and data-loss signals kbox consume
	// warned about.
	anomalies int
}

// usage is CommandLineUtils.printUsageAndExit: message and options on
// stderr, exit 1.
func (r *runner) usage(msg string) error { return tool.Usage(r.f, msg) }

// tool is kafka-console-consumer's part of the drop-in prologue: a parse
// error is printed with the usage.
var tool = cmdutil.ApacheTool{
	Title:      helpMessage,
	Options:    apacheOptions,
	Extensions: nativeHelp + console.FormatHelp + "\n",
	ParseUsage: true,
	Unreadable: "java.nio.file.NoSuchFileException: %s",
	NativeUsage: "(--topic TOPIC | --include REGEX) [--bootstrap-server HOST:PORT] [-X KEY=VALUE]...\n" +
		"       [--from-beginning | --start START | --since TIME] [-f FORMAT | -o json] [-n N] [-e] [--grep REGEX]",
}

// convError is an option value jopt cannot convert: under the native name
// a usage error, else the exception escaping main.
func (r *runner) convError(err error) error {
	if tool.Native(r.f) {
		return r.usage(err.Error())
	}
	return r.javaMain("joptsimple.OptionArgumentConversionException: " + err.Error())
}

// javaMain is an exception escaping main: "Exception in thread ..." and exit 1.
func (r *runner) javaMain(msg string) error {
	fmt.Fprintf(r.err, "Exception in thread \"main\" %s\n", msg)
	return cmdutil.Exit(1)
}

// logError is a log4j ERROR line of ConsoleConsumer and the exception.
func (r *runner) logError(msg, exc string) {
	fmt.Fprint(r.err, cmdutil.LogLine("ERROR", "org.apache.kafka.tools.consumer.ConsoleConsumer", "%s", msg))
	fmt.Fprintln(r.err, exc)
}

func (r *runner) value(name string) (string, bool) {
	v := r.s.Values(name)
	if len(v) == 0 {
		return "", false
	}
	return v[0], true
}

// keyValues is CommandLineUtils.parseKeyValueArgs (a missing value is "").
func keyValues(args []string) *config.Properties {
	p := config.NewProperties()
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		p.Set(k, v)
	}
	return p
}

// Run executes kafka-console-consumer with Apache's argv.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	r := &runner{f: f, out: f.IO.Out, err: f.IO.ErrOut}
	p := parser
	if tool.Native(f) {
		p = nativeParser
	}
	s, err := p.Parse(args)
	if done, err := tool.Prologue(f, args, err, s.Has); done {
		return err
	}
	r.s = s
	partition, err := r.checkArgs()
	if err != nil {
		return err
	}
	cs, err := r.clientProps(partition)
	if err != nil {
		return err
	}
	req, formatter, native, err := r.request(partition, len(cs.groups) > 0)
	if err != nil {
		return err
	}
	return r.connectAndConsume(ctx, cs, req, formatter, native)
}

// connectAndConsume builds the consumer's client (the start offsets
// first, when it assigns partitions) and consumes.
func (r *runner) connectAndConsume(ctx context.Context, cs *clientSetup, req *console.Request, formatter console.Formatter, native nativeOpts) error {
	f, s := r.f, r.s
	props, file, hasFile := cs.props, cs.file, cs.hasFile
	bootstrap, _ := r.value("bootstrap-server")
	ov := config.Overrides{Bootstrap: bootstrap, Properties: props}
	if hasFile {
		ov.CommandConfig = file
	}
	conn, err := f.Connection(ov)
	if err != nil {
		return err
	}
	_, grouped := conn.Props.Get("group.id")
	if req.Assign && grouped {
		conn.Props.Delete("group.id")
		grouped = false
	}
	defaults := config.NewProperties()
	defaults.Set("client.id", "console-consumer")
	c := &console.Consumer{Format: formatter, Out: r.out, Recycle: true, Watch: &integrity.Watcher{}, Decode: native.decode}
	// Fetched records are decoded into pooled slices, given back once
	// written (console.RecordPool): fewer allocations, less GC. Transaction
	// markers are kept: they are not printed, but they reach the end
	// (--exit-at-end) and make a partition's offsets consecutive.
	extraOpts := []kgo.Opt{kgo.WithPools(new(console.RecordPool)), kgo.KeepControlRecords()}
	if !req.Assign {
		if req.Regex {
			extraOpts = append(extraOpts, kgo.ConsumeRegex())
		}
		extraOpts = append(extraOpts, kgo.ConsumeTopics(req.Topics...))
	}
	if grouped {
		// Another member may read on from a revoked partition.
		forget := func(_ context.Context, _ *kgo.Client, m map[string][]int32) { c.Forget(m) }
		extraOpts = append(extraOpts, kgo.OnPartitionsRevoked(forget), kgo.OnPartitionsLost(forget))
		if ac, ok := conn.Props.Get("enable.auto.commit"); !ok || strings.EqualFold(strings.TrimSpace(ac), "true") {
			// Commit only what was printed, as Java resets the unconsumed
			// offsets before closing.
			extraOpts = append(extraOpts, kgo.AutoCommitMarks())
			req.MarkCommits = true
		}
	}
	if req.Assign {
		// Resolve the start offsets first, with a client that consumes nothing.
		pre, err := f.Client(conn, kafka.Consumer, kafka.Options{Defaults: defaults})
		if err != nil {
			r.logError("Unknown error when running consumer: ", "org.apache.kafka.common.config.ConfigException: "+err.Error())
			return cmdutil.Exit(1)
		}
		parts, err := c.Prepare(ctx, pre.Admin(), req)
		pre.Close()
		if err != nil {
			fmt.Fprintln(r.err, "Processed a total of 0 messages")
			return pre.Explain(err)
		}
		extraOpts = append(extraOpts, kgo.ConsumePartitions(parts))
	}
	cl, err := f.Client(conn, kafka.Consumer, kafka.Options{Defaults: defaults, Extra: extraOpts})
	if err != nil {
		r.logError("Unknown error when running consumer: ", "org.apache.kafka.common.config.ConfigException: "+err.Error())
		return cmdutil.Exit(1)
	}
	c.Client = cl.Client
	r.watch(ctx, cl, c)
	if !req.Assign {
		if _, err := c.Prepare(ctx, cl.Admin(), req); err != nil {
			cl.Close()
			fmt.Fprintln(r.err, "Processed a total of 0 messages")
			return cl.Explain(err)
		}
	}
	if !req.Assign && !(strings.EqualFold(cl.Settings.GroupProtocol, "consumer")) && !native.on {
		fmt.Fprintln(r.err, kip848Notice)
	}
	r.checkCRC = cl.Settings.CheckCRCs
	// --max-messages is converted lazily, inside the run.
	if s.Has("max-messages") {
		n, _, merr := s.Int("max-messages")
		if merr != nil {
			cl.Close()
			fmt.Fprintln(r.err, "Processed a total of 0 messages")
			r.logError("Unknown error when running consumer: ", "joptsimple.OptionArgumentConversionException: "+merr.Error())
			return cmdutil.Exit(1)
		}
		req.MaxMessages = n
		if n < 0 {
			req.MaxMessages = -1
		}
	}
	return r.consume(ctx, cl, c, req, native)
}

// buildFormatter is ConsoleConsumerOptions.buildFormatter: the formatter
// class and its properties.
func (r *runner) buildFormatter() (console.Formatter, error) {
	class, ok := r.value("formatter")
	if !ok {
		class = console.DefaultFormatterClass
	}
	props := map[string]string{}
	if fc, ok := r.value("formatter-config"); ok {
		fp, err := config.LoadPropertiesFile(fc)
		if err != nil {
			if _, serr := os.Stat(fc); serr != nil {
				return nil, r.usage(fc + " (No such file or directory)")
			}
			return nil, r.usage(err.Error())
		}
		for k, v := range fp.Map() {
			props[k] = v
		}
	}
	if kd, ok := r.value("key-deserializer"); ok && kd != "" {
		props["key.deserializer"] = kd
	}
	if vd, ok := r.value("value-deserializer"); ok && vd != "" {
		props["value.deserializer"] = vd
	}
	for k, v := range keyValues(append(r.s.Values("property"), r.s.Values("formatter-property")...)).Map() {
		props[k] = v
	}
	switch class {
	case console.DefaultFormatterClass, "org.apache.kafka.tools.consumer.LoggingMessageFormatter":
		// LoggingMessageFormatter is the default one plus an INFO log line
		// per record, which the tools' log configuration (root level WARN)
		// does not print.
		df, warns := console.NewDefaultFormatter(props)
		for _, w := range warns {
			r.logError(w, "java.lang.ClassNotFoundException")
		}
		return df, nil
	case "org.apache.kafka.tools.consumer.NoOpMessageFormatter":
		return noop{}, nil
	case console.OffsetsFormatterClass:
		return console.NewOffsetsFormatter(), nil
	case console.GroupMetadataFormatterClass:
		return console.NewGroupMetadataFormatter(), nil
	case console.TransactionLogFormatterClass:
		return console.NewTransactionLogFormatter(), nil
	}
	// Class.forName fails: the message is the class name.
	return nil, r.usage(class)
}

type noop struct{}

func (noop) Append(dst []byte, _ *kgo.Record) ([]byte, error) { return dst, nil }

func sortInt32(s []int32) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func (r *runner) consume(ctx context.Context, cl *kafka.Client, c *console.Consumer, req *console.Request, native nativeOpts) error {
	sigs, release := cmdutil.Interrupts(ctx)
	defer release()
	if r.s.Has("enable-systest-events") {
		// Java's shutdown hook prints it as the JVM exits.
		defer fmt.Fprintln(r.out, "shutdown_complete")
	}
	stop := make(chan struct{})
	var gotSig os.Signal
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case s := <-sigs:
			gotSig = s
			close(stop)
		case <-done:
		}
	}()
	prog := r.f.IO.Progress()
	c.Stop = stop
	if native.on {
		c.OnProgress = func(st console.Stats) {
			el := time.Since(st.Start).Seconds()
			prog.Update("%d records, %.0f records/s", st.Records, float64(st.Records)/max(el, 1e-3))
		}
	}
	c.OnSkip = func(err error) {
		r.logError("Error processing message, skipping this message: ", err.Error())
	}
	finish := func() {
		defer native.raw.summary()
		if req.MarkCommits {
			cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_ = cl.CommitMarkedOffsets(cctx)
			cancel()
		}
		cl.Close()
		st := c.Stats()
		if native.on {
			prog.Clear()
			if prog.Enabled() {
				el := time.Since(st.Start).Seconds()
				fmt.Fprintf(r.err, "%d records in %.1fs (%.0f records/s)\n", st.Records, el, float64(st.Records)/max(el, 1e-3))
			}
			return
		}
		fmt.Fprintf(r.err, "Processed a total of %d messages\n", st.Records)
	}
	err := c.Run(ctx, req)
	if gotSig != nil {
		finish()
		return cmdutil.Exit(cmdutil.SignalExit(gotSig))
	}
	var corr *integrity.Corruption
	switch {
	case err == nil:
	case errors.As(err, &corr):
		if tool.Native(r.f) {
			finish()
			if corr.Last >= corr.Offset {
				return fmt.Errorf("%v (--skip-corrupt reads on past it)", corr)
			}
			return corr
		}
		// Java's KafkaConsumer.poll throws for the partition, once the
		// records before the batch are printed; process() logs it and
		// returns: exit 0.
		r.logError("Error processing message, terminating consumer process: ", integrity.ApacheReceived(corr.Topic, corr.Partition)+"\nCaused by: "+corr.ApacheCause(r.checkCRC))
	case errors.Is(err, console.ErrTimeout):
		r.logError("Error processing message, terminating consumer process: ", console.ErrTimeout.Error())
	default:
		var pe *os.PathError
		if errors.As(err, &pe) {
			finish()
			return err
		}
		if strings.HasPrefix(err.Error(), "org.apache.kafka.common.errors.SerializationException") || strings.HasPrefix(err.Error(), "java.lang.RuntimeException: Could not read record") {
			// A formatter error escapes process(): logged by main, exit 1.
			finish()
			r.logError("Unknown error when running consumer: ", err.Error())
			return cmdutil.Exit(1)
		}
		r.logError("Error processing message, terminating consumer process: ", cl.Explain(err).Error())
	}
	finish()
	if r.anomalies == 1 {
		return errors.New("1 offset anomaly (see the warning above)")
	} else if r.anomalies > 1 {
		return fmt.Errorf("%d offset anomalies (see the warnings above)", r.anomalies)
	}
	return nil
}

// watch sets up what the consumer checks as it reads: it names the batch
// a partition is stuck on (drop-in and native), and under the native name
// reports offset jumps the log does not explain and franz-go's data-loss
// signals; --skip-corrupt seeks past a corrupt batch with a warning.
func (r *runner) watch(ctx context.Context, cl *kafka.Client, c *console.Consumer) {
	adm := cl.Admin()
	c.Watch.Attach(cl.Client)
	if r.s.Has("skip-corrupt") {
		c.OnCorrupt = func(corr *integrity.Corruption) bool {
			if corr.Last < corr.Offset {
				return false // nothing to seek past
			}
			r.f.Warn("%v: skipped (--skip-corrupt); reading on at offset %d", corr, corr.Last+1)
			return true
		}
	}
	if !tool.Native(r.f) {
		return
	}
	c.ReadCommitted = cl.Settings.IsolationLevel == "read_committed"
	c.Compacted = console.CompactedTopics(ctx, adm)
	c.OnGap = func(g *integrity.Gap) {
		r.anomalies++
		r.f.Warn("%v", g)
	}
	c.OnDataLoss = func(err error) {
		r.anomalies++
		r.f.Warn("%v", err)
	}
	c.OnUnreadable = func(fe kgo.FetchError) {
		r.f.Warn("partition %s-%d: %v (the log reads cleanly from the consumer's position; the client retries)", fe.Topic, fe.Partition, fe.Err)
	}
}
