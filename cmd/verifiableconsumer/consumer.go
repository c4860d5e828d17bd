// Package verifiableconsumer is kbox's drop-in kafka-verifiable-consumer:
// one pkg/verify Consumer printing its events on stdout.
package verifiableconsumer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/argparse"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/verify"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Applet is the drop-in kafka-verifiable-consumer.
var Applet = cmdutil.Applet{
	Name:  "kafka-verifiable-consumer",
	Alias: "verifiable-consumer",
	Short: "Consume a topic in a group and print JSON events (Apache-compatible)",
	Run:   run,

	ConnOptions:   []string{"bootstrap-server"},
	AbbrevOptions: true,
}

func javaMain(f *cmdutil.Factory, exc, msg string) error {
	fmt.Fprintf(f.IO.ErrOut, "Exception in thread \"main\" %s: %s\n", exc, msg)
	return cmdutil.Exit(1)
}

func run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	p := parser()
	ns, code, done := p.Run(args, f.IO.Out, f.IO.ErrOut, f.Getenv)
	if done {
		return cmdutil.Exit(code)
	}
	width := argparse.FormatWidth(f.Getenv)
	topic, _ := ns.String("topic")
	cons := &verify.Consumer{Topic: topic, Verbose: ns.Bool("verbose"), AutoCommit: ns.Bool("useAutoCommit")}
	cons.MaxMessages, _ = ns.Int("maxMessages")
	ct, _ := ns.Int("closeTimeout")
	cons.CloseTimeout = time.Duration(ct) * time.Millisecond

	oldFile, _ := ns.String("consumer.config")
	newFile, _ := ns.String("commandConfigFile")
	file, _, notice, perr := cmdutil.CommandConfigFile("consumer.config", oldFile, newFile)
	fmt.Fprint(f.IO.Out, notice)
	if perr != nil {
		fmt.Fprint(f.IO.ErrOut, p.FormatError(perr, width))
		return cmdutil.Exit(1)
	}
	// Apache: the file first, then the tool's own properties on top.
	props := config.NewProperties()
	gp, _ := ns.String("groupProtocol")
	switch strings.ToUpper(gp) {
	case "CONSUMER":
		props.Set("group.protocol", "consumer")
		if ra, ok := ns.String("groupRemoteAssignor"); ok {
			props.Set("group.remote.assignor", ra)
		}
	case "CLASSIC":
		as, _ := ns.String("assignmentStrategy")
		props.Set("partition.assignment.strategy", as)
	default:
		return javaMain(f, "java.lang.IllegalArgumentException", "No enum constant org.apache.kafka.clients.consumer.GroupProtocol."+strings.ToUpper(gp))
	}
	if st, ok := ns.Int("sessionTimeout"); ok {
		props.Set("session.timeout.ms", strconv.FormatInt(st, 10))
	}
	gid, _ := ns.String("groupId")
	props.Set("group.id", gid)
	if gi, ok := ns.String("groupInstanceId"); ok {
		props.Set("group.instance.id", gi)
	}
	props.Set("enable.auto.commit", strconv.FormatBool(cons.AutoCommit))
	rp, _ := ns.String("resetPolicy")
	switch l := strings.ToLower(rp); {
	case l == "earliest", l == "latest", l == "none", strings.HasPrefix(l, "by_duration:"):
	default:
		return javaMain(f, "org.apache.kafka.common.config.ConfigException", fmt.Sprintf("Invalid value %s for configuration auto.offset.reset: Invalid value `%s` for configuration auto.offset.reset. The value must be either 'earliest', 'latest', 'none' or of the format 'by_duration:<PnDTnHnMn.nS.>'.", rp, rp))
	}
	props.Set("auto.offset.reset", rp)
	bootstrap, _ := ns.String("bootstrapServer")
	conn, err := f.Connection(config.Overrides{Bootstrap: bootstrap, CommandConfig: file, Properties: props})
	if err != nil {
		return err
	}
	if msg := unsupported(conn.Props, strings.ToUpper(gp)); msg != "" {
		return javaMain(f, "org.apache.kafka.common.config.ConfigException", msg)
	}
	out := verify.NewLineWriter(f.IO.Out)
	defer out.Close()
	sigs, release := cmdutil.Interrupts(ctx)
	defer release()
	stderr := f.IO.ErrOut
	cons.Sink, cons.Stop = out, sigs
	cons.OnFetchError = func(topic string, partition int32, err error) {
		var dl *kgo.ErrDataLoss
		if errors.As(err, &dl) {
			fmt.Fprint(stderr, cmdutil.LogLine("WARN", "org.apache.kafka.clients.consumer.internals.FetchCollector", "Data loss detected on %s-%d: %v (franz-go data-loss signal)", topic, partition, err))
			return
		}
		fmt.Fprint(stderr, cmdutil.LogLine("WARN", "org.apache.kafka.tools.VerifiableConsumer", "Fetch error on %s-%d: %v", topic, partition, err))
	}
	// Java's client logs carry the consumer's log context.
	clientID, ok := conn.Props.Get("client.id")
	if !ok {
		clientID = "consumer-" + gid + "-1"
	}
	logCtx := fmt.Sprintf("[Consumer clientId=%s, groupId=%s] ", clientID, gid)
	cons.OnAutoCommitError = func(offsets map[string]map[int32]kgo.EpochOffset, err error) {
		fmt.Fprint(stderr, cmdutil.LogLine("WARN", "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", "%sSynchronous auto-commit of offsets %s failed: %s", logCtx, javaOffsets(offsets), verify.CommitErrorMessage(err)))
	}
	cl, err := f.Client(conn, kafka.Consumer, kafka.Options{Extra: cons.ClientOpts()})
	if err != nil {
		return err
	}
	cons.Client, cons.MaxPollRecords = cl.Client, cl.Settings.MaxPollRecords
	// A batch the consumer cannot read past: Java's poll throws, run()
	// logs it and ends (leaving the group, shutdown_complete), exit 0.
	checkCRC := cl.Settings.CheckCRCs
	cons.OnCorrupt = func(corr *integrity.Corruption) bool {
		fmt.Fprint(stderr, cmdutil.LogLine("ERROR", "org.apache.kafka.tools.VerifiableConsumer", "%s", "Error during processing, terminating consumer process: "))
		fmt.Fprintf(stderr, "%s\nCaused by: %s\n", integrity.ApacheReceived(corr.Topic, corr.Partition), corr.ApacheCause(checkCRC))
		return false
	}
	if sig := cons.Run(); sig != nil {
		return cmdutil.Exit(cmdutil.SignalExit(sig))
	}
	return nil
}

