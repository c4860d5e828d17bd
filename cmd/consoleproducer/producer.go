// Package consoleproducer is kbox's kafka-console-producer (also `kbox
// produce`): records from lines of stdin, parsed as Kafka's
// LineMessageReader does, produced with the console producer's settings.
// As `kbox produce` it also reads files (--file), the shared JSON record
// schema (-f json, what `kbox consume -o json` writes), sends to one
// partition (-p), caps the rate (--rate) and shows counts on a terminal.
//
// Known differences from Apache's tool (Kafka 4.4.0):
//   - An exception the Java tool lets escape prints its stack trace; kbox
//     prints its first line (class and message) and exits 1 as well.
//   - The connection is checked before the first line is read: an
//     unreachable cluster is one "kbox: error: ..." line and exit 1 (Java
//     logs connection warnings and, with no input, exits 0).
//   - Invalid producer settings (acks=2, an unknown codec) are reported
//     as "kbox: error: property ...", exit 1, not as Java's ConfigException.
//   - A failed asynchronous send is logged like ErrorLoggingCallback's
//     line, followed by franz-go's error text, and the run goes on (exit
//     0); `kbox produce` then exits 1, naming how many records failed.
//   - Only the default --line-reader exists; any other class is
//     ClassNotFoundException, as for a class not on Java's classpath.
//   - headers.separator is a Go (RE2) regular expression; Java-only
//     constructs (look-around, back-references) are rejected at start.
//   - --socket-buffer-size is passed on only when given (kbox leaves socket
//     buffers to the OS and warns that it ignores send.buffer.bytes).
//   - With -f json a copied record keeps its timestamp, so no delivery
//     timeout applies (franz-go times records out from their timestamp).
package consoleproducer

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/console"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/serde"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Applet is kafka-console-producer; `kbox produce` is the same command.
var Applet = cmdutil.Applet{
	Name:  "kafka-console-producer",
	Alias: "produce",
	Short: "Produce records from stdin or files: lines (Apache-compatible) or JSON",
	Run:   run,

	ConnOptions: []string{"bootstrap-server"},
}

//go:embed apache_help.txt
var apacheHelp string

const helpMessage = "This tool helps to read data from standard input and publish it to Kafka."

// nativeHelp follows the Apache help under `kbox produce --help`.
const nativeHelp = `
kbox produce extensions (also accepted as kafka-console-producer):
  -f, --format lines|json   input format: lines (default, as above) or the JSON
                            records of 'kbox consume -o json' (one per line;
                            keys, values, headers, partitions and timestamps kept)
  --file PATH               read PATH instead of stdin (repeatable, '-' is stdin)
  -p, --partition N         send every record to partition N
  --rate N                  at most N records per second
  -X KEY=VALUE              client property (repeatable; as --command-property,
                            which it overrides)
  Counts and rate are shown on stderr when it is a terminal.
  As "kbox produce" only (Schema Registry records, see docs/schema-registry.md):
  --value-schema SUBJECT[:VERSION]  encode each value, JSON (-f json: the record's
                            "value" as a JSON value; lines: the line), with the
                            subject's schema (Avro, Protobuf, JSON Schema; the latest
                            version unless given), Confluent-framed. A value that does
                            not match stops the run, naming the field; the records
                            before it are produced (exit 1).
  --key-schema SUBJECT[:VERSION]    the same for keys
  --value-message NAME, --key-message NAME
                            the Protobuf message to encode (default: the first one)
  --schema-registry URL     the registry (else KBOX_SCHEMA_REGISTRY, else the profile's)
`

const lineReaderClass = "org.apache.kafka.tools.LineMessageReader"

