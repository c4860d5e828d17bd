package topics

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"

	"github.com/kboxdev/kbox/pkg/configs"
	"github.com/kboxdev/kbox/pkg/logdirs"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Summary is a topic at a glance: its partitions' health, records and
// sizes (kbox ui's topic page header).
type Summary struct {
	Name                      string `json:"name"`
	ID                        string `json:"id"`
	Internal                  bool   `json:"internal"`
	PartitionCount            int    `json:"partition_count"`
	ReplicationFactor         int    `json:"replication_factor"`
	MinISR                    *int   `json:"min_insync_replicas"`
	UnderReplicatedPartitions int    `json:"under_replicated_partitions"`
	UnderMinISRPartitions     int    `json:"under_min_isr_partitions"`
	OfflinePartitions         int    `json:"offline_partitions"`
	// Records is the sum of high watermarks less log start offsets.
	Records int64 `json:"records"`
	// LogicalBytes sums the leader replicas' sizes; PhysicalBytes every
	// replica's.
	LogicalBytes  int64 `json:"logical_bytes"`
	PhysicalBytes int64 `json:"physical_bytes"`
}

// Page is one page of a topic's partitions, with the topic's summary
// (over every partition) and its configs with their sources.
type Page struct {
	Topic   Summary               `json:"topic"`
	Configs []configs.ConfigValue `json:"configs"`
	// ConfigsErr is why the configs could not be read (the page is
	// served without them).
	ConfigsErr error       `json:"-"`
	Offset     int         `json:"offset"`
	Limit      int         `json:"limit"`
	Total      int         `json:"total"`
	Partitions []Partition `json:"partitions"`
}

// PageRequest asks for one page of a topic's partitions.
type PageRequest struct {
	Topic         string
	Offset, Limit int
	// Problems keeps the unhealthy partitions only (under-replicated,
	// offline or under min.insync.replicas).
	Problems bool
	// Offsets returns the topic's offsets and Sizes the cluster's replica
	// sizes: kbox ui serves both from what it read at most one rate
	// interval ago, for every page and refresh. Nil reads them for this
	// page (ListOffsets of the topic; DescribeLogDirs of its partitions).
	Offsets func(ctx context.Context) (*Offsets, error)
	Sizes   func(ctx context.Context) (logdirs.Sizes, error)
}

// ErrNoTopic is Page's error for a topic that does not exist.
var ErrNoTopic = errors.New("topic does not exist")

// Page describes one topic for kbox ui's topic page with a fixed number of
// requests, whatever its partition count: one Metadata request naming
// the topic (leaders, replicas, ISRs: read for every page), its configs
// (pkg/configs Get: values, sources, defaults), the cluster's ongoing
// reassignments (one unfiltered ListPartitionReassignments), and the
// offsets and replica sizes req gives. Each partition is judged as
// kafka-topics --describe judges it (partitionHealth). The summary counts
// every partition; only the page's partitions are built with offsets and
// sizes. Metadata holds no ELR: the partitions' elr and last_known_elr
// are null, as for a describe by topic id.
func (s *Service) Page(ctx context.Context, req PageRequest) (*Page, error) {
	var (
		wg       sync.WaitGroup
		cfg      *configs.ConfigList
		cfgErr   error
		reassign map[int32]kadm.ListPartitionReassignmentsResponse
		offs     *Offsets
		offsErr  error
		sizes    logdirs.Sizes
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		cfg, cfgErr = configs.Get(ctx, &configs.Service{Client: s.Client}, configs.Resource{Type: configs.Topic, Name: req.Topic}, nil, true)
	}()
	go func() {
		defer wg.Done()
		reassign = s.ongoingReassignments(ctx, req.Topic)
	}()
	if req.Offsets != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			offs, offsErr = req.Offsets(ctx)
		}()
	}
	if req.Sizes != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sizes, _ = req.Sizes(ctx)
		}()
	}
	c, err := s.TopicMetadata(ctx, req.Topic)
	if err == nil {
		if _, ok := c.Topics[req.Topic]; !ok {
			err = ErrNoTopic
		}
	}
	if err == nil && (req.Offsets == nil || req.Sizes == nil) {
		s.readPageData(ctx, c, req, &offs, &offsErr, &sizes)
	}
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if offsErr != nil {
		return nil, offsErr
	}
	pg := &Page{Offset: req.Offset, Limit: req.Limit, Configs: []configs.ConfigValue{}}
	if cfgErr != nil {
		pg.ConfigsErr = cfgErr
	} else {
		pg.Configs = cfg.Configs
	}
	mt := c.Topics[req.Topic]
	sum := Summary{Name: req.Topic, Internal: mt.IsInternal, PartitionCount: len(mt.Partitions), MinISR: minISROf(pg.Configs)}
	if mt.TopicID != ([16]byte{}) {
		sum.ID = TopicIDString(mt.TopicID)
	}
	order := byPartition(mt.Partitions)
	// Every partition is judged and counted; only the page's are built.
	mps := mt.Partitions
	sum.Records = offs.Records(req.Topic)
	selected := make([]int, 0, len(mps))
	for n, i := range order {
		mp := &mps[i]
		var ra *kadm.ListPartitionReassignmentsResponse
		if r, ok := reassign[mp.Partition]; ok {
			ra = &r
		}
		h := judge(mp.Leader, mp.Replicas, mp.ISR, c.Live, sum.MinISR, ra)
		if n == 0 {
			sum.ReplicationFactor = h.rf
		}
		if h.underReplicated {
			sum.UnderReplicatedPartitions++
		}
		if h.underMinISR {
			sum.UnderMinISRPartitions++
		}
		if h.unavailable {
			sum.OfflinePartitions++
		}
		for _, r := range sizes.Of(req.Topic, mp.Partition) {
			sum.PhysicalBytes += r.Size
			if h.leader == r.Broker {
				sum.LogicalBytes += r.Size
			}
		}
		if !req.Problems || h.underReplicated || h.unavailable || h.underMinISR {
			selected = append(selected, i)
		}
	}
	pg.Topic = sum
	pg.Total = len(selected)
	lo := min(req.Offset, len(selected))
	hi := lo + min(req.Limit, len(selected)-lo) // Offset+Limit may overflow
	pg.Partitions = make([]Partition, 0, hi-lo)
	for _, i := range selected[lo:hi] {
		mp := &mps[i]
		var ra *kadm.ListPartitionReassignmentsResponse
		if r, ok := reassign[mp.Partition]; ok {
			ra = &r
		}
		p, _ := partitionHealth(mp.Partition, mp.Leader, mp.Replicas, mp.ISR, c.Live, sum.MinISR, ra)
		p.LogStartOffset, p.HighWatermark = offs.Of(req.Topic, p.Partition)
		p.ReplicaSizes = replicaSizes(sizes.Of(req.Topic, p.Partition))
		pg.Partitions = append(pg.Partitions, p)
	}
	return pg, nil
}

