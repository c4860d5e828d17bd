package status

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/logdirs"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Sort orders of a top frame.
const (
	SortRecords = "records"
	SortBytes   = "bytes"
	SortName    = "name"
)

// SortOrders lists the values --sort accepts.
var SortOrders = []string{SortRecords, SortBytes, SortName}

// TopicRate is one topic's rate in an interval.
type TopicRate struct {
	Topic         string  `json:"topic"`
	Partitions    int     `json:"partitions"`
	RecordsPerSec float64 `json:"records_per_sec"`
	// BytesPerSec is the growth of the leader replicas' log size; null
	// when unknown (log dirs not answered, or a log shrank: retention).
	BytesPerSec *float64 `json:"bytes_per_sec"`
}

// PartitionRate is one partition's rate in an interval.
type PartitionRate struct {
	Topic         string   `json:"topic"`
	Partition     int32    `json:"partition"`
	Leader        int32    `json:"leader"`
	RecordsPerSec float64  `json:"records_per_sec"`
	BytesPerSec   *float64 `json:"bytes_per_sec"`
}

// BrokerRate is one broker's rate in an interval: the records appended to
// the partitions it leads, and the growth of everything its log dirs hold
// (replication included).
type BrokerRate struct {
	Broker        int32    `json:"broker"`
	Leaders       int      `json:"leader_partitions"`
	RecordsPerSec float64  `json:"records_per_sec"`
	BytesPerSec   *float64 `json:"bytes_per_sec"`
}

// TopFrame is one interval of `kbox top`.
type TopFrame struct {
	Time       time.Time `json:"time"`
	IntervalMs int64     `json:"interval_ms"`
	// RecordsPerSec and BytesPerSec are the totals over the topics shown.
	RecordsPerSec float64         `json:"records_per_sec"`
	BytesPerSec   *float64        `json:"bytes_per_sec"`
	Topics        []TopicRate     `json:"topics"`
	Partitions    []PartitionRate `json:"partitions"`
	Brokers       []BrokerRate    `json:"brokers"`
}

type tp struct {
	topic string
	part  int32
}

// TopSample is one sample of end offsets, leaders and log sizes.
type TopSample struct {
	At      time.Time
	Ends    map[tp]int64
	Leaders map[tp]int32
	// Sizes are leader replica sizes; BrokerSizes what each broker holds.
	Sizes       map[tp]int64
	BrokerSizes map[int32]int64
}

