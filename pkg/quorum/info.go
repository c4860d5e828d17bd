package quorum

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/kboxdev/kbox/pkg/javaerr"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Target is where the quorum's requests go: the brokers (which forward
// them to the active controller), or, with Controllers, the KRaft
// controllers' own listeners (Apache's --bootstrap-controller), where the
// active controller is found with DescribeCluster and asked directly.
type Target struct {
	Client      *kgo.Client
	Controllers bool
	// Dial returns a client seeded with addr (the active controller); the
	// caller closes it.
	Dial func(addr string) (*kgo.Client, error)
}

// Member is one voter or observer of the quorum, as DescribeQuorum v2
// gives it (response order).
type Member struct {
	ID          int32  `json:"id"`
	DirectoryID string `json:"directory_id"`
	// Endpoints are the voter's listeners (NAME://host:port); empty for
	// observers and before DescribeQuorum v2.
	Endpoints    []string `json:"endpoints"`
	LogEndOffset int64    `json:"log_end_offset"`
	// Lag is how many records the member is behind the leader's log end.
	Lag            int64  `json:"lag"`
	LastFetchMs    *int64 `json:"last_fetch_ms"`
	LastCaughtUpMs *int64 `json:"last_caught_up_ms"`
	// Status is Leader, Follower or Observer (kafka-metadata-quorum's).
	Status string `json:"status"`
}

// Info is kafka-metadata-quorum's view of the quorum.
type Info struct {
	ClusterID      string `json:"cluster_id"`
	LeaderID       int32  `json:"leader_id"`
	LeaderEpoch    int32  `json:"leader_epoch"`
	HighWatermark  int64  `json:"high_watermark"`
	MaxFollowerLag int64  `json:"max_follower_lag"`
	// MaxFollowerLagTimeMs is the leader's last caught-up time minus the
	// most lagging voter's (0 when the leader is that voter, -1 when a
	// time is unknown), as the Apache tool computes it.
	MaxFollowerLagTimeMs int64    `json:"max_follower_lag_time_ms"`
	Voters               []Member `json:"voters"`
	Observers            []Member `json:"observers"`
}

// QuorumError is an error the cluster answered with (its code and
// message), for the Java exception text a drop-in prints.
type QuorumError struct {
	Code    int16
	Message *string
}

func (e *QuorumError) Error() string {
	return javaerr.String(e.Code, e.Text())
}

// Text is the Java exception's message (getMessage()): the cluster's
// message, else the error code's default one.
func (e *QuorumError) Text() string {
	if e.Message != nil {
		return *e.Message
	}
	var ke *kerr.Error
	if errors.As(kerr.ErrorForCode(e.Code), &ke) {
		return ke.Description
	}
	return ""
}

func codeErr(code int16, msg *string) error {
	if code == 0 {
		return nil
	}
	return &QuorumError{Code: code, Message: msg}
}

// UUID is a Kafka Uuid's text (URL-safe base64, no padding).
func UUID(b [16]byte) string { return base64.RawURLEncoding.EncodeToString(b[:]) }

// ParseUUID is Uuid.fromString: the error text is Java's.
func ParseUUID(s string) ([16]byte, error) {
	var out [16]byte
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.URLEncoding.DecodeString(s)
	}
	if err != nil {
		return out, fmt.Errorf("Illegal base64 character in %q", s)
	}
	if len(b) != 16 {
		return out, fmt.Errorf("Input string `%s` decoded as %d bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID", s, len(b))
	}
	copy(out[:], b)
	return out, nil
}

// request sends req where the quorum's requests go.
func (t Target) request(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	if !t.Controllers {
		return t.Client.Request(ctx, req)
	}
	b, closeFn, err := t.activeController(ctx)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	return b.Request(ctx, req)
}

