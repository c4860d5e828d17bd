package quorum

import (
	"context"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Connect builds an admin client for conn and the Target of its
// requests; newClient makes a client for a connection (conn itself, and
// over the controllers the active controller's, seeded with its address
// alone). Over the brokers it checks the connection first; a controller
// listener answers no Metadata request (the check's ping), so there the
// first request is the check.
func Connect(ctx context.Context, conn *config.Connection, newClient func(*config.Connection) (*kafka.Client, error)) (Target, *kafka.Client, error) {
	cl, err := newClient(conn)
	if err != nil {
		return Target{}, nil, err
	}
	if !conn.Controllers {
		if err := cl.Connect(ctx); err != nil {
			cl.Close()
			return Target{}, nil, err
		}
	}
	t := Target{Client: cl.Client, Controllers: conn.Controllers, Dial: func(addr string) (*kgo.Client, error) {
		c := *conn
		c.Props = conn.Props.Clone()
		c.Bootstrap = []string{addr}
		c.Props.Set("bootstrap.servers", addr)
		other, err := newClient(&c)
		if err != nil {
			return nil, err
		}
		return other.Client, nil
	}}
	return t, cl, nil
}
