package metrics

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/javafmt"
)

// ReporterClass is the metric reporter of Kafka's system tests that kbox
// implements (metric.reporters).
const ReporterClass = "org.apache.kafka.tools.PushHttpMetricsReporter"

// PushConfig is PushHttpMetricsReporter's configuration: metrics.url,
// metrics.period (seconds) and metrics.host (empty: the local host's
// canonical name).
type PushConfig struct {
	URL    string
	Period time.Duration
	Host   string
}

// Report is the JSON body the reporter posts.
type Report struct {
	Client  ReportClient   `json:"client"`
	Metrics []ReportMetric `json:"metrics"`
}

// ReportClient identifies the client in a Report.
type ReportClient struct {
	Host     string `json:"host"`
	ClientID string `json:"client_id"`
	TimeMs   int64  `json:"time"`
}

// ReportMetric is one metric in a Report.
type ReportMetric struct {
	Name  string      `json:"name"`
	Group string      `json:"group"`
	Tags  orderedTags `json:"tags"`
	Value javaDouble  `json:"value"`
}

// orderedTags encodes as a JSON object in tag order (Java's LinkedHashMap).
type orderedTags []Tag

func (t orderedTags) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, tag := range t {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(tag.Key)
		v, _ := json.Marshal(tag.Value)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// javaDouble encodes as Jackson writes a Double: Double.toString
// (2000.0, 3.3554432E7), and NaN or infinities as strings.
type javaDouble float64

func (d javaDouble) MarshalJSON() ([]byte, error) {
	x := float64(d)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return json.Marshal(javafmt.DoubleToString(x))
	}
	return []byte(javafmt.DoubleToString(x)), nil
}

// NewReport builds the report of vs (in the registry's order).
func NewReport(host, clientID string, timeMs int64, vs []Value) Report {
	r := Report{Client: ReportClient{Host: host, ClientID: clientID, TimeMs: timeMs}, Metrics: make([]ReportMetric, 0, len(vs))}
	for _, v := range vs {
		r.Metrics = append(r.Metrics, ReportMetric{Name: v.Name.Name, Group: v.Group, Tags: v.Tags, Value: javaDouble(v.Value)})
	}
	return r
}

// CanonicalHost is InetAddress.getLocalHost().getCanonicalHostName(): the
// host name, resolved, then the first name of its address (the address
// itself when it has none).
func CanonicalHost() string {
	h, err := os.Hostname()
	if err != nil {
		return "localhost"
	}
	addrs, err := net.LookupHost(h)
	if err != nil || len(addrs) == 0 {
		return h
	}
	names, err := net.LookupAddr(addrs[0])
	if err != nil || len(names) == 0 {
		return addrs[0]
	}
	return strings.TrimSuffix(names[0], ".")
}

// Pusher posts a registry's metrics every period, as
// PushHttpMetricsReporter does: the first push one period after Start, none
// when it is closed (Java's reporter cancels its schedule on close).
type Pusher struct {
	cfg      PushConfig
	snapshot func() []Value
	clientID string
	host     string
	client   *http.Client
	onErr    func(error)

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// StartPush starts pushing the metrics snapshot returns (Recorder.Snapshot)
// for clientID. onErr receives failed pushes (Java logs them and carries
// on); it may be nil.
func StartPush(cfg PushConfig, snapshot func() []Value, clientID string, onErr func(error)) *Pusher {
	host := cfg.Host
	if host == "" {
		host = CanonicalHost()
	}
	// Java's HttpURLConnection uses no proxy unless the JVM is told to.
	tr := &http.Transport{Proxy: nil}
	p := &Pusher{cfg: cfg, snapshot: snapshot, clientID: clientID, host: host,
		client: &http.Client{Transport: tr, Timeout: pushTimeout}, onErr: onErr,
		stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p
}

// pushTimeout bounds one push, as Java's close waits at most 30 s for it.
const pushTimeout = 30 * time.Second

func (p *Pusher) loop() {
	defer close(p.done)
	defer p.client.CloseIdleConnections()
	t := time.NewTicker(p.cfg.Period)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			if err := p.Push(context.Background()); err != nil && p.onErr != nil {
				p.onErr(err)
			}
		}
	}
}

// Push posts one report now.
func (p *Pusher) Push(ctx context.Context) error {
	body, err := json.Marshal(NewReport(p.host, p.clientID, time.Now().UnixMilli(), p.snapshot()))
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "*/*")
	resp, err := p.client.Do(req)
	if err != nil {
		return fmt.Errorf("pushing metrics to %s: %w", p.cfg.URL, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	switch {
	case resp.StatusCode >= 400:
		return fmt.Errorf("pushing metrics to %s: %d: %s", p.cfg.URL, resp.StatusCode, strings.TrimSpace(string(msg)))
	case resp.StatusCode >= 300:
		return fmt.Errorf("pushing metrics to %s: redirects are not supported, saw %d", p.cfg.URL, resp.StatusCode)
	}
	return nil
}

// Stopped is closed when the schedule has ended.
func (p *Pusher) Stopped() <-chan struct{} { return p.done }

// Close stops the schedule and waits for a push in progress (at most
// 30 s); it pushes nothing more.
func (p *Pusher) Close() {
	p.once.Do(func() {
		close(p.stop)
		<-p.done
	})
}
