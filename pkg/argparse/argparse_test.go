package argparse

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The parsers of the three Apache argparse4j tools (Kafka 4.4.0), rebuilt
// from their argParser() methods. The testdata files are the real tools'
// output captured with `testbed.sh apache TOOL ARGS...` (see *.args,
// *.columns: the COLUMNS value, empty for unset).

func producerParser() *Parser {
	p := New("verifiable-producer", `This tool produces increasing integers to the specified topic and prints JSON metadata to stdout on each "send" request, making externally visible which messages have been acked and which have not.`)
	p.DefaultHelp = true
	p.Add(Arg{Flags: []string{"--topic"}, Metavar: "TOPIC", Required: true, Help: "Produce messages to this topic."})
	g := p.AddGroup("Connection Group", "Group of arguments for connection to brokers", true, true)
	g.Add(Arg{Flags: []string{"--bootstrap-server"}, Dest: "bootstrapServer", Metavar: "HOST1:PORT1[,HOST2:PORT2[...]]", Help: "REQUIRED: The server(s) to connect to. Comma-separated list of Kafka brokers in the form HOST1:PORT1,HOST2:PORT2,..."})
	p.Add(Arg{Flags: []string{"--max-messages"}, Type: Int, Default: -1, Dest: "maxMessages", Metavar: "MAX-MESSAGES", Help: "Produce this many messages. If -1, produce messages until the process is killed externally."})
	p.Add(Arg{Flags: []string{"--throughput"}, Type: Int, Default: -1, Metavar: "THROUGHPUT", Help: "If set >= 0, throttle maximum message throughput to *approximately* THROUGHPUT messages/sec."})
	p.Add(Arg{Flags: []string{"--acks"}, Type: Int, Default: -1, Choices: []string{"0", "1", "-1"}, Metavar: "ACKS", Help: "Acks required on each produced message. See Kafka docs on acks for details."})
	p.Add(Arg{Flags: []string{"--producer.config"}, Dest: "producer.config", Metavar: "CONFIG-FILE", Help: "(DEPRECATED) Producer config properties file. This option will be removed in a future version. Use --command-config instead."})
	p.Add(Arg{Flags: []string{"--message-create-time"}, Type: Long, Default: -1, Metavar: "CREATE-TIME", Dest: "createTime", Help: "Send messages with creation time starting at the arguments value, in milliseconds since epoch"})
	p.Add(Arg{Flags: []string{"--value-prefix"}, Type: Int, Metavar: "VALUE-PREFIX", Dest: "valuePrefix", Help: "If specified, each produced value will have this prefix with a dot separator"})
	p.Add(Arg{Flags: []string{"--repeating-keys"}, Type: Int, Metavar: "REPEATING-KEYS", Dest: "repeatingKeys", Help: "If specified, each produced record will have a key starting at 0 increment by 1 up to the number specified (exclusive), then the key is set to 0 again"})
	p.Add(Arg{Flags: []string{"--command-config"}, Metavar: "CONFIG-FILE", Dest: "commandConfigFile", Help: "Config properties file (config options shared with command line parameters will be overridden)."})
	return p
}

