// Package topics implements kafka-topics: listing, describing, creating,
// altering and deleting topics with the exact semantics of Apache's
// TopicCommand. It never prints; results know how to render themselves.
package topics

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Service runs topic operations against a cluster. Every read goes to the
// brokers with a raw request, so results never come from kgo's metadata
// cache (the health filters need fresh leaders and ISRs).
type Service struct {
	Client    *kgo.Client
	Admin     *kadm.Client
	TimeoutMs int32
}

func (s *Service) timeout() int32 {
	if s.TimeoutMs > 0 {
		return s.TimeoutMs
	}
	return 30000
}

// Cluster is a fresh metadata snapshot.
type Cluster struct {
	Brokers []Broker
	Live    map[int32]bool
	Topics  map[string]kmsg.MetadataResponseTopic
}

// Names returns all topic names, including internal ones.
func (c *Cluster) Names() []string {
	out := make([]string, 0, len(c.Topics))
	for n := range c.Topics {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Metadata fetches all topics and the live brokers.
func (s *Service) Metadata(ctx context.Context) (*Cluster, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = nil // all topics
	return s.metadata(ctx, req)
}

// metadata sends one Metadata request; topics with an error (unknown
// ones) are left out.
func (s *Service) metadata(ctx context.Context, req *kmsg.MetadataRequest) (*Cluster, error) {
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Live: map[int32]bool{}, Topics: map[string]kmsg.MetadataResponseTopic{}}
	for _, b := range resp.Brokers {
		c.Brokers = append(c.Brokers, Broker{ID: b.NodeID, Rack: b.Rack})
		c.Live[b.NodeID] = true
	}
	for _, t := range resp.Topics {
		if t.Topic == nil {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			continue
		}
		c.Topics[*t.Topic] = t
	}
	return c, nil
}

// ListTopics returns the sorted topic names matching the optional --topic
// regex, as TopicCommand.getTopics does.
func (s *Service) ListTopics(ctx context.Context, topic *string, excludeInternal bool) ([]string, *Cluster, error) {
	c, err := s.Metadata(ctx)
	if err != nil {
		return nil, nil, err
	}
	var all []string
	for n, t := range c.Topics {
		if excludeInternal && t.IsInternal {
			continue
		}
		all = append(all, n)
	}
	names, err := Select(all, topic, excludeInternal)
	return names, c, err
}

// TopicIDString renders a topic id like Java's Uuid.toString.
func TopicIDString(id [16]byte) string {
	return base64.RawURLEncoding.EncodeToString(id[:])
}

// ParseTopicID parses a Java Uuid string with Java's error text.
func ParseTopicID(s string) ([16]byte, error) {
	var id [16]byte
	if len(s) > 24 {
		return id, fmt.Errorf("Input string with prefix `%s` is too long to be decoded as a base64 UUID", s[:24])
	}
	// Java decodes with Base64.getUrlDecoder(), whose own messages escape.
	for _, c := range []byte(s) {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '=') {
			return id, fmt.Errorf("Illegal base64 character %s", strconv.FormatInt(int64(int8(c)), 16))
		}
	}
	trimmed := strings.TrimRight(s, "=")
	if len(trimmed)%4 == 1 {
		return id, fmt.Errorf("Last unit does not have enough valid bits")
	}
	b, err := base64.RawURLEncoding.DecodeString(trimmed)
	if err != nil {
		return id, fmt.Errorf("Input string `%s` cannot be decoded as a base64 UUID", s)
	}
	if len(b) != 16 {
		return id, fmt.Errorf("Input string `%s` decoded as %d bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID", s, len(b))
	}
	copy(id[:], b)
	return id, nil
}

// BrokerError turns a response error code and message into the message
// Apache's admin client would surface.
func BrokerError(code int16, msg *string) error {
	err := kerr.ErrorForCode(code)
	if err == nil {
		return nil
	}
	if msg != nil && *msg != "" {
		return &KafkaError{Err: err, Msg: *msg}
	}
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return &KafkaError{Err: err, Msg: ke.Description}
	}
	return err
}

