package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/console"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/messages"
	"github.com/kboxdev/kbox/pkg/serde"
	"github.com/twmb/franz-go/pkg/kgo"
)

// messagesParams are the Messages page's query parameters (checked
// before the handler runs, as every route's).
var messagesParams = map[string]queryParam{
	"start":        oneOf(string(messages.Newest), string(messages.Oldest), string(messages.Offset), string(messages.Timestamp)),
	"offset":       intRange("offset", 0, 1<<62, nil),
	"timestamp_ms": intRange("timestamp_ms", 0, 1<<62, nil),
	"cursor":       textParam(1 << 20),
	"partitions":   textParam(1 << 16),
	"limit":        intRange("limit", 1, messages.MaxLimit, nil),
	"scan":         intRange("scan", 1, messages.MaxScan, nil),
	"key":          textParam(1000),
	"value":        textParam(1000),
	"header":       textParam(1000),
	"from":         timeParam,
	"to":           timeParam,
}

// timeParam is a point in time as kbox consume takes it: Unix
// milliseconds, RFC 3339, or a duration ago (15m, 2h, 1d).
func timeParam(v string, _ int) error {
	if _, err := console.ParseTime(v, time.Now()); err != nil {
		return fmt.Errorf("want Unix milliseconds, RFC 3339 (2026-11-30T14:05:00Z) or a duration ago (15m, 2h, 1d)")
	}
	return nil
}

// queryTime is the time of query parameter k (nil when absent; checked
// by timeParam before the handler runs).
func queryTime(q url.Values, k string, now time.Time) *int64 {
	v := q.Get(k)
	if v == "" {
		return nil
	}
	ms, err := console.ParseTime(v, now)
	if err != nil {
		return nil
	}
	return &ms
}

// textParam is any text up to n bytes.
func textParam(n int) queryParam {
	return func(v string, _ int) error {
		if len(v) > n {
			return fmt.Errorf("longer than %d bytes", n)
		}
		return nil
	}
}

// decoding is how the Messages page reads a cluster's records: auto
// (Confluent framing through the cluster's registry, else UTF-8, else
// base64), masked with the server's --mask-field.
func (s *Server) decoding(cs *clusterState) *console.Decoding {
	return &console.Decoding{Decoder: &serde.Decoder{Registry: cs.Registry, Subjects: true}, Key: serde.Auto, Value: serde.Auto, Mask: s.o.Mask}
}

// messagesPage is a page of a topic's records (pkg/messages.Read).
func (s *Server) messagesPage(w http.ResponseWriter, r *http.Request, cs *clusterState, cl *kafka.Client) {
	q := r.URL.Query()
	req := messages.Request{Topic: r.PathValue("topic"), Cursor: q.Get("cursor"), Key: q.Get("key"), Value: q.Get("value"),
		Header: q.Get("header"), Decoding: s.decoding(cs)}
	now := time.Now()
	req.From, req.To = queryTime(q, "from", now), queryTime(q, "to", now)
	if v := q.Get("start"); v != "" {
		req.Start = messages.Start(v)
	}
	req.Offset, _ = strconv.ParseInt(q.Get("offset"), 10, 64)
	req.TimestampMs, _ = strconv.ParseInt(q.Get("timestamp_ms"), 10, 64)
	if v := q.Get("limit"); v != "" {
		req.Limit, _ = strconv.Atoi(v)
	}
	if v := q.Get("scan"); v != "" {
		req.Scan, _ = strconv.Atoi(v)
	}
	if v := strings.TrimSpace(q.Get("partitions")); v != "" {
		for _, f := range strings.Split(v, ",") {
			p, err := strconv.ParseInt(strings.TrimSpace(f), 10, 32)
			if err != nil || p < 0 {
				httpError(w, http.StatusBadRequest, "query parameter partitions: want partition numbers separated by commas")
				return
			}
			req.Partitions = append(req.Partitions, int32(p))
		}
	}
	page, err := messages.Read(r.Context(), cl.Client, req)
	switch {
	case messages.IsBadRequest(err):
		httpError(w, http.StatusBadRequest, "%s", err)
	case err != nil:
		httpError(w, http.StatusBadGateway, "%s", err)
	default:
		writeJSON(w, http.StatusOK, page)
	}
}

// ProduceRequest is produce's body: one record, its key, value and
// headers as text (a null key or value when absent).
type ProduceRequest struct {
	Topic string `json:"topic"`
	// Partition: -1 or absent lets the partitioner choose.
	Partition *int32            `json:"partition"`
	Key       *string           `json:"key"`
	Value     *string           `json:"value"`
	Headers   map[string]string `json:"headers"`
}

// ProducePreview is what a produce will write.
type ProducePreview struct {
	Topic     string            `json:"topic"`
	Partition *int32            `json:"partition"`
	Key       *string           `json:"key"`
	Value     *string           `json:"value"`
	Headers   map[string]string `json:"headers"`
	SizeBytes int               `json:"size_bytes"`
}

// ProduceResult is a produced record's place.
type ProduceResult struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
}

func planProduce(ctx context.Context, cs *clusterState, cl *kafka.Client, body []byte) (any, func(context.Context) (any, error), error) {
	if cs.Producer == nil {
		return nil, nil, fmt.Errorf("cluster %s: no producer configured", cs.Name)
	}
	var req ProduceRequest
	if err := decode(body, &req); err != nil {
		return nil, nil, err
	}
	if req.Topic == "" {
		return nil, nil, badf("topic: a name is needed")
	}
	c, err := topicService(cl).Metadata(ctx)
	if err != nil {
		return nil, nil, err
	}
	t, ok := c.Topics[req.Topic]
	if !ok {
		return nil, nil, badf("topic %q does not exist", req.Topic)
	}
	if req.Partition != nil && *req.Partition == -1 {
		req.Partition = nil
	}
	if p := req.Partition; p != nil && (*p < 0 || int(*p) >= len(t.Partitions)) {
		return nil, nil, badf("partition %d: topic %s has partitions 0 to %d", *p, req.Topic, len(t.Partitions)-1)
	}
	rec := &kgo.Record{Topic: req.Topic}
	if req.Key != nil {
		rec.Key = []byte(*req.Key)
	}
	if req.Value != nil {
		rec.Value = []byte(*req.Value)
	}
	size := len(rec.Key) + len(rec.Value)
	for k, v := range req.Headers {
		rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: k, Value: []byte(v)})
		size += len(k) + len(v)
	}
	sort.Slice(rec.Headers, func(i, j int) bool { return rec.Headers[i].Key < rec.Headers[j].Key })
	rec.Partition = -1
	if req.Partition != nil {
		rec.Partition = *req.Partition
	}
	preview := ProducePreview{Topic: req.Topic, Partition: req.Partition, Key: req.Key, Value: req.Value, Headers: req.Headers, SizeBytes: size}
	if preview.Headers == nil {
		preview.Headers = map[string]string{}
	}
	return preview, func(ctx context.Context) (any, error) {
		pr, err := cs.Producer(ctx)
		if err != nil {
			return nil, err
		}
		defer pr.Close()
		r := *rec
		if err := pr.ProduceSync(ctx, &r).FirstErr(); err != nil {
			return nil, pr.Explain(err)
		}
		return ProduceResult{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset}, nil
	}, nil
}
