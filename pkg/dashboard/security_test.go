package dashboard

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
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
