package features

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// BrokerRange is the range of metadata versions one broker supports.
type BrokerRange struct {
	ID      int32  `json:"id"`
	Min     int16  `json:"min_level"`
	Max     int16  `json:"max_level"`
	MinName string `json:"min"`
	MaxName string `json:"max"`
}

// VersionStatus is the cluster's finalized metadata.version against what
// its brokers support: informational (kbox status does not call a cluster
// unhealthy for it).
type VersionStatus struct {
	// Finalized is the finalized level (0 when the brokers gave none)
	// and FinalizedName its name ("4.4-IV2").
	Finalized     int16  `json:"finalized_level"`
	FinalizedName string `json:"finalized"`
	// SupportedMax is the highest level every broker that answered
	// supports (the lowest of their maximums): what an upgrade may go
	// to now.
	SupportedMax     int16  `json:"supported_max_level"`
	SupportedMaxName string `json:"supported_max"`
	// Brokers are the brokers that answered, by id.
	Brokers []BrokerRange `json:"brokers"`
	// BrokersDisagree: the brokers do not all support the same range (a
	// rolling upgrade under way, or left half done).
	BrokersDisagree bool `json:"brokers_disagree"`
	// UpgradeAvailable: the finalized level is below SupportedMax
	// (kafka-features upgrade --metadata SupportedMaxName would raise it).
	UpgradeAvailable bool `json:"upgrade_available"`
	// Summary is the above in a few words, for tables and the UI.
	Summary string `json:"summary"`
}

// BrokerFeatures asks each broker (by id, through cl) for its features
// concurrently; brokers that fail to answer are left out.
func BrokerFeatures(ctx context.Context, cl *kgo.Client, ids []int32, version string) map[int32]*Metadata {
	var mu sync.Mutex
	var wg sync.WaitGroup
	out := map[int32]*Metadata{}
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := cl.Broker(int(id)).Request(ctx, NewAPIVersionsRequest(version))
			if err != nil {
				return
			}
			md, err := FromAPIVersions(resp.(*kmsg.ApiVersionsResponse))
			if err != nil {
				return
			}
			mu.Lock()
			out[id] = md
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// MetadataVersionStatus compares the finalized metadata.version (as the
// broker with the newest finalized epoch gives it) with what every broker
// supports; nil when no broker gave a metadata.version range.
func MetadataVersionStatus(brokers map[int32]*Metadata) *VersionStatus {
	ids := make([]int32, 0, len(brokers))
	for id, md := range brokers {
		if _, ok := md.Supported[MetadataFeature]; ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	s := &VersionStatus{Brokers: []BrokerRange{}}
	var newest *int64
	for i, id := range ids {
		md := brokers[id]
		r := md.Supported[MetadataFeature]
		s.Brokers = append(s.Brokers, BrokerRange{ID: id, Min: r.Min, Max: r.Max, MinName: LevelName(MetadataFeature, r.Min), MaxName: LevelName(MetadataFeature, r.Max)})
		if i == 0 || r.Max < s.SupportedMax {
			s.SupportedMax = r.Max
		}
		if i > 0 && r != brokers[ids[0]].Supported[MetadataFeature] {
			s.BrokersDisagree = true
		}
		if i == 0 || (md.Epoch != nil && (newest == nil || *md.Epoch > *newest)) {
			s.Finalized, newest = md.Finalized[MetadataFeature], md.Epoch
		}
	}
	s.FinalizedName = LevelName(MetadataFeature, s.Finalized)
	s.SupportedMaxName = LevelName(MetadataFeature, s.SupportedMax)
	s.UpgradeAvailable = s.Finalized < s.SupportedMax
	s.Summary = s.summary()
	return s
}

// summary: "4.4-IV2", "4.3-IV0 (upgrade available: 4.4-IV2)", plus
// "; brokers disagree: 1: 3.3-IV3..4.4-IV2, 2: 3.3-IV3..4.3-IV0".
func (s *VersionStatus) summary() string {
	out := s.FinalizedName
	if s.UpgradeAvailable {
		out += " (upgrade available: " + s.SupportedMaxName + ")"
	}
	if s.BrokersDisagree {
		parts := make([]string, len(s.Brokers))
		for i, b := range s.Brokers {
			parts[i] = fmt.Sprintf("%d: %s..%s", b.ID, b.MinName, b.MaxName)
		}
		out += "; brokers disagree: " + strings.Join(parts, ", ")
	}
	return out
}