func consumerParser() *Parser {
	p := New("verifiable-consumer", "This tool consumes messages from a specific topic and emits consumer events (e.g. group rebalances, received messages, and offsets committed) as JSON objects to STDOUT.")
	p.DefaultHelp = true
	g := p.AddGroup("Connection Group", "Group of arguments for connection to brokers", true, true)
	g.Add(Arg{Flags: []string{"--bootstrap-server"}, Required: true, Dest: "bootstrapServer", Metavar: "HOST1:PORT1[,HOST2:PORT2[...]]", Help: "The server(s) to connect to. Comma-separated list of Kafka brokers in the form HOST1:PORT1,HOST2:PORT2,..."})
	p.Add(Arg{Flags: []string{"--topic"}, Metavar: "TOPIC", Required: true, Help: "Consumes messages from this topic."})
	p.Add(Arg{Flags: []string{"--group-protocol"}, Default: "classic", Metavar: "GROUP-PROTOCOL", Dest: "groupProtocol", Help: "Group protocol (must be one of CLASSIC, CONSUMER)"})
	p.Add(Arg{Flags: []string{"--group-remote-assignor"}, Metavar: "GROUP-REMOTE-ASSIGNOR", Dest: "groupRemoteAssignor", Help: "Group remote assignor; only used if the group protocol is CONSUMER"})
	p.Add(Arg{Flags: []string{"--group-id"}, Required: true, Metavar: "GROUP-ID", Dest: "groupId", Help: "The group id of the consumer group"})
	p.Add(Arg{Flags: []string{"--group-instance-id"}, Metavar: "GROUP-INSTANCE-ID", Dest: "groupInstanceId", Help: "A unique identifier of the consumer instance"})
	p.Add(Arg{Flags: []string{"--max-messages"}, Type: Int, Default: -1, Metavar: "MAX-MESSAGES", Dest: "maxMessages", Help: "Consume this many messages. If -1 (the default), the consumer will consume until the process is killed externally"})
	p.Add(Arg{Flags: []string{"--session-timeout"}, Type: Int, Metavar: "TIMEOUT-MS", Dest: "sessionTimeout", Help: "Set the consumer's session timeout, note that this configuration is not supported when group protocol is consumer"})
	p.Add(Arg{Flags: []string{"--verbose"}, Type: StoreTrue, Metavar: "VERBOSE", Help: "Enable to log individual consumed records"})
	p.Add(Arg{Flags: []string{"--enable-autocommit"}, Type: StoreTrue, Dest: "useAutoCommit", Help: "Enable offset auto-commit on consumer"})
	p.Add(Arg{Flags: []string{"--close-timeout"}, Type: Int, Default: 30000, Metavar: "CLOSE-TIMEOUT-MS", Dest: "closeTimeout", Help: "Timeout in milliseconds for closing the consumer (default: 30000)"})
	p.Add(Arg{Flags: []string{"--reset-policy"}, Default: "earliest", Metavar: "RESET-POLICY", Dest: "resetPolicy", Help: "Set reset policy (must be either 'earliest', 'latest', or 'none')"})
	p.Add(Arg{Flags: []string{"--assignment-strategy"}, Default: "org.apache.kafka.clients.consumer.RangeAssignor", Metavar: "ASSIGNMENT-STRATEGY", Dest: "assignmentStrategy", Help: "Set assignment strategy (e.g. org.apache.kafka.clients.consumer.RoundRobinAssignor); only used if the group protocol is CLASSIC"})
	p.Add(Arg{Flags: []string{"--consumer.config"}, Metavar: "CONFIG-FILE", Dest: "consumer.config", Help: "(DEPRECATED) Consumer config properties file. This option will be removed in a future version. Use --command-config instead"})
	p.Add(Arg{Flags: []string{"--command-config"}, Metavar: "CONFIG-FILE", Dest: "commandConfigFile", Help: "Config properties file (config options shared with command line parameters will be overridden)."})
	return p
}

