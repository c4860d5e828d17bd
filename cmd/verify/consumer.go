package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/argparse"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	pv "github.com/kboxdev/kbox/pkg/verify"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ConsumerApplet is the drop-in kafka-verifiable-consumer.
var ConsumerApplet = cmdutil.Applet{
	Name:  "kafka-verifiable-consumer",
	Alias: "verifiable-consumer",
	Short: "Consume a topic in a group and print JSON events (Apache-compatible)",
	New: func(f *cmdutil.Factory) *cobra.Command {
		return &cobra.Command{
			Use:                "verifiable-consumer",
			Short:              "Consume a topic in a group and print JSON events (Apache-compatible)",
			DisableFlagParsing: true,
			RunE: func(cmd *cobra.Command, args []string) error {
				return runConsumerApplet(f, args)
			},
		}
	},
}

type consumerOpts struct {
	topic        string
	maxMessages  int64
	verbose      bool
	autoCommit   bool
	closeTimeout time.Duration
}

func javaMain(f *cmdutil.Factory, exc, msg string) error {
	fmt.Fprintf(f.IO.ErrOut, "Exception in thread \"main\" %s: %s\n", exc, msg)
	return cmdutil.Exit(1)
}

func runConsumerApplet(f *cmdutil.Factory, args []string) error {
	p := consumerParser()
	ns, code, done := p.Run(args, f.IO.Out, f.IO.ErrOut, f.Getenv)
	if done {
		return cmdutil.Exit(code)
	}
	width := argparse.FormatWidth(f.Getenv)
	var o consumerOpts
	o.topic, _ = ns.String("topic")
	o.maxMessages, _ = ns.Int("maxMessages")
	o.verbose = ns.Bool("verbose")
	o.autoCommit = ns.Bool("useAutoCommit")
	ct, _ := ns.Int("closeTimeout")
	o.closeTimeout = time.Duration(ct) * time.Millisecond

	file, _, perr := loadConfigFiles(p, ns, "consumer.config", f.IO.Out)
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
		if strings.EqualFold(gp, "consumer") {
			return javaMain(f, "org.apache.kafka.common.config.ConfigException", "session.timeout.ms is not supported when group.protocol=consumer")
		}
		props.Set("session.timeout.ms", strconv.FormatInt(st, 10))
	}
	gid, _ := ns.String("groupId")
	props.Set("group.id", gid)
	if gi, ok := ns.String("groupInstanceId"); ok {
		props.Set("group.instance.id", gi)
	}
	props.Set("enable.auto.commit", strconv.FormatBool(o.autoCommit))
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
	out := newLineWriter(f.IO.Out)
	sigs, stopSignals := signals()
	defer stopSignals()
	sig, err := consume(f, conn, o, out, sigs)
	out.Close()
	if err != nil {
		return err
	}
	if sig != nil {
		return cmdutil.Exit(signalExit(sig))
	}
	return nil
}

func tpsOf(m map[string][]int32) []pv.TP {
	var out []pv.TP
	for t, ps := range m {
		for _, p := range ps {
			out = append(out, pv.TP{Topic: t, Partition: p})
		}
	}
	sortTPs(out)
	return out
}

func sortTPs(tps []pv.TP) {
	for i := 1; i < len(tps); i++ {
		for j := i; j > 0 && (tps[j].Topic < tps[j-1].Topic || (tps[j].Topic == tps[j-1].Topic && tps[j].Partition < tps[j-1].Partition)); j-- {
			tps[j], tps[j-1] = tps[j-1], tps[j]
		}
	}
}