// parser is ConsoleProducer's option set (Kafka 4.4.0) plus kbox's
// extensions.
var parser = jopt.New(
	jopt.Spec{Name: "topic", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "sync"},
	jopt.Spec{Name: "compression-codec", Arg: jopt.OptionalArg},
	jopt.Spec{Name: "batch-size", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "message-send-max-retries", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "retry-backoff-ms", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "timeout", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "request-required-acks", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "request-timeout-ms", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "metadata-expiry-ms", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "max-block-ms", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "max-memory-bytes", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "max-partition-memory-bytes", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "line-reader", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "socket-buffer-size", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "property", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "reader-property", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "reader-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "producer-property", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "command-property", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "producer.config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "command-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
	// kbox extensions
	jopt.Spec{Name: "format", Short: "f", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "file", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "partition", Short: "p", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "rate", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "X", Arg: jopt.RequiredArg},
)

// nativeParser is parser plus the options of `kbox produce` only: the
// drop-in's behaviour does not change.
var nativeParser = jopt.New(append(parser.Specs(),
	jopt.Spec{Name: "value-schema", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "key-schema", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "value-message", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "key-message", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "schema-registry", Arg: jopt.RequiredArg},
)...)

// tool is kafka-console-producer's part of the drop-in prologue: a parse
// error is printed with the usage.
var tool = cmdutil.ApacheTool{
	Title:      helpMessage,
	Options:    jopt.PadLines(apacheHelp, 80),
	Extensions: nativeHelp,
	ParseUsage: true,
	NativeUsage: "--topic TOPIC [--bootstrap-server HOST:PORT] [-X KEY=VALUE]...\n" +
		"       [-f lines|json] [--file PATH]... [-p N] [--rate N] [--sync] [--value-schema SUBJECT[:VERSION]]",
}

// javaException is an exception the Java tool lets escape: it prints the
// stack trace (kbox prints its first line) and exits 1.
type javaException struct{ class, msg string }

func (e *javaException) Error() string { return e.class + ": " + e.msg }

func noSuchFile(path string) error {
	return &javaException{"java.nio.file.NoSuchFileException", path}
}

// options is the parsed command line, in the order the Java tool reads it.
type options struct {
	topic       string
	bootstrap   string
	sync        bool
	readerProps map[string]string
	configFile  string
	props       *config.Properties // the user's and the tool's explicit settings
	defaults    *config.Properties // the tool's defaults, under everything
	format      string
	files       []string
	partition   int32
	rate        float64
	lineConfig  *console.LineReaderConfig // nil for JSON input
	// keyEnc and valueEnc encode keys and values with a registered
	// schema (--key-schema, --value-schema).
	keyEnc, valueEnc *serde.Encoder
}

func run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	errOut, out := f.IO.ErrOut, f.IO.Out
	native := strings.HasPrefix(f.Invoked, "kbox ")
	usage := func(msg string) error { return tool.Usage(f, msg) }
	p := parser
	if tool.Native(f) {
		p = nativeParser
	}
	s, err := p.Parse(args)
	if done, err := tool.Prologue(f, args, err, s.Has); done {
		return err
	}
	if err := tool.Require(f, s.Has, "topic"); err != nil {
		return err
	}
	for _, pair := range [][2]string{{"command-config", "producer.config"}, {"command-property", "producer-property"}, {"reader-property", "property"}} {
		if s.Has(pair[0]) && s.Has(pair[1]) {
			return usage(fmt.Sprintf("Options --%s and --%s cannot be specified together.", pair[0], pair[1]))
		}
	}
	commandProperty, commandConfig, readerProperty := deprecatedNames(s, out)
	fail := failure(f, usage)
	bs, _, err := s.Value("bootstrap-server")
	if err != nil {
		return fail(err)
	}
	if msg := validateBootstrap(bs, s.Has("bootstrap-server")); msg != "" {
		return usage(msg)
	}
	o, err := parseOptions(s, commandProperty, commandConfig, readerProperty)
	if err != nil {
		return fail(err)
	}
	o.bootstrap = bs
	// The schemas, before the input is read and the cluster is reached.
	if err := encoders(ctx, f, s, o); err != nil {
		return err
	}

	src, closeSrc, err := openSources(f, o)
	if err != nil {
		return err
	}
	defer closeSrc()
	if o.keyEnc != nil || o.valueEnc != nil {
		src = &console.EncodingSource{Source: src, Key: o.keyEnc, Value: o.valueEnc}
	}

	conn, err := f.Connection(config.Overrides{Bootstrap: o.bootstrap, CommandConfig: o.configFile, Properties: o.props})
	if err != nil {
		return err
	}
	cl, err := f.ConnectedClient(ctx, conn, kafka.Producer, kafka.Options{Defaults: o.defaults, Tune: func(st *kafka.Settings) {
		st.ExplicitPartitions = true
		// Java lets a record larger than batch.size go in a batch of its
		// own, up to max.request.size.
		st.MaxRecordBytes = 1 << 20
		if st.MaxRequestSize != nil {
			st.MaxRecordBytes = *st.MaxRequestSize
		}
		if o.format == "json" {
			// franz-go times a record out from its timestamp, and a
			// copied record keeps its original one: no delivery timeout.
			st.DeliveryTimeout = 0
		}
	}})
	if err != nil {
		return err
	}
	defer cl.Close()

	pc := console.ProduceConfig{Partition: o.partition, Sync: o.sync, Rate: o.rate}
	if o.format == "json" {
		pc.Topic, pc.KeepTimestamps = o.topic, true
	}
	var logMu sync.Mutex // promises run on the client's goroutines
	pc.OnError = func(r *kgo.Record, err error) {
		logMu.Lock()
		defer logMu.Unlock()
		fmt.Fprint(errOut, cmdutil.LogLine("ERROR", "org.apache.kafka.clients.producer.internals.ErrorLoggingCallback",
			"Error when sending message to topic %s with key: %s, value: %s with error:", r.Topic, bytesDesc(r.Key), bytesDesc(r.Value)))
		fmt.Fprintln(errOut, explainSend(cl, r, err))
	}
	prog := f.IO.Progress()
	if native && prog.Enabled() {
		pc.Progress = func(sent, acked int64, d time.Duration) {
			prog.Update("%d records sent (%.1f records/s), %d acknowledged", sent, float64(sent)/d.Seconds(), acked)
		}
	}

	sigs, release := cmdutil.Interrupts(ctx)
	defer release()
	type result struct {
		res console.ProduceResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := console.Produce(ctx, cl.Client, src, pc)
		done <- result{res, err}
	}()
	var r result
	select {
	case r = <-done:
	case sig := <-sigs:
		// The JVM's shutdown hook closes the producer: what was handed
		// to it is still sent.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		_ = cl.Flush(fctx)
		cancel()
		prog.Clear()
		return cmdutil.Exit(cmdutil.SignalExit(sig))
	}
	prog.Clear()
	if native && prog.Enabled() {
		prog.Println("%d records produced in %.1f s (%.1f records/s), %d failed", r.res.Acked, r.res.Elapsed.Seconds(), float64(r.res.Acked)/max(r.res.Elapsed.Seconds(), 1e-9), r.res.Failed)
	}
	if r.err != nil {
		var re *console.ReaderError
		if errors.As(r.err, &re) {
			return fail(r.err)
		}
		var ee *console.EncodeError
		if errors.As(r.err, &ee) {
			before := fmt.Sprintf("the %d records before it", ee.Record-1)
			if ee.Record == 2 {
				before = "the record before it"
			}
			return fmt.Errorf("%v (%s: %d produced, %d failed)", ee, before, r.res.Acked, r.res.Failed)
		}
		var se *console.SendError
		if errors.As(r.err, &se) {
			return explainSend(cl, se.Record, se.Err)
		}
		return cl.Explain(r.err)
	}
	if native && r.res.Failed > 0 {
		// Apache logs each failed send and exits 0; kbox produce says so
		// in its exit status too.
		return fmt.Errorf("%d of %d records failed", r.res.Failed, r.res.Read)
	}
	return nil
}