// perfParser is kafka-producer-perf-test's parser: nargs("+"), a Double,
// choices with an explicit metavar and an untitled required mutex group.
func perfParser() *Parser {
	p := New("kafka-producer-perf-test", "This tool is used to verify the producer performance. To enable transactions, you can specify a transactional id or set a transaction duration using --transaction-duration-ms. There are three ways to specify the transactional id: set transactional.id=<id> via --command-property, set transactional.id=<id> in the config file via --command-config, or use --transactional-id <id>.")
	p.DefaultHelp = true
	p.Add(Arg{Flags: []string{"--bootstrap-server"}, Metavar: "BOOTSTRAP-SERVER", Dest: "bootstrapServer", Help: "The server(s) to connect to. This config takes precedence over bootstrap.servers specified via --command-property or --command-config."})
	g := p.AddGroup("", "Note that you must provide exactly one of --record-size, --payload-file or --payload-monotonic.", true, true)
	p.Add(Arg{Flags: []string{"--topic"}, Required: true, Metavar: "TOPIC", Help: "Produce records to this topic."})
	p.Add(Arg{Flags: []string{"--num-records"}, Required: true, Type: Long, Metavar: "NUM-RECORDS", Dest: "numRecords", Help: "Number of records to produce."})
	g.Add(Arg{Flags: []string{"--record-size"}, Type: Int, Metavar: "RECORD-SIZE", Dest: "recordSize", Help: "Record size in bytes. Note that you must provide exactly one of --record-size, --payload-file or --payload-monotonic."})
	g.Add(Arg{Flags: []string{"--payload-file"}, Metavar: "PAYLOAD-FILE", Dest: "payloadFile", Help: "File to read the record payloads from. This works only for UTF-8 encoded text files. Payloads will be read from this file and a payload will be randomly selected when sending records. Note that you must provide exactly one of --record-size, --payload-file or --payload-monotonic."})
	g.Add(Arg{Flags: []string{"--payload-monotonic"}, Type: StoreTrue, Dest: "payloadMonotonic", Help: "Payload is a monotonically increasing integer. Note that you must provide exactly one of --record-size, --payload-file or --payload-monotonic."})
	p.Add(Arg{Flags: []string{"--payload-delimiter"}, Metavar: "PAYLOAD-DELIMITER", Dest: "payloadDelimiter", Default: `\n`, Help: "Provides the delimiter to be used when --payload-file is provided. Defaults to new line. Note that this parameter will be ignored if --payload-file is not provided."})
	p.Add(Arg{Flags: []string{"--throughput"}, Required: true, Type: Double, Metavar: "THROUGHPUT", Help: "Throttle maximum record throughput to *approximately* THROUGHPUT records/sec. Set this to -1 to disable throttling."})
	p.Add(Arg{Flags: []string{"--producer-props"}, NArgs: "+", Metavar: "PROP-NAME=PROP-VALUE", Dest: "producerConfig", Help: "(DEPRECATED) Kafka producer related configuration properties like client.id. These configs take precedence over those passed via --command-config or --producer.config. This option will be removed in a future version. Use --command-property instead. Example: --command-property linger.ms=10 batch.size=32768"})
	p.Add(Arg{Flags: []string{"--command-property"}, NArgs: "+", Metavar: "PROP-NAME=PROP-VALUE", Dest: "commandProperties", Help: "Kafka producer related configuration properties like client.id. These configs take precedence over those passed via --command-config or --producer.config. Example: --command-property linger.ms=10 batch.size=32768"})
	p.Add(Arg{Flags: []string{"--producer.config"}, Metavar: "CONFIG-FILE", Dest: "producerConfigFile", Help: "(DEPRECATED) Producer config properties file. This option will be removed in a future version. Use --command-config instead."})
	p.Add(Arg{Flags: []string{"--command-config"}, Metavar: "CONFIG-FILE", Dest: "commandConfigFile", Help: "Producer config properties file."})
	p.Add(Arg{Flags: []string{"--print-metrics"}, Type: StoreTrue, Dest: "printMetrics", Help: "Print out metrics at the end of the test."})
	p.Add(Arg{Flags: []string{"--transactional-id"}, Metavar: "TRANSACTIONAL-ID", Dest: "transactionalId", Help: "The transactional id to use. This config takes precedence over the transactional.id specified via --command-property or --command-config. Note that if the transactional id is not specified while --transaction-duration-ms is provided, the default value for the transactional id will be performance-producer- followed by a random uuid."})
	p.Add(Arg{Flags: []string{"--transaction-duration-ms"}, Type: Long, Metavar: "TRANSACTION-DURATION", Dest: "transactionDurationMs", Help: "The maximum duration of each transaction. The commitTransaction will be called after this time has elapsed. The value should be greater than 0. If the transactional id is specified via --command-property, --command-config or --transactional-id but --transaction-duration-ms is not specified, the default value will be 3000."})
	p.Add(Arg{Flags: []string{"--warmup-records"}, Type: Long, Default: 0, Metavar: "WARMUP-RECORDS", Dest: "warmupRecords", Help: "The number of records to treat as warmup. These initial records will not be included in steady-state statistics. An additional summary line will be printed describing the steady-state statistics."})
	p.Add(Arg{Flags: []string{"--reporting-interval"}, Type: Long, Default: 5000, Metavar: "INTERVAL-MS", Dest: "reportingInterval", Help: "Interval in milliseconds at which to print progress info."})
	p.Add(Arg{Flags: []string{"--record-key-range"}, Type: Int, Metavar: "KEY-RANGE", Dest: "recordKeyRange", Help: "The range of keys to use when --key-distribution is 'range' or 'random'. Keys will be integers in [0, KEY-RANGE). Required for range and random distributions."})
	p.Add(Arg{Flags: []string{"--key-distribution"}, Choices: []string{"none", "range", "random"}, Default: "none", Metavar: "KEY-DISTRIBUTION", Dest: "keyDistribution", Help: "The key distribution to use: 'none' for null keys, 'range' for round-robin keys in [0, KEY-RANGE), or 'random' for random keys in [0, KEY-RANGE). Requires --record-key-range when set to 'range' or 'random'."})
	p.Add(Arg{Flags: []string{"--random-seed"}, Type: Long, Default: 0, Metavar: "RANDOM-SEED", Dest: "randomSeed", Help: "Seed for the pseudo-random number generator used by --key-distribution random and random payload generation. The default value of 0 ensures deterministic, reproducible benchmark runs. Set to a different value when non-repeating sequences are required."})
	return p
}

