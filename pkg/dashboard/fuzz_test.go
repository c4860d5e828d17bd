package dashboard

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/kboxdev/kbox/pkg/playground"
)

// getEndpoints is every GET endpoint, as a path on the fuzz server's
// cluster "a" (topic t, group g).
var getEndpoints = []string{
	"/", "/app.js", "/api/info", "/api/clusters",
	"/api/c/a/brokers", "/api/c/a/topics", "/api/c/a/topics/t", "/api/c/a/groups",
	"/api/c/a/groups/g", "/api/c/a/rates", "/api/c/a/logdirs", "/api/c/a/topics/t/messages",
}

var (
	fuzzOnce sync.Once
	fuzzSrv  *Server
)

// FuzzGETQuery sends random query strings (known and unknown parameters,
// random values, raw malformed text) to every GET endpoint: the answer is
// never a panic or a 500, and every refusal is a 400 with a message.
func FuzzGETQuery(f *testing.F) {
	for _, s := range [][5]string{
		{"offset", "9223372036854775807", "limit", "1000", ""},
		{"offset", "2147483647", "limit", "1000", "problems=1"},
		{"offset", "-1", "limit", "0", ""},
		{"sample", "0", "problems", "x", "%zz"},
		{"limit", "99999999999999999999999", "offset", "1e9", "offset=1"},
		{"", "", "", "", ";&&=="},
		{"token", "x", "sample", "1", ""},
		{"from", "2026-11-30T14:05:00Z", "to", "15m", "header=h%3Dv"},
		{"from", "-1", "to", "9223372036854775807", "header="},
		{"from", "1000000d", "to", "2562047h", "start=oldest"},
		{"from", "5", "to", "5", "to=6"},
		{"header", "=", "from", "1d1", "key=%00"},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4])
	}
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, raw string) {
		fuzzOnce.Do(func() {
			pg, err := playground.Start(playground.Options{Brokers: 1, Topics: []playground.Topic{{Name: "t", Partitions: 3}}})
			if err != nil {
				t.Fatal(err)
			}
			s, err := New(Options{Clusters: []Cluster{clusterOf("a", pg)}})
			if err != nil {
				t.Fatal(err)
			}
			fuzzSrv = s
			// Left running for the process: the fuzz workers share it.
		})
		q := url.Values{}
		if k1 != "" {
			q.Add(k1, v1)
		}
		if k2 != "" {
			q.Add(k2, v2)
		}
		query := q.Encode()
		if raw != "" {
			query += "&" + raw
		}
		for _, p := range getEndpoints {
			// The query as a client sends it: raw, possibly malformed.
			u := &url.URL{Path: p, RawQuery: query}
			req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+p, nil)
			req.URL.RawQuery, req.RequestURI = query, u.RequestURI()
			w := httptest.NewRecorder()
			fuzzSrv.ServeHTTP(w, req)
			switch w.Code {
			case 200, 404, 502:
			case 400:
				var e apiError
				if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error == "" {
					t.Fatalf("GET %s: 400 without a message: %q", u.RequestURI(), w.Body.String())
				}
			default:
				t.Fatalf("GET %s: %d %s", u.RequestURI(), w.Code, w.Body.String())
			}
		}
	})
}
