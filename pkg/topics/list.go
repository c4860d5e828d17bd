package topics

import "github.com/kboxdev/kbox/pkg/logdirs"

// ListRow is one topic of a topic list (kbox ui's topics page): its
// partitions' health from metadata and its size from the log dirs.
type ListRow struct {
	Name                      string `json:"name"`
	Internal                  bool   `json:"internal"`
	Partitions                int    `json:"partitions"`
	ReplicationFactor         int    `json:"replication_factor"`
	UnderReplicatedPartitions int    `json:"under_replicated_partitions"`
	OfflinePartitions         int    `json:"offline_partitions"`
	// LogicalBytes counts each partition's leader replica once;
	// PhysicalBytes every replica. Null when the log dirs were not read.
	LogicalBytes  *int64 `json:"logical_bytes"`
	PhysicalBytes *int64 `json:"physical_bytes"`
}

// ListRows is every topic of c, by name, with its size aggregated from
// the log dirs in (pkg/logdirs' topic view, with c's leaders; in is not
// changed). A topic no answering broker holds is 0 bytes; sizes are null
// when in is nil or no broker answered. The report's failed brokers are
// returned too.
func ListRows(c *Cluster, in *logdirs.Input) ([]ListRow, []logdirs.FailedBroker) {
	sizes := map[string]logdirs.TopicUsage{}
	answered := false
	failed := []logdirs.FailedBroker{}
	if in != nil {
		withLeaders := *in
		withLeaders.Leaders = c.Leaders()
		rep := logdirs.BuildReport(withLeaders, logdirs.ReportOptions{View: logdirs.AggTopic})
		if rep.Topics != nil {
			for _, u := range *rep.Topics {
				sizes[u.Topic] = u
			}
		}
		failed = rep.FailedBrokers
		answered = in.Query != nil && len(in.Query.Answered) > 0
	}
	out := []ListRow{}
	for _, name := range c.Names() {
		t := c.Topics[name]
		row := ListRow{Name: name, Internal: t.IsInternal, Partitions: len(t.Partitions)}
		for _, p := range t.Partitions {
			row.ReplicationFactor = max(row.ReplicationFactor, len(p.Replicas))
			if p.Leader < 0 {
				row.OfflinePartitions++
			}
			if len(p.ISR) < len(p.Replicas) {
				row.UnderReplicatedPartitions++
			}
		}
		if u, ok := sizes[name]; ok {
			l, p := u.LogicalBytes, u.PhysicalBytes
			row.LogicalBytes, row.PhysicalBytes = &l, &p
		} else if answered {
			var zero int64
			row.LogicalBytes, row.PhysicalBytes = &zero, &zero
		}
		out = append(out, row)
	}
	return out, failed
}

// Leaders is every partition's leader by topic (-1: none), as pkg/logdirs
// reports take them.
func (c *Cluster) Leaders() map[string]map[int32]int32 {
	out := make(map[string]map[int32]int32, len(c.Topics))
	for name, t := range c.Topics {
		m := make(map[int32]int32, len(t.Partitions))
		for _, p := range t.Partitions {
			m[p.Partition] = p.Leader
		}
		out[name] = m
	}
	return out
}
