package verify

import (
	"context"
	"fmt"
	"github.com/kboxdev/kbox/pkg/throttle"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/argparse"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	pv "github.com/kboxdev/kbox/pkg/verify"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ProducerApplet is the drop-in kafka-verifiable-producer.
var ProducerApplet = cmdutil.Applet{
	Name:  "kafka-verifiable-producer",
	Alias: "verifiable-producer",
	Short: "Produce increasing integers and print a JSON event per send (Apache-compatible)",
	New: func(f *cmdutil.Factory) *cobra.Command {
		return &cobra.Command{
			Use:                "verifiable-producer",
			Short:              "Produce increasing integers and print a JSON event per send (Apache-compatible)",
			DisableFlagParsing: true,
			RunE: func(cmd *cobra.Command, args []string) error {
				return runProducerApplet(f, args)
			},
		}
	},
}

// producerOpts are the parsed options of the Apache tool.
type producerOpts struct {
	topic         string
	maxMessages   int64
	throughput    int64
	createTime    *int64
	valuePrefix   *int64
	repeatingKeys *int64
}

func runProducerApplet(f *cmdutil.Factory, args []string) error {
	p := producerParser()
	ns, code, done := p.Run(args, f.IO.Out, f.IO.ErrOut, f.Getenv)
	if done {
		return cmdutil.Exit(code)
	}
	width := argparse.FormatWidth(f.Getenv)
	fail := func(err error) error {
		fmt.Fprint(f.IO.ErrOut, p.FormatError(err, width))
		return cmdutil.Exit(1)
	}
	o := producerOpts{}
	o.topic, _ = ns.String("topic")
	o.maxMessages, _ = ns.Int("maxMessages")
	o.throughput, _ = ns.Int("throughput")
	if ct, _ := ns.Int("createTime"); ct != -1 {
		o.createTime = &ct
	}
	if v, ok := ns.Int("valuePrefix"); ok {
		o.valuePrefix = &v
	}
	if v, ok := ns.Int("repeatingKeys"); ok {
		o.repeatingKeys = &v
	}
	acks, _ := ns.Int("acks")
	bootstrap, _ := ns.String("bootstrapServer")

	// Apache: CLI properties first, then the config file on top of them.
	defaults := config.NewProperties()
	defaults.Set("acks", strconv.FormatInt(acks, 10))
	defaults.Set("retries", "0")
	file, fileProps, perr := loadConfigFiles(p, ns, "producer.config", f.IO.Out)
	if perr != nil {
		return fail(perr)
	}
	if fileProps != nil {
		if bs, ok := fileProps.Get("bootstrap.servers"); ok && bs != "" {
			bootstrap = bs
		}
	}
	conn, err := f.Connection(config.Overrides{Bootstrap: bootstrap, CommandConfig: file})
	if err != nil {
		return err
	}
	stderr := f.IO.ErrOut
	cl, err := f.Client(conn, kafka.Producer, kafka.Options{Defaults: defaults, Extra: []kgo.Opt{
		kgo.ProducerOnDataLossDetected(func(topic string, partition int32) {
			javaLog(stderr, "WARN", "org.apache.kafka.clients.producer.internals.Sender", "Data loss detected for %s-%d: the broker no longer has records this producer wrote (franz-go data-loss signal)", topic, partition)
		}),
	}})
	if err != nil {
		return err
	}
	out := newLineWriter(f.IO.Out)
	sigs, stopSignals := signals()
	defer stopSignals()
	res := produce(cl.Client, o, out, sigs)
	cl.Close()
	out.Write(pv.ShutdownComplete(time.Now().UnixMilli()))
	avg := 1000 * float64(res.acked) / float64(res.stopMs-res.startMs)
	out.Write(pv.ToolData(time.Now().UnixMilli(), res.sent, res.acked, o.throughput, avg))
	out.Close()
	if res.signal != nil {
		return cmdutil.Exit(signalExit(res.signal))
	}
	return nil
}

type produceResult struct {
	sent, acked     int64
	startMs, stopMs int64
	signal          os.Signal
}

// produce is VerifiableProducer.run plus the shutdown hook's close():
// it sends until maxMessages or a signal, then flushes.
func produce(cl *kgo.Client, o producerOpts, out *lineWriter, sigs <-chan os.Signal) produceResult {
	var res produceResult
	out.Write(pv.StartupComplete(time.Now().UnixMilli()))
	res.startMs = time.Now().UnixMilli()
	stopCtx, stop := context.WithCancel(context.Background())
	defer stop()
	var sigMu sync.Mutex
	go func() {
		select {
		case s := <-sigs:
			sigMu.Lock()
			res.signal = s
			sigMu.Unlock()
			stop()
		case <-stopCtx.Done():
		}
	}()
	th := throttle.NewApache(float64(o.throughput))
	var acked atomic.Int64
	keyCounter := int64(0)
	createTime := o.createTime
	max := o.maxMessages
	if max < 0 {
		max = 1<<63 - 1
	}
	for i := int64(0); i < max; i++ {
		if stopCtx.Err() != nil {
			break
		}
		var key *string
		if o.repeatingKeys != nil {
			k := strconv.FormatInt(keyCounter, 10)
			key = &k
			keyCounter++
			if keyCounter == *o.repeatingKeys {
				keyCounter = 0
			}
		}
		value := strconv.FormatInt(i, 10)
		if o.valuePrefix != nil {
			value = strconv.FormatInt(*o.valuePrefix, 10) + "." + value
		}
		rec := &kgo.Record{Topic: o.topic, Value: []byte(value)}
		if key != nil {
			rec.Key = []byte(*key)
		}
		if createTime != nil {
			rec.Timestamp = time.UnixMilli(*createTime)
			ct := *createTime + (time.Now().UnixMilli() - res.startMs)
			createTime = &ct
		}
		res.sent++
		cl.Produce(context.Background(), rec, func(r *kgo.Record, err error) {
			now := time.Now().UnixMilli()
			if err != nil {
				class, msg := pv.JavaErrorClass(err, r.Topic, r.Partition)
				out.Write(pv.SendError(now, r.Topic, key, value, "class "+class, &msg))
				return
			}
			acked.Add(1)
			out.Write(pv.SendSuccess(now, key, value, r.Topic, r.Partition, r.Offset))
		})
		if th.ShouldThrottleNow(i) {
			th.Throttle(stopCtx)
		}
	}
	_ = cl.Flush(context.Background())
	res.stopMs = time.Now().UnixMilli()
	res.acked = acked.Load()
	stop()
	sigMu.Lock()
	defer sigMu.Unlock()
	return res
}
