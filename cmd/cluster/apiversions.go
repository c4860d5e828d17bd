package cluster

import (
	"context"
	"fmt"

	"github.com/kboxdev/kbox/cmd/brokerapiversions"
	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/apiversions"
	"github.com/kboxdev/kbox/pkg/cluster"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// apiVersions is kafka-cluster api-versions: every node DescribeCluster
// names (the brokers, or the controllers over --bootstrap-controller), by
// id, with its API versions.
func apiVersions(ctx context.Context, f *cmdutil.Factory, cl *kafka.Client, r *request, conn *config.Connection) error {
	e, err := cluster.ListEndpoints(ctx, cl.Client, r.controllers, false)
	if err != nil {
		return failure(f, cl, err)
	}
	nodes := make([]apiversions.Node, 0, len(e.Nodes))
	for _, n := range e.Nodes {
		nodes = append(nodes, apiversions.Node{ID: n.ID, Host: n.Host, Port: n.Port, Rack: n.Rack})
	}
	apiversions.SortByID(nodes)
	ask := brokerapiversions.BrokerAsker(cl.Client)
	if r.controllers {
		ask = controllerAsker(f, conn)
	}
	rep := apiversions.Collect(ctx, nodes, ask, brokerapiversions.ErrorText)
	return output.Print(f.IO, r.format, rep)
}

// controllerAsker asks a controller through a client of its own, seeded
// with that controller only (controllers are in no Metadata answer).
func controllerAsker(f *cmdutil.Factory, conn *config.Connection) apiversions.Asker {
	return func(ctx context.Context, n apiversions.Node) (*kmsg.ApiVersionsResponse, error) {
		c := *conn
		c.Bootstrap = []string{fmt.Sprintf("%s:%d", n.Host, n.Port)}
		cl, err := f.Client(&c, kafka.Admin, kafka.Options{})
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		return brokerapiversions.NewRequest().RequestWith(ctx, cl.Client)
	}
}
