// Package offsets looks up, for the partitions a filter selects, the offset
// of a point in time or of one of Kafka's special positions (latest,
// earliest, max timestamp, ...): one Metadata request for the partitions,
// then one ListOffsets request per partition leader. It is the domain of
// kafka-get-offsets (GetOffsetShell) and of kbox offsets get.
package offsets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/javaerr"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/kboxdev/kbox/pkg/topics"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The special timestamps of a ListOffsets request (ListOffsetsRequest's
// constants in Kafka 4.4).
const (
	Latest                int64 = -1
	Earliest              int64 = -2
	MaxTimestamp          int64 = -3
	EarliestLocal         int64 = -4
	LatestTiered          int64 = -5
	EarliestPendingUpload int64 = -6
)

// names are the words GetOffsetShell takes for the special timestamps.
var names = map[string]int64{
	"latest":                  Latest,
	"earliest":                Earliest,
	"max-timestamp":           MaxTimestamp,
	"earliest-local":          EarliestLocal,
	"latest-tiered":           LatestTiered,
	"earliest-pending-upload": EarliestPendingUpload,
}

// SpecName is the word for a special timestamp, "timestamp" for any other
// value (a point in time in Unix milliseconds).
func SpecName(ts int64) string {
	for n, v := range names {
		if v == ts {
			return n
		}
	}
	return "timestamp"
}

// ParseApacheTime is GetOffsetShell.parseOffsetSpec: a word, or a Java long
// (-1 .. -6 the special positions, anything else a timestamp).
func ParseApacheTime(s string) (int64, error) {
	if v, ok := names[s]; ok {
		return v, nil
	}
	v, err := javafmt.ParseInt(s, 64)
	if err != nil {
		return 0, fmt.Errorf("Malformed time argument %s. Please use -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered / -6 or earliest-pending-upload, or a specified long format timestamp", s)
	}
	return v, nil
}

// ParseTimeName is a --time of kbox offsets get: one of the words.
func ParseTimeName(s string) (int64, error) {
	if v, ok := names[s]; ok {
		return v, nil
	}
	return 0, fmt.Errorf("invalid --time %q: want latest, earliest, max-timestamp, earliest-local, latest-tiered or earliest-pending-upload", s)
}

// atLayouts are the forms --at takes without a zone (local time), longest
// first; each may also end in a zone (Z, +01:00).
var atLayouts = []string{
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	"2006-01-02",
}

// ParseAt parses a point in time: a date and time (2026-11-30T14:05,
// seconds and fractions optional, 'T' or a space) in loc unless it ends in
// a zone (Z, +01:00, -0500), a bare date (midnight), or Unix milliseconds.
func ParseAt(s string, loc *time.Location) (time.Time, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.UnixMilli(n), nil
	}
	for _, l := range atLayouts {
		for _, z := range []string{"Z07:00", "Z0700", ""} {
			if l == "2006-01-02" && z != "" {
				continue
			}
			if z == "" {
				if t, err := time.ParseInLocation(l, s, loc); err == nil {
					return t, nil
				}
				continue
			}
			if t, err := time.Parse(l+z, s); err == nil {
				return t, nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("invalid --at %q: want a date and time such as 2026-11-30T14:05 (local time), 2026-11-30T14:05:00+01:00, 2026-11-30, or Unix milliseconds", s)
}

// ParseAgo parses a duration back from now: Go's units (15m, 2h30m, 90s)
// and d for days (1d, 1d12h). It must be positive.
func ParseAgo(s string) (time.Duration, error) {
	bad := fmt.Errorf("invalid --ago %q: want a duration such as 15m, 2h30m or 1d", s)
	d := s
	var days time.Duration
	if i := strings.Index(d, "d"); i > 0 {
		n, err := strconv.Atoi(d[:i])
		if err != nil || n < 0 {
			return 0, bad
		}
		days = time.Duration(n) * 24 * time.Hour
		d = d[i+1:]
	}
	var dur time.Duration
	if d != "" {
		var err error
		if dur, err = time.ParseDuration(d); err != nil {
			return 0, bad
		}
	}
	if dur+days <= 0 {
		return 0, fmt.Errorf("invalid --ago %q: the duration must be positive", s)
	}
	return dur + days, nil
}

// Filter selects topics and their partitions (GetOffsetShell's
// TopicPartitionFilter).
type Filter interface {
	TopicAllowed(topic string) bool
	PartitionAllowed(topic string, partition int32) bool
}

// TopicPartitions is a topic regex (IncludeList; nil: every topic) and a
// set of partition ids (empty: all): --topic and --partitions.
type TopicPartitions struct {
	Topic      *topics.Filter
	Partitions map[int32]bool
}

// TopicAllowed implements Filter.
func (f TopicPartitions) TopicAllowed(t string) bool {
	return f.Topic == nil || f.Topic.Allowed(t, false)
}

// PartitionAllowed implements Filter.
func (f TopicPartitions) PartitionAllowed(t string, p int32) bool {
	return f.TopicAllowed(t) && (len(f.Partitions) == 0 || f.Partitions[p])
}

// NewTopicPartitions is createTopicPartitionFilterWithTopicAndPartitionPattern:
// the regex first (its error "X is an invalid regex."), then the partition
// list, comma-separated Java ints ("" is every partition).
func NewTopicPartitions(topic *string, partitions *string) (TopicPartitions, error) {
	var f TopicPartitions
	raw := ".*"
	if topic != nil {
		raw = *topic
	}
	tf, err := topics.NewFilter(raw)
	if err != nil {
		return f, err
	}
	f.Topic = tf
	if partitions != nil && *partitions != "" {
		f.Partitions = map[int32]bool{}
		for _, p := range javaSplit(*partitions) {
			n, err := javafmt.ParseInt(p, 32)
			if err != nil {
				return f, &TerseError{"--partitions expects a comma separated list of numeric partition ids, but received: " + *partitions}
			}
			f.Partitions[int32(n)] = true
		}
	}
	return f, nil
}

// TerseError is Apache's TerseException: its message is all the tool
// prints (a message without a stack trace).
type TerseError struct{ Msg string }

func (e *TerseError) Error() string { return e.Msg }

// javaSplit is String.split(","): trailing empty strings dropped; "" is
// one empty string.
func javaSplit(s string) []string {
	parts := strings.Split(s, ",")
	for len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) == 1 && parts[0] == "" && s != "" {
		return nil
	}
	return parts
}

// rule is one TopicPartitionPattern of --topic-partitions.
type rule struct {
	topic  *topics.Filter
	lo, hi int64 // [lo, hi)
}

// Rules is --topic-partitions: a partition is selected when a rule selects it.
type Rules []rule

// TopicAllowed implements Filter.
func (rs Rules) TopicAllowed(t string) bool {
	for _, r := range rs {
		if r.topic.Allowed(t, false) {
			return true
		}
	}
	return false
}

// PartitionAllowed implements Filter.
func (rs Rules) PartitionAllowed(t string, p int32) bool {
	for _, r := range rs {
		if r.topic.Allowed(t, false) && int64(p) >= r.lo && int64(p) < r.hi {
			return true
		}
	}
	return false
}

// rulePattern is GetOffsetShell's TOPIC_PARTITION_PATTERN, matched whole.
var rulePattern = regexp.MustCompile(`^([^:,]*)(?::(?:([0-9]*)|(?:([0-9]*)-([0-9]*))))?$`)

// ParseRules is createTopicPartitionFilterWithPatternList. Errors carry
// the text GetOffsetShell prints after "Error occurred: ": a rule that
// does not match is a TerseException wrapped in a RuntimeException, a
// partition number out of int range Java's NumberFormatException message.
func ParseRules(s string) (Rules, error) {
	var rs Rules
	parts := strings.Split(s, ",")
	for len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	for _, spec := range parts {
		m := rulePattern.FindStringSubmatch(spec)
		if m == nil {
			return nil, errors.New("org.apache.kafka.tools.TerseException: Invalid rule specification: " + spec)
		}
		raw := ".*"
		if m[1] != "" {
			raw = m[1]
		}
		tf, err := topics.NewFilter(raw)
		if err != nil {
			return nil, err
		}
		r := rule{topic: tf, lo: 0, hi: 1<<31 - 1}
		num := func(g string) (int64, error) {
			n, err := javafmt.ParseInt(g, 32)
			if err != nil {
				return 0, fmt.Errorf("For input string: \"%s\"", g)
			}
			return n, nil
		}
		if m[2] != "" {
			n, err := num(m[2])
			if err != nil {
				return nil, err
			}
			r.lo, r.hi = n, n+1
		} else {
			if m[3] != "" {
				if r.lo, err = num(m[3]); err != nil {
					return nil, err
				}
			}
			if m[4] != "" {
				if r.hi, err = num(m[4]); err != nil {
					return nil, err
				}
			}
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// Request is what to look up.
type Request struct {
	Filter Filter
	// ExcludeInternal leaves out the topics the brokers mark internal.
	ExcludeInternal bool
	// Time is a special timestamp (Latest ...) or Unix milliseconds.
	Time int64
}

// Partition is one partition's answer.
type Partition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// Offset is null when the partition has none for the time: no record
	// at or after it, or a position the log does not have (latest-tiered
	// without tiered storage).
	Offset *int64 `json:"offset"`
	// TimestampMs is the timestamp of the record at Offset when the broker
	// names one (a time lookup, max-timestamp), else null.
	TimestampMs *int64 `json:"timestamp_ms"`
	LeaderEpoch *int32 `json:"leader_epoch"`
	// Error is the broker's error as Java prints the exception, null when none.
	Error *string `json:"error"`
}

// Report is the answer for every selected partition.
type Report struct {
	// Time is the position looked up: latest, earliest, max-timestamp,
	// earliest-local, latest-tiered, earliest-pending-upload or timestamp.
	Time string `json:"time"`
	// AtMs is the instant looked up (Time "timestamp"), else null.
	AtMs       *int64      `json:"at_ms"`
	Partitions []Partition `json:"partitions"`
}

// ErrNoMatch is GetOffsetShell's "no partition selected" exception.
var ErrNoMatch = &TerseError{"Could not match any topic-partitions with the specified filters"}

// List looks the offsets up: the topics (internal ones unless excluded)
// and their partitions from one Metadata request, the filter, then
// ListOffsets to each leader. Partitions come sorted by topic and id.
func List(ctx context.Context, cl *kgo.Client, req Request) (*Report, error) {
	meta := kmsg.NewPtrMetadataRequest()
	mresp, err := meta.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	type tp struct {
		t string
		p int32
	}
	var sel []tp
	for _, t := range mresp.Topics {
		if t.Topic == nil || (req.ExcludeInternal && t.IsInternal) || !req.Filter.TopicAllowed(*t.Topic) {
			continue
		}
		if t.ErrorCode != 0 {
			return nil, fmt.Errorf("%s", javaerr.String(t.ErrorCode, describe(t.ErrorCode)))
		}
		for _, p := range t.Partitions {
			if req.Filter.PartitionAllowed(*t.Topic, p.Partition) {
				sel = append(sel, tp{*t.Topic, p.Partition})
			}
		}
	}
	if len(sel) == 0 {
		return nil, ErrNoMatch
	}
	sort.Slice(sel, func(i, j int) bool {
		if sel[i].t != sel[j].t {
			return sel[i].t < sel[j].t
		}
		return sel[i].p < sel[j].p
	})
	lreq := kmsg.NewPtrListOffsetsRequest()
	lreq.ReplicaID = -1
	for i, s := range sel {
		if i == 0 || sel[i-1].t != s.t {
			rt := kmsg.NewListOffsetsRequestTopic()
			rt.Topic = s.t
			lreq.Topics = append(lreq.Topics, rt)
		}
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition = s.p
		rp.CurrentLeaderEpoch = -1
		rp.Timestamp = req.Time
		rt := &lreq.Topics[len(lreq.Topics)-1]
		rt.Partitions = append(rt.Partitions, rp)
	}
	got := map[tp]kmsg.ListOffsetsResponseTopicPartition{}
	for _, sh := range cl.RequestSharded(ctx, lreq) {
		if sh.Err != nil {
			return nil, sh.Err
		}
		for _, t := range sh.Resp.(*kmsg.ListOffsetsResponse).Topics {
			for _, p := range t.Partitions {
				got[tp{t.Topic, p.Partition}] = p
			}
		}
	}
	rep := &Report{Time: SpecName(req.Time), Partitions: make([]Partition, 0, len(sel))}
	if rep.Time == "timestamp" {
		at := req.Time
		rep.AtMs = &at
	}
	for _, s := range sel {
		r := Partition{Topic: s.t, Partition: s.p}
		p, ok := got[s]
		switch {
		case !ok:
			msg := javaerr.String(kerr.UnknownServerError.Code, "no answer for the partition")
			r.Error = &msg
		case p.ErrorCode != 0:
			msg := javaerr.String(p.ErrorCode, describe(p.ErrorCode))
			r.Error = &msg
		default:
			if p.Offset >= 0 {
				o := p.Offset
				r.Offset = &o
			}
			if p.Timestamp >= 0 && r.Offset != nil {
				ts := p.Timestamp
				r.TimestampMs = &ts
			}
			if p.LeaderEpoch >= 0 && r.Offset != nil {
				e := p.LeaderEpoch
				r.LeaderEpoch = &e
			}
		}
		rep.Partitions = append(rep.Partitions, r)
	}
	return rep, nil
}

// describe is the default message of an error code's exception (the
// words Kafka's Errors enum gives it, as franz-go keeps them).
func describe(code int16) string {
	if ke, ok := kerr.ErrorForCode(code).(*kerr.Error); ok {
		return ke.Description
	}
	return "The server experienced an unexpected error when processing the request."
}

// Skipped are GetOffsetShell's stderr lines: one per partition whose
// lookup failed, in the order it asked for them.
func (r *Report) Skipped() []string {
	var out []string
	for _, p := range r.Partitions {
		if p.Error != nil {
			out = append(out, fmt.Sprintf("Skip getting offsets for topic-partition %s-%d due to error: %s", p.Topic, p.Partition, *p.Error))
		}
	}
	return out
}

// WriteApache writes GetOffsetShell's lines, topic:partition:offset for
// each partition with an offset, sorted as TopicPartition.toString()
// strings ("t-10" before "t-2").
func (r *Report) WriteApache(w io.Writer) error {
	var ps []Partition
	for _, p := range r.Partitions {
		if p.Offset != nil {
			ps = append(ps, p)
		}
	}
	key := func(p Partition) string { return p.Topic + "-" + strconv.Itoa(int(p.Partition)) }
	sort.SliceStable(ps, func(i, j int) bool { return key(ps[i]) < key(ps[j]) })
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%s:%d:%d\n", p.Topic, p.Partition, *p.Offset)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Header implements output.Tabular.
func (r *Report) Header() []string {
	return []string{"TOPIC", "PARTITION", "OFFSET", "TIMESTAMP", "ERROR"}
}

// Rows implements output.Tabular: the record timestamp in local time.
func (r *Report) Rows() [][]string {
	rows := make([][]string, 0, len(r.Partitions))
	for _, p := range r.Partitions {
		off, ts, e := "-", "-", ""
		if p.Offset != nil {
			off = strconv.FormatInt(*p.Offset, 10)
		}
		if p.TimestampMs != nil {
			ts = time.UnixMilli(*p.TimestampMs).Format("2006-01-02T15:04:05.000Z07:00")
		}
		if p.Error != nil {
			e = *p.Error
		}
		rows = append(rows, []string{p.Topic, strconv.Itoa(int(p.Partition)), off, ts, e})
	}
	return rows
}
