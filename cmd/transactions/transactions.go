// Package transactions is the kafka-transactions drop-in (kbox
// transactions): Apache 4.4's TransactionsCommand, its argparse4j options
// and subcommands (list [--duration-filter] [--transactional-id-pattern],
// describe --transactional-id, describe-producers --topic --partition
// [--broker-id], abort --topic --partition with --start-offset or
// --producer-id --producer-epoch --coordinator-epoch, find-hanging
// (--broker-id | --topic [--partition]) [--max-transaction-timeout],
// forceTerminateTransaction --transactionalId), tables, messages, streams
// and exit codes; and the native `kbox transactions hanging`, a scan of
// the whole cluster for hanging transactions with the partitions they
// block, the groups with offsets there and the abort command of each.
//
// Deliberate differences from Apache 4.4's tool:
//   - Stack traces are left out: a malformed --bootstrap-server prints
//     the exception's first line only (Exception in thread "main"
//     org.apache.kafka.common.KafkaException: Failed to create new
//     KafkaAdminClient).
//   - An unreachable cluster fails within kbox's connect timeout with one
//     line (kbox: error: ...), where the Java admin client retries until
//     its API timeout.
//   - describe-producers and abort --start-offset on a topic that does
//     not exist answer at once with the broker's error (This server does
//     not host this topic-partition.), where Apache's admin client
//     retries the leader lookup until its 60 s API timeout and then
//     prints the timed-out call.
//   - The log4j ERROR line Apache's admin client prints before "Failed to
//     list transactions" (a pattern the broker refuses) carries kbox's
//     time and client id adminclient-1.
//   - describe-producers --broker-id of a broker that is not in the
//     cluster fails at once (kbox: error: broker 7: unknown broker),
//     where Apache's admin client waits for the node until its timeout.
//   - find-hanging's rows are in Apache's order (producer ids as a Java
//     HashMap iterates them); partitions of one producer found in one
//     batch follow a Java HashMap<TopicPartition> of the batch's size,
//     colliding buckets in kbox's request order.
//
// The drop-in's parser takes Apache's options plus a hidden -o (json,
// yaml or table) after list, describe, describe-producers and
// find-hanging: the same result as kbox's report.
//
// kbox transactions hanging differs from find-hanging on purpose: it
// scans every partition at once (find-hanging needs a broker or a topic),
// and it also reports a transaction its coordinator still tracks but that
// is open longer than its own transaction timeout (or than
// --max-transaction-timeout, a Go duration), which find-hanging never
// does. Groups are named when they have committed offsets on a blocked
// partition: whether they read with read_committed is a client setting
// the broker does not know. It is a verdict: exit 0 when nothing is
// hanging, 1 when something is (with --watch, the last scan's).
package transactions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/argparse"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/transactions"
	"github.com/twmb/franz-go/pkg/kerr"
)

// Applet registers kafka-transactions (kbox transactions).
var Applet = cmdutil.Applet{
	Kind:   cmdutil.Apache,
	Name:   "kafka-transactions",
	Alias:  "transactions",
	Short:  short,
	Run:    Run,
	Native: NewNativeCmd,

	ConnOptions:    []string{"bootstrap-server"},
	AbbrevOptions:  true,
	ApacheCommands: []string{"list", "describe", "describe-producers", "abort", "find-hanging", "forceTerminateTransaction"},
}

const short = "Transactions: list, describe, producers of a partition, abort, find hanging ones"

// versionLine is what PrintVersionAndExitAction prints for Kafka 4.4.0.
const versionLine = cmdutil.ApacheVersion + " (Commit:1156b2752aaa28ea)"

var formats = cmdutil.Formats{Default: output.Apache, Allowed: []output.Format{output.Apache, output.Table, output.JSON, output.YAML}}

