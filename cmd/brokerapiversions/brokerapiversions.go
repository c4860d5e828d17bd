// Package brokerapiversions is the kafka-broker-api-versions drop-in
// (kbox api-versions): every broker's API versions, and for each the
// version Apache Kafka 4.4's Java client would use with it (pkg/apiversions,
// from the Java client's own table), as Apache's BrokerApiVersionsCommand
// prints them; -o table|json|yaml shows the same result natively.
//
// Deliberate differences from Apache 4.4's tool:
//   - Stack traces are left out: where Apache prints an exception's
//     message and then its stack trace, kbox prints the message line.
//   - An unreachable --bootstrap-server fails within kbox's connect timeout
//     with one line (kbox: error: ...), where the Java client retries.
//
// Apache prints its brokers in a HashMap's order; two brokers that share a
// bucket come out in random order (its Cluster shuffles them), and kbox
// prints them by id, one of the orders Apache prints.
package brokerapiversions

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/apiversions"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

//go:embed apache_help.txt
var apacheHelp string

// Applet registers kafka-broker-api-versions (kbox api-versions).
var Applet = cmdutil.Applet{
	Kind:  cmdutil.Apache,
	Name:  "kafka-broker-api-versions",
	Alias: "api-versions",
	Short: "Each broker's API versions and the ones the Java client would use",
	Run:   Run,

	ConnOptions: []string{"bootstrap-server"},
}

const nativeHelp = `
kbox options:
  -o, --output FORMAT   apache (default under the Apache name), table, json
                        or yaml: one row per broker and API
`

var parser = jopt.New(
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "command-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "output", Short: "o", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
)

var tool = cmdutil.ApacheTool{
	Title:      "This tool helps to retrieve broker version information.",
	Options:    apacheHelp,
	Extensions: nativeHelp,
}

var formats = cmdutil.Formats{Default: output.Apache, Allowed: []output.Format{output.Apache, output.Table, output.JSON, output.YAML}}

// Run is kafka-broker-api-versions.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	s, err := parser.Parse(args)
	if done, err := tool.Prologue(f, args, err, s.Has); done {
		return err
	}
	if err := tool.Require(f, s.Has, "bootstrap-server"); err != nil {
		return err
	}
	out, _, err := s.Value("output")
	if err != nil {
		return failure(f, err.Error())
	}
	format, err := f.Output(out, formats)
	if err != nil {
		return err
	}
	bs, cc, err := tool.ConnArgs(s)
	if err != nil {
		return failure(f, err.Error())
	}
	cl, err := f.Connect(ctx, config.Overrides{Bootstrap: bs, CommandConfig: cc}, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer cl.Close()
	r, err := Brokers(ctx, cl)
	if err != nil {
		return cl.Explain(err)
	}
	return output.Print(f.IO, format, r)
}

// failure is the tool's catch-all: the message on stderr, exit 1.
func failure(f *cmdutil.Factory, msg string) error {
	fmt.Fprintln(f.IO.ErrOut, msg)
	return cmdutil.Exit(1)
}

// Brokers asks every broker of the cluster's metadata for its API versions,
// in the order BrokerApiVersionsCommand prints them (a Java HashMap's).
func Brokers(ctx context.Context, cl *kafka.Client) (*apiversions.Report, error) {
	md, err := cl.Admin().BrokerMetadata(ctx)
	if err != nil {
		return nil, err
	}
	nodes := make([]apiversions.Node, 0, len(md.Brokers))
	for _, b := range md.Brokers {
		nodes = append(nodes, apiversions.Node{ID: b.NodeID, Host: b.Host, Port: b.Port, Rack: b.Rack})
	}
	apiversions.SortByID(nodes) // the Java metadata's insertion order
	apiversions.HashMapOrder(nodes)
	return apiversions.Collect(ctx, nodes, BrokerAsker(cl.Client), ErrorText), nil
}

// BrokerAsker asks a broker the client knows from its metadata.
func BrokerAsker(cl *kgo.Client) apiversions.Asker {
	return func(ctx context.Context, n apiversions.Node) (*kmsg.ApiVersionsResponse, error) {
		resp, err := cl.Broker(int(n.ID)).Request(ctx, NewRequest())
		if err != nil {
			return nil, err
		}
		return resp.(*kmsg.ApiVersionsResponse), nil
	}
}

// NewRequest is an ApiVersions request naming kbox (v3+ needs a
// software name).
func NewRequest() *kmsg.ApiVersionsRequest {
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName = "kbox"
	req.ClientSoftwareVersion = cmdutil.ApacheVersion
	return req
}

// ErrorText is a failed node's message.
func ErrorText(err error) string { return err.Error() }