// KafkaError is a broker error with the message Kafka reported.
type KafkaError struct {
	Err error
	Msg string
}

func (e *KafkaError) Error() string { return e.Msg }
func (e *KafkaError) Unwrap() error { return e.Err }

// CreateRequest is one topic to create.
type CreateRequest struct {
	Name              string
	Partitions        int32 // -1: broker default
	ReplicationFactor int16 // -1: broker default
	Assignment        [][]int32
	Configs           map[string]string
	ValidateOnly      bool
}

// CreateResult is the outcome of a create.
type CreateResult struct {
	Name              string `json:"name"`
	ID                string `json:"id,omitempty"`
	Partitions        int32  `json:"partitions"`
	ReplicationFactor int16  `json:"replication_factor"`
	DryRun            bool   `json:"dry_run"`
}

// Create creates one topic with a raw CreateTopics request (kadm has no
// replica-assignment parameter).
func (s *Service) Create(ctx context.Context, r CreateRequest) (*CreateResult, error) {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = s.timeout()
	req.ValidateOnly = r.ValidateOnly
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic = r.Name
	t.NumPartitions = r.Partitions
	t.ReplicationFactor = r.ReplicationFactor
	if len(r.Assignment) > 0 {
		t.NumPartitions, t.ReplicationFactor = -1, -1
		for i, reps := range r.Assignment {
			a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
			a.Partition = int32(i)
			a.Replicas = reps
			t.ReplicaAssignment = append(t.ReplicaAssignment, a)
		}
	}
	keys := make([]string, 0, len(r.Configs))
	for k := range r.Configs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name = k
		v := r.Configs[k]
		c.Value = &v
		t.Configs = append(t.Configs, c)
	}
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil {
		return nil, err
	}
	if len(resp.Topics) != 1 {
		return nil, fmt.Errorf("unexpected CreateTopics response with %d topics", len(resp.Topics))
	}
	rt := resp.Topics[0]
	if err := BrokerError(rt.ErrorCode, rt.ErrorMessage); err != nil {
		return nil, err
	}
	res := &CreateResult{Name: rt.Topic, Partitions: rt.NumPartitions, ReplicationFactor: rt.ReplicationFactor, DryRun: r.ValidateOnly}
	if rt.TopicID != ([16]byte{}) {
		res.ID = TopicIDString(rt.TopicID)
	}
	return res, nil
}

// AlterRequest increases the partition count of topics.
type AlterRequest struct {
	Topics     []string
	Count      int32
	Assignment [][]int32 // the full assignment; entries of existing partitions are skipped
	// NewAssignments are per-topic assignments of the new partitions only
	// (used when Assignment is empty, e.g. computed client-side).
	NewAssignments map[string][][]int32
	ValidateOnly   bool
}

// AlterResult is the outcome of an alter, per topic.
type AlterResult struct {
	Topic         string    `json:"topic"`
	OldPartitions int       `json:"old_partitions"`
	NewPartitions int32     `json:"new_partitions"`
	Assignment    [][]int32 `json:"assignment,omitempty"`
	DryRun        bool      `json:"dry_run"`
}

// newAssignmentOrder returns the entries of assignment from index skip on,
// in the order Java's Collectors.toMap(HashMap) over the partition ids
// yields them.
func newAssignmentOrder(assignment [][]int32, skip int) [][]int32 {
	if skip >= len(assignment) {
		return [][]int32{}
	}
	ids := make([]int32, 0, len(assignment)-skip)
	for i := skip; i < len(assignment); i++ {
		ids = append(ids, int32(i))
	}
	out := make([][]int32, 0, len(ids))
	for _, id := range javafmt.IntSetOrder(ids, -1) {
		out = append(out, assignment[id])
	}
	return out
}