// describeCluster asks a seed for the cluster (the controllers with
// endpoint type 2 on a controller listener).
func (t Target) describeCluster(ctx context.Context) (*kmsg.DescribeClusterResponse, error) {
	req := kmsg.NewPtrDescribeClusterRequest()
	if t.Controllers {
		req.EndpointType = 2
		var lastErr error
		for _, b := range t.Client.SeedBrokers() {
			resp, err := req.RequestWith(ctx, b)
			if err == nil {
				return resp, codeErr(resp.ErrorCode, resp.ErrorMessage)
			}
			lastErr = err
		}
		if lastErr == nil {
			lastErr = errors.New("no controller to ask")
		}
		return nil, lastErr
	}
	resp, err := req.RequestWith(ctx, t.Client)
	if err != nil {
		return nil, err
	}
	return resp, codeErr(resp.ErrorCode, resp.ErrorMessage)
}

// activeController finds the active controller and a handle on it.
func (t Target) activeController(ctx context.Context) (*kgo.Broker, func(), error) {
	dc, err := t.describeCluster(ctx)
	if err != nil {
		return nil, nil, err
	}
	var addr string
	for _, b := range dc.Brokers {
		if b.NodeID == dc.ControllerID {
			addr = net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
		}
	}
	if addr == "" {
		return nil, nil, fmt.Errorf("no active controller (DescribeCluster named %d)", dc.ControllerID)
	}
	if t.Dial == nil {
		return nil, nil, fmt.Errorf("the active controller %s is not among the bootstrap controllers", addr)
	}
	cl, err := t.Dial(addr)
	if err != nil {
		return nil, nil, err
	}
	seeds := cl.SeedBrokers()
	if len(seeds) == 0 {
		cl.Close()
		return nil, nil, fmt.Errorf("no client for %s", addr)
	}
	return seeds[0], cl.Close, nil
}

// DescribeInfo asks for the cluster id (status only) and the quorum.
func DescribeInfo(ctx context.Context, t Target, withClusterID bool) (*Info, error) {
	info := &Info{}
	if withClusterID {
		dc, err := t.describeCluster(ctx)
		if err != nil {
			return nil, err
		}
		info.ClusterID = dc.ClusterID
	}
	req := kmsg.NewPtrDescribeQuorumRequest()
	rt := kmsg.NewDescribeQuorumRequestTopic()
	rt.Topic = MetadataTopic
	rt.Partitions = append(rt.Partitions, kmsg.NewDescribeQuorumRequestTopicPartition())
	req.Topics = append(req.Topics, rt)
	kresp, err := t.request(ctx, req)
	if err != nil {
		return nil, err
	}
	resp := kresp.(*kmsg.DescribeQuorumResponse)
	if err := codeErr(resp.ErrorCode, resp.ErrorMessage); err != nil {
		return nil, err
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return nil, errors.New("DescribeQuorum: no partition of " + MetadataTopic + " in the answer")
	}
	p := resp.Topics[0].Partitions[0]
	if err := codeErr(p.ErrorCode, p.ErrorMessage); err != nil {
		return nil, err
	}
	fillInfo(info, resp, p)
	return info, nil
}

func fillInfo(info *Info, resp *kmsg.DescribeQuorumResponse, p kmsg.DescribeQuorumResponseTopicPartition) {
	endpoints := map[int32][]string{}
	for _, n := range resp.Nodes {
		var eps []string
		for _, l := range n.Listeners {
			eps = append(eps, l.Name+"://"+net.JoinHostPort(l.Host, strconv.Itoa(int(l.Port))))
		}
		endpoints[n.NodeID] = eps
	}
	info.LeaderID, info.LeaderEpoch, info.HighWatermark = p.LeaderID, p.LeaderEpoch, p.HighWatermark
	var leader *kmsg.DescribeQuorumResponseTopicPartitionReplicaState
	for i := range p.CurrentVoters {
		if p.CurrentVoters[i].ReplicaID == p.LeaderID {
			leader = &p.CurrentVoters[i]
		}
	}
	var leaderEnd int64
	if leader != nil {
		leaderEnd = leader.LogEndOffset
	}
	member := func(r kmsg.DescribeQuorumResponseTopicPartitionReplicaState, status string) Member {
		eps := endpoints[r.ReplicaID]
		if eps == nil {
			eps = []string{}
		}
		return Member{ID: r.ReplicaID, DirectoryID: UUID(r.ReplicaDirectoryID), Endpoints: eps,
			LogEndOffset: r.LogEndOffset, Lag: leaderEnd - r.LogEndOffset,
			LastFetchMs: ms(r.LastFetchTimestamp), LastCaughtUpMs: ms(r.LastCaughtUpTimestamp), Status: status}
	}
	info.Voters, info.Observers = []Member{}, []Member{}
	for _, v := range p.CurrentVoters {
		status := "Follower"
		if v.ReplicaID == p.LeaderID {
			status = "Leader"
		}
		info.Voters = append(info.Voters, member(v, status))
	}
	for _, o := range p.Observers {
		info.Observers = append(info.Observers, member(o, "Observer"))
	}
	if leader == nil || len(p.CurrentVoters) == 0 {
		info.MaxFollowerLagTimeMs = -1
		return
	}
	// The voter with the smallest log end offset (the first of them).
	lagging := &p.CurrentVoters[0]
	for i := range p.CurrentVoters {
		if p.CurrentVoters[i].LogEndOffset < lagging.LogEndOffset {
			lagging = &p.CurrentVoters[i]
		}
	}
	info.MaxFollowerLag = leader.LogEndOffset - lagging.LogEndOffset
	switch {
	case lagging.ReplicaID == leader.ReplicaID:
		info.MaxFollowerLagTimeMs = 0
	case leader.LastCaughtUpTimestamp >= 0 && lagging.LastCaughtUpTimestamp >= 0:
		info.MaxFollowerLagTimeMs = leader.LastCaughtUpTimestamp - lagging.LastCaughtUpTimestamp
	default:
		info.MaxFollowerLagTimeMs = -1
	}
}

