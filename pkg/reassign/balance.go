package reassign

import (
	"context"
	"sort"
	"strconv"
)

// PartitionLeader is a partition's replicas, leader and ISR.
type PartitionLeader struct {
	TP
	Replicas []int32
	ISR      []int32
	Leader   int32 // -1: no leader
}

// Leaders reads every partition's leader (of topics, or all topics when
// none are given).
func (s *Service) Leaders(ctx context.Context, topics ...string) ([]PartitionLeader, error) {
	md, err := s.Admin.Metadata(ctx, topics...)
	if err != nil {
		return nil, err
	}
	var out []PartitionLeader
	for _, td := range md.Topics {
		if td.Err != nil {
			if len(topics) > 0 {
				return nil, td.Err
			}
			continue
		}
		for _, pd := range td.Partitions {
			out = append(out, PartitionLeader{TP: TP{td.Topic, pd.Partition}, Replicas: pd.Replicas, ISR: pd.ISR, Leader: pd.Leader})
		}
	}
	sort.Slice(out, func(i, j int) bool { return LessTP(out[i].TP, out[j].TP) })
	return out, nil
}

// Misled is a partition whose leader is not its preferred replica (the
// first of its replicas).
type Misled struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Leader    int32  `json:"leader"`
	Preferred int32  `json:"preferred_leader"`
	// Electable: the preferred replica is in sync, so a preferred election
	// moves leadership to it.
	Electable bool `json:"electable"`
	// Elected is set by an election: whether this partition's leader is now
	// its preferred replica (null in a preview).
	Elected *bool `json:"elected"`
	// Error is why the election of this partition failed ("" if it did not).
	Error string `json:"error,omitempty"`
}

// BrokerLeaders is one broker's leader count before and after.
type BrokerLeaders struct {
	Broker    int32 `json:"broker"`
	Preferred int   `json:"preferred_leaders"`
	Before    int   `json:"leaders_before"`
	After     int   `json:"leaders_after"`
}

// LeaderBalance is kbox elect-leaders --preview (after: if every
// electable partition is elected) or --execute (after: as read back).
type LeaderBalance struct {
	Executed   bool            `json:"executed"`
	Partitions []Misled        `json:"partitions"`
	Brokers    []BrokerLeaders `json:"brokers"`
}

func contains(ids []int32, id int32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// Preview computes the balance a preferred election of every electable
// partition would give.
func Preview(ps []PartitionLeader, brokers []int32) *LeaderBalance {
	b := &LeaderBalance{Partitions: []Misled{}, Brokers: []BrokerLeaders{}}
	counts := map[int32]*BrokerLeaders{}
	get := func(id int32) *BrokerLeaders {
		if c, ok := counts[id]; ok {
			return c
		}
		c := &BrokerLeaders{Broker: id}
		counts[id] = c
		return c
	}
	for _, id := range brokers {
		get(id)
	}
	for _, p := range ps {
		if len(p.Replicas) == 0 {
			continue
		}
		pref := p.Replicas[0]
		get(pref).Preferred++
		after := p.Leader
		if p.Leader != pref {
			m := Misled{Topic: p.Topic, Partition: p.Partition, Leader: p.Leader, Preferred: pref, Electable: contains(p.ISR, pref)}
			if m.Electable {
				after = pref
			}
			b.Partitions = append(b.Partitions, m)
		}
		if p.Leader >= 0 {
			get(p.Leader).Before++
		}
		if after >= 0 {
			get(after).After++
		}
	}
	for _, c := range counts {
		b.Brokers = append(b.Brokers, *c)
	}
	sort.Slice(b.Brokers, func(i, j int) bool { return b.Brokers[i].Broker < b.Brokers[j].Broker })
	return b
}

// Header is the broker table's header.
func (b *LeaderBalance) Header() []string {
	return []string{"BROKER", "PREFERRED", "LEADERS-BEFORE", "LEADERS-AFTER"}
}

// Rows is one row per broker.
func (b *LeaderBalance) Rows() [][]string {
	rows := make([][]string, len(b.Brokers))
	for i, c := range b.Brokers {
		rows[i] = []string{strconv.Itoa(int(c.Broker)), strconv.Itoa(c.Preferred), strconv.Itoa(c.Before), strconv.Itoa(c.After)}
	}
	return rows
}

// PartitionHeader and PartitionRows are the table of misled partitions.
func (b *LeaderBalance) PartitionHeader() []string {
	h := []string{"TOPIC", "PARTITION", "LEADER", "PREFERRED", "ELECTABLE"}
	if b.Executed {
		h = append(h, "ELECTED", "ERROR")
	}
	return h
}

// PartitionRows lists the partitions not led by their preferred replica.
func (b *LeaderBalance) PartitionRows() [][]string {
	rows := make([][]string, len(b.Partitions))
	for i, m := range b.Partitions {
		leader := strconv.Itoa(int(m.Leader))
		if m.Leader < 0 {
			leader = "none"
		}
		r := []string{m.Topic, strconv.Itoa(int(m.Partition)), leader, strconv.Itoa(int(m.Preferred)), yesNo(m.Electable)}
		if b.Executed {
			r = append(r, yesNo(m.Elected != nil && *m.Elected), m.Error)
		}
		rows[i] = r
	}
	return rows
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