func newParser() *argparse.Parser {
	p := argparse.New("kafka-transactions.sh", "This tool is used to analyze the transactional state of producers in the cluster. It can be used to detect and recover from hanging transactions.")
	p.Add(argparse.Arg{Flags: []string{"-v", "--version"}, Type: argparse.Version, Help: "show the version of this Kafka distribution and exit"})
	p.Add(argparse.Arg{Flags: []string{"--command-config"}, Metavar: "FILE", Help: "property file containing configs to be passed to admin client"})
	p.Add(argparse.Arg{Flags: []string{"--bootstrap-server"}, Metavar: "host:port", Required: true, Help: "hostname and port for the broker to connect to, in the form `host:port`  (multiple comma-separated entries can be given)"})
	subs := p.AddSubparsers(argparse.Subparsers{Title: "commands", Metavar: "COMMAND"})
	hidden := argparse.Arg{Flags: []string{"-o", "--output"}, Hidden: true}

	l := subs.Add("list", "list transactions")
	l.Add(argparse.Arg{Flags: []string{"--duration-filter"}, Type: argparse.Long, Help: "Duration (in millis) to filter by: if < 0, all transactions will be returned; otherwise, only transactions running longer than this duration will be returned"})
	l.Add(argparse.Arg{Flags: []string{"--transactional-id-pattern"}, Help: "Transactional id regular expression pattern to filter by"})
	l.Add(hidden)

	d := subs.Add("describe", "describe the state of an active transactional-id")
	d.Description = "Describe the state of an active transactional-id."
	d.Add(argparse.Arg{Flags: []string{"--transactional-id"}, Required: true, Help: "transactional id"})
	d.Add(hidden)

	dp := subs.Add("describe-producers", "describe the states of active producers for a topic partition")
	dp.Add(argparse.Arg{Flags: []string{"--broker-id"}, Type: argparse.Int, Help: "optional broker id to describe the producer state on a specific replica"})
	dp.Add(argparse.Arg{Flags: []string{"--topic"}, Required: true, Help: "topic name"})
	dp.Add(argparse.Arg{Flags: []string{"--partition"}, Type: argparse.Int, Required: true, Help: "partition number"})
	dp.Add(hidden)

	a := subs.Add("abort", "abort a hanging transaction (requires administrative privileges)")
	a.Add(argparse.Arg{Flags: []string{"--topic"}, Required: true, Help: "topic name"})
	a.Add(argparse.Arg{Flags: []string{"--partition"}, Type: argparse.Int, Required: true, Help: "partition number"})
	a.AddGroup("Brokers on versions 3.0 and above", "For newer brokers, only the start offset of the transaction to be aborted is required", false, false).
		Add(argparse.Arg{Flags: []string{"--start-offset"}, Type: argparse.Long, Help: "start offset of the transaction to abort"})
	old := a.AddGroup("Brokers on versions older than 3.0", "For older brokers, you must provide all of these arguments", false, false)
	old.Add(argparse.Arg{Flags: []string{"--producer-id"}, Type: argparse.Long, Help: "producer id"})
	old.Add(argparse.Arg{Flags: []string{"--producer-epoch"}, Type: argparse.Short, Help: "producer epoch"})
	old.Add(argparse.Arg{Flags: []string{"--coordinator-epoch"}, Type: argparse.Int, Help: "coordinator epoch"})

	fh := subs.Add("find-hanging", "find hanging transactions")
	fh.Add(argparse.Arg{Flags: []string{"--broker-id"}, Type: argparse.Int, Help: "broker id to search for hanging transactions"})
	fh.Add(argparse.Arg{Flags: []string{"--max-transaction-timeout"}, Type: argparse.Int, Default: int64(15), Help: "maximum transaction timeout in minutes to limit the scope of the search (15 minutes by default)"})
	fh.Add(argparse.Arg{Flags: []string{"--topic"}, Help: "topic name to limit search to (required if --partition is specified)"})
	fh.Add(argparse.Arg{Flags: []string{"--partition"}, Type: argparse.Int, Help: "partition number"})
	fh.Add(hidden)

	ft := subs.Add("forceTerminateTransaction", "Force abort an ongoing transaction on transactionalId (requires administrative privileges)")
	ft.Description = "Force abort an ongoing transaction on transactionalId"
	ft.Add(argparse.Arg{Flags: []string{"--transactionalId"}, Dest: "transactionalId", Required: true, Help: "transactional id"})
	return p
}

