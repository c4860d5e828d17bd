package offsets

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/javaerr"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/kboxdev/kbox/pkg/reassign"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DeleteEntry is one partition of a delete-records file: delete the
// records before Offset (-1: before the high watermark, all of them).
type DeleteEntry struct {
	TP     reassign.TP
	Offset int64
}

// ParseDeleteJSON is DeleteRecordsCommand's reading of --offset-json-file:
// {"partitions":[{"topic":"t","partition":0,"offset":5}],"version":1}, with
// Apache's messages for what it refuses (Kafka's JSON decoders: a field of
// the wrong type is "Expected `Integer` value, received X"), and the
// duplicate check. The entries come in the file's order.
func ParseDeleteJSON(data []byte) ([]DeleteEntry, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var root json.RawMessage
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("The input string is not a valid JSON")
	}
	obj, err := asObject(root)
	if err != nil {
		return nil, err
	}
	version := int64(1)
	if v, ok := obj["version"]; ok {
		if version, err = decodeInt(v, "Integer", 32); err != nil {
			return nil, err
		}
	}
	if version != 1 {
		return nil, fmt.Errorf("Not supported version field value %d", version)
	}
	parts, ok := obj["partitions"]
	if !ok {
		return nil, fmt.Errorf("Missing partitions field")
	}
	arr, err := asArray(parts)
	if err != nil {
		return nil, err
	}
	var out []DeleteEntry
	count := map[reassign.TP]int{}
	for _, e := range arr {
		po, err := asObject(e)
		if err != nil {
			return nil, err
		}
		field := func(name string) (json.RawMessage, error) {
			v, ok := po[name]
			if !ok {
				return nil, fmt.Errorf("No such field exists: `%s`", name)
			}
			return v, nil
		}
		tv, err := field("topic")
		if err != nil {
			return nil, err
		}
		var topic string
		if t := bytes.TrimSpace(tv); len(t) == 0 || t[0] != '"' || json.Unmarshal(t, &topic) != nil {
			return nil, fmt.Errorf("Expected `String` value, received %s", jacksonText(tv))
		}
		pv, err := field("partition")
		if err != nil {
			return nil, err
		}
		p, err := decodeInt(pv, "Integer", 32)
		if err != nil {
			return nil, err
		}
		ov, err := field("offset")
		if err != nil {
			return nil, err
		}
		o, err := decodeInt(ov, "Long", 64)
		if err != nil {
			return nil, err
		}
		tp := reassign.TP{Topic: topic, Partition: int32(p)}
		count[tp]++
		out = append(out, DeleteEntry{TP: tp, Offset: o})
	}
	// The map of the file (HashMap, in the file's order), its duplicates
	// collected into a HashSet: Apache's message lists them in that order.
	var uniq []reassign.TP
	seen := map[reassign.TP]bool{}
	for _, e := range out {
		if !seen[e.TP] {
			seen[e.TP] = true
			uniq = append(uniq, e.TP)
		}
	}
	var dups []reassign.TP
	for _, tp := range JavaMapOrder(uniq) {
		if count[tp] > 1 {
			dups = append(dups, tp)
		}
	}
	if len(dups) > 0 {
		names := make([]string, 0, len(dups))
		for _, tp := range JavaMapOrder(dups) {
			names = append(names, tp.String())
		}
		return nil, fmt.Errorf("Offset json file contains duplicate topic partitions: %s", strings.Join(names, ","))
	}
	return out, nil
}

// JavaMapOrder is the iteration order of a HashMap<TopicPartition, ?> (or
// HashSet) with the default capacity, filled in the given order.
func JavaMapOrder(tps []reassign.TP) []reassign.TP {
	hs := make([]int32, len(tps))
	for i, tp := range tps {
		hs[i] = tp.JavaHash()
	}
	out := make([]reassign.TP, 0, len(tps))
	for _, i := range javafmt.HashOrder(hs, javafmt.HashMapCapacity(-1, len(tps))) {
		out = append(out, tps[i])
	}
	return out
}

// jacksonText is a JSON value as Jackson's JsonNode.toString prints it:
// compact.
func jacksonText(v json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return string(bytes.TrimSpace(v))
	}
	return b.String()
}

func asObject(v json.RawMessage) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if t := bytes.TrimSpace(v); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &m) != nil {
		return nil, fmt.Errorf("Expected JSON object, received %s", jacksonText(v))
	}
	return m, nil
}

func asArray(v json.RawMessage) ([]json.RawMessage, error) {
	var a []json.RawMessage
	if t := bytes.TrimSpace(v); len(t) == 0 || t[0] != '[' || json.Unmarshal(t, &a) != nil {
		return nil, fmt.Errorf("Expected JSON array, received %s", jacksonText(v))
	}
	return a, nil
}

