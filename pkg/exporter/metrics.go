package exporter

import (
	"bytes"
	"compress/gzip"
	"strconv"
	"time"

	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/kboxdev/kbox/pkg/quorum"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
)

// Family is one metric family the exporter serves.
type Family struct {
	Name   string
	Type   string // gauge, counter or histogram
	Labels []string
	Help   string
}

// Label names.
const (
	lCluster   = "cluster"
	lBroker    = "broker"
	lDir       = "dir"
	lTopic     = "topic"
	lGroup     = "group"
	lPartition = "partition"
	lVerdict   = "verdict"
	lReplica   = "replica"
	lRole      = "role"
)

// Verdicts are the values of the verdict label, in Burrow's order.
var Verdicts = []groups.Verdict{groups.VerdictOK, groups.VerdictWarn, groups.VerdictStall, groups.VerdictStop, groups.VerdictRewind}

// The snapshot's families (rendered after each refresh).
var (
	fReachable           = fam("kbox_cluster_reachable", "gauge", "1 when the last refresh reached the cluster, else 0 (then no other series of the cluster is served).")
	fInfo                = fam("kbox_cluster_info", "gauge", "Always 1; the cluster id is a label.", "cluster_id")
	fBrokersUp           = fam("kbox_brokers_up", "gauge", "Brokers up: listed, not fenced, and answering an ApiVersions request on a connection of the exporter's own.")
	fBrokersExpected     = fam("kbox_brokers_expected", "gauge", "Brokers expected: the profile's expected-brokers, else every broker registered or holding a replica.")
	fController          = fam("kbox_controller_id", "gauge", "The active controller's id (the KRaft quorum's leader); -1 when there is none.")
	fPartitions          = fam("kbox_partitions", "gauge", "Partitions of every topic (not only the topics served).")
	fUnderReplicated     = fam("kbox_under_replicated_partitions", "gauge", "Partitions with fewer in-sync replicas than replicas, over every topic.")
	fUnderMinISR         = fam("kbox_under_min_isr_partitions", "gauge", "Partitions with fewer in-sync replicas than their topic's min.insync.replicas, over every topic.")
	fOffline             = fam("kbox_offline_partitions", "gauge", "Partitions without a leader, over every topic.")
	fNonPreferred        = fam("kbox_non_preferred_leader_partitions", "gauge", "Partitions led by another broker than their first replica, over every topic.")
	fBrokerUp            = fam("kbox_broker_up", "gauge", "1 when the broker is up, 0 when it is down (unreachable, fenced, or not registered while holding replicas).", lBroker)
	fBrokerLeaders       = fam("kbox_broker_leader_partitions", "gauge", "Partitions of the topics served that the broker leads (leader skew).", lBroker)
	fBrokerLogBytes      = fam("kbox_broker_log_size_bytes", "gauge", "Bytes the broker's log dirs hold (every replica).", lBroker)
	fDirSize             = fam("kbox_log_dir_size_bytes", "gauge", "Bytes the log dir's replicas hold.", lBroker, lDir)
	fDirTotal            = fam("kbox_log_dir_total_bytes", "gauge", "Size of the log dir's volume (absent when the broker does not report it).", lBroker, lDir)
	fDirFree             = fam("kbox_log_dir_free_bytes", "gauge", "Usable bytes left on the log dir's volume.", lBroker, lDir)
	fDirUsed             = fam("kbox_log_dir_used_bytes", "gauge", "Bytes used on the log dir's volume (total - free; the disk use kbox status reports).", lBroker, lDir)
	fDirOnline           = fam("kbox_log_dir_online", "gauge", "1 when the log dir is online, 0 when the broker reports it failed.", lBroker, lDir)
	fTopicPartitions     = fam("kbox_topic_partitions", "gauge", "Partitions of the topic.", lTopic)
	fTopicUnderRepl      = fam("kbox_topic_under_replicated_partitions", "gauge", "Partitions of the topic with fewer in-sync replicas than replicas.", lTopic)
	fTopicUnderMinISR    = fam("kbox_topic_under_min_isr_partitions", "gauge", "Partitions of the topic with fewer in-sync replicas than min.insync.replicas.", lTopic)
	fTopicOffline        = fam("kbox_topic_offline_partitions", "gauge", "Partitions of the topic without a leader.", lTopic)
	fTopicNonPreferred   = fam("kbox_topic_non_preferred_leader_partitions", "gauge", "Partitions of the topic led by another broker than their first replica.", lTopic)
	fTopicEnd            = fam("kbox_topic_log_end_offset", "gauge", "Sum of the topic's partitions' log end offsets (absent while some partition's is unknown).", lTopic)
	fTopicRecords        = fam("kbox_topic_records_in_per_second", "gauge", "Records appended per second, from the growth of the end offsets between the last two refreshes.", lTopic)
	fTopicBytesIn        = fam("kbox_topic_bytes_in_per_second", "gauge", "Bytes appended per second, from the growth of the leader replicas' log size between the last two refreshes.", lTopic)
	fTopicLeaderBytes    = fam("kbox_topic_leader_size_bytes", "gauge", "Bytes the topic's leader replicas hold (the topic's size).", lTopic)
	fTopicBytes          = fam("kbox_topic_size_bytes", "gauge", "Bytes all the topic's replicas hold (what the disks hold).", lTopic)
	fGroupLag            = fam("kbox_group_lag", "gauge", "Records between the group's committed offsets and the log ends, summed over the topic's partitions.", lGroup, lTopic)
	fGroupLagSeconds     = fam("kbox_group_lag_seconds", "gauge", "How long ago the oldest unconsumed record of the group on the topic was written (0 when caught up; absent when unknown).", lGroup, lTopic)
	fGroupConsume        = fam("kbox_group_consume_records_per_second", "gauge", "How fast the group's committed offsets on the topic advance, over its windows of commits (absent until known).", lGroup, lTopic)
	fGroupVerdict        = fam("kbox_group_verdict", "gauge", "Burrow's verdict of the group on the topic, its worst partition's: 1 for the verdict, 0 for the others (all 0 while unknown).", lGroup, lTopic, lVerdict)
	fPartCommitted       = fam("kbox_group_partition_committed_offset", "gauge", "The group's committed offset on the partition.", lGroup, lTopic, lPartition)
	fPartLag             = fam("kbox_group_partition_lag", "gauge", "Records between the group's committed offset and the partition's log end.", lGroup, lTopic, lPartition)
	fPartLagSeconds      = fam("kbox_group_partition_lag_seconds", "gauge", "How long ago the partition's next unconsumed record was written (0 when caught up; absent when unknown).", lGroup, lTopic, lPartition)
	fPartVerdict         = fam("kbox_group_partition_verdict", "gauge", "Burrow's verdict of the group on the partition: 1 for the verdict, 0 for the others (all 0 while unknown).", lGroup, lTopic, lPartition, lVerdict)
	fQuorumLeader        = fam("kbox_quorum_leader_id", "gauge", "The KRaft metadata quorum's leader (the active controller).")
	fQuorumEpoch         = fam("kbox_quorum_leader_epoch", "gauge", "The metadata quorum's leader epoch (it grows at each election).")
	fQuorumHW            = fam("kbox_quorum_high_watermark", "gauge", "The metadata log's high watermark.")
	fQuorumReplicaEnd    = fam("kbox_quorum_replica_log_end_offset", "gauge", "The voter's or observer's metadata log end offset.", lReplica, lRole)
	fQuorumReplicaLag    = fam("kbox_quorum_replica_lag", "gauge", "Records of the metadata log the voter or observer is behind the leader.", lReplica, lRole)
	fQuorumReplicaCaught = fam("kbox_quorum_replica_last_caught_up_timestamp_seconds", "gauge", "When the voter or observer last caught up with the leader, as the leader saw it (absent when unknown).", lReplica, lRole)
)