// invocation is one parsed run of the tool.
type invocation struct {
	f      *cmdutil.Factory
	ns     *argparse.Namespace
	format output.Format
	client *kafka.Client
	// requestTimeoutMs is the admin client's request.timeout.ms (the
	// transaction timeout forceTerminateTransaction asks for).
	requestTimeoutMs int32
}

// Run is kafka-transactions.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	p := newParser()
	width := argparse.FormatWidth(f.Getenv)
	ns, err := p.Parse(args)
	var he *argparse.HelpError
	var ve *argparse.VersionError
	switch {
	case errors.As(err, &ve):
		fmt.Fprintln(f.IO.Out, versionLine)
		return nil
	case errors.As(err, &he): // help on stdout, exit 1 (handleError, then Exit.exit(1))
		_, _ = io.WriteString(f.IO.Out, he.Parser.FormatHelp(width))
		if he.Parser == p {
			return cmdutil.HelpExit(1)
		}
		return cmdutil.Exit(1)
	case err != nil:
		_, _ = io.WriteString(f.IO.ErrOut, p.FormatError(err, width))
		if len(args) == 0 {
			return cmdutil.HelpExit(1)
		}
		return cmdutil.Exit(1)
	}
	out, _ := ns.String("output")
	format, err := f.Output(out, formats)
	if err != nil {
		return err
	}
	in := &invocation{f: f, ns: ns, format: format}
	// buildAdminClient: the properties file, then the bootstrap list.
	cc, _ := ns.String("command_config")
	if cc != "" {
		if _, err := os.Stat(cc); err != nil {
			return in.fail("Failed to load admin client properties", errors.New(cc))
		}
	}
	bs, _ := ns.String("bootstrap_server")
	if msg := cmdutil.ValidateBootstrap(bs, true); msg != "" {
		fmt.Fprintln(f.IO.ErrOut, `Exception in thread "main" org.apache.kafka.common.KafkaException: Failed to create new KafkaAdminClient`)
		return cmdutil.Exit(1)
	}
	if err := in.validate(); err != nil {
		return err
	}
	if err := in.connect(ctx, bs, cc); err != nil {
		return err
	}
	defer in.client.Close()
	switch cmd, _ := ns.String("command"); cmd {
	case "list":
		return in.list(ctx)
	case "describe":
		return in.describe(ctx)
	case "describe-producers":
		return in.describeProducers(ctx)
	case "abort":
		return in.abort(ctx)
	case "find-hanging":
		return in.findHanging(ctx)
	default:
		return in.forceTerminate(ctx)
	}
}

// validate makes the checks each command makes before its first request.
func (in *invocation) validate() error {
	switch cmd, _ := in.ns.String("command"); cmd {
	case "abort":
		_, hasStart := in.ns.Int("start_offset")
		_, hasPID := in.ns.Int("producer_id")
		switch {
		case !hasStart && !hasPID:
			return in.terse("The transaction to abort must be identified either with --start-offset (for brokers on 3.0 or above) or with --producer-id, --producer-epoch, and --coordinator-epoch (for older brokers)")
		case hasStart:
		case !in.ns.Given("producer_epoch"):
			return in.terse("Missing required argument --producer-epoch")
		case !in.ns.Given("coordinator_epoch"):
			return in.terse("Missing required argument --coordinator-epoch")
		}
	case "find-hanging":
		_, hasTopic := in.ns.String("topic")
		_, hasBroker := in.ns.Int("broker_id")
		_, hasPart := in.ns.Int("partition")
		switch {
		case !hasTopic && !hasBroker:
			return in.terse("The `find-hanging` command requires either --topic or --broker-id to limit the scope of the search")
		case hasPart && !hasTopic:
			return in.terse("The --partition argument requires --topic to be provided")
		}
	}
	return nil
}