// explainSend is the one-line reason a record failed; a partition the
// topic lacks is named (Java waits max.block.ms for it, then times out).
func explainSend(cl *kafka.Client, r *kgo.Record, err error) error {
	if r != nil && r.Partition >= 0 && strings.HasPrefix(err.Error(), "invalid record partitioning choice of") {
		return fmt.Errorf("partition %d of topic %s does not exist (%s)", r.Partition, r.Topic, err)
	}
	return cl.Explain(err)
}

// bytesDesc is how ErrorLoggingCallback describes a key or value.
func bytesDesc(b []byte) string {
	if b == nil {
		return "null"
	}
	return strconv.Itoa(len(b)) + " bytes"
}

// validateBootstrap is ToolsUtils.validateBootstrapServer
// (cmdutil.ValidateBootstrap).
func validateBootstrap(v string, given bool) string { return cmdutil.ValidateBootstrap(v, given) }

// parseKeyValue is CommandLineUtils.parseKeyValueArgs(args): split at the
// first '='; a missing value is "".
func parseKeyValue(args []string, set func(k, v string)) {
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		set(k, v)
	}
}

// parseOptions reads the options the way ConsoleProducer does after its
// checks: the reader (class, reader props), then the producer properties
// with their conversions.
func parseOptions(s *jopt.Set, commandProperty, commandConfig, readerProperty string) (*options, error) {
	o := &options{partition: -1, format: "lines"}
	// kbox extensions first: they decide what is read.
	if v, ok, err := s.Value("format"); err != nil {
		return nil, err
	} else if ok {
		switch v {
		case "lines", "json":
			o.format = v
		default:
			return nil, cmdutil.FlagErrorf("-f/--format %q: want lines or json", v)
		}
	}
	o.files = s.Values("file")
	if p, ok, err := s.Int("partition"); err != nil {
		return nil, err
	} else if ok {
		if p < 0 {
			return nil, cmdutil.FlagErrorf("-p/--partition %d: want a partition number (0 or more)", p)
		}
		o.partition = int32(p)
	}
	if r, ok, err := s.Int("rate"); err != nil {
		return nil, err
	} else if ok {
		if r <= 0 {
			return nil, cmdutil.FlagErrorf("--rate %d: want records per second (1 or more)", r)
		}
		o.rate = float64(r)
	}

	// messageReader: the class, then readerProps.
	if rc, ok, err := s.Value("line-reader"); err != nil {
		return nil, err
	} else if ok && rc != lineReaderClass {
		return nil, &javaException{"java.lang.ClassNotFoundException", rc}
	}
	o.readerProps = map[string]string{}
	if path, ok, err := s.Value("reader-config"); err != nil {
		return nil, err
	} else if ok {
		p, err := loadProps(path)
		if err != nil {
			return nil, err
		}
		for _, k := range p.Keys() {
			o.readerProps[k], _ = p.Get(k)
		}
	}
	topic, _, err := s.Value("topic")
	if err != nil {
		return nil, err
	}
	o.topic = topic
	o.readerProps["topic"] = topic
	parseKeyValue(s.Values(readerProperty), func(k, v string) { o.readerProps[k] = v })
	if o.format == "lines" {
		// reader.configure
		if o.lineConfig, err = console.NewLineReaderConfig(o.readerProps); err != nil {
			return nil, err
		}
	}

	// producerProps: the config file (read by the connection layer, under
	// the properties), the properties, then the tool's settings.
	if path, ok, err := s.Value(commandConfig); err != nil {
		return nil, err
	} else if ok {
		if _, err := loadProps(path); err != nil {
			return nil, err
		}
		o.configFile = path
	}
	o.props = config.NewProperties()
	parseKeyValue(s.Values(commandProperty), o.props.Set)
	// -X (kbox's client properties, as every native command takes them)
	// wins over --command-property.
	xprops, err := cmdutil.ParseProps(s.Values("X"), "-X")
	if err != nil {
		return nil, err
	}
	o.props.Merge(xprops)
	codec := "none"
	if s.Has("compression-codec") {
		v, _, err := s.Value("compression-codec")
		if err != nil {
			return nil, err
		}
		codec = v
		if v == "" {
			codec = "gzip"
		}
	}
	o.props.Set("compression.type", codec)
	o.defaults = config.NewProperties()
	o.defaults.Set("client.id", "console-producer")
	// maybeMergeOptions: an option given on the command line wins over
	// the properties; the tool's default loses to them.
	for _, m := range []struct {
		prop, opt, def string
		number         bool
	}{
		{"linger.ms", "timeout", "1000", true},
		{"acks", "request-required-acks", "-1", false},
		{"request.timeout.ms", "request-timeout-ms", "1500", true},
		{"retries", "message-send-max-retries", "3", true},
		{"retry.backoff.ms", "retry-backoff-ms", "100", true},
		{"send.buffer.bytes", "socket-buffer-size", "", true},
		{"buffer.memory", "max-memory-bytes", "33554432", true},
		{"batch.size", "batch-size", "16384", true},
		{"batch.size", "max-partition-memory-bytes", "16384", true},
		{"metadata.max.age.ms", "metadata-expiry-ms", "300000", true},
		{"max.block.ms", "max-block-ms", "60000", true},
	} {
		var v string
		var ok bool
		if m.number {
			var n int64
			n, ok, err = s.Int(m.opt)
			v = strconv.FormatInt(n, 10)
		} else {
			v, ok, err = s.Value(m.opt)
		}
		if err != nil {
			return nil, err
		}
		switch {
		case ok:
			o.props.Set(m.prop, v)
		case m.def != "":
			// Java always sets send.buffer.bytes (102400); kbox leaves
			// socket buffers to the OS unless asked.
			o.defaults.Set(m.prop, m.def)
		}
	}
	o.sync = s.Has("sync")
	return o, nil
}

