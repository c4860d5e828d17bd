package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/playground"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// startPlayground runs a one-broker kfake cluster with topics, and
// returns it with a client for checks.
func startPlayground(t *testing.T, topics ...playground.Topic) (*playground.Playground, *kgo.Client) {
	t.Helper()
	pg, err := playground.Start(playground.Options{Brokers: 1, Topics: topics})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pg.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(pg.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return pg, cl
}

// connectTo is a cluster's Connect as cmd/ui builds it: the one client
// constructor (pkg/kafka), connected; opts are extra kgo options (hooks).
func connectTo(addrs []string, opts ...kgo.Opt) func(context.Context) (*kafka.Client, error) {
	return func(ctx context.Context) (*kafka.Client, error) {
		cl, err := kafka.NewClient(&config.Connection{Bootstrap: addrs, Props: config.NewProperties()}, kafka.Admin, kafka.Options{Extra: opts})
		if err != nil {
			return nil, err
		}
		if err := cl.Connect(ctx); err != nil {
			cl.Close()
			return nil, err
		}
		return cl, nil
	}
}

func clusterOf(name string, pg *playground.Playground) Cluster {
	return Cluster{
		Name: name, Bootstrap: pg.Addrs(), SecurityProtocol: "PLAINTEXT",
		Connect: connectTo(pg.Addrs()),
		Reader: func(context.Context) (*kgo.Client, func(), error) {
			cl, err := kgo.NewClient(kgo.SeedBrokers(pg.Addrs()...), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
			if err != nil {
				return nil, nil, err
			}
			return cl, cl.Close, nil
		},
	}
}

func newServer(t *testing.T, o Options) *httptest.Server {
	t.Helper()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() { hs.Close(); s.Close() })
	return hs
}

func get(t *testing.T, hs *httptest.Server, path string, out any) int {
	t.Helper()
	resp, err := hs.Client().Get(hs.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("GET %s: %v\n%s", path, err, b)
		}
	}
	return resp.StatusCode
}

func post(t *testing.T, hs *httptest.Server, path string, body any, out any) (int, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, hs.URL+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(WriteHeader, "1")
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(rb, out); err != nil {
			t.Fatalf("POST %s: %v\n%s", path, err, rb)
		}
	}
	return resp.StatusCode, string(rb)
}

