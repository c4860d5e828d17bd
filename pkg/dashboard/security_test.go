package dashboard

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/playground"
)

func getBody(t *testing.T, url string, hdr map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A cluster whose profile did not resolve shows its reason on every page
// of it, and the other cluster works.
func TestBrokenCluster(t *testing.T) {
	a, _ := startPlayground(t)
	broken := Cluster{Name: "broken", Err: errors.New("profile broken: password-env KBOX_PW is not set")}
	hs := newServer(t, Options{Clusters: []Cluster{clusterOf("a", a), broken}})
	code, body := getBody(t, hs.URL+"/api/clusters?sample=0", nil)
	if code != 200 || !strings.Contains(body, `"name":"a","healthy":true`) || !strings.Contains(body, `"error":"profile broken: password-env KBOX_PW is not set"`) {
		t.Fatalf("/api/clusters: %d %s", code, body)
	}
	for _, p := range []string{"/topics", "/groups", "/logdirs", "/topics/x"} {
		code, body := getBody(t, hs.URL+"/api/c/broken"+p, nil)
		if code != 502 || !strings.Contains(body, "password-env KBOX_PW is not set") {
			t.Errorf("%s: %d %s", p, code, body)
		}
	}
	if code, body := getBody(t, hs.URL+"/api/c/a/topics", nil); code != 200 {
		t.Errorf("a's topics: %d %s", code, body)
	}
}

// After a token login the redirect goes to this server's page, never to
// a place the request names.
func TestTokenLoginRedirectStaysOnServer(t *testing.T) {
	a, _ := startPlayground(t)
	const tok = "0123456789abcdef0123"
	hs := newServer(t, Options{Clusters: []Cluster{clusterOf("a", a)}, Token: tok})
	for _, path := range []string{"//evil.example/", "//evil.example/x/", "/\\evil.example/", "/%09/evil.example/", "/%5Cevil.example", "/app.js", "/", "///evil.example"} {
		conn, err := net.Dial("tcp", hs.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "GET %s?token=%s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, tok, hs.Listener.Addr())
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		conn.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
			t.Errorf("GET %s?token=: %d Location %q, want 303 to /", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}

// Query parameters are checked before the handler runs: a bad one is a
// 400 with a message (a paging offset of 2^63-1 overflowed offset+limit
// and panicked: an empty reply).
func TestQueryParameters(t *testing.T) {
	a, _ := startPlayground(t, playground.Topic{Name: "t", Partitions: 3})
	hs := newServer(t, Options{Clusters: []Cluster{clusterOf("a", a)}})
	for q, want := range map[string]string{
		"/api/c/a/topics/t?offset=9223372036854775807":     "query parameter offset: want an integer from 0 to 2147483647",
		"/api/c/a/topics/t?offset=2147483647&limit=1000":   "",
		"/api/c/a/topics/t?offset=-1":                      "query parameter offset: want an integer from 0 to 2147483647",
		"/api/c/a/topics/t?offset=1e3":                     "query parameter offset: want an integer",
		"/api/c/a/topics/t?limit=0":                        "query parameter limit: want an integer from 1 to 1000",
		"/api/c/a/topics/t?limit=1001":                     "query parameter limit: want an integer from 1 to 1000",
		"/api/c/a/topics/t?problems=yes":                   "query parameter problems: want 0 or 1",
		"/api/c/a/topics/t?offset=1&offset=2":              "query parameter offset: given 2 times",
		"/api/c/a/topics/t?bogus=1":                        `query parameter "bogus": unknown (this endpoint takes limit, offset, problems)`,
		"/api/c/a/topics/t?offset=%zz":                     "malformed query string",
		"/api/c/a/topics?offset=1":                         `query parameter "offset": this endpoint takes none`,
		"/api/clusters?sample=2":                           "query parameter sample: want 0 or 1",
		"/api/clusters?sample=0":                           "",
		"/api/c/a/topics/t?offset=1&limit=1&problems=1":    "",
		"/api/c/a/topics/t?offset=9223372036854775808&x=1": "query parameter offset: want an integer",
		"/api/c/a/groups?x":                                `query parameter "x": this endpoint takes none`,
	} {
		code, body := getBody(t, hs.URL+q, nil)
		if want == "" {
			if code != 200 {
				t.Errorf("%s: %d %s", q, code, body)
			}
			continue
		}
		var e apiError
		_ = json.Unmarshal([]byte(body), &e)
		if code != 400 || !strings.Contains(e.Error, want) {
			t.Errorf("%s: %d %s, want 400 and %q", q, code, body, want)
		}
	}
}

// A refusal is sent before any byte of the body is read: a POST that
// announces a body and sends none gets its 401 (or 403) at once, and the
// connection is closed.
func TestRefusalBeforeBody(t *testing.T) {
	a, _ := startPlayground(t)
	hs := newServer(t, Options{Clusters: []Cluster{clusterOf("a", a)}, Token: "0123456789abcdef0123"})
	ro := newServer(t, Options{Clusters: []Cluster{clusterOf("a", a)}})
	for name, c := range map[string]struct {
		hs   *httptest.Server
		hdr  string
		want int
	}{
		"no token":   {hs, "", 401},
		"read-only":  {ro, "Content-Type: application/json\r\nX-Kbox-Request: 1\r\n", 403},
		"no header":  {ro, "Content-Type: application/json\r\n", 403},
		"wrong host": {ro, "Host: evil.example\r\n", 403},
	} {
		conn, err := net.Dial("tcp", c.hs.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		host := "Host: " + c.hs.Listener.Addr().String() + "\r\n"
		if strings.HasPrefix(c.hdr, "Host:") {
			host = ""
		}
		fmt.Fprintf(conn, "POST /api/c/a/write/create-topic HTTP/1.1\r\n%s%sContent-Length: 100000\r\n\r\n", host, c.hdr)
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: no answer before the body: %v", name, err)
		}
		_, _ = io.ReadAll(resp.Body)
		if resp.StatusCode != c.want {
			t.Errorf("%s: %d, want %d", name, resp.StatusCode, c.want)
		}
		// Then the server closes the connection.
		if rest, err := io.ReadAll(br); err != nil || len(rest) > 0 {
			t.Errorf("%s: connection not closed after the refusal: %v %q", name, err, rest)
		}
		conn.Close()
	}
}

// Without Remote, a request naming another host is refused even with the
// token (DNS rebinding); Remote needs a token.
func TestHostCheckedWithToken(t *testing.T) {
	a, _ := startPlayground(t)
	const tok = "0123456789abcdef0123"
	hs := newServer(t, Options{Clusters: []Cluster{clusterOf("a", a)}, Token: tok})
	req, _ := http.NewRequest(http.MethodGet, hs.URL+"/api/info", nil)
	req.Host = "evil.example"
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("Host evil.example with the token: %d, want 403", resp.StatusCode)
	}
	remote := newServer(t, Options{Clusters: []Cluster{clusterOf("a", a)}, Token: tok, Remote: true})
	req, _ = http.NewRequest(http.MethodGet, remote.URL+"/api/info", nil)
	req.Host = "kbox.example:8089"
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("remote, Host kbox.example: %d, want 200", resp.StatusCode)
	}
	if _, err := New(Options{Remote: true}); err == nil {
		t.Error("Remote without a token: no error")
	}
}

// The previews waiting for confirmation are bounded by count and by
// bytes, and expire: past a bound a preview is 429 with a message and
// Retry-After, before any cluster work; a confirmation or an expiry makes
// room again.
func TestPendingPreviewsBounded(t *testing.T) {
	a, _ := startPlayground(t)
	hs := newServer(t, Options{Clusters: []Cluster{clusterOf("a", a)}, AllowWrites: true, MaxPending: 3, MaxPendingBytes: 1 << 20, ConfirmTTL: time.Hour})
	preview := func(body any) (int, string, string) {
		code, b := post(t, hs, "/api/c/a/write/create-topic", body, nil)
		var r WriteResponse
		_ = json.Unmarshal([]byte(b), &r)
		return code, r.ConfirmToken, b
	}
	var toks []string
	for i := 0; i < 3; i++ {
		code, tok, b := preview(map[string]any{"topic": fmt.Sprintf("t%d", i), "partitions": 1})
		if code != 200 || tok == "" {
			t.Fatalf("preview %d: %d %s", i, code, b)
		}
		toks = append(toks, tok)
	}
	code, _, b := preview(map[string]any{"topic": "t3", "partitions": 1})
	if code != 429 || !strings.Contains(b, "too many pending previews: 3 previews are waiting for their confirmation (at most 3)") {
		t.Fatalf("4th preview: %d %s", code, b)
	}
	// A confirmation frees a place.
	if code, b := post(t, hs, "/api/c/a/write/create-topic", map[string]any{"confirm": toks[0]}, nil); code != 200 {
		t.Fatalf("confirm: %d %s", code, b)
	}
	if code, _, b := preview(map[string]any{"topic": "t3", "partitions": 1}); code != 200 {
		t.Fatalf("after a confirmation: %d %s", code, b)
	}

	// By bytes: 300 KB previews against a 1 MiB bound. The previews' clock
	// is the test's: they expire when it moves past the TTL, however long
	// the requests take on a loaded machine.
	var clockMu sync.Mutex
	clock := time.Unix(1_800_000_000, 0)
	srv, err := New(Options{Clusters: []Cluster{clusterOf("a", a)}, AllowWrites: true, MaxPendingBytes: 1 << 20, ConfirmTTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	srv.now = func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return clock }
	hs = httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	pad := strings.Repeat("x", 300<<10)
	n := 0
	for ; n < 10; n++ {
		code, _, b = preview(map[string]any{"topic": fmt.Sprintf("b%d", n), "partitions": 1, "pad": pad})
		if code != 200 {
			break
		}
	}
	if n != 3 || code != 429 || !strings.Contains(b, "would pass the bound of 1048576") || !strings.Contains(b, "(in 1m0s)") {
		t.Fatalf("by bytes: %d previews, then %d %s", n, code, b)
	}
	// Not yet expired a second before the TTL; room again once it has passed.
	clockMu.Lock()
	clock = clock.Add(time.Minute - time.Second)
	clockMu.Unlock()
	if code, _, b = preview(map[string]any{"topic": "early", "partitions": 1, "pad": pad}); code != 429 {
		t.Fatalf("before the previews expired: %d %s", code, b)
	}
	clockMu.Lock()
	clock = clock.Add(2 * time.Second)
	clockMu.Unlock()
	if code, _, b = preview(map[string]any{"topic": "late", "partitions": 1, "pad": pad}); code != 200 {
		t.Fatalf("after the previews expired: %d %s", code, b)
	}
}