var families []*family

type family struct {
	Family
	desc *prometheus.Desc
}

func fam(name, typ, help string, labels ...string) *family {
	f := &family{Family: Family{Name: name, Type: typ, Labels: append([]string{lCluster}, labels...), Help: help}}
	f.desc = prometheus.NewDesc(name, help, f.Labels, nil)
	families = append(families, f)
	return f
}

// selfMetrics are the exporter's own metrics, live.
type selfMetrics struct {
	refreshes, refreshErrors *prometheus.CounterVec
	refreshDuration          *prometheus.GaugeVec
	lastRefresh              *prometheus.GaugeVec
	dropped                  *prometheus.CounterVec
	scrapes                  prometheus.Counter
	render                   prometheus.Gauge
	probe                    probeMetrics
}

type probeMetrics struct {
	ack, e2e                     *prometheus.HistogramVec
	sent, errors, received, lost *prometheus.CounterVec
}

// probeBuckets are the probe's latency buckets, in seconds: 1 ms to 10 s.
var probeBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// selfFamilies are the exporter's own families (gathered at each scrape).
var selfFamilies = []Family{
	{"kbox_exporter_build_info", "gauge", []string{"version"}, "Always 1; the kbox version is a label."},
	{"kbox_exporter_refreshes_total", "counter", []string{lCluster}, "Refreshes of the cluster's snapshot."},
	{"kbox_exporter_refresh_errors_total", "counter", []string{lCluster}, "Refreshes that could not sample the cluster (served as unreachable)."},
	{"kbox_exporter_refresh_duration_seconds", "gauge", []string{lCluster}, "Wall time of the cluster's last refresh."},
	{"kbox_exporter_last_refresh_timestamp_seconds", "gauge", []string{lCluster}, "When the cluster's last refresh ended (Unix time)."},
	{"kbox_exporter_cardinality_dropped_total", "counter", []string{lCluster, "kind"}, "Label sets left out by the caps (kind topic, group, group_partition), summed over refreshes."},
	{"kbox_exporter_scrapes_total", "counter", nil, "Scrapes of /metrics served (each from the rendered snapshot: none reaches a cluster)."},
	{"kbox_exporter_render_duration_seconds", "gauge", nil, "Wall time of the last rendering of the snapshots."},
	{"kbox_probe_produce_latency_seconds", "histogram", []string{lCluster}, "End-to-end probe: time from a record's send to its acknowledgement."},
	{"kbox_probe_end_to_end_latency_seconds", "histogram", []string{lCluster}, "End-to-end probe: time from a record's send to its arrival at the probe's consumer."},
	{"kbox_probe_records_sent_total", "counter", []string{lCluster}, "End-to-end probe: records sent."},
	{"kbox_probe_produce_errors_total", "counter", []string{lCluster}, "End-to-end probe: records whose send failed."},
	{"kbox_probe_records_received_total", "counter", []string{lCluster}, "End-to-end probe: records consumed back."},
	{"kbox_probe_records_lost_total", "counter", []string{lCluster}, "End-to-end probe: acknowledged records not consumed back within the probe timeout."},
}

