//go:build integration

package schema_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMessagesPageThroughRealRegistry: kbox ui's Messages page reads a
// topic of Avro records (v1 and v2 of a subject) and a hostile plain-text
// record through the real registry: decoded as JSON with schema id and
// subject, masked with --mask-field, markup carried as escaped text, and
// the registry's URL never sent to the browser.
func TestMessagesPageThroughRealRegistry(t *testing.T) {
	const topic = "ui-msgs"
	userV1 := strings.Replace(userV1, `"namespace":"it",`, `"namespace":"it","doc":"ui",`, 1)
	userV2 := strings.Replace(userV2, `"namespace":"it",`, `"namespace":"it","doc":"ui",`, 1)
	mustKbox(t, "schema", "register", "ui-users", "--file", file(t, "u1.avsc", userV1))
	mustKbox(t, "schema", "register", "ui-users", "--file", file(t, "u2.avsc", userV2))
	mustKbox(t, "topics", "--bootstrap-server", bootstrap, "--create", "--topic", topic, "--partitions", "1", "--replication-factor", "1")
	produce := func(text string, args ...string) {
		t.Helper()
		mustKbox(t, append([]string{"produce", "--bootstrap-server", bootstrap, "--topic", topic, "-f", "json", "--file", file(t, "in.jsonl", text)}, args...)...)
	}
	produce(`{"key":"a","value":{"name":"ada"}}`+"\n", "--value-schema", "ui-users:1")
	produce(`{"key":"b","value":{"name":"bob","email":"bob@example.com"}}`+"\n", "--value-schema", "ui-users:2")
	hostile := `<img src=x onerror=alert(1)>`
	produce(`{"key":"` + hostile + `","value":"` + hostile + `","headers":[{"key":"` + hostile + `","value":"` + hostile + `"}]}` + "\n")

	cmd := exec.Command(kboxBin, "ui", "--bootstrap-server", bootstrap, "--listen", "127.0.0.1:0", "--mask-field", "^email$", "--duration", "2m")
	cmd.Env = append(os.Environ(), "KBOX_PROFILE=", "KBOX_CONFIG="+file(t, "none.yaml", ""), "KBOX_SCHEMA_REGISTRY="+registry.URL)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	first, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(first, "http://127.0.0.1:") {
		t.Fatalf("kbox ui printed %q: %v", first, err)
	}
	base, token, _ := strings.Cut(strings.TrimSpace(first), "?token=")
	get := func(path string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	body := get("api/c/" + bootstrap + "/topics/" + topic + "/messages?start=oldest")
	var page struct {
		Messages []struct {
			Key, Value struct {
				Text     *string `json:"text"`
				Format   string  `json:"format"`
				SchemaID int     `json:"schema_id"`
				Subject  string  `json:"subject"`
				Error    string  `json:"error"`
			}
			Headers []struct {
				Key   string `json:"key"`
				Value struct {
					Text *string `json:"text"`
				} `json:"value"`
			} `json:"headers"`
		} `json:"messages"`
		Scanned int    `json:"scanned"`
		Stopped string `json:"stopped"`
	}
	if err := json.Unmarshal([]byte(body), &page); err != nil || len(page.Messages) != 3 || page.Scanned != 3 || page.Stopped != "end" {
		t.Fatalf("page: %v\n%s", err, body)
	}
	m := page.Messages
	if *m[0].Value.Text != `{"name":"ada"}` || m[0].Value.Format != "avro" || m[0].Value.SchemaID <= 0 || m[0].Value.Subject != "ui-users" || m[0].Value.Error != "" {
		t.Errorf("v1 record: %+v", m[0].Value)
	}
	if *m[1].Value.Text != `{"name":"bob","email":"***"}` || m[1].Value.Format != "avro" || m[1].Value.SchemaID == m[0].Value.SchemaID {
		t.Errorf("v2 record, masked: %+v %s", m[1].Value, *m[1].Value.Text)
	}
	if *m[2].Key.Text != hostile || *m[2].Value.Text != hostile || m[2].Value.Format != "string" || len(m[2].Headers) != 1 ||
		m[2].Headers[0].Key != hostile || *m[2].Headers[0].Value.Text != hostile {
		t.Errorf("hostile record: %+v", m[2])
	}
	if strings.ContainsAny(body, "<>") || strings.Contains(body, "bob@example.com") {
		t.Errorf("markup or a masked value on the wire:\n%s", body)
	}
	// A filter on the decoded text, and the registry never in the API.
	body = get("api/c/" + bootstrap + "/topics/" + topic + "/messages?value=ADA")
	if !strings.Contains(body, `"scanned":3`) || strings.Count(body, `"offset":`) != 1 {
		t.Errorf("value filter ada:\n%s", body)
	}
	if info := get("api/info"); strings.Contains(info+body, strings.TrimPrefix(registry.URL, "http://")) {
		t.Errorf("the registry's address reached the browser:\n%s", info)
	}
}