// loadProps reads a Java properties file as Utils.loadProps does; a missing
// file is Java's NoSuchFileException.
func loadProps(path string) (*config.Properties, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, noSuchFile(path)
		}
		return nil, err
	}
	return config.LoadPropertiesFile(path)
}

// openSources opens the input: stdin, or the --file paths in order.
func openSources(f *cmdutil.Factory, o *options) (console.Source, func(), error) {
	newSource := func(r io.Reader, name string) console.Source {
		if o.format == "json" {
			jr := console.NewJSONReader(r)
			jr.RawKey, jr.RawValue = o.keyEnc != nil, o.valueEnc != nil
			return named(jr, name)
		}
		lr := console.NewLineReader(o.lineConfig, r)
		if name == "" && f.IO.IsStdinTTY() && f.IO.IsStdoutTTY() {
			// Java prints the prompt when it has a console.
			lr.Prompt = func() { fmt.Fprint(f.IO.Out, ">") }
		}
		return named(lr, name)
	}
	if len(o.files) == 0 {
		return newSource(f.IO.In, ""), func() {}, nil
	}
	var files []*os.File
	closeAll := func() {
		for _, fh := range files {
			fh.Close()
		}
	}
	var ms console.MultiSource
	for _, path := range o.files {
		if path == "-" {
			ms = append(ms, newSource(f.IO.In, "-"))
			continue
		}
		fh, err := os.Open(path)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("--file: %v", err)
		}
		files = append(files, fh)
		ms = append(ms, newSource(fh, path))
	}
	return &ms, closeAll, nil
}

// named prefixes a file source's errors with its name (stdin's keep the
// Apache form).
func named(src console.Source, name string) console.Source {
	if name == "" {
		return src
	}
	return namedSource{src, name}
}

type namedSource struct {
	console.Source
	name string
}

func (n namedSource) Next() (console.Record, error) {
	r, err := n.Source.Next()
	if err != nil && !errors.Is(err, io.EOF) {
		return r, fmt.Errorf("%s: %s", n.name, err.Error())
	}
	return r, err
}