func produce(t *testing.T, cl *kgo.Client, topic string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := 0; i < n; i++ {
		cl.Produce(ctx, &kgo.Record{Topic: topic, Value: []byte("0123456789")}, nil)
	}
	if err := cl.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// Every read endpoint answers from the domain code, on two clusters; the
// partition table of a 1,000-partition topic is paged server-side.
func TestReadEndpoints(t *testing.T) {
	a, acl := startPlayground(t, playground.Topic{Name: "big", Partitions: 1000}, playground.Topic{Name: "small", Partitions: 2})
	b, _ := startPlayground(t)
	hs := newServer(t, Options{Clusters: []Cluster{clusterOf("a", a), clusterOf("b", b)}, Version: "test", RateInterval: time.Second})

	produce(t, acl, "small", 10)
	adm := kadm.NewClient(acl)
	os := kadm.Offsets{}
	os.AddOffset("small", 0, 0, -1)
	os.AddOffset("small", 1, 0, -1)
	ctx := context.Background()
	if _, err := adm.CommitOffsets(ctx, "g1", os); err != nil {
		t.Fatal(err)
	}

	var info infoResponse
	if c := get(t, hs, "/api/info", &info); c != 200 || len(info.Clusters) != 2 || info.Clusters[0].Name != "a" || info.AllowWrites {
		t.Fatalf("info %d %+v", c, info)
	}
	var rep struct {
		Healthy  bool
		Clusters []struct {
			Name       string
			Reachable  bool
			Partitions int
		}
	}
	if c := get(t, hs, "/api/clusters?sample=0", &rep); c != 200 || len(rep.Clusters) != 2 || !rep.Clusters[0].Reachable || rep.Clusters[0].Partitions != 1002 || rep.Clusters[1].Name != "b" {
		t.Fatalf("clusters %d %+v", c, rep)
	}
	var br brokersResponse
	if c := get(t, hs, "/api/c/a/brokers", &br); c != 200 || len(br.Hosts) != 1 || br.Leaders == nil || len(br.Status.Brokers) != 1 {
		t.Fatalf("brokers %d %+v", c, br)
	}
	var tl topicListResponse
	if c := get(t, hs, "/api/c/a/topics", &tl); c != 200 || len(tl.Topics) != 2 || tl.Topics[0].Name != "big" || tl.Topics[0].Partitions != 1000 {
		t.Fatalf("topics %d %+v", c, tl)
	}
	if s := tl.Topics[1]; s.Name != "small" || s.LogicalBytes == nil || *s.LogicalBytes <= 0 {
		t.Fatalf("small's size: %+v", s)
	}
	var tp TopicPage
	if c := get(t, hs, "/api/c/a/topics/big?offset=990&limit=20", &tp); c != 200 || tp.Total != 1000 || len(tp.Partitions) != 10 || tp.Partitions[0].Partition != 990 || tp.Topic.PartitionCount != 1000 {
		t.Fatalf("topic page %d total %d, %d partitions", c, tp.Total, len(tp.Partitions))
	}
	if len(tp.Configs) == 0 || tp.ConfigsErr != nil {
		t.Fatalf("configs %+v %v", tp.Configs, tp.ConfigsErr)
	}
	if c := get(t, hs, "/api/c/a/topics/small", &tp); c != 200 || tp.Topic.Records != 10 || len(tp.Partitions) != 2 {
		t.Fatalf("small: %d %+v", c, tp.Topic)
	}
	// Replica sizes (the wide describe): the leaders hold every byte.
	var sized int
	for _, p := range tp.Partitions {
		if n, ok := p.ReplicaSizes[0]; ok && p.HighWatermark != nil && *p.HighWatermark > 0 && n > 0 {
			sized++
		}
	}
	if sized == 0 || tp.Topic.LogicalBytes <= 0 || tp.Topic.LogicalBytes != tp.Topic.PhysicalBytes || tp.Topic.LogicalBytes != *tl.Topics[1].LogicalBytes {
		t.Fatalf("small's sizes: %+v, topic list %d", tp.Topic, *tl.Topics[1].LogicalBytes)
	}
	var gl struct{ Groups []GroupRow }
	// g1 lags and has no members: STOP, from the first request on.
	if c := get(t, hs, "/api/c/a/groups", &gl); c != 200 || len(gl.Groups) != 1 || gl.Groups[0].Group != "g1" || gl.Groups[0].Lag <= 0 || gl.Groups[0].Verdict != groups.VerdictStop {
		t.Fatalf("groups %d %+v", c, gl)
	}
	var g struct {
		Group      string
		Lag        int64
		TimeLagMs  *int64 `json:"time_lag_ms"`
		Verdict    groups.Verdict
		Partitions []struct {
			Lag     int64
			Verdict groups.Verdict
		}
	}
	if c := get(t, hs, "/api/c/a/groups/g1", &g); c != 200 || g.Group != "g1" || len(g.Partitions) != 2 || g.Lag != 10 || g.Lag != gl.Groups[0].Lag || g.TimeLagMs == nil ||
		g.Verdict != groups.VerdictStop || g.Partitions[0].Verdict == groups.VerdictUnknown {
		t.Fatalf("group %d %+v", c, g)
	}
	var ld logDirsResponse
	if c := get(t, hs, "/api/c/a/logdirs", &ld); c != 200 || len(ld.Brokers) != 1 || len(ld.Dirs) != 1 || ld.Brokers[0].Partitions != 1002 {
		t.Fatalf("logdirs %d %+v", c, ld)
	}

	// Rates: the sampler starts on the first request; records produced
	// between samples show up in a frame.
	var rr ratesResponse
	get(t, hs, "/api/c/a/rates", &rr)
	deadline := time.Now().Add(20 * time.Second)
	seen := false
	for !seen && time.Now().Before(deadline) {
		produce(t, acl, "small", 50)
		time.Sleep(300 * time.Millisecond)
		if c := get(t, hs, "/api/c/a/rates", &rr); c != 200 {
			t.Fatalf("rates %d", c)
		}
		for _, f := range rr.Frames {
			for _, tr := range f.Topics {
				if tr.Topic == "small" && tr.RecordsPerSec > 0 {
					seen = true
				}
			}
		}
	}
	if !seen {
		t.Fatalf("no frame with small's records/s: %+v", rr)
	}

	for path, want := range map[string]int{
		"/api/c/nosuch/topics":          404,
		"/api/c/a/topics/nosuch":        404,
		"/api/c/a/topics/big?limit=0":   400,
		"/api/c/a/topics/big?offset=-1": 400,
		"/api/c/a/groups/nosuch":        404,
	} {
		if c := get(t, hs, path, nil); c != want {
			t.Errorf("GET %s: %d, want %d", path, c, want)
		}
	}
	// The page itself is embedded.
	resp, err := hs.Client().Get(hs.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `<script src="app.js">`) || resp.Header.Get("Content-Security-Policy") == "" {
		t.Fatalf("index: %d %s", resp.StatusCode, body)
	}
}

// Without AllowWrites every write answers 403 and changes nothing.
func TestWritesRefusedReadOnly(t *testing.T) {
	a, cl := startPlayground(t)
	hs := newServer(t, Options{Clusters: []Cluster{clusterOf("a", a)}})
	for _, op := range []string{OpCreateTopic, OpAddPartitions, OpAlterConfig, OpElectPreferred, OpResetOffsets, OpProduce} {
		if c, body := post(t, hs, "/api/c/a/write/"+op, map[string]any{"topic": "x", "partitions": 1}, nil); c != 403 || !strings.Contains(body, "--allow-writes") {
			t.Errorf("%s: %d %s", op, c, body)
		}
	}
	td, err := kadm.NewClient(cl).ListTopics(context.Background(), "x")
	if err != nil || td.Has("x") {
		t.Fatalf("topic x exists after refused writes: %v", err)
	}
}

// Each write is previewed (nothing changes), then applied once with the
// confirm token.
func TestWritesPreviewThenConfirm(t *testing.T) {
	a, cl := startPlayground(t, playground.Topic{Name: "t1", Partitions: 1}, playground.Topic{Name: "r", Partitions: 1})
	hs := newServer(t, Options{Clusters: []Cluster{clusterOf("a", a)}, AllowWrites: true})
	adm := kadm.NewClient(cl)
	ctx := context.Background()
	// A fresh client per check: no metadata cached from before a write.
	exists := func(name string) (int, bool) {
		fresh, err := kgo.NewClient(kgo.SeedBrokers(a.Addrs()...))
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Close()
		td, err := kadm.NewClient(fresh).ListTopics(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		d, ok := td[name]
		return len(d.Partitions), ok && d.Err == nil
	}

	var wr WriteResponse
	if c, body := post(t, hs, "/api/c/a/write/create-topic", CreateTopicRequest{Topic: "new", Partitions: 3, ReplicationFactor: 1}, &wr); c != 200 || wr.ConfirmToken == "" || wr.Applied {
		t.Fatalf("preview: %d %s", c, body)
	}
	if _, ok := exists("new"); ok {
		t.Fatal("the preview created the topic")
	}
	// A token is bound to its operation and cluster.
	if c, _ := post(t, hs, "/api/c/a/write/add-partitions", confirmBody{Confirm: wr.ConfirmToken}, nil); c != 409 {
		t.Fatalf("token accepted for another operation: %d", c)
	}
	var done WriteResponse
	if c, body := post(t, hs, "/api/c/a/write/create-topic", confirmBody{Confirm: wr.ConfirmToken}, &done); c != 200 || !done.Applied {
		t.Fatalf("confirm: %d %s", c, body)
	}
	if n, ok := exists("new"); !ok || n != 3 {
		t.Fatalf("new: %d partitions, exists %v", n, ok)
	}
	if c, _ := post(t, hs, "/api/c/a/write/create-topic", confirmBody{Confirm: wr.ConfirmToken}, nil); c != 409 {
		t.Fatalf("token used twice: %d", c)
	}
	if c, _ := post(t, hs, "/api/c/a/write/create-topic", CreateTopicRequest{Topic: "new", Partitions: 3}, nil); c != 422 {
		t.Fatalf("preview of an existing topic: %d", c)
	}

	// Add partitions.
	if c, body := post(t, hs, "/api/c/a/write/add-partitions", AddPartitionsRequest{Topic: "t1", Partitions: 4}, &wr); c != 200 {
		t.Fatalf("add-partitions preview: %d %s", c, body)
	}
	if n, _ := exists("t1"); n != 1 {
		t.Fatalf("preview added partitions: %d", n)
	}
	if c, body := post(t, hs, "/api/c/a/write/add-partitions", confirmBody{Confirm: wr.ConfirmToken}, nil); c != 200 {
		t.Fatalf("add-partitions: %d %s", c, body)
	}
	if n, _ := exists("t1"); n != 4 {
		t.Fatalf("t1 has %d partitions, want 4", n)
	}
	if c, _ := post(t, hs, "/api/c/a/write/add-partitions", AddPartitionsRequest{Topic: "t1", Partitions: 2}, nil); c != 400 {
		t.Fatalf("fewer partitions: %d", c)
	}

	// Config change.
	retention := func() string {
		rc, err := adm.DescribeTopicConfigs(ctx, "t1")
		if err != nil {
			t.Fatal(err)
		}
		c, err := rc.On("t1", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range c.Configs {
			if e.Key == "retention.ms" && e.Value != nil {
				return *e.Value
			}
		}
		return ""
	}
	before := retention()
	if c, body := post(t, hs, "/api/c/a/write/alter-config", AlterConfigRequest{ResourceType: "topic", ResourceName: "t1", Set: map[string]string{"retention.ms": "3600000"}}, &wr); c != 200 {
		t.Fatalf("alter-config preview: %d %s", c, body)
	}
	if retention() != before {
		t.Fatal("the preview changed the config")
	}
	if c, body := post(t, hs, "/api/c/a/write/alter-config", confirmBody{Confirm: wr.ConfirmToken}, nil); c != 200 {
		t.Fatalf("alter-config: %d %s", c, body)
	}
	if got := retention(); got != "3600000" {
		t.Fatalf("retention.ms %q after the change", got)
	}

	// Offset reset of an empty group: previewed as a plan, then applied.
	produce(t, cl, "r", 20)
	os := kadm.Offsets{}
	os.AddOffset("r", 0, 0, -1)
	if _, err := adm.CommitOffsets(ctx, "g", os); err != nil {
		t.Fatal(err)
	}
	committed := func() int64 {
		fo, err := adm.FetchOffsets(ctx, "g")
		if err != nil {
			t.Fatal(err)
		}
		o, _ := fo.Lookup("r", 0)
		return o.At
	}
	if c, body := post(t, hs, "/api/c/a/write/reset-offsets", ResetRequest{Group: "g", To: "latest"}, &wr); c != 200 {
		t.Fatalf("reset preview: %d %s", c, body)
	}
	if committed() != 0 {
		t.Fatal("the preview reset the offsets")
	}
	if c, body := post(t, hs, "/api/c/a/write/reset-offsets", confirmBody{Confirm: wr.ConfirmToken}, nil); c != 200 {
		t.Fatalf("reset: %d %s", c, body)
	}
	lo, err := adm.ListEndOffsets(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	end, _ := lo.Lookup("r", 0)
	if got := committed(); got != end.Offset || got == 0 {
		t.Fatalf("committed %d after reset to latest, end %d", got, end.Offset)
	}
	// The group pages judge over the commits their requests saw: caught
	// up, then committed back to 5: REWIND (one request alone would say
	// STOP: lag, no members).
	var gv struct{ Verdict groups.Verdict }
	if c := get(t, hs, "/api/c/a/groups/g", &gv); c != 200 || gv.Verdict != groups.VerdictOK {
		t.Fatalf("caught up group: %d %+v", c, gv)
	}
	back := kadm.Offsets{}
	back.AddOffset("r", 0, 5, -1)
	if _, err := adm.CommitOffsets(ctx, "g", back); err != nil {
		t.Fatal(err)
	}
	var gl struct{ Groups []GroupRow }
	if c := get(t, hs, "/api/c/a/groups", &gl); c != 200 || len(gl.Groups) == 0 {
		t.Fatalf("groups %d %+v", c, gl)
	}
	for _, row := range gl.Groups {
		if row.Group == "g" && row.Verdict != groups.VerdictRewind {
			t.Fatalf("group g committed back: %+v", row)
		}
	}

	// Preferred election: a preview of the leaders per broker.
	var bal struct {
		Preview struct {
			Brokers []struct{ Broker int32 } `json:"brokers"`
		} `json:"preview"`
		ConfirmToken string `json:"confirm_token"`
	}
	if c, body := post(t, hs, "/api/c/a/write/elect-preferred", ElectRequest{}, &bal); c != 200 || len(bal.Preview.Brokers) != 1 || bal.ConfirmToken == "" {
		t.Fatalf("elect preview: %d %s", c, body)
	}
	if c, body := post(t, hs, "/api/c/a/write/elect-preferred", confirmBody{Confirm: bal.ConfirmToken}, nil); c != 200 {
		t.Fatalf("elect: %d %s", c, body)
	}

	// Bad requests: one line, 400.
	for op, body := range map[string]any{
		OpCreateTopic:  map[string]any{"topic": ""},
		OpAlterConfig:  AlterConfigRequest{ResourceType: "user", ResourceName: "x", Set: map[string]string{"a": "b"}},
		OpResetOffsets: ResetRequest{Group: "g", To: "yesterday"},
	} {
		if c, b := post(t, hs, "/api/c/a/write/"+op, body, nil); c != 400 || strings.Count(strings.TrimSpace(b), "\n") != 0 {
			t.Errorf("%s %v: %d %s", op, body, c, b)
		}
	}
	if c, _ := post(t, hs, "/api/c/a/write/delete-everything", map[string]any{}, nil); c != 404 {
		t.Errorf("unknown write: %d", c)
	}
}

// A write must come from the dashboard's page: custom header, JSON, same
// origin.
func TestWritesCrossOriginRefused(t *testing.T) {
	a, _ := startPlayground(t)
	hs := newServer(t, Options{Clusters: []Cluster{clusterOf("a", a)}, AllowWrites: true})
	body := `{"topic":"x"}`
	for name, hdr := range map[string]map[string]string{
		"no custom header": {"Content-Type": "application/json"},
		"form post":        {"Content-Type": "application/x-www-form-urlencoded", WriteHeader: "1"},
		"other origin":     {"Content-Type": "application/json", WriteHeader: "1", "Origin": "http://evil.example"},
		"cross-site fetch": {"Content-Type": "application/json", WriteHeader: "1", "Sec-Fetch-Site": "cross-site"},
	} {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/api/c/a/write/create-topic", strings.NewReader(body))
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 403 {
			t.Errorf("%s: %d, want 403", name, resp.StatusCode)
		}
	}
	// Same origin, from the page: accepted (a preview).
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/api/c/a/write/create-topic", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(WriteHeader, "1")
	req.Header.Set("Origin", hs.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("same-origin preview: %d", resp.StatusCode)
	}
}

// With a token every request needs it; the page URL with ?token= sets a
// cookie. Without a token, a non-loopback Host is refused (DNS rebinding).
func TestTokenAndHost(t *testing.T) {
	a, _ := startPlayground(t)
	const tok = "0123456789abcdef0123"
	hs := newServer(t, Options{Clusters: []Cluster{clusterOf("a", a)}, Token: tok})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(path string, hdr map[string]string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, hs.URL+path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, path := range []string{"/", "/app.js", "/api/info", "/api/clusters"} {
		if r := do(path, nil); r.StatusCode != 401 {
			t.Errorf("%s without token: %d", path, r.StatusCode)
		}
	}
	if r := do("/api/info", map[string]string{"Authorization": "Bearer wrong-token-0123456"}); r.StatusCode != 401 {
		t.Errorf("wrong token: %d", r.StatusCode)
	}
	if r := do("/api/info", map[string]string{"Authorization": "Bearer " + tok}); r.StatusCode != 200 {
		t.Errorf("bearer: %d", r.StatusCode)
	}
	r := do("/?token="+tok, nil)
	var cookie *http.Cookie
	for _, c := range r.Cookies() {
		if c.Name == "kbox_ui_token" {
			cookie = c
		}
	}
	if r.StatusCode != http.StatusSeeOther || cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || strings.Contains(r.Header.Get("Location"), tok) {
		t.Fatalf("?token: %d %v %q", r.StatusCode, cookie, r.Header.Get("Location"))
	}
	if r := do("/api/info", map[string]string{"Cookie": "kbox_ui_token=" + tok}); r.StatusCode != 200 {
		t.Errorf("cookie: %d", r.StatusCode)
	}
	if r := do("/?token=nope", nil); r.StatusCode != 401 {
		t.Errorf("bad ?token: %d", r.StatusCode)
	}

	open := newServer(t, Options{Clusters: []Cluster{clusterOf("a", a)}})
	for host, want := range map[string]int{"evil.example:80": 403, "localhost:1234": 200, "127.0.0.1": 200, "[::1]:80": 200, "10.0.0.1:80": 403} {
		req, _ := http.NewRequest(http.MethodGet, open.URL+"/api/info", nil)
		req.Host = host
		resp, err := open.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
}
