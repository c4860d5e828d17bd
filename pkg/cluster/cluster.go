// Package cluster describes a Kafka cluster: its id, controller and brokers.
package cluster

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/kboxdev/kbox/pkg/quorum"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Broker is one broker of the cluster.
type Broker struct {
	ID   int32  `json:"id"`
	Host string `json:"host"`
	Port int32  `json:"port"`
	Rack string `json:"rack,omitempty"`
}

// Description is the result of `kbox cluster describe`.
type Description struct {
	ClusterID  string   `json:"cluster_id"`
	Controller int32    `json:"controller"`
	Brokers    []Broker `json:"brokers"`
}

// Describe fetches fresh metadata and returns the cluster description,
// brokers sorted by id. In KRaft mode the metadata response names a random
// broker as controller, so the active controller is taken from the metadata
// quorum's leader (DescribeQuorum) when the cluster answers it. adm is an
// admin client over cl.
func Describe(ctx context.Context, cl *kgo.Client, adm *kadm.Client) (*Description, error) {
	md, err := adm.BrokerMetadata(ctx)
	if err != nil {
		return nil, err
	}
	d := &Description{ClusterID: md.Cluster, Controller: md.Controller, Brokers: []Broker{}}
	for _, b := range md.Brokers {
		br := Broker{ID: b.NodeID, Host: b.Host, Port: b.Port}
		if b.Rack != nil {
			br.Rack = *b.Rack
		}
		d.Brokers = append(d.Brokers, br)
	}
	sort.Slice(d.Brokers, func(i, j int) bool { return d.Brokers[i].ID < d.Brokers[j].ID })
	if leader, ok := quorumLeader(ctx, cl); ok {
		d.Controller = leader
	}
	return d, nil
}

// QuorumLeader returns the active controller: the leader of the metadata
// quorum (DescribeQuorum); false when the cluster does not answer it.
func QuorumLeader(ctx context.Context, cl *kgo.Client) (int32, bool) {
	return quorumLeader(ctx, cl)
}

func quorumLeader(ctx context.Context, cl *kgo.Client) (int32, bool) {
	q, err := quorum.Describe(ctx, cl)
	if err != nil || q.LeaderID < 0 {
		return 0, false
	}
	return q.LeaderID, true
}

// Header is the table header.
func (d *Description) Header() []string {
	return []string{"BROKER", "ADDRESS", "RACK", "ROLE"}
}

// Rows are the table rows, one per broker.
func (d *Description) Rows() [][]string {
	rows := make([][]string, 0, len(d.Brokers))
	for _, b := range d.Brokers {
		rack := b.Rack
		if rack == "" {
			rack = "-"
		}
		role := ""
		if b.ID == d.Controller {
			role = "controller"
		}
		rows = append(rows, []string{strconv.Itoa(int(b.ID)), fmt.Sprintf("%s:%d", b.Host, b.Port), rack, role})
	}
	return rows
}

// Summary is the line printed above the table.
func (d *Description) Summary() string {
	c := "unknown"
	if d.Controller >= 0 {
		c = strconv.Itoa(int(d.Controller))
	}
	return fmt.Sprintf("Cluster %s, controller %s, %d broker(s)", d.ClusterID, c, len(d.Brokers))
}
