package dashboard

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/messages"
	"github.com/kboxdev/kbox/pkg/playground"
	"github.com/twmb/franz-go/pkg/kgo"
)

// hostile is markup in a record's key, value and header: the API carries
// it as JSON text (its < > & escaped) and the page sets it as text.
const hostile = `<img src=x onerror="alert(1)"><script>alert(2)</script>&amp;`

func withProducer(c Cluster, addrs []string) Cluster {
	c.Producer = func(ctx context.Context) (*kafka.Client, error) {
		cl, err := kafka.NewClient(&config.Connection{Bootstrap: addrs, Props: config.NewProperties()}, kafka.Producer,
			kafka.Options{Tune: func(s *kafka.Settings) { s.ExplicitPartitions = true }})
		if err != nil {
			return nil, err
		}
		return cl, nil
	}
	return c
}

func rawGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The Messages endpoint serves pkg/messages' page: paged with a cursor,
// filtered, masked, and with record contents escaped in the JSON.
func TestMessagesPage(t *testing.T) {
	a, cl := startPlayground(t, playground.Topic{Name: "m", Partitions: 2})
	ctx := context.Background()
	for i := 0; i < 30; i++ {
		v := `{"user":"u","password":"hunter2"}`
		if i == 29 {
			v = hostile
		}
		r := &kgo.Record{Topic: "m", Key: []byte(hostile), Value: []byte(v), Headers: []kgo.RecordHeader{{Key: hostile, Value: []byte(hostile)}}}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	hs := newServer(t, Options{Clusters: []Cluster{clusterOf("a", a)}, Mask: regexp.MustCompile("^password$")})
	var p messages.Page
	if c := get(t, hs, "/api/c/a/topics/m/messages?limit=10", &p); c != 200 || len(p.Messages) != 10 || p.Next == "" || p.Stopped != "limit" {
		t.Fatalf("first page: %d %+v", c, p)
	}
	if *p.Messages[0].Value.Text != hostile || *p.Messages[0].Key.Text != hostile || p.Messages[0].Headers[0].Key != hostile {
		t.Errorf("newest record: %+v", p.Messages[0])
	}
	if *p.Messages[1].Value.Text != `{"user":"u","password":"***"}` {
		t.Errorf("not masked: %s", *p.Messages[1].Value.Text)
	}
	// On the wire, no markup survives as markup: < > & are JSON escapes.
	_, body := rawGet(t, hs.URL+"/api/c/a/topics/m/messages?limit=10")
	if strings.ContainsAny(body, "<>&") || strings.Contains(body, "hunter2") {
		t.Errorf("raw markup or a masked value in the answer:\n%.600s", body)
	}
	total := len(p.Messages)
	for p.Next != "" {
		next := p.Next
		p = messages.Page{}
		if c := get(t, hs, "/api/c/a/topics/m/messages?limit=10&cursor="+next, &p); c != 200 {
			t.Fatalf("next page: %d", c)
		}
		total += len(p.Messages)
	}
	if total != 30 {
		t.Errorf("paged %d records of 30", total)
	}
	if c := get(t, hs, "/api/c/a/topics/m/messages?start=oldest&partitions=0,1&value=hunter&scan=100", &p); c != 200 || len(p.Messages) != 0 || p.Scanned == 0 {
		t.Errorf("a masked value matched a filter: %d %+v", c, p)
	}
	for _, q := range []string{"limit=501", "start=latest", "partitions=x", "partitions=7", "cursor=zz", "scan=0", "bogus=1"} {
		if c, body := rawGet(t, hs.URL+"/api/c/a/topics/m/messages?"+q); c != 400 || !strings.Contains(body, `"error"`) {
			t.Errorf("%s: %d %s", q, c, body)
		}
	}
	if c, body := rawGet(t, hs.URL+"/api/c/a/topics/none/messages"); c != 400 || !strings.Contains(body, "does not exist") {
		t.Errorf("missing topic: %d %s", c, body)
	}
}

// The header filter and the [from, to) time range as query parameters,
// and their bad values refused with a 400 and a message.
func TestMessagesHeaderAndTimeRange(t *testing.T) {
	a, cl := startPlayground(t, playground.Topic{Name: "f", Partitions: 1})
	ctx := context.Background()
	base := time.UnixMilli(1_700_000_000_000)
	for i := 0; i < 10; i++ {
		r := &kgo.Record{Topic: "f", Value: []byte(fmt.Sprint("v", i)), Timestamp: base.Add(time.Duration(i) * time.Second),
			Headers: []kgo.RecordHeader{{Key: "n", Value: []byte(fmt.Sprint("N", i))}}}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	hs := newServer(t, Options{Clusters: []Cluster{clusterOf("a", a)}})
	at := func(s int) time.Time { return base.Add(time.Duration(s) * time.Second) }
	for _, c := range []struct {
		q    string
		want int
	}{
		{"header=n", 10},
		{"header=n%3Dn3", 1},
		{"header=N%3Dn3", 0},
		{"from=" + fmt.Sprint(at(3).UnixMilli()) + "&to=" + url.QueryEscape(at(6).UTC().Format(time.RFC3339)), 3},
		{"to=1m", 10},
		{"from=1d", 0},
		{"header=n%3D4&from=" + fmt.Sprint(at(4).UnixMilli()), 1},
	} {
		var p messages.Page
		if code := get(t, hs, "/api/c/a/topics/f/messages?start=oldest&"+c.q, &p); code != 200 || len(p.Messages) != c.want || p.Scanned != 10 {
			t.Errorf("%s: %d, %d records of %d, scanned %d", c.q, code, len(p.Messages), c.want, p.Scanned)
		}
	}
	for _, q := range []string{"from=x", "to=yesterday", "from=2026-11-30", "from=5&to=5", "from=6&to=5", "header=" + strings.Repeat("h", 1001), "from=1&from=2"} {
		if c, body := rawGet(t, hs.URL+"/api/c/a/topics/f/messages?"+q); c != 400 || !strings.Contains(body, `"error"`) {
			t.Errorf("%.40s: %d %s", q, c, body)
		}
	}
}

// Producing from the Messages page is a write: refused without
// AllowWrites, previewed (nothing produced), then produced once.
func TestProduceNeedsWritesAndConfirm(t *testing.T) {
	a, cl := startPlayground(t, playground.Topic{Name: "m", Partitions: 3})
	c := withProducer(clusterOf("a", a), a.Addrs())
	ro := newServer(t, Options{Clusters: []Cluster{c}})
	body := ProduceRequest{Topic: "m", Partition: ptr(int32(2)), Key: ptr("k"), Value: ptr(hostile), Headers: map[string]string{"h": "v"}}
	if code, b := post(t, ro, "/api/c/a/write/produce", body, nil); code != 403 {
		t.Fatalf("read-only produce: %d %s", code, b)
	}
	hs := newServer(t, Options{Clusters: []Cluster{c}, AllowWrites: true})
	count := func() int {
		var p messages.Page
		if code := get(t, hs, "/api/c/a/topics/m/messages?start=oldest", &p); code != 200 {
			t.Fatalf("messages: %d", code)
		}
		return len(p.Messages)
	}
	var wr WriteResponse
	if code, b := post(t, hs, "/api/c/a/write/produce", body, &wr); code != 200 || wr.ConfirmToken == "" {
		t.Fatalf("preview: %d %s", code, b)
	}
	if n := count(); n != 0 {
		t.Fatalf("the preview produced %d records", n)
	}
	var res struct {
		Applied bool          `json:"applied"`
		Result  ProduceResult `json:"result"`
	}
	if code, b := post(t, hs, "/api/c/a/write/produce", confirmBody{Confirm: wr.ConfirmToken}, &res); code != 200 || !res.Applied || res.Result.Partition != 2 {
		t.Fatalf("confirm: %d %s", code, b)
	}
	if code, _ := post(t, hs, "/api/c/a/write/produce", confirmBody{Confirm: wr.ConfirmToken}, nil); code != 409 {
		t.Errorf("the token worked twice: %d", code)
	}
	if n := count(); n != 1 {
		t.Fatalf("%d records after one confirmed produce", n)
	}
	for _, bad := range []ProduceRequest{{}, {Topic: "none"}, {Topic: "m", Partition: ptr(int32(3))}} {
		if code, b := post(t, hs, "/api/c/a/write/produce", bad, nil); code != 400 {
			t.Errorf("%+v: %d %s", bad, code, b)
		}
	}
	_ = cl
}

func ptr[T any](v T) *T { return &v }
