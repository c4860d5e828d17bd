// Package configs describes and alters the dynamic configuration of a
// Kafka cluster: resource configs (topics, brokers and the cluster default,
// broker loggers, client-metrics subscriptions, groups), client quotas
// (users, clients, IPs) and SCRAM credentials. It does what Apache's
// kafka-configs (ConfigCommand of Kafka 4.4) asks of the cluster, with no
// printing; cmd/configs prints.
package configs

import (
	"context"
	"fmt"
	"sort"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Resource types (DescribeConfigs' ResourceType).
const (
	Topic         = kmsg.ConfigResourceTypeTopic
	Broker        = kmsg.ConfigResourceTypeBroker
	BrokerLogger  = kmsg.ConfigResourceTypeBrokerLogger
	ClientMetrics = kmsg.ConfigResourceTypeClientMetrics
	Group         = kmsg.ConfigResourceTypeGroupConfig
)

// Resource is one config resource: a type and a name ("" is the cluster
// default of brokers).
type Resource struct {
	Type kmsg.ConfigResourceType
	Name string
}

// Synonym is one source a config's value may come from, most specific
// first.
type Synonym struct {
	Name   string  `json:"name"`
	Value  *string `json:"value"`
	Source string  `json:"source"`
}

// Entry is one config of a resource as the broker describes it. Value is
// nil for a sensitive config (the broker never returns it) or an unset one.
type Entry struct {
	Name          string    `json:"name"`
	Value         *string   `json:"value"`
	Source        string    `json:"source"`
	Sensitive     bool      `json:"sensitive"`
	ReadOnly      bool      `json:"read_only"`
	Type          string    `json:"type,omitempty"`
	Documentation *string   `json:"documentation,omitempty"`
	Synonyms      []Synonym `json:"synonyms,omitempty"`

	// def is the entry's default (DescribeDefaults), hasDef whether the
	// broker told it.
	def    *string
	hasDef bool
}

// IsDynamic says whether the entry's value was set dynamically on the
// resource itself (the overrides Apache's --describe lists without --all).
func (e Entry) IsDynamic(r Resource) bool {
	return e.Source == DynamicSource(r)
}

// DynamicSource is the source of a resource's own dynamic configs, as
// ConfigCommand filters them; "" for broker loggers (every logger is listed).
func DynamicSource(r Resource) string {
	switch r.Type {
	case Topic:
		return "DYNAMIC_TOPIC_CONFIG"
	case Broker:
		if r.Name == "" {
			return "DYNAMIC_DEFAULT_BROKER_CONFIG"
		}
		return "DYNAMIC_BROKER_CONFIG"
	case ClientMetrics:
		return "DYNAMIC_CLIENT_METRICS_CONFIG"
	case Group:
		return "DYNAMIC_GROUP_CONFIG"
	}
	return ""
}

// SourceName is Java's ConfigEntry.ConfigSource name for a wire source.
func SourceName(s kmsg.ConfigSource) string {
	switch s {
	case kmsg.ConfigSourceDynamicTopicConfig:
		return "DYNAMIC_TOPIC_CONFIG"
	case kmsg.ConfigSourceDynamicBrokerConfig:
		return "DYNAMIC_BROKER_CONFIG"
	case kmsg.ConfigSourceDynamicDefaultBrokerConfig:
		return "DYNAMIC_DEFAULT_BROKER_CONFIG"
	case kmsg.ConfigSourceStaticBrokerConfig:
		return "STATIC_BROKER_CONFIG"
	case kmsg.ConfigSourceDefaultConfig:
		return "DEFAULT_CONFIG"
	case kmsg.ConfigSourceDynamicBrokerLoggerConfig:
		return "DYNAMIC_BROKER_LOGGER_CONFIG"
	case kmsg.ConfigSourceClientMetricsConfig:
		return "DYNAMIC_CLIENT_METRICS_CONFIG"
	case kmsg.ConfigSourceGroupConfig:
		return "DYNAMIC_GROUP_CONFIG"
	}
	return "UNKNOWN"
}

// typeName is Java's ConfigEntry.ConfigType name.
func typeName(t kmsg.ConfigType) string {
	switch t {
	case kmsg.ConfigTypeBoolean:
		return "BOOLEAN"
	case kmsg.ConfigTypeString:
		return "STRING"
	case kmsg.ConfigTypeInt:
		return "INT"
	case kmsg.ConfigTypeShort:
		return "SHORT"
	case kmsg.ConfigTypeLong:
		return "LONG"
	case kmsg.ConfigTypeDouble:
		return "DOUBLE"
	case kmsg.ConfigTypeList:
		return "LIST"
	case kmsg.ConfigTypeClass:
		return "CLASS"
	case kmsg.ConfigTypePassword:
		return "PASSWORD"
	}
	return "UNKNOWN"
}

// Service runs config requests on one client.
type Service struct {
	Client *kgo.Client
	// Admin is an admin client over Client (kafka.Client.Admin); one is
	// made when it is nil.
	Admin *kadm.Client
	// TimeoutMs is the request timeout put in the requests that carry one.
	TimeoutMs int32
}

// Error is a resource- or entity-level error the broker returned, with its
// message when the broker sent one.
type Error struct {
	Err     error
	Message string
}

func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

func codeErr(code int16, msg *string) error {
	err := kerr.ErrorForCode(code)
	if err == nil {
		return nil
	}
	e := &Error{Err: err}
	if msg != nil {
		e.Message = *msg
	}
	return e
}

// Describe returns every config of r, sorted by name, with synonyms and,
// when docs is set, each config's documentation.
func (s *Service) Describe(ctx context.Context, r Resource, docs bool) ([]Entry, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	req.IncludeSynonyms = true
	req.IncludeDocumentation = docs
	rr := kmsg.NewDescribeConfigsRequestResource()
	rr.ResourceType = r.Type
	rr.ResourceName = r.Name
	req.Resources = append(req.Resources, rr)
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil {
		return nil, err
	}
	if len(resp.Resources) != 1 {
		return nil, fmt.Errorf("DescribeConfigs returned %d resources for 1", len(resp.Resources))
	}
	res := resp.Resources[0]
	if err := codeErr(res.ErrorCode, res.ErrorMessage); err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(res.Configs))
	for _, c := range res.Configs {
		e := Entry{Name: c.Name, Value: c.Value, Source: SourceName(c.Source), Sensitive: c.IsSensitive,
			ReadOnly: c.ReadOnly, Type: typeName(c.ConfigType), Documentation: c.Documentation}
		if e.Sensitive {
			e.Value = nil
		}
		for _, syn := range c.ConfigSynonyms {
			sv := syn.Value
			if e.Sensitive {
				sv = nil
			}
			e.Synonyms = append(e.Synonyms, Synonym{Name: syn.Name, Value: sv, Source: SourceName(syn.Source)})
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// OpType is an incremental alteration.
type OpType int8

const (
	Set    OpType = OpType(kmsg.IncrementalAlterConfigOpSet)
	Delete OpType = OpType(kmsg.IncrementalAlterConfigOpDelete)
)

// Op is one incremental alteration of a config.
type Op struct {
	Name  string
	Value string // Set only
	Op    OpType
}

// Alter applies ops to r in one IncrementalAlterConfigs request; with
// validateOnly the broker checks them and changes nothing.
func (s *Service) Alter(ctx context.Context, r Resource, ops []Op, validateOnly bool) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	req.ValidateOnly = validateOnly
	rr := kmsg.NewIncrementalAlterConfigsRequestResource()
	rr.ResourceType = r.Type
	rr.ResourceName = r.Name
	for _, o := range ops {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name = o.Name
		c.Op = kmsg.IncrementalAlterConfigOp(o.Op)
		if o.Op == Set {
			v := o.Value
			c.Value = &v
		}
		rr.Configs = append(rr.Configs, c)
	}
	req.Resources = append(req.Resources, rr)
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil {
		return err
	}
	for _, res := range resp.Resources {
		if err := codeErr(res.ErrorCode, res.ErrorMessage); err != nil {
			return err
		}
	}
	return nil
}

// ListTopics returns every topic name, internal ones included.
func (s *Service) ListTopics(ctx context.Context) ([]string, error) {
	req := kmsg.NewPtrMetadataRequest()
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range resp.Topics {
		if t.Topic != nil && t.ErrorCode == 0 {
			out = append(out, *t.Topic)
		}
	}
	return out, nil
}

// BrokerIDs returns the ids of the brokers in the cluster, in the order
// DescribeCluster lists them (Admin.describeCluster, as ConfigCommand asks).
func (s *Service) BrokerIDs(ctx context.Context) ([]int32, error) {
	req := kmsg.NewPtrDescribeClusterRequest()
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil {
		return nil, err
	}
	if err := codeErr(resp.ErrorCode, resp.ErrorMessage); err != nil {
		return nil, err
	}
	var out []int32
	for _, b := range resp.Brokers {
		out = append(out, b.NodeID)
	}
	return out, nil
}

// ListConfigResources lists the resources of one type that have configs
// (client-metrics subscriptions, groups). An unsupported request is
// reported as kerr.UnsupportedVersion.
func (s *Service) ListConfigResources(ctx context.Context, t kmsg.ConfigResourceType) ([]string, error) {
	req := kmsg.NewPtrListConfigResourcesRequest()
	req.ResourceTypes = []int8{int8(t)}
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil {
		return nil, err
	}
	if err := codeErr(resp.ErrorCode, nil); err != nil {
		return nil, err
	}
	var out []string
	for _, r := range resp.ConfigResources {
		out = append(out, r.Name)
	}
	return out, nil
}

// ListGroups returns every group id (all group types).
func (s *Service) ListGroups(ctx context.Context) ([]string, error) {
	req := kmsg.NewPtrListGroupsRequest()
	shards := s.Client.RequestSharded(ctx, req)
	var out []string
	for _, sh := range shards {
		if sh.Err != nil {
			return nil, sh.Err
		}
		resp := sh.Resp.(*kmsg.ListGroupsResponse)
		if err := codeErr(resp.ErrorCode, nil); err != nil {
			return nil, err
		}
		for _, g := range resp.Groups {
			out = append(out, g.Group)
		}
	}
	return out, nil
}