// Sampler takes successive samples of a cluster.
type Sampler struct {
	Client *kgo.Client
	// Keep reports whether a topic is watched (nil: all).
	Keep func(topic string) bool
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Sample takes one sample. Its instant is the midpoint of the end-offset
// request, when the brokers read their offsets.
func (s *Sampler) Sample(ctx context.Context) (*TopSample, error) {
	now := s.Now
	if now == nil {
		now = time.Now
	}
	adm := kadm.NewClient(s.Client)
	md, err := adm.Metadata(ctx)
	if err != nil {
		return nil, err
	}
	smp := &TopSample{Ends: map[tp]int64{}, Leaders: map[tp]int32{}, Sizes: map[tp]int64{}, BrokerSizes: map[int32]int64{}}
	var topics []string
	for _, t := range md.Topics {
		if t.Err != nil || (s.Keep != nil && !s.Keep(t.Topic)) {
			continue
		}
		topics = append(topics, t.Topic)
		for _, p := range t.Partitions {
			smp.Leaders[tp{t.Topic, p.Partition}] = p.Leader
		}
	}
	var brokers []int32
	for _, b := range md.Brokers {
		brokers = append(brokers, b.NodeID)
	}
	dirs := make(chan *logdirs.Query, 1)
	go func() {
		dirs <- logdirs.QueryBrokers(ctx, s.Client, brokers, logdirs.QueryOptions{Timeout: 10 * time.Second})
	}()
	before := now()
	if len(topics) > 0 {
		lo, err := adm.ListEndOffsets(ctx, topics...)
		if err != nil {
			<-dirs
			return nil, err
		}
		lo.Each(func(o kadm.ListedOffset) {
			if o.Err == nil {
				smp.Ends[tp{o.Topic, o.Partition}] = o.Offset
			}
		})
	}
	after := now()
	smp.At = before.Add(after.Sub(before) / 2)
	q := <-dirs
	for _, bd := range q.Answered {
		var total int64
		for _, d := range bd.Dirs {
			for _, r := range d.Replicas {
				total += r.Size
				k := tp{r.Topic, r.Partition}
				if l, ok := smp.Leaders[k]; ok && l == bd.Broker && !r.IsFuture {
					smp.Sizes[k] = r.Size
				}
			}
		}
		smp.BrokerSizes[bd.Broker] = total
	}
	return smp, nil
}

// Frame computes the rates between two samples, sorted by order.
func Frame(a, b *TopSample, order string) *TopFrame {
	dt := b.At.Sub(a.At)
	f := &TopFrame{Time: b.At, IntervalMs: dt.Milliseconds(), Topics: []TopicRate{}, Partitions: []PartitionRate{}, Brokers: []BrokerRate{}}
	if dt <= 0 {
		return f
	}
	sec := dt.Seconds()
	topics := map[string]*TopicRate{}
	topicBytes := map[string]bool{}
	brokers := map[int32]*BrokerRate{}
	broker := func(id int32) *BrokerRate {
		br, ok := brokers[id]
		if !ok {
			br = &BrokerRate{Broker: id}
			brokers[id] = br
		}
		return br
	}
	var totalBytes float64
	bytesKnown := false
	for k, end := range b.Ends {
		prev, ok := a.Ends[k]
		if !ok {
			continue
		}
		recs := 0.0
		if end > prev {
			recs = float64(end-prev) / sec
		}
		leader := b.Leaders[k]
		pr := PartitionRate{Topic: k.topic, Partition: k.part, Leader: leader, RecordsPerSec: round1(recs)}
		if sb, ok := b.Sizes[k]; ok {
			if sa, ok := a.Sizes[k]; ok && sb >= sa {
				v := float64(sb-sa) / sec
				pr.BytesPerSec = &v
			}
		}
		t, ok := topics[k.topic]
		if !ok {
			t = &TopicRate{Topic: k.topic}
			topics[k.topic] = t
		}
		t.Partitions++
		t.RecordsPerSec += recs
		if pr.BytesPerSec != nil {
			if t.BytesPerSec == nil {
				t.BytesPerSec = new(float64)
			}
			*t.BytesPerSec += *pr.BytesPerSec
			topicBytes[k.topic] = true
			totalBytes += *pr.BytesPerSec
			bytesKnown = true
			r := round1(*pr.BytesPerSec)
			pr.BytesPerSec = &r
		}
		if leader >= 0 {
			br := broker(leader)
			br.Leaders++
			br.RecordsPerSec += recs
		}
		f.RecordsPerSec += recs
		f.Partitions = append(f.Partitions, pr)
	}
	for id, sb := range b.BrokerSizes {
		br := broker(id)
		if sa, ok := a.BrokerSizes[id]; ok && sb >= sa {
			v := round1(float64(sb-sa) / sec)
			br.BytesPerSec = &v
		}
	}
	f.RecordsPerSec = round1(f.RecordsPerSec)
	if bytesKnown {
		v := round1(totalBytes)
		f.BytesPerSec = &v
	}
	for _, t := range topics {
		t.RecordsPerSec = round1(t.RecordsPerSec)
		if t.BytesPerSec != nil {
			v := round1(*t.BytesPerSec)
			t.BytesPerSec = &v
		}
		f.Topics = append(f.Topics, *t)
	}
	for _, br := range brokers {
		br.RecordsPerSec = round1(br.RecordsPerSec)
		f.Brokers = append(f.Brokers, *br)
	}
	f.Sort(order)
	return f
}

// Sort orders topics and partitions by order (records or bytes per
// second, highest first, then name; or by name); brokers stay by id.
func (f *TopFrame) Sort(order string) {
	bytesOf := func(p *float64) float64 {
		if p == nil {
			return -1
		}
		return *p
	}
	key := func(recs float64, bytes *float64) float64 {
		if order == SortBytes {
			return bytesOf(bytes)
		}
		return recs
	}
	sort.SliceStable(f.Topics, func(i, j int) bool {
		a, b := f.Topics[i], f.Topics[j]
		if order != SortName {
			if ka, kb := key(a.RecordsPerSec, a.BytesPerSec), key(b.RecordsPerSec, b.BytesPerSec); ka != kb {
				return ka > kb
			}
		}
		return a.Topic < b.Topic
	})
	sort.SliceStable(f.Partitions, func(i, j int) bool {
		a, b := f.Partitions[i], f.Partitions[j]
		if order != SortName {
			if ka, kb := key(a.RecordsPerSec, a.BytesPerSec), key(b.RecordsPerSec, b.BytesPerSec); ka != kb {
				return ka > kb
			}
		}
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		return a.Partition < b.Partition
	})
	sort.Slice(f.Brokers, func(i, j int) bool { return f.Brokers[i].Broker < f.Brokers[j].Broker })
}

// Line is the frame as one line (for a pipe): time, totals, the busiest
// topics.
func (f *TopFrame) Line(maxTopics int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s records/s=%s bytes/s=%s", f.Time.Format("2006-01-02T15:04:05.000Z07:00"), num(f.RecordsPerSec), optNum(f.BytesPerSec))
	for i, t := range f.Topics {
		if i == maxTopics {
			fmt.Fprintf(&b, " (+%d topics)", len(f.Topics)-i)
			break
		}
		fmt.Fprintf(&b, " %s=%s/%s", t.Topic, num(t.RecordsPerSec), optNum(t.BytesPerSec))
	}
	return b.String()
}

// TopicTable is the topics of a frame as a table.
func (f *TopFrame) TopicTable() ([]string, [][]string) {
	rows := make([][]string, 0, len(f.Topics))
	for _, t := range f.Topics {
		rows = append(rows, []string{t.Topic, strconv.Itoa(t.Partitions), num(t.RecordsPerSec), optBytes(t.BytesPerSec)})
	}
	return []string{"TOPIC", "PARTITIONS", "RECORDS/S", "BYTES/S"}, rows
}

// PartitionTable is the first n partitions of a frame as a table.
func (f *TopFrame) PartitionTable(n int) ([]string, [][]string) {
	var rows [][]string
	for i, p := range f.Partitions {
		if i == n {
			break
		}
		rows = append(rows, []string{p.Topic, strconv.Itoa(int(p.Partition)), leaderCell(p.Leader), num(p.RecordsPerSec), optBytes(p.BytesPerSec)})
	}
	return []string{"TOPIC", "PARTITION", "LEADER", "RECORDS/S", "BYTES/S"}, rows
}

// BrokerTable is the brokers of a frame as a table.
func (f *TopFrame) BrokerTable() ([]string, [][]string) {
	rows := make([][]string, 0, len(f.Brokers))
	for _, b := range f.Brokers {
		rows = append(rows, []string{strconv.Itoa(int(b.Broker)), strconv.Itoa(b.Leaders), num(b.RecordsPerSec), optBytes(b.BytesPerSec)})
	}
	return []string{"BROKER", "LEADS", "RECORDS/S (LED)", "LOG BYTES/S"}, rows
}

func leaderCell(l int32) string {
	if l < 0 {
		return "none"
	}
	return strconv.Itoa(int(l))
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func optNum(v *float64) string {
	if v == nil {
		return "-"
	}
	return num(*v)
}

func optBytes(v *float64) string {
	if v == nil {
		return "-"
	}
	return logdirs.FormatBytes(int64(*v+0.5), true)
}
