package topics

import (
	"context"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Offsets are partitions' log start offsets and end offsets (high
// watermarks). Read them after ListOffsets returned them: the lookups
// index them once (kbox ui shares one Offsets among its requests).
type Offsets struct {
	Start, End kadm.ListedOffsets

	once  sync.Once
	index map[string]*topicOffsets
}

// topicOffsets is one topic's offsets by partition id (-1: unknown) and
// its records (the partitions' high watermarks less log start offsets).
type topicOffsets struct {
	start, end []int64
	records    int64
}

// ListOffsets reads the log start and end offsets of the topics'
// partitions: one ListOffsets request per leader broker for each, the two
// concurrently. A partition whose leader failed has no offsets; the error
// is returned only when a side got no offset at all.
func (s *Service) ListOffsets(ctx context.Context, names []string) (*Offsets, error) {
	adm := s.Admin
	if adm == nil {
		adm = kadm.NewClient(s.Client)
	}
	o := &Offsets{}
	var startErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		o.Start, startErr = adm.ListStartOffsets(ctx, names...)
	}()
	var endErr error
	o.End, endErr = adm.ListEndOffsets(ctx, names...)
	wg.Wait()
	if startErr != nil && len(o.Start) == 0 {
		return nil, startErr
	}
	if endErr != nil && len(o.End) == 0 {
		return nil, endErr
	}
	return o, nil
}

func (o *Offsets) topic(name string) *topicOffsets {
	o.once.Do(func() {
		o.index = map[string]*topicOffsets{}
		fill := func(lo kadm.ListedOffsets, side func(*topicOffsets) *[]int64) {
			for t, ps := range lo {
				to := o.index[t]
				if to == nil {
					to = &topicOffsets{}
					o.index[t] = to
				}
				for p, v := range ps {
					if v.Err != nil || p < 0 {
						continue
					}
					s := side(to)
					for int(p) >= len(*s) {
						*s = append(*s, -1)
					}
					(*s)[p] = v.Offset
				}
			}
		}
		fill(o.Start, func(t *topicOffsets) *[]int64 { return &t.start })
		fill(o.End, func(t *topicOffsets) *[]int64 { return &t.end })
		for _, to := range o.index {
			for p := range min(len(to.start), len(to.end)) {
				if to.start[p] >= 0 && to.end[p] >= 0 {
					to.records += to.end[p] - to.start[p]
				}
			}
		}
	})
	return o.index[name]
}

// Of is one partition's log start offset and high watermark (nil: not
// known).
func (o *Offsets) Of(topic string, partition int32) (start, end *int64) {
	if o == nil {
		return nil, nil
	}
	to := o.topic(topic)
	if to == nil || partition < 0 {
		return nil, nil
	}
	if int(partition) < len(to.start) && to.start[partition] >= 0 {
		n := to.start[partition]
		start = &n
	}
	if int(partition) < len(to.end) && to.end[partition] >= 0 {
		n := to.end[partition]
		end = &n
	}
	return start, end
}

// Records is the topic's records: the sum over its partitions of the
// high watermark less the log start offset (where both are known).
func (o *Offsets) Records(topic string) int64 {
	if o == nil {
		return 0
	}
	if to := o.topic(topic); to != nil {
		return to.records
	}
	return 0
}

// BrokerIDs are the live brokers' ids, in metadata order.
func (c *Cluster) BrokerIDs() []int32 {
	ids := make([]int32, 0, len(c.Brokers))
	for _, b := range c.Brokers {
		ids = append(ids, b.ID)
	}
	return ids
}

// TopicMetadata is one Metadata request for the named topics only (never
// creating one): the live brokers, and the topics that exist.
func (s *Service) TopicMetadata(ctx context.Context, names ...string) (*Cluster, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = make([]kmsg.MetadataRequestTopic, 0, len(names))
	for _, n := range names {
		t := kmsg.NewMetadataRequestTopic()
		t.Topic = kmsg.StringPtr(n)
		req.Topics = append(req.Topics, t)
	}
	return s.metadata(ctx, req)
}