// Voter is a controller to add to the voters.
type Voter struct {
	ID          int32
	DirectoryID [16]byte
	Endpoints   []Endpoint
}

// Endpoint is one listener of a controller.
type Endpoint struct {
	Name string
	Host string
	Port int
}

func (e Endpoint) String() string {
	return e.Name + "://" + net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
}

// AddVoter adds a controller to the KRaft voters (AddRaftVoter).
func AddVoter(ctx context.Context, t Target, v Voter) error {
	req := kmsg.NewPtrAddRaftVoterRequest()
	req.TimeoutMillis = 60000
	req.VoterID, req.VoterDirectoryID = v.ID, v.DirectoryID
	for _, e := range v.Endpoints {
		l := kmsg.NewAddRaftVoterRequestListener()
		l.Name, l.Host, l.Port = e.Name, e.Host, uint16(e.Port)
		req.Listeners = append(req.Listeners, l)
	}
	kresp, err := t.request(ctx, req)
	if err != nil {
		return err
	}
	resp := kresp.(*kmsg.AddRaftVoterResponse)
	return codeErr(resp.ErrorCode, resp.ErrorMessage)
}

// UnregisterController removes controller id's registration from the
// cluster's metadata (UnregisterController).
func UnregisterController(ctx context.Context, t Target, id int32) error {
	req := kmsg.NewPtrUnregisterControllerRequest()
	req.ControllerID = id
	kresp, err := t.request(ctx, req)
	if err != nil {
		return err
	}
	resp := kresp.(*kmsg.UnregisterControllerResponse)
	return codeErr(resp.ErrorCode, resp.ErrorMessage)
}

// RemoveVoter removes a controller from the KRaft voters (RemoveRaftVoter).
func RemoveVoter(ctx context.Context, t Target, id int32, dir [16]byte) error {
	req := kmsg.NewPtrRemoveRaftVoterRequest()
	req.VoterID, req.VoterDirectoryID = id, dir
	kresp, err := t.request(ctx, req)
	if err != nil {
		return err
	}
	resp := kresp.(*kmsg.RemoveRaftVoterResponse)
	return codeErr(resp.ErrorCode, resp.ErrorMessage)
}

// Request sends req where the quorum's requests go: through the brokers,
// or over the controllers to the active one.
func (t Target) Request(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	return t.request(ctx, req)
}

// Nodes are the nodes the target lists (DescribeCluster): the brokers,
// or over the controllers the controllers, by id, as host:port.
func (t Target) Nodes(ctx context.Context) (map[int32]string, error) {
	dc, err := t.describeCluster(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[int32]string, len(dc.Brokers))
	for _, b := range dc.Brokers {
		out[b.NodeID] = net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
	}
	return out, nil
}