// unsupported is the message of the ConfigException Java's ConsumerConfig
// throws for properties the group protocol does not take, set on the
// command line (--session-timeout) or in the config file; "" if none.
func unsupported(props *config.Properties, protocol string) string {
	keys := []string{"group.remote.assignor"}
	if protocol == "CONSUMER" {
		keys = []string{"partition.assignment.strategy", "heartbeat.interval.ms", "session.timeout.ms"}
	}
	var set []string
	for _, k := range keys {
		if _, ok := props.Get(k); ok {
			set = append(set, k)
		}
	}
	if len(set) == 0 {
		return ""
	}
	return strings.Join(set, ", ") + " cannot be set when group.protocol=" + protocol
}

// javaOffsets is offsets as Java prints a Map<TopicPartition,
// OffsetAndMetadata>, in topic and partition order.
func javaOffsets(offsets map[string]map[int32]kgo.EpochOffset) string {
	type entry struct {
		topic     string
		partition int32
		kgo.EpochOffset
	}
	var es []entry
	for t, ps := range offsets {
		for p, eo := range ps {
			es = append(es, entry{t, p, eo})
		}
	}
	slices.SortFunc(es, func(a, b entry) int {
		return cmp.Or(strings.Compare(a.topic, b.topic), cmp.Compare(a.partition, b.partition))
	})
	parts := make([]string, len(es))
	for i, e := range es {
		epoch := "null" // Optional.empty: unknown leader epoch
		if e.Epoch >= 0 {
			epoch = strconv.Itoa(int(e.Epoch))
		}
		parts[i] = fmt.Sprintf("%s-%d=OffsetAndMetadata{offset=%d, leaderEpoch=%s, metadata=''}", e.topic, e.partition, e.Offset, epoch)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