func (in *invocation) connect(ctx context.Context, bs, cc string) error {
	conn, err := in.f.Connection(config.Overrides{Bootstrap: bs, CommandConfig: cc})
	if err != nil {
		return err
	}
	defaults := config.NewProperties()
	defaults.Set("client.id", "adminclient-1")
	cl, err := in.f.ConnectedClient(ctx, conn, kafka.Admin, kafka.Options{Defaults: defaults})
	if err != nil {
		return err
	}
	in.client = cl
	in.requestTimeoutMs = 30000
	if v, ok := conn.Props.Get("request.timeout.ms"); ok {
		if n, err := strconv.ParseInt(v, 10, 32); err == nil && n > 0 {
			in.requestTimeoutMs = int32(n)
		}
	}
	return nil
}

// terse is printErrorAndExit(message): the message on stderr, exit 1.
func (in *invocation) terse(msg string) error {
	fmt.Fprintln(in.f.IO.ErrOut, msg)
	return cmdutil.Exit(1)
}

// fail is printErrorAndExit(message, cause) for an answer of the cluster
// (or a file that does not open); any other error is kbox's one line.
func (in *invocation) fail(msg string, err error) error {
	var ae *transactions.APIError
	if errors.As(err, &ae) || in.client == nil {
		return in.terse(msg + ": " + err.Error() + ". Enable debug logging for additional detail.")
	}
	return in.client.Explain(err)
}

// print writes v as kbox's view when -o asks for one, else calls apache.
func (in *invocation) print(v any, apache func(w io.Writer) error) error {
	if in.format != output.Apache {
		return output.Print(in.f.IO, in.format, v)
	}
	return apache(in.f.IO.Out)
}

func optInt32(ns *argparse.Namespace, dest string) *int32 {
	if v, ok := ns.Int(dest); ok {
		x := int32(v)
		return &x
	}
	return nil
}

func (in *invocation) list(ctx context.Context) error {
	var o transactions.ListOptions
	if d, ok := in.ns.Int("duration_filter"); ok {
		o.DurationMs = &d
	}
	o.Pattern, _ = in.ns.String("transactional_id_pattern")
	byBroker, order, err := transactions.List(ctx, in.client.Client, o)
	var ae *transactions.APIError
	if errors.As(err, &ae) && ae.Code != kerr.CoordinatorNotAvailable.Code && ae.Code != kerr.CoordinatorLoadInProgress.Code {
		// ListTransactionsHandler: an unexpected error is logged, and the
		// broker's failure is a KafkaException of its own words.
		name := ""
		if ke, ok := kerr.ErrorForCode(ae.Code).(*kerr.Error); ok {
			name = ke.Message
		}
		fmt.Fprintf(in.f.IO.ErrOut, "[%s] ERROR [AdminClient clientId=adminclient-1] The `ListTransactions` request sent to broker %d failed because of an unexpected error %s (org.apache.kafka.clients.admin.internals.ListTransactionsHandler)\n",
			time.Now().Format("2006-01-02 15:04:05,000"), ae.Broker, name)
		return in.terse(fmt.Sprintf("Failed to list transactions: ListTransactions request sent to broker %d failed with an unexpected exception. Enable debug logging for additional detail.", ae.Broker))
	}
	if err != nil {
		return in.fail("Failed to list transactions", err)
	}
	var all []transactions.Listing
	rows := [][]string{}
	for _, id := range order {
		for _, l := range byBroker[id] {
			all = append(all, l)
			rows = append(rows, []string{l.TransactionalID, fmt.Sprint(l.Coordinator), fmt.Sprint(l.ProducerID), l.State})
		}
	}
	if all == nil {
		all = []transactions.Listing{}
	}
	return in.print(listing(all), func(w io.Writer) error {
		return writeTable(w, []string{"TransactionalId", "Coordinator", "ProducerId", "TransactionState"}, rows)
	})
}
