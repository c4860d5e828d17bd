// Package verifiableproducer is kbox's drop-in kafka-verifiable-producer:
// one pkg/verify Producer printing its events on stdout.
package verifiableproducer

import (
	"context"
	"fmt"
	"strconv"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/argparse"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/verify"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Applet is the drop-in kafka-verifiable-producer.
var Applet = cmdutil.Applet{
	Name:  "kafka-verifiable-producer",
	Alias: "verifiable-producer",
	Short: "Produce increasing integers and print a JSON event per send (Apache-compatible)",
	Run:   run,

	ConnOptions:   []string{"bootstrap-server"},
	AbbrevOptions: true,
}

func run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	p := parser()
	ns, code, done := p.Run(args, f.IO.Out, f.IO.ErrOut, f.Getenv)
	if done {
		return cmdutil.Exit(code)
	}
	width := argparse.FormatWidth(f.Getenv)
	fail := func(err error) error {
		fmt.Fprint(f.IO.ErrOut, p.FormatError(err, width))
		return cmdutil.Exit(1)
	}
	topic, _ := ns.String("topic")
	prod := &verify.Producer{Topic: topic}
	prod.MaxMessages, _ = ns.Int("maxMessages")
	throughput, _ := ns.Int("throughput")
	prod.Throughput = float64(throughput)
	if ct, _ := ns.Int("createTime"); ct != -1 {
		prod.CreateTime = &ct
	}
	if v, ok := ns.Int("valuePrefix"); ok {
		prod.ValuePrefix = strconv.FormatInt(v, 10) + "."
	}
	if v, ok := ns.Int("repeatingKeys"); ok {
		prod.RepeatingKeys = &v
	}
	acks, _ := ns.Int("acks")
	bootstrap, _ := ns.String("bootstrapServer")

	// Apache: CLI properties first, then the config file on top of them.
	defaults := config.NewProperties()
	defaults.Set("acks", strconv.FormatInt(acks, 10))
	defaults.Set("retries", "0")
	oldFile, _ := ns.String("producer.config")
	newFile, _ := ns.String("commandConfigFile")
	file, fileProps, notice, perr := cmdutil.CommandConfigFile("producer.config", oldFile, newFile)
	fmt.Fprint(f.IO.Out, notice)
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
			fmt.Fprint(stderr, cmdutil.LogLine("WARN", "org.apache.kafka.clients.producer.internals.Sender", "Data loss detected for %s-%d: the broker no longer has records this producer wrote (franz-go data-loss signal)", topic, partition))
		}),
	}})
	if err != nil {
		return err
	}
	out := verify.NewLineWriter(f.IO.Out)
	sigs, release := cmdutil.Interrupts(ctx)
	defer release()
	prod.Client, prod.Sink, prod.Stop = cl.Client, out, sigs
	res := prod.Run()
	out.Close()
	if res.Signal != nil {
		return cmdutil.Exit(cmdutil.SignalExit(res.Signal))
	}
	return nil
}