// Alter sends one CreatePartitions request for all topics. current gives
// each topic's partition count.
func (s *Service) Alter(ctx context.Context, r AlterRequest, current map[string]int) ([]AlterResult, error) {
	req := kmsg.NewPtrCreatePartitionsRequest()
	req.TimeoutMillis = s.timeout()
	req.ValidateOnly = r.ValidateOnly
	var results []AlterResult
	for _, name := range r.Topics {
		t := kmsg.NewCreatePartitionsRequestTopic()
		t.Topic = name
		t.Count = r.Count
		res := AlterResult{Topic: name, OldPartitions: current[name], NewPartitions: r.Count, DryRun: r.ValidateOnly}
		newParts := r.NewAssignments[name]
		if len(r.Assignment) > 0 {
			newParts = newAssignmentOrder(r.Assignment, current[name])
		}
		if len(r.Assignment) > 0 || len(newParts) > 0 {
			t.Assignment = []kmsg.CreatePartitionsRequestTopicAssignment{}
			for _, reps := range newParts {
				a := kmsg.NewCreatePartitionsRequestTopicAssignment()
				a.Replicas = reps
				t.Assignment = append(t.Assignment, a)
				res.Assignment = append(res.Assignment, reps)
			}
		}
		req.Topics = append(req.Topics, t)
		results = append(results, res)
	}
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil {
		return nil, err
	}
	errs := map[string]error{}
	for _, t := range resp.Topics {
		if err := BrokerError(t.ErrorCode, t.ErrorMessage); err != nil {
			errs[t.Topic] = err
		}
	}
	for _, name := range r.Topics {
		if err := errs[name]; err != nil {
			return nil, err
		}
	}
	return results, nil
}

// Delete deletes topics by name.
func (s *Service) Delete(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TimeoutMillis = s.timeout()
	for _, n := range names {
		n := n
		t := kmsg.NewDeleteTopicsRequestTopic()
		t.Topic = &n
		req.Topics = append(req.Topics, t)
		req.TopicNames = append(req.TopicNames, n)
	}
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil {
		return err
	}
	errs := map[string]error{}
	for _, t := range resp.Topics {
		if t.Topic == nil {
			continue
		}
		if err := BrokerError(t.ErrorCode, t.ErrorMessage); err != nil {
			errs[*t.Topic] = err
		}
	}
	for _, n := range names {
		if err := errs[n]; err != nil {
			return err
		}
	}
	return nil
}

// BrokerDefaults reads num.partitions and default.replication.factor from a
// live broker, for client-side assignment without explicit values.
func (s *Service) BrokerDefaults(ctx context.Context, broker int32) (partitions, rf int, err error) {
	rcs, err := s.Admin.DescribeBrokerConfigs(ctx, broker)
	if err != nil {
		return 0, 0, err
	}
	partitions, rf = 1, 1
	for _, rc := range rcs {
		for _, c := range rc.Configs {
			if c.Value == nil {
				continue
			}
			var n int
			if _, e := fmt.Sscan(*c.Value, &n); e != nil {
				continue
			}
			switch c.Key {
			case "num.partitions":
				partitions = n
			case "default.replication.factor":
				rf = n
			}
		}
	}
	return partitions, rf, nil
}

// rawConfig is one DescribeConfigs entry, in broker response order.
type rawConfig struct {
	Name      string
	Value     *string
	Source    kmsg.ConfigSource
	Sensitive bool
}

// describeTopicConfigs is DescribeConfigs for topics without synonyms (as
// Apache's admin client asks; kadm always requests synonyms, which makes
// the response several times larger).
func (s *Service) describeTopicConfigs(ctx context.Context, names []string) (map[string][]rawConfig, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	for _, n := range names {
		r := kmsg.NewDescribeConfigsRequestResource()
		r.ResourceType = kmsg.ConfigResourceTypeTopic
		r.ResourceName = n
		req.Resources = append(req.Resources, r)
	}
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]rawConfig, len(names))
	for _, r := range resp.Resources {
		if err := BrokerError(r.ErrorCode, r.ErrorMessage); err != nil {
			return nil, err
		}
		cs := make([]rawConfig, 0, len(r.Configs))
		for _, c := range r.Configs {
			cs = append(cs, rawConfig{Name: c.Name, Value: c.Value, Source: c.Source, Sensitive: c.IsSensitive})
		}
		out[r.ResourceName] = cs
	}
	return out, nil
}