// Families lists every family the exporter serves (go_ and process_
// families aside), for the documentation and the tests.
func Families() []Family {
	out := make([]Family, 0, len(families)+len(selfFamilies))
	for _, f := range families {
		out = append(out, f.Family)
	}
	return append(out, selfFamilies...)
}

func (m *selfMetrics) register(r *prometheus.Registry, version string) error {
	byName := map[string]Family{}
	for _, f := range selfFamilies {
		byName[f.Name] = f
	}
	gauge := func(n string) *prometheus.GaugeVec {
		f := byName[n]
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: n, Help: f.Help}, f.Labels)
	}
	counter := func(n string) *prometheus.CounterVec {
		f := byName[n]
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: n, Help: f.Help}, f.Labels)
	}
	hist := func(n string) *prometheus.HistogramVec {
		f := byName[n]
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: n, Help: f.Help, Buckets: probeBuckets}, f.Labels)
	}
	info := gauge("kbox_exporter_build_info")
	info.WithLabelValues(version).Set(1)
	m.refreshes, m.refreshErrors = counter("kbox_exporter_refreshes_total"), counter("kbox_exporter_refresh_errors_total")
	m.refreshDuration, m.lastRefresh = gauge("kbox_exporter_refresh_duration_seconds"), gauge("kbox_exporter_last_refresh_timestamp_seconds")
	m.dropped = counter("kbox_exporter_cardinality_dropped_total")
	m.scrapes = prometheus.NewCounter(prometheus.CounterOpts{Name: "kbox_exporter_scrapes_total", Help: byName["kbox_exporter_scrapes_total"].Help})
	m.render = prometheus.NewGauge(prometheus.GaugeOpts{Name: "kbox_exporter_render_duration_seconds", Help: byName["kbox_exporter_render_duration_seconds"].Help})
	p := &m.probe
	p.ack, p.e2e = hist("kbox_probe_produce_latency_seconds"), hist("kbox_probe_end_to_end_latency_seconds")
	p.sent, p.errors = counter("kbox_probe_records_sent_total"), counter("kbox_probe_produce_errors_total")
	p.received, p.lost = counter("kbox_probe_records_received_total"), counter("kbox_probe_records_lost_total")
	for _, c := range []prometheus.Collector{info, m.refreshes, m.refreshErrors, m.refreshDuration, m.lastRefresh, m.dropped, m.scrapes, m.render,
		p.ack, p.e2e, p.sent, p.errors, p.received, p.lost,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// snapshotCollector emits the clusters' last snapshots.
type snapshotCollector struct{ e *Exporter }

func (c *snapshotCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, f := range families {
		ch <- f.desc
	}
}

func (c *snapshotCollector) Collect(ch chan<- prometheus.Metric) {
	for _, cs := range c.e.clusters {
		cs.mu.Lock()
		s := cs.snap
		cs.mu.Unlock()
		if s != nil {
			emit(ch, cs.Name, s)
		}
	}
}

func gaugeOf(ch chan<- prometheus.Metric, f *family, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(f.desc, prometheus.GaugeValue, v, labels...)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func i32(v int32) string { return strconv.FormatInt(int64(v), 10) }

// emit sends one cluster's snapshot.
func emit(ch chan<- prometheus.Metric, cl string, s *snapshot) {
	gaugeOf(ch, fReachable, b2f(s.err == ""), cl)
	if s.err != "" {
		return
	}
	h := s.health
	gaugeOf(ch, fInfo, 1, cl, h.ClusterID)
	gaugeOf(ch, fBrokersUp, float64(h.BrokersUp), cl)
	gaugeOf(ch, fBrokersExpected, float64(h.BrokersExpected), cl)
	ctrl := -1.0
	if h.Controller != nil {
		ctrl = float64(*h.Controller)
	}
	gaugeOf(ch, fController, ctrl, cl)
	gaugeOf(ch, fPartitions, float64(h.Total.Partitions), cl)
	gaugeOf(ch, fUnderReplicated, float64(h.Total.UnderReplicated), cl)
	gaugeOf(ch, fUnderMinISR, float64(h.Total.UnderMinISR), cl)
	gaugeOf(ch, fOffline, float64(h.Total.Offline), cl)
	gaugeOf(ch, fNonPreferred, float64(h.Total.NonPreferredLeader), cl)
	if q := h.Quorum; q != nil {
		gaugeOf(ch, fQuorumLeader, float64(q.LeaderID), cl)
		gaugeOf(ch, fQuorumEpoch, float64(q.LeaderEpoch), cl)
		gaugeOf(ch, fQuorumHW, float64(q.HighWatermark), cl)
		for role, rs := range map[string][]quorum.Replica{"voter": q.Voters, "observer": q.Observers} {
			for _, r := range rs {
				gaugeOf(ch, fQuorumReplicaEnd, float64(r.LogEndOffset), cl, i32(r.ID), role)
				gaugeOf(ch, fQuorumReplicaLag, float64(r.Lag), cl, i32(r.ID), role)
				if r.LastCaughtUpMs != nil {
					gaugeOf(ch, fQuorumReplicaCaught, float64(*r.LastCaughtUpMs)/1000, cl, i32(r.ID), role)
				}
			}
		}
	}
	for _, b := range s.brokers {
		id := i32(b.ID)
		gaugeOf(ch, fBrokerUp, b2f(b.Up), cl, id)
		gaugeOf(ch, fBrokerLeaders, float64(b.leaders), cl, id)
		if b.LogBytes != nil {
			gaugeOf(ch, fBrokerLogBytes, float64(*b.LogBytes), cl, id)
		}
	}
	for _, d := range s.dirs {
		id := i32(d.Broker)
		gaugeOf(ch, fDirOnline, b2f(d.Error == nil), cl, id, d.Dir)
		gaugeOf(ch, fDirSize, float64(d.SizeBytes), cl, id, d.Dir)
		if d.TotalBytes != nil && d.UsableBytes != nil {
			gaugeOf(ch, fDirTotal, float64(*d.TotalBytes), cl, id, d.Dir)
			gaugeOf(ch, fDirFree, float64(*d.UsableBytes), cl, id, d.Dir)
			gaugeOf(ch, fDirUsed, float64(max(*d.TotalBytes-*d.UsableBytes, 0)), cl, id, d.Dir)
		}
	}
	for _, t := range s.topics {
		gaugeOf(ch, fTopicPartitions, float64(t.Partitions), cl, t.Topic)
		gaugeOf(ch, fTopicUnderRepl, float64(t.UnderReplicated), cl, t.Topic)
		gaugeOf(ch, fTopicUnderMinISR, float64(t.UnderMinISR), cl, t.Topic)
		gaugeOf(ch, fTopicOffline, float64(t.Offline), cl, t.Topic)
		gaugeOf(ch, fTopicNonPreferred, float64(t.NonPreferredLeader), cl, t.Topic)
		optGauge(ch, fTopicEnd, t.endOffset, cl, t.Topic)
		optGauge(ch, fTopicLeaderBytes, t.leaderBytes, cl, t.Topic)
		optGauge(ch, fTopicBytes, t.bytes, cl, t.Topic)
		optGauge(ch, fTopicRecords, t.recordsPerSec, cl, t.Topic)
		optGauge(ch, fTopicBytesIn, t.bytesPerSec, cl, t.Topic)
	}
	for _, g := range s.groups {
		gaugeOf(ch, fGroupLag, float64(g.lag), cl, g.group, g.topic)
		optSeconds(ch, fGroupLagSeconds, g.timeLagMs, cl, g.group, g.topic)
		optGauge(ch, fGroupConsume, g.consumePerSec, cl, g.group, g.topic)
		for _, v := range Verdicts {
			gaugeOf(ch, fGroupVerdict, b2f(g.verdict == v), cl, g.group, g.topic, string(v))
		}
	}
	for _, p := range s.parts {
		part := i32(p.partition)
		gaugeOf(ch, fPartCommitted, float64(p.committed), cl, p.group, p.topic, part)
		gaugeOf(ch, fPartLag, float64(p.lag), cl, p.group, p.topic, part)
		optSeconds(ch, fPartLagSeconds, p.timeLagMs, cl, p.group, p.topic, part)
		for _, v := range Verdicts {
			gaugeOf(ch, fPartVerdict, b2f(p.verdict == v), cl, p.group, p.topic, part, string(v))
		}
	}
}

func optGauge[T int64 | float64](ch chan<- prometheus.Metric, f *family, v *T, labels ...string) {
	if v != nil {
		gaugeOf(ch, f, float64(*v), labels...)
	}
}

func optSeconds(ch chan<- prometheus.Metric, f *family, ms *int64, labels ...string) {
	if ms != nil {
		gaugeOf(ch, f, float64(*ms)/1000, labels...)
	}
}

// page is the rendered snapshot: its text, and gzipped once asked.
type page struct {
	text []byte
	gz   []byte
}

// textFormat is the exposition format served: Prometheus text 0.0.4.
var textFormat = expfmt.NewFormat(expfmt.TypeTextPlain)

// render gathers the snapshots and encodes them as the page scrapes serve.
func (e *Exporter) render() error {
	start := time.Now()
	mfs, err := e.snapReg.Gather()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, textFormat)
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return err
		}
	}
	e.mu.Lock()
	e.page = &page{text: buf.Bytes()}
	e.mu.Unlock()
	e.m.render.Set(time.Since(start).Seconds())
	return nil
}

// rendered returns the page, gzipped when asked (compressed once per
// rendering).
func (e *Exporter) rendered(gz bool) []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.page
	if !gz {
		return p.text
	}
	if p.gz == nil {
		var buf bytes.Buffer
		w, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		_, _ = w.Write(p.text)
		_ = w.Close()
		p.gz = buf.Bytes()
	}
	return p.gz
}

// liveText gathers and encodes the exporter's own metrics.
func (e *Exporter) liveText() ([]byte, error) {
	mfs, err := e.live.Gather()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, textFormat)
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}