// consume is VerifiableConsumer.run: poll, print, commit synchronously
// after every poll (unless auto-commit), until maxMessages or a signal.
func consume(f *cmdutil.Factory, conn *config.Connection, o consumerOpts, out *lineWriter, sigs <-chan os.Signal) (os.Signal, error) {
	stderr := f.IO.ErrOut
	revoked := func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
		out.Write(pv.PartitionsRevoked(time.Now().UnixMilli(), tpsOf(m)))
	}
	extra := []kgo.Opt{
		kgo.ConsumeTopics(o.topic),
		kgo.BlockRebalanceOnPoll(),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			out.Write(pv.PartitionsAssigned(time.Now().UnixMilli(), tpsOf(m)))
		}),
		kgo.OnPartitionsRevoked(revoked),
		kgo.OnPartitionsLost(revoked),
	}
	cl, err := f.Client(conn, kafka.Consumer, kafka.Options{Extra: extra})
	if err != nil {
		return nil, err
	}
	maxPoll := cl.Settings.MaxPollRecords
	out.Write(pv.StartupComplete(time.Now().UnixMilli()))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got os.Signal
	sigDone := make(chan struct{})
	go func() {
		defer close(sigDone)
		select {
		case s := <-sigs:
			got = s
			out.Write(pv.ShutdownRequested(time.Now().UnixMilli()))
			cancel()
		case <-ctx.Done():
		}
	}()
	var consumed int64
	finished := func() bool { return o.maxMessages >= 0 && consumed >= o.maxMessages }
	for !finished() && ctx.Err() == nil {
		fs := cl.PollRecords(ctx, maxPoll)
		for _, fe := range fs.Errors() {
			if errors.Is(fe.Err, context.Canceled) || errors.Is(fe.Err, kgo.ErrClientClosed) {
				continue
			}
			var dl *kgo.ErrDataLoss
			if errors.As(fe.Err, &dl) {
				javaLog(stderr, "WARN", "org.apache.kafka.clients.consumer.internals.FetchCollector", "Data loss detected on %s-%d: %v (franz-go data-loss signal)", fe.Topic, fe.Partition, fe.Err)
				continue
			}
			javaLog(stderr, "WARN", "org.apache.kafka.tools.VerifiableConsumer", "Fetch error on %s-%d: %v", fe.Topic, fe.Partition, fe.Err)
		}
		total := int64(fs.NumRecords())
		if total == 0 {
			cl.AllowRebalance()
			continue
		}
		var sums []pv.PartitionData
		var commits []pv.CommitData
		offsets := map[string]map[int32]kgo.EpochOffset{}
		fs.EachPartition(func(ft kgo.FetchTopicPartition) {
			recs := ft.Records
			if finished() || len(recs) == 0 {
				return
			}
			if o.maxMessages >= 0 && consumed+int64(len(recs)) > o.maxMessages {
				recs = recs[:o.maxMessages-consumed]
			}
			if len(recs) == 0 {
				return
			}
			first, last := recs[0], recs[len(recs)-1]
			sums = append(sums, pv.PartitionData{Topic: ft.Topic, Partition: ft.Partition, Count: int64(len(recs)), MinOffset: first.Offset, MaxOffset: last.Offset})
			commits = append(commits, pv.CommitData{Topic: ft.Topic, Partition: ft.Partition, Offset: last.Offset + 1})
			if offsets[ft.Topic] == nil {
				offsets[ft.Topic] = map[int32]kgo.EpochOffset{}
			}
			offsets[ft.Topic][ft.Partition] = kgo.EpochOffset{Epoch: last.LeaderEpoch, Offset: last.Offset + 1}
			if o.verbose {
				for _, r := range recs {
					var k *string
					if r.Key != nil {
						ks := string(r.Key)
						k = &ks
					}
					v := string(r.Value)
					out.Write(pv.RecordData(time.Now().UnixMilli(), k, &v, r.Topic, r.Partition, r.Offset))
				}
			}
			consumed += int64(len(recs))
		})
		out.Write(pv.RecordsConsumed(time.Now().UnixMilli(), total, sums))
		if !o.autoCommit && len(commits) > 0 {
			commitSync(cl.Client, offsets, commits, out)
		}
		cl.AllowRebalance()
	}
	cl.AllowRebalance()
	closeCtx, cc := context.WithTimeout(context.Background(), o.closeTimeout)
	_ = cl.LeaveGroupContext(closeCtx)
	cc()
	cl.Close()
	cancel()
	<-sigDone
	out.Write(pv.ShutdownComplete(time.Now().UnixMilli()))
	if got == nil {
		// Apache's shutdown hook runs at JVM exit after a normal finish
		// too, and prints its event after shutdown_complete.
		out.Write(pv.ShutdownRequested(time.Now().UnixMilli()))
	}
	return got, nil
}

func commitSync(cl *kgo.Client, offsets map[string]map[int32]kgo.EpochOffset, commits []pv.CommitData, out *lineWriter) {
	var errMsg *string
	setErr := func(err error) {
		if errMsg == nil {
			m := commitErrorMessage(err)
			errMsg = &m
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl.CommitOffsetsSync(ctx, offsets, func(_ *kgo.Client, _ *kmsgReq, resp *kmsgResp, err error) {
		if err != nil {
			setErr(err)
			return
		}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				if e := kerr.ErrorForCode(p.ErrorCode); e != nil {
					setErr(e)
				}
			}
		}
	})
	out.Write(pv.OffsetsCommitted(time.Now().UnixMilli(), commits, errMsg))
}

// commitErrorMessage is the Java exception message of a failed commit.
func commitErrorMessage(err error) string {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		switch ke {
		case kerr.RebalanceInProgress, kerr.IllegalGeneration, kerr.UnknownMemberID:
			return "Commit cannot be completed since the group has already rebalanced and assigned the partitions to another member. This means that the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time message processing. You can address this either by increasing max.poll.interval.ms or by reducing the maximum size of batches returned in poll() with max.poll.records."
		}
		return ke.Description
	}
	return err.Error()
}
