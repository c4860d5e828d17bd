package cluster

import (
	"context"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"

	"github.com/kboxdev/kbox/pkg/javaerr"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Endpoint is one node of a DescribeCluster answer: a broker, or a
// controller when the client is connected to the controllers.
type Endpoint struct {
	ID     int32   `json:"id"`
	Host   string  `json:"host"`
	Port   int32   `json:"port"`
	Rack   *string `json:"rack"`
	Fenced bool    `json:"fenced"`
	// Type is "broker" or "controller".
	Type string `json:"endpoint_type"`
}

// Endpoints is the result of `kafka-cluster list-endpoints` and `kbox
// cluster endpoints`.
type Endpoints struct {
	ClusterID string `json:"cluster_id"`
	// Controllers: the endpoints are the controllers' (the client is
	// connected to them); else the brokers'.
	Controllers bool       `json:"controllers"`
	Nodes       []Endpoint `json:"endpoints"`
}

// APIError is an error code a request answered with: its Kafka error code
// and message (the Java client's exception class is javaerr.Class(Code)).
type APIError struct {
	Code    int16
	Message string
}

func (e *APIError) Error() string {
	if e.Message != "" {
		return e.Message
	}
	if err := kerr.ErrorForCode(e.Code); err != nil {
		return err.Error()
	}
	return fmt.Sprintf("error code %d", e.Code)
}

// JavaString is the error as the Java client's exception prints it
// (Throwable.toString).
func (e *APIError) JavaString() string {
	msg := e.Message
	if msg == "" {
		if err := kerr.ErrorForCode(e.Code); err != nil {
			if ke, ok := err.(*kerr.Error); ok {
				msg = ke.Description
			}
		}
	}
	return javaerr.String(e.Code, msg)
}

func apiError(code int16, msg *string) error {
	if code == 0 {
		return nil
	}
	e := &APIError{Code: code}
	if msg != nil {
		e.Message = *msg
	}
	return e
}

// ListEndpoints asks one node (DescribeCluster) for the cluster's brokers,
// or for its controllers when controllers is set (the client's seeds are
// controllers); includeFenced adds fenced brokers. Nodes are sorted by id.
func ListEndpoints(ctx context.Context, cl *kgo.Client, controllers, includeFenced bool) (*Endpoints, error) {
	req := kmsg.NewPtrDescribeClusterRequest()
	req.IncludeFencedBrokers = includeFenced
	typ := "broker"
	if controllers {
		req.EndpointType = 2
		typ = "controller"
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	if err := apiError(resp.ErrorCode, resp.ErrorMessage); err != nil {
		return nil, err
	}
	out := &Endpoints{ClusterID: resp.ClusterID, Controllers: controllers, Nodes: []Endpoint{}}
	for _, b := range resp.Brokers {
		if b.IsFenced && !includeFenced {
			continue
		}
		out.Nodes = append(out.Nodes, Endpoint{ID: b.NodeID, Host: b.Host, Port: b.Port, Rack: b.Rack, Fenced: b.IsFenced, Type: typ})
	}
	sort.Slice(out.Nodes, func(i, j int) bool { return out.Nodes[i].ID < out.Nodes[j].ID })
	return out, nil
}

// WriteApache writes the endpoints as kafka-cluster list-endpoints does:
// columns as wide as the longest host (and rack), a STATE column for
// brokers.
func (e *Endpoints) WriteApache(w io.Writer) error {
	hostW, rackW := 100, 10
	if len(e.Nodes) > 0 {
		hostW = 0
	}
	haveRack := false
	for _, n := range e.Nodes {
		hostW = max(hostW, len(n.Host))
		if n.Rack != nil {
			if !haveRack {
				rackW, haveRack = 0, true
			}
			rackW = max(rackW, len(*n.Rack))
		}
	}
	row := func(id, host, port, rack, state, typ string) {
		if e.Controllers {
			fmt.Fprintf(w, "%-10s %-*s %-10s %-*s %-15s\n", id, hostW, host, port, rackW, rack, typ)
			return
		}
		fmt.Fprintf(w, "%-10s %-*s %-10s %-*s %-10s %-15s\n", id, hostW, host, port, rackW, rack, state, typ)
	}
	row("ID", "HOST", "PORT", "RACK", "STATE", "ENDPOINT_TYPE")
	for _, n := range e.Nodes {
		rack := "null"
		if n.Rack != nil {
			rack = *n.Rack
		}
		state := "unfenced"
		if n.Fenced {
			state = "fenced"
		}
		row(strconv.Itoa(int(n.ID)), n.Host, strconv.Itoa(int(n.Port)), rack, state, n.Type)
	}
	return nil
}

// Header is the table header.
func (e *Endpoints) Header() []string {
	return []string{"ID", "HOST", "PORT", "RACK", "STATE", "TYPE"}
}

// Rows are the table rows, one per node.
func (e *Endpoints) Rows() [][]string {
	rows := make([][]string, 0, len(e.Nodes))
	for _, n := range e.Nodes {
		rack, state := "-", "unfenced"
		if n.Rack != nil {
			rack = *n.Rack
		}
		if n.Fenced {
			state = "fenced"
		}
		if n.Type == "controller" {
			state = "-"
		}
		rows = append(rows, []string{strconv.Itoa(int(n.ID)), n.Host, strconv.Itoa(int(n.Port)), rack, state, n.Type})
	}
	return rows
}

// ID is the result of `kbox cluster id`.
type ID struct {
	ClusterID string `json:"cluster_id"`
}

// Header is the table header.
func (c *ID) Header() []string { return []string{"CLUSTER ID"} }

// Rows is the one row.
func (c *ID) Rows() [][]string { return [][]string{{c.ClusterID}} }

// ClusterID asks one node (DescribeCluster, of the brokers or of the
// controllers) for the cluster id; "" when it has none.
func ClusterID(ctx context.Context, cl *kgo.Client, controllers bool) (*ID, error) {
	e, err := ListEndpoints(ctx, cl, controllers, false)
	if err != nil {
		return nil, err
	}
	return &ID{ClusterID: e.ClusterID}, nil
}

// UnregisterBroker removes broker id's registration (UnregisterBroker);
// an *APIError when the controller refuses (BROKER_ID_NOT_REGISTERED).
func UnregisterBroker(ctx context.Context, cl *kgo.Client, id int32) error {
	req := kmsg.NewPtrUnregisterBrokerRequest()
	req.BrokerID = id
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	return apiError(resp.ErrorCode, resp.ErrorMessage)
}

// UnregisterController removes controller id's registration
// (UnregisterController).
func UnregisterController(ctx context.Context, cl *kgo.Client, id int32) error {
	req := kmsg.NewPtrUnregisterControllerRequest()
	req.ControllerID = id
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	return apiError(resp.ErrorCode, resp.ErrorMessage)
}

// ActiveController is the address (host:port) of the active controller,
// from a controller's DescribeCluster answer (the client's seeds are
// controllers): requests a controller must handle go there.
func ActiveController(ctx context.Context, cl *kgo.Client) (string, error) {
	req := kmsg.NewPtrDescribeClusterRequest()
	req.EndpointType = 2
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return "", err
	}
	if err := apiError(resp.ErrorCode, resp.ErrorMessage); err != nil {
		return "", err
	}
	for _, b := range resp.Brokers {
		if b.NodeID == resp.ControllerID {
			return net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port))), nil
		}
	}
	return "", fmt.Errorf("no active controller among the controllers (controller id %d)", resp.ControllerID)
}