// byPartition is the indexes of ps in partition id order: by position
// when the ids are 0..n-1 (as Kafka numbers them), else sorted.
func byPartition(ps []kmsg.MetadataResponseTopicPartition) []int {
	order := make([]int, len(ps))
	for i := range order {
		order[i] = -1
	}
	dense := true
	for i, p := range ps {
		if p.Partition < 0 || int(p.Partition) >= len(ps) || order[p.Partition] >= 0 {
			dense = false
			break
		}
		order[p.Partition] = i
	}
	if !dense {
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ps[a].Partition, ps[b].Partition) })
	}
	return order
}

// readPageData reads what req does not give: the topic's offsets and its
// partitions' log dirs, concurrently.
func (s *Service) readPageData(ctx context.Context, c *Cluster, req PageRequest, offs **Offsets, offsErr *error, sizes *logdirs.Sizes) {
	var wg sync.WaitGroup
	if req.Offsets == nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			*offs, *offsErr = s.ListOffsets(ctx, []string{req.Topic})
		}()
	}
	if req.Sizes == nil {
		ids := make([]int32, 0, len(c.Topics[req.Topic].Partitions))
		for _, p := range c.Topics[req.Topic].Partitions {
			ids = append(ids, p.Partition)
		}
		in, err := logdirs.Read(ctx, s.Client, logdirs.ReadOptions{Brokers: c.BrokerIDs(), Query: logdirs.QueryOptions{Partitions: map[string][]int32{req.Topic: ids}}})
		if err == nil {
			*sizes = in.Query.Sizes(nil)
		}
	}
	wg.Wait()
}

// minISROf is min.insync.replicas among a topic's configs (nil: unknown).
func minISROf(cs []configs.ConfigValue) *int {
	for _, c := range cs {
		if c.Name == "min.insync.replicas" && c.Value != nil {
			if v, err := strconv.Atoi(*c.Value); err == nil {
				return &v
			}
		}
	}
	return nil
}

// ongoingReassignments are the topic's partitions being reassigned: one
// ListPartitionReassignments for the whole cluster (null topics: the
// ongoing ones only, whatever the partition count). An error (no
// authorization, an old broker) means none, as in Describe.
func (s *Service) ongoingReassignments(ctx context.Context, topic string) map[int32]kadm.ListPartitionReassignmentsResponse {
	req := kmsg.NewPtrListPartitionReassignmentsRequest()
	req.TimeoutMillis = s.timeout()
	req.Topics = nil // every ongoing reassignment
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil || kerr.ErrorForCode(resp.ErrorCode) != nil {
		return nil
	}
	out := map[int32]kadm.ListPartitionReassignmentsResponse{}
	for _, t := range resp.Topics {
		if t.Topic != topic {
			continue
		}
		for _, p := range t.Partitions {
			out[p.Partition] = kadm.ListPartitionReassignmentsResponse{Topic: t.Topic, Partition: p.Partition,
				Replicas: p.Replicas, AddingReplicas: p.AddingReplicas, RemovingReplicas: p.RemovingReplicas}
		}
	}
	return out
}