func readCase(t *testing.T, name string) (args []string, env map[string]string, stdout, stderr string, exit int) {
	t.Helper()
	rd := func(ext string) string {
		b, err := os.ReadFile(filepath.Join("testdata", name+"."+ext))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a := strings.TrimSuffix(rd("args"), "\n")
	args = strings.Split(a, "\n")[1:] // first line is the tool
	if a == strings.Split(a, "\n")[0] {
		args = nil
	}
	env = map[string]string{}
	if c := strings.TrimSpace(rd("columns")); c != "" {
		env["COLUMNS"] = c
	}
	e := strings.TrimSpace(rd("exit"))
	exit = int(e[0] - '0')
	return args, env, rd("stdout"), rd("stderr"), exit
}

// TestAgainstApache runs every captured invocation of the real tools
// through the emulated parsers and compares stdout, stderr and exit code
// byte for byte. Cases whose Java tool fails after parsing (missing
// config files, exclusive options) are covered by the applets' tests.
func TestAgainstApache(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.args")
	if len(files) < 20 {
		t.Fatalf("only %d captured cases", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".args")
		if strings.Contains(name, "nofile") || strings.Contains(name, "configs") {
			continue
		}
		if _, sub := subcommandTools[strings.Split(name, "-")[0]]; sub {
			continue // TestSubcommandsAgainstApache
		}
		t.Run(name, func(t *testing.T) {
			args, env, wantOut, wantErr, wantExit := readCase(t, name)
			var p *Parser
			switch {
			case strings.HasPrefix(name, "producer"):
				p = producerParser()
			case strings.HasPrefix(name, "consumer"):
				p = consumerParser()
			default:
				p = perfParser()
			}
			var out, errb bytes.Buffer
			getenv := func(k string) string { return env[k] }
			ns, code, done := p.Run(args, &out, &errb, getenv)
			if !done {
				t.Fatalf("parse succeeded (%v), want exit %d", ns.values, wantExit)
			}
			if code != wantExit {
				t.Errorf("exit %d, want %d", code, wantExit)
			}
			if out.String() != wantOut {
				t.Errorf("stdout differs:\n--- got\n%s\n--- want\n%s", out.String(), wantOut)
			}
			if errb.String() != wantErr {
				t.Errorf("stderr differs:\n--- got\n%s\n--- want\n%s", errb.String(), wantErr)
			}
		})
	}
}

func TestParseValues(t *testing.T) {
	p := producerParser()
	ns, err := p.Parse([]string{"--top", "t1", "--bootstrap=b:1", "--acks", "-01", "--max-messages", "5", "--max-messages", "+7", "--value-prefix", "-3", "--message-create-time", "9999999999999"})
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := ns.String("topic"); s != "t1" {
		t.Errorf("topic %q", s)
	}
	if s, _ := ns.String("bootstrapServer"); s != "b:1" {
		t.Errorf("bootstrap %q", s)
	}
	if n, _ := ns.Int("maxMessages"); n != 7 {
		t.Errorf("last value should win, got %d", n)
	}
	if n, _ := ns.Int("acks"); n != -1 {
		t.Errorf("acks %d", n)
	}
	if n, _ := ns.Int("throughput"); n != -1 || ns.Given("throughput") {
		t.Errorf("default throughput %d given=%v", n, ns.Given("throughput"))
	}
	if n, _ := ns.Int("valuePrefix"); n != -3 {
		t.Errorf("negative number as a value: %d", n)
	}
	if n, _ := ns.Int("createTime"); n != 9999999999999 {
		t.Errorf("long %d", n)
	}
	if _, ok := ns.Int("repeatingKeys"); ok {
		t.Error("repeatingKeys has no default")
	}
	c := consumerParser()
	ns, err = c.Parse([]string{"--topic", "t", "--group-id", "g", "--bootstrap-server", "x", "--verb", "--enable-auto"})
	if err != nil {
		t.Fatal(err)
	}
	if !ns.Bool("verbose") || !ns.Bool("useAutoCommit") {
		t.Error("flags not set")
	}
	if s, _ := ns.String("resetPolicy"); s != "earliest" {
		t.Errorf("default reset policy %q", s)
	}
	pp := perfParser()
	ns, err = pp.Parse([]string{"--topic", "t", "--num-records", "3", "--throughput", "1.5e2", "--payload-monotonic", "--command-property", "a=1", "b=2", "--print-metrics"})
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := ns.Float("throughput"); f != 150 {
		t.Errorf("throughput %v", f)
	}
	if got := ns.Strings("commandProperties"); strings.Join(got, ",") != "a=1,b=2" {
		t.Errorf("nargs + gave %q", got)
	}
	_, err = pp.Parse([]string{"--topic", "t", "--num-records", "3", "--throughput", "1", "--record-size", "1", "--payload-monotonic"})
	if err == nil || err.Error() != "argument --payload-monotonic: not allowed with argument --record-size" {
		t.Errorf("mutex: %v", err)
	}
	_, err = pp.Parse([]string{"--topic", "t", "--num-records", "3", "--throughput", "1"})
	if err == nil || err.Error() != "one of the arguments --record-size --payload-file --payload-monotonic is required" {
		t.Errorf("required mutex: %v", err)
	}
	_, err = pp.Parse([]string{"--topic", "t", "--num-records", "3", "--throughput", "1", "--record-size", "1", "--key-distribution", "zipf"})
	if err == nil || err.Error() != "argument --key-distribution: invalid choice: 'zipf' (choose from {none,range,random})" {
		t.Errorf("choices: %v", err)
	}
}

func TestFormatWidth(t *testing.T) {
	for cols, want := range map[string]int{"80": 75, "100": 95, "6": 1, "5": 75, "abc": 75, "0": 75} {
		if got := FormatWidth(func(string) string { return cols }); got != want {
			t.Errorf("COLUMNS=%s: %d, want %d", cols, got, want)
		}
	}
}

// TestWrapJustify pins the reference example of apache-tools.md §0.3.
func TestWrapJustify(t *testing.T) {
	got := Wrap("verifiable-producer: error: one of the arguments --bootstrap-server is required\n", 75, 0, "", "")
	want := "verifiable-producer: error:  one  of  the  arguments  --bootstrap-server is\nrequired\n"
	if got != want {
		t.Errorf("got %q", got)
	}
	// JDK line breaks: after '-', '.', ':' but not inside numbers.
	segs := segments("a Comma-separated org.apache.kafka HOST1:PORT1 3.14 (default: -1) --x")
	want2 := []string{"a ", "Comma-", "separated ", "org.", "apache.", "kafka ", "HOST1:", "PORT1 ", "3.14 ", "(default: ", "-1) ", "--", "x"}
	if strings.Join(segs, "|") != strings.Join(want2, "|") {
		t.Errorf("segments %q", segs)
	}
}

// Arguments.append(): every occurrence adds its value, in order.
func TestAppend(t *testing.T) {
	p := New("t", "")
	p.Add(Arg{Flags: []string{"--feature"}, Type: Append})
	ns, err := p.Parse([]string{"--feature", "a=1", "--feature=b=2"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ns.Strings("feature"); len(got) != 2 || got[0] != "a=1" || got[1] != "b=2" {
		t.Errorf("got %q", got)
	}
	ns, _ = p.Parse(nil)
	if ns.Strings("feature") != nil || ns.Given("feature") {
		t.Errorf("absent: %v", ns.Strings("feature"))
	}
}

// Short (Short.valueOf's errors) and Version (PrintVersionAndExitAction:
// it ends the parse wherever it comes, before required options are
// checked), as kafka-transactions' --producer-epoch and -v.
func TestShortAndVersion(t *testing.T) {
	p := New("prog", "")
	p.Add(Arg{Flags: []string{"-v", "--version"}, Type: Version})
	p.Add(Arg{Flags: []string{"--epoch"}, Type: Short})
	p.Add(Arg{Flags: []string{"--need"}, Required: true})
	for arg, want := range map[string]string{
		"40000":  `argument --epoch: could not convert '40000' to Short (Value out of range. Value:"40000" Radix:10)`,
		"-32769": `argument --epoch: could not convert '-32769' to Short (Value out of range. Value:"-32769" Radix:10)`,
		"x":      `argument --epoch: could not convert 'x' to Short (For input string: "x")`,
	} {
		if _, err := p.Parse([]string{"--need", "n", "--epoch", arg}); err == nil || err.Error() != want {
			t.Errorf("%s: %v", arg, err)
		}
	}
	ns, err := p.Parse([]string{"--need", "n", "--epoch", "-32768"})
	if v, _ := ns.Int("epoch"); err != nil || v != -32768 {
		t.Errorf("-32768: %v %v", v, err)
	}
	var ve *VersionError
	if _, err := p.Parse([]string{"--epoch", "1", "-v"}); !errors.As(err, &ve) {
		t.Errorf("-v without --need: %v", err)
	}
	if _, err := p.Parse([]string{"--bogus", "-v"}); errors.As(err, &ve) {
		t.Errorf("an error before -v: %v", err)
	}
}