// decodeInt is DecodeInteger (bits 32: an int token) and DecodeLong (64:
// an int or long token): a JSON integer without fraction or exponent that
// fits.
func decodeInt(v json.RawMessage, class string, bits int) (int64, error) {
	t := string(bytes.TrimSpace(v))
	if !strings.ContainsAny(t, ".eE\"") && t != "" {
		if n, err := strconv.ParseInt(t, 10, bits); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("Expected `%s` value, received %s", class, jacksonText(v))
}

// DeleteResult is one partition's outcome: its new low watermark, or the
// exception as Java prints it.
type DeleteResult struct {
	TP           reassign.TP
	LowWatermark int64
	Err          string
}

// DeleteRecords deletes the records before each entry's offset: one
// DeleteRecords request per leader. A partition the cluster does not know
// (an unknown topic, a partition beyond its count) is looked for again
// until timeout passes, as the Java admin client does, and then fails
// with its TimeoutException. Results come in the entries' order.
func DeleteRecords(ctx context.Context, cl *kgo.Client, entries []DeleteEntry, timeout time.Duration) ([]DeleteResult, error) {
	deadline := time.Now().Add(timeout)
	res := map[reassign.TP]*DeleteResult{}
	pending := map[reassign.TP]int64{}
	for _, e := range entries {
		pending[e.TP] = e.Offset
	}
	for len(pending) > 0 {
		known, err := knownPartitions(ctx, cl, pending)
		if err != nil {
			return nil, err
		}
		if len(known) > 0 {
			req := kmsg.NewPtrDeleteRecordsRequest()
			req.TimeoutMillis = int32(timeout.Milliseconds())
			byTopic := map[string]int{}
			var tps []reassign.TP
			for tp := range known {
				tps = append(tps, tp)
			}
			sort.Slice(tps, func(i, j int) bool { return tps[i].String() < tps[j].String() })
			for _, tp := range tps {
				i, ok := byTopic[tp.Topic]
				if !ok {
					rt := kmsg.NewDeleteRecordsRequestTopic()
					rt.Topic = tp.Topic
					req.Topics = append(req.Topics, rt)
					i = len(req.Topics) - 1
					byTopic[tp.Topic] = i
				}
				rp := kmsg.NewDeleteRecordsRequestTopicPartition()
				rp.Partition = tp.Partition
				rp.Offset = pending[tp]
				req.Topics[i].Partitions = append(req.Topics[i].Partitions, rp)
				delete(pending, tp)
			}
			for _, sh := range cl.RequestSharded(ctx, req) {
				if sh.Err != nil {
					return nil, sh.Err
				}
				for _, t := range sh.Resp.(*kmsg.DeleteRecordsResponse).Topics {
					for _, p := range t.Partitions {
						r := &DeleteResult{TP: reassign.TP{Topic: t.Topic, Partition: p.Partition}, LowWatermark: p.LowWatermark}
						if p.ErrorCode != 0 {
							r.Err = javaerr.String(p.ErrorCode, describe(p.ErrorCode))
						}
						res[r.TP] = r
					}
				}
			}
		}
		if len(pending) == 0 {
			break
		}
		if time.Now().After(deadline) {
			for tp := range pending {
				res[tp] = &DeleteResult{TP: tp, Err: "org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: deleteRecords(api=METADATA)"}
			}
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(500*time.Millisecond, time.Until(deadline)+time.Millisecond)):
		}
	}
	out := make([]DeleteResult, 0, len(entries))
	for _, e := range entries {
		if r, ok := res[e.TP]; ok {
			out = append(out, *r)
		} else {
			out = append(out, DeleteResult{TP: e.TP, Err: javaerr.String(-1, describe(-1))})
		}
	}
	return out, nil
}

// knownPartitions are the pending partitions the cluster's metadata has
// with a leader.
func knownPartitions(ctx context.Context, cl *kgo.Client, pending map[reassign.TP]int64) (map[reassign.TP]bool, error) {
	req := kmsg.NewPtrMetadataRequest()
	topics := map[string]bool{}
	for tp := range pending {
		if !topics[tp.Topic] {
			topics[tp.Topic] = true
			rt := kmsg.NewMetadataRequestTopic()
			name := tp.Topic
			rt.Topic = &name
			req.Topics = append(req.Topics, rt)
		}
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	out := map[reassign.TP]bool{}
	for _, t := range resp.Topics {
		if t.Topic == nil || t.ErrorCode != 0 {
			continue
		}
		for _, p := range t.Partitions {
			tp := reassign.TP{Topic: *t.Topic, Partition: p.Partition}
			if _, ok := pending[tp]; ok && p.Leader >= 0 {
				out[tp] = true
			}
		}
	}
	return out, nil
}

// WriteDeleteResults is DeleteRecordsCommand's report: a line per
// partition, in the file's order. (Apache's order is that of the admin
// client's immutable Map.of of partitions, which the JVM salts at random
// on every run.)
func WriteDeleteResults(w io.Writer, rs []DeleteResult) error {
	var b strings.Builder
	for _, r := range rs {
		if r.Err != "" {
			fmt.Fprintf(&b, "partition: %s\terror: %s\n", r.TP, r.Err)
		} else {
			fmt.Fprintf(&b, "partition: %s\tlow_watermark: %d\n", r.TP, r.LowWatermark)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
