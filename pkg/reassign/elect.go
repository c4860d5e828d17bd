package reassign

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kboxdev/kbox/pkg/javafmt"
)

// Election types (Java's ElectionType).
const (
	Preferred int8 = 0
	Unclean   int8 = 1
)

// ElectionName is ElectionType.toString.
func ElectionName(t int8) string {
	if t == Unclean {
		return "UNCLEAN"
	}
	return "PREFERRED"
}

// ElectResult is one partition's election outcome; Err is nil on success.
type ElectResult struct {
	TP
	Err *KafkaError
}

// NotNeeded reports an ELECTION_NOT_NEEDED outcome (a valid leader was
// already elected).
func (r ElectResult) NotNeeded() bool {
	return r.Err != nil && r.Err.Code == kerr.ElectionNotNeeded.Code
}

// Elect runs an election of type t for tps (nil: every partition the
// controller finds eligible) and returns the outcomes in the order of the
// response.
func (s *Service) Elect(ctx context.Context, t int8, tps []TP, timeoutMs int32) ([]ElectResult, error) {
	req := kmsg.NewPtrElectLeadersRequest()
	req.ElectionType = t
	req.TimeoutMillis = timeoutMs
	if tps != nil {
		req.Topics = []kmsg.ElectLeadersRequestTopic{}
		idx := map[string]int{}
		for _, tp := range tps {
			i, ok := idx[tp.Topic]
			if !ok {
				rt := kmsg.NewElectLeadersRequestTopic()
				rt.Topic = tp.Topic
				req.Topics = append(req.Topics, rt)
				i = len(req.Topics) - 1
				idx[tp.Topic] = i
			}
			req.Topics[i].Partitions = append(req.Topics[i].Partitions, tp.Partition)
		}
	}
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil {
		return nil, err
	}
	if err := kafkaErr(resp.ErrorCode, nil); err != nil {
		return nil, err
	}
	var out []ElectResult
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			r := ElectResult{TP: TP{t.Topic, p.Partition}}
			if e := kafkaErr(p.ErrorCode, p.ErrorMessage); e != nil {
				r.Err = e.(*KafkaError)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// JavaSetOrder orders results as Apache prints them: the admin client
// collects the response into a HashMap, the tool copies each outcome into
// a HashSet (or HashMap) in that map's order.
func JavaSetOrder(all []ElectResult, subset []ElectResult) []ElectResult {
	hs := make([]int32, len(all))
	for i, r := range all {
		hs[i] = r.JavaHash()
	}
	mapOrder := javafmt.HashOrder(hs, javafmt.HashMapCapacity(-1, len(all)))
	in := map[TP]bool{}
	for _, r := range subset {
		in[r.TP] = true
	}
	var inserted []ElectResult
	for _, i := range mapOrder {
		if in[all[i].TP] {
			inserted = append(inserted, all[i])
		}
	}
	hs = hs[:0]
	for _, r := range inserted {
		hs = append(hs, r.JavaHash())
	}
	out := make([]ElectResult, 0, len(inserted))
	for _, i := range javafmt.HashOrder(hs, javafmt.HashMapCapacity(-1, len(inserted))) {
		out = append(out, inserted[i])
	}
	return out
}
