package sweep

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ClientFunc builds an unconnected client for role from a connection (the
// command layer's, which adds its client log and warns once of ignored
// properties; kafka.NewClient in tests).
type ClientFunc func(conn *config.Connection, role kafka.Role, o kafka.Options) (*kafka.Client, error)

// KafkaEnv is the Env of a sweep against a cluster: every run's clients
// are built from the user's connection, the sweep's fixed properties and
// then the cell's.
type KafkaEnv struct {
	conn      *config.Connection
	newClient ClientFunc
	warn      func(msg string)
	admin     *kafka.Client
	seq       int
	warned    map[string]bool
	ready     *kafka.Client // producer with a manual partitioner (readiness writes)
	// fixed are client properties the sweep sets for every run (a
	// preset's), under the user's and the cell's.
	fixed map[string]string
}

var _ Env = (*KafkaEnv)(nil)

// NewKafkaEnv connects the sweep's admin client. warn receives each
// ignored client property of the runs' clients once (those the role does
// not use are left out).
func NewKafkaEnv(ctx context.Context, conn *config.Connection, newClient ClientFunc, warn func(msg string)) (*KafkaEnv, error) {
	adm, err := newClient(conn, kafka.Admin, kafka.Options{})
	if err != nil {
		return nil, err
	}
	if err := adm.Connect(ctx); err != nil {
		adm.Close()
		return nil, err
	}
	return &KafkaEnv{conn: conn, newClient: newClient, warn: warn, admin: adm, warned: map[string]bool{}, fixed: map[string]string{}}, nil
}

// Close closes the clients the environment keeps.
func (e *KafkaEnv) Close() {
	if e.ready != nil {
		e.ready.Close()
	}
	e.admin.Close()
}

// Fix sets a preset's client properties (acks=1) for every run's clients,
// under the user's (a property the user gave keeps its value) and the
// cell's, and returns the properties in effect: the user's and the fixed.
func (e *KafkaEnv) Fix(preset map[string]string) *config.Properties {
	props := config.NewProperties()
	if e.conn.Props != nil {
		props = e.conn.Props.Clone()
	}
	for k, v := range preset {
		if _, given := props.Get(k); !given {
			e.fixed[k] = v
		}
	}
	for k, v := range e.fixed {
		props.Set(k, v)
	}
	return props
}

// Redacted lists properties as sorted "name=value" with secret values
// hidden (a plan's Properties).
func Redacted(p *config.Properties) []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, k := range p.Keys() {
		v, _ := p.Get(k)
		if config.IsSecretKey(k) {
			v = "[hidden]"
		}
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// cellConn is the user's connection with the sweep's fixed properties and
// then the cell's over its client properties.
func (e *KafkaEnv) cellConn(props map[string]string) config.Connection {
	c := *e.conn
	c.Props = config.NewProperties()
	if e.conn.Props != nil {
		c.Props = e.conn.Props.Clone()
	}
	for k, v := range e.fixed {
		c.Props.Set(k, v)
	}
	for k, v := range props {
		c.Props.Set(k, v)
	}
	return c
}

// Clients builds n connected clients for role (see Env).
func (e *KafkaEnv) Clients(ctx context.Context, role kafka.Role, n int, props map[string]string, w Workload, topic string) ([]*kgo.Client, []string, int, error) {
	c := e.cellConn(props)
	defaults := config.NewProperties()
	opts := kafka.Options{Defaults: defaults}
	if role == kafka.Producer {
		defaults.Set("client.id", "kbox-perf-sweep-producer")
		opts.Tune = func(s *kafka.Settings) { s.MaxRecordBytes = w.RecordSize }
	} else {
		e.seq++
		defaults.Set("client.id", "kbox-perf-sweep-consumer")
		c.Props.Set("group.id", fmt.Sprintf("kbox-perf-sweep-%d-%d", time.Now().UnixNano(), e.seq))
		c.Props.Set("auto.offset.reset", "earliest")
	}
	var cls []*kgo.Client
	var settings []string
	maxPoll := 0
	for i := 0; i < n; i++ {
		o := opts
		if role == kafka.Consumer {
			o.Extra = []kgo.Opt{kgo.ConsumeTopics(topic)}
		}
		cl, err := e.newClient(&c, role, o)
		if err == nil {
			err = cl.Connect(ctx)
			if err != nil {
				cl.Close()
			}
		}
		if err != nil {
			for _, x := range cls {
				x.Close()
			}
			return nil, nil, 0, err
		}
		for _, ig := range cl.Settings.Ignored {
			if !e.warned[ig.String()] && !strings.HasPrefix(ig.Reason, "not used by") {
				e.warned[ig.String()] = true
				e.warn(ig.String())
			}
		}
		cls = append(cls, cl.Client)
		settings = cl.Settings.EffectiveSorted()
		maxPoll = cl.Settings.MaxPollRecords
	}
	return cls, settings, maxPoll, nil
}

// CreateTopic creates a topic; created is false when it existed.
func (e *KafkaEnv) CreateTopic(ctx context.Context, name string, partitions, rf int) (bool, error) {
	resp, err := e.admin.Admin().CreateTopic(ctx, int32(partitions), int16(rf), nil, name)
	if err == nil {
		err = resp.Err
	}
	if errors.Is(err, kerr.TopicAlreadyExists) {
		return false, nil
	}
	if err != nil {
		return false, e.admin.Explain(err)
	}
	return true, nil
}

// DeleteTopics deletes topics; one that is gone already is no error.
func (e *KafkaEnv) DeleteTopics(ctx context.Context, names ...string) error {
	resps, err := e.admin.Admin().DeleteTopics(ctx, names...)
	if err != nil {
		return e.admin.Explain(err)
	}
	var errs []string
	for _, r := range resps.Sorted() {
		if r.Err != nil && !errors.Is(r.Err, kerr.UnknownTopicOrPartition) {
			errs = append(errs, r.Topic+": "+r.Err.Error())
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// E2EClients builds an e2e run's clients as kbox perf e2e does (linger.ms=0
// unless the cell sets it, a group-less consumer with a 10 ms fetch wait),
// with the cell's properties over the user's.
func (e *KafkaEnv) E2EClients(ctx context.Context, props map[string]string, w Workload) (*kgo.Client, *kgo.Client, *kadm.Client, []string, error) {
	pc := e.cellConn(props)
	defaults := config.NewProperties()
	defaults.Set("client.id", "kbox-perf-sweep-e2e")
	defaults.Set("linger.ms", "0")
	prod, err := e.newClient(&pc, kafka.Producer, kafka.Options{Defaults: defaults, Tune: func(s *kafka.Settings) { s.MaxRecordBytes = w.RecordSize }})
	if err == nil {
		if err = prod.Connect(ctx); err != nil {
			prod.Close()
		}
	}
	if err != nil {
		return nil, nil, nil, nil, err
	}
	cons, err := e.newClient(e.conn, kafka.Consumer, kafka.Options{Tune: func(s *kafka.Settings) {
		s.FetchMaxWait = 10 * time.Millisecond
		s.GroupID = ""
	}})
	if err != nil {
		prod.Close()
		return nil, nil, nil, nil, err
	}
	return prod.Client, cons.Client, prod.Admin(), prod.Settings.EffectiveSorted(), nil
}

// Ready waits for a created topic's leaders and writes one record to
// every partition (see perf.WaitTopicReady).
func (e *KafkaEnv) Ready(ctx context.Context, topic string, partitions int) error {
	if e.ready == nil {
		cl, err := e.newClient(e.conn, kafka.Producer, kafka.Options{Extra: []kgo.Opt{kgo.RecordPartitioner(kgo.ManualPartitioner())}})
		if err != nil {
			return err
		}
		e.ready = cl
	}
	err := perf.WaitTopicReady(ctx, e.admin.Admin(), e.ready.Client, topic, partitions, 30*time.Second)
	if err != nil {
		return e.admin.Explain(err)
	}
	return nil
}

// Brokers counts the cluster's brokers.
func (e *KafkaEnv) Brokers(ctx context.Context) (int, error) {
	md, err := e.admin.Admin().BrokerMetadata(ctx)
	if err != nil {
		return 0, e.admin.Explain(err)
	}
	return len(md.Brokers), nil
}
