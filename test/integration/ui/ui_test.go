//go:build integration

// Package ui_test opens `kbox ui` in headless Chromium over two clusters at
// once (a real one-broker cluster and a kbox playground): every page loads
// with no script or console error and shows both clusters, a screenshot of
// each is saved, and a topic create is refused without --allow-writes and
// works with it, through the API and through the page's form driven in the
// browser (checked with Apache's kafka-topics).
package ui_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

var (
	cluster *testbed.Cluster
	kboxBin string
	outDir  string // test/integration/out/ui (git-ignored): screenshots and DOM dumps
)

func TestMain(m *testing.M) {
	_, file, _, _ := runtime.Caller(0)
	outDir = filepath.Join(filepath.Dir(file), "..", "out", "ui")
	os.Exit(testbed.Main(m, testbed.Options{Name: "ui", Brokers: 1, Ready: func(e testbed.Env) error {
		kboxBin, cluster = e.Kbox, e.Cluster
		return os.MkdirAll(outDir, 0o755)
	}}))
}

// startBackground runs kbox with the config file and returns the first
// line it prints that satisfies ready; the process is stopped with
// SIGTERM when the test ends (and must exit cleanly).
func startBackground(t *testing.T, cfg string, ready func(string) bool, args ...string) (string, func()) {
	t.Helper()
	cmd := exec.Command(kboxBin, args...)
	cmd.Env = append(os.Environ(), "KBOX_CONFIG="+cfg, "KBOX_PROFILE=")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("kbox %v after SIGTERM: %v\n%s", args, err, stderr.String())
			}
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("kbox %v did not stop within 15s of SIGTERM", args)
		}
	}
	t.Cleanup(stop)
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			if !sent && ready(sc.Text()) {
				lines <- sc.Text()
				sent = true
			}
		}
		if !sent {
			close(lines)
		}
		done <- cmd.Wait()
	}()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatalf("kbox %v exited before it was ready: %s", args, stderr.String())
		}
		return l, stop
	case <-time.After(60 * time.Second):
		t.Fatalf("kbox %v not ready after 60s: %s", args, stderr.String())
	}
	return "", stop
}

func browser(t *testing.T) string {
	t.Helper()
	for _, n := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	t.Fatal("chromium not found (install it: apt-get install chromium)")
	return ""
}

func tail(s string) string {
	if len(s) > 3000 {
		return "..." + s[len(s)-3000:]
	}
	return s
}

// chromium runs headless Chromium on url with extra arguments; the
// virtual time budget lets the page's fetches finish before the dump or
// screenshot.
func chromium(t *testing.T, url string, extra ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir(),
		"--enable-logging=stderr", "--v=0", "--window-size=1300,1400", "--virtual-time-budget=15000"}, extra...)
	cmd := exec.CommandContext(ctx, browser(t), append(args, url)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", extra, err, tail(errb.String()))
	}
	return out.String(), errb.String()
}

var (
	errorsRe  = regexp.MustCompile(`(?s)<pre id="kbox-errors"[^>]*>(.*?)</pre>`)
	consoleRe = regexp.MustCompile(`(?m)^.*:CONSOLE[:(]\d+.*$|^.*Uncaught.*$`)
)

type page struct {
	name, hash string
	want       []string // substrings of the rendered DOM
}

// dashboard is a running kbox ui: its base URL (ending in /) and the
// access token its URL carried.
type dashboard struct{ base, token string }

// splitURL reads the URL kbox ui printed: the base and the token.
func splitURL(t *testing.T, printed string) dashboard {
	t.Helper()
	u, err := url.Parse(printed)
	if err != nil || u.Query().Get("token") == "" {
		t.Fatalf("printed URL %q: no token (%v)", printed, err)
	}
	tok := u.Query().Get("token")
	u.RawQuery = ""
	return dashboard{base: u.String(), token: tok}
}

// open is the URL a browser opens: the page with ?token= (which sets the
// cookie and redirects to /; the fragment stays).
func (d dashboard) open(hash string) string {
	return d.base + "?token=" + url.QueryEscape(d.token) + hash
}

// get is an API request with the token.
func (d dashboard) get(t *testing.T, path string) (*http.Response, error) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, d.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+d.token)
	return http.DefaultClient.Do(req)
}

// openPage dumps the page's DOM and saves a screenshot; it fails on a
// script or console error, a page that did not finish, or one that does
// not name both clusters.
func openPage(t *testing.T, d dashboard, p page) string {
	t.Helper()
	dom, logs := chromium(t, d.open(p.hash), "--dump-dom")
	if err := os.WriteFile(filepath.Join(outDir, p.name+".html"), []byte(dom), 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dom, `data-ready="1"`) {
		t.Errorf("page %s did not finish loading:\n%s", p.name, tail(dom))
	}
	m := errorsRe.FindStringSubmatch(dom)
	if m == nil {
		t.Errorf("page %s: no error recorder", p.name)
	} else if strings.TrimSpace(m[1]) != "" {
		t.Errorf("page %s: script errors:\n%s", p.name, html.UnescapeString(m[1]))
	}
	if c := consoleRe.FindAllString(logs, -1); len(c) > 0 {
		t.Errorf("page %s: console messages:\n%s", p.name, strings.Join(c, "\n"))
	}
	for _, name := range []string{"real", "playground"} {
		if !strings.Contains(dom, `data-cluster="`+name+`"`) {
			t.Errorf("page %s does not show cluster %s", p.name, name)
		}
	}
	for _, w := range p.want {
		if !strings.Contains(dom, w) {
			t.Errorf("page %s: no %q in:\n%s", p.name, w, tail(dom))
		}
	}
	shot := filepath.Join(outDir, p.name+".png")
	_ = os.Remove(shot)
	chromium(t, d.open(p.hash), "--hide-scrollbars", "--screenshot="+shot)
	if st, err := os.Stat(shot); err != nil || st.Size() < 5000 {
		t.Errorf("screenshot %s: %v", shot, err)
	}
	return dom
}

func postJSON(t *testing.T, d dashboard, path string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, d.base+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Kbox-Request", "1")
	req.Header.Set("Authorization", "Bearer "+d.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(rb, &out)
	return resp.StatusCode, out
}

// waitRates asks for the rates (which starts the sampler) until two
// frames are there, producing to orders meanwhile.
func waitRates(t *testing.T, d dashboard, path string, cl *kgo.Client) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := d.get(t, path)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Frames []json.RawMessage `json:"frames"`
		}
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Frames) >= 2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("rates: %d frames after 60s", len(r.Frames))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		for i := 0; i < 100; i++ {
			cl.Produce(ctx, &kgo.Record{Value: []byte("tick")}, nil)
		}
		if err := cl.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		time.Sleep(500 * time.Millisecond)
	}
}

// page drives one Chromium page over the DevTools protocol on a pipe
// (--remote-debugging-pipe: NUL-terminated JSON on fds 3 and 4), enough to
// evaluate scripts in the page: no DevTools client library needed.
type devtools struct {
	t    *testing.T
	cmd  *exec.Cmd
	w    *os.File
	rd   *bufio.Reader
	id   int
	sess string
	// dead: an answer did not come in time; its reader may still be
	// reading, so no other command may be sent.
	dead bool
}

func openDevtools(t *testing.T, url string) *devtools {
	t.Helper()
	toChrome, ourEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromChrome, chromeEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(browser(t), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+t.TempDir(),
		"--window-size=1300,1400", "--remote-debugging-pipe", url)
	cmd.ExtraFiles = []*os.File{toChrome, chromeEnd}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toChrome.Close()
	chromeEnd.Close()
	d := &devtools{t: t, cmd: cmd, w: ourEnd, rd: bufio.NewReader(fromChrome)}
	t.Cleanup(func() {
		ourEnd.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		fromChrome.Close()
	})
	var targets struct {
		TargetInfos []struct{ TargetID, Type, URL string } `json:"targetInfos"`
	}
	d.call("", "Target.getTargets", nil, &targets)
	for _, ti := range targets.TargetInfos {
		if ti.Type == "page" && strings.HasPrefix(ti.URL, "http") {
			var att struct{ SessionID string }
			d.call("", "Target.attachToTarget", map[string]any{"targetId": ti.TargetID, "flatten": true}, &att)
			d.sess = att.SessionID
		}
	}
	if d.sess == "" {
		t.Fatalf("no page target in %+v", targets)
	}
	return d
}

// call sends one command and waits (up to 90 s) for its answer.
func (d *devtools) call(session, method string, params any, out any) {
	d.t.Helper()
	if err := d.try(session, method, params, out); err != nil {
		d.t.Fatalf("devtools %s: %v", method, err)
	}
}

// loaded waits until the page has loaded and drawn its first view (the
// page's script sets data-ready); evaluations during the navigation fail
// and are retried.
func (d *devtools) loaded() {
	d.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		var r struct{ Result struct{ Value any } }
		err := d.try(d.sess, "Runtime.evaluate", map[string]any{"expression": "location.protocol + document.body.getAttribute('data-ready')", "returnByValue": true}, &r)
		if err == nil && r.Result.Value == "http:1" {
			return
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("page not loaded after 90s: %v %v", err, r.Result.Value)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (d *devtools) try(session, method string, params any, out any) error {
	if d.dead {
		return fmt.Errorf("the browser stopped answering")
	}
	d.id++
	msg := map[string]any{"id": d.id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	b, _ := json.Marshal(msg)
	if _, err := d.w.Write(append(b, 0)); err != nil {
		d.t.Fatal(err)
	}
	type answer struct {
		b   []byte
		err error
	}
	got := make(chan answer, 1)
	go func(id int) {
		for {
			line, err := d.rd.ReadBytes(0)
			if err != nil {
				got <- answer{nil, err}
				return
			}
			var head struct{ ID int }
			if json.Unmarshal(line[:len(line)-1], &head) == nil && head.ID == id {
				got <- answer{line[:len(line)-1], nil}
				return
			}
		}
	}(d.id)
	select {
	case a := <-got:
		if a.err != nil {
			return a.err
		}
		var resp struct {
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		if err := json.Unmarshal(a.b, &resp); err != nil {
			return err
		}
		if resp.Error != nil {
			return fmt.Errorf("%s", resp.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(resp.Result, out)
		}
		return nil
	case <-time.After(90 * time.Second):
		d.dead = true
		return fmt.Errorf("no answer in 90s")
	}
}

// eval runs an async expression in the page and returns its string value.
func (d *devtools) eval(expr string) string {
	d.t.Helper()
	var r struct {
		Result struct {
			Value any
		}
		ExceptionDetails *struct {
			Text      string
			Exception struct{ Description string }
		}
	}
	d.call(d.sess, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &r)
	if r.ExceptionDetails != nil {
		d.t.Fatalf("in the page: %s %s", r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	s, _ := r.Result.Value.(string)
	return s
}

// waitJS is a page-side helper: wait(f, ms) polls f until truthy.
const waitJS = `const wait = async (f, ms) => { const end = Date.now() + ms; for (;;) { const v = f(); if (v) return v; if (Date.now() > end) throw new Error('timed out waiting for ' + f); await new Promise(r => setTimeout(r, 100)); } };`

// describe runs Apache's kafka-topics --describe on the real cluster.
func describe(t *testing.T, topic string) (string, int) {
	t.Helper()
	out, errOut, code, err := cluster.Apache(nil, "kafka-topics", "--bootstrap-server", cluster.Bootstrap, "--describe", "--topic", topic)
	if err != nil {
		t.Fatal(err)
	}
	return out + errOut, code
}

func TestDashboardInChromium(t *testing.T) {
	bs := cluster.Bootstrap
	// Seed the real cluster: a topic with records and a group behind.
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bs, ",")...), kgo.DefaultProduceTopic("orders"), kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := adm.CreateTopic(ctx, 3, 1, nil, "orders"); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "xss"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		cl.Produce(ctx, &kgo.Record{Value: []byte(fmt.Sprintf("order %d", i))}, nil)
	}
	if err := cl.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// A record with markup in its key, value and header: the Messages
	// page shows it as text (no element made of it, no script run).
	hostile := `<img src=x onerror="window.kboxErrors.push('xss')"><b>bold</b>`
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "xss", Key: []byte(hostile), Value: []byte(hostile),
		Headers: []kgo.RecordHeader{{Key: hostile, Value: []byte(hostile)}}}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	offs := kadm.Offsets{}
	for p := int32(0); p < 3; p++ {
		offs.AddOffset("orders", p, 0, -1)
	}
	if _, err := adm.CommitOffsets(ctx, "readers", offs); err != nil {
		t.Fatal(err)
	}

	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("profiles:\n  real:\n    bootstrap-servers: "+bs+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	startBackground(t, cfg, func(l string) bool { return strings.HasPrefix(l, "Serving until") }, "playground", "--brokers", "1", "--topic", "pg-topic:4")

	isURL := func(l string) bool { return strings.HasPrefix(l, "http://127.0.0.1:") }
	printed, stopRO := startBackground(t, cfg, isURL, "ui", "--listen", "127.0.0.1:0", "--interval", "1s")
	d := splitURL(t, printed)

	start := time.Now()
	pages := []page{
		{"clusters", "#/", []string{`data-page="clusters"`, `class="card cluster" data-cluster="real"`, `class="card cluster" data-cluster="playground"`, "read-only"}},
		{"brokers", "#/c/real/brokers", []string{`data-page="brokers"`, `<span class="ok">up</span>`}},
		{"topics", "#/c/real/topics", []string{`data-page="topics"`, `href="#/c/real/topic/orders"`}},
		{"topic", "#/c/real/topic/orders", []string{`data-page="topic"`, "1–3 of 3", "cleanup.policy", "Records</dt><dd>300"}},
		{"messages", "#/c/real/messages/orders", []string{`data-page="messages"`, "50 record(s) · scanned 50 record(s)", "order ", `id="messages-next"`}},
		{"messages-xss", "#/c/real/messages/xss", []string{`data-page="messages"`, "1 record(s)", "&lt;img src=x onerror=", "&lt;b&gt;bold&lt;/b&gt;"}},
		{"groups", "#/c/real/groups", []string{`data-page="groups"`, `href="#/c/real/group/readers"`}},
		{"group", "#/c/real/group/readers", []string{`data-page="group"`, "State Empty", "300</td>"}},
		{"rates", "#/c/real/rates", []string{`data-page="rates"`, `<svg class="chart"`, "records/s in", "<polyline", "<td>orders</td>"}},
		{"logdirs", "#/c/real/logdirs", []string{`data-page="logdirs"`, "Directories"}},
		{"playground-topics", "#/c/playground/topics", []string{`href="#/c/playground/topic/pg-topic"`}},
	}
	var topicsDOM string
	for _, p := range pages {
		if p.name == "rates" {
			// The rates page after two samples of the real cluster (1 s
			// apart), with records produced in between: its charts have
			// lines.
			waitRates(t, d, "api/c/real/rates", cl)
		}
		dom := openPage(t, d, p)
		if strings.Contains(dom, `class="error"`) {
			t.Errorf("page %s shows an error:\n%s", p.name, tail(dom))
		}
		if p.name == "topics" {
			topicsDOM = dom
		}
		if p.name == "messages-xss" && (strings.Contains(dom, "<img") || strings.Contains(dom, "<b>bold")) {
			t.Errorf("a record's markup became elements:\n%s", tail(dom))
		}
	}
	t.Logf("%d pages opened in %s; screenshots in %s", len(pages), time.Since(start).Round(time.Second), outDir)

	// Read-only: no write form, and the write endpoint refuses.
	if strings.Contains(topicsDOM, `id="write-create-topic"`) {
		t.Error("read-only topics page shows the create form")
	}
	if code, body := postJSON(t, d, "api/c/real/write/create-topic", map[string]any{"topic": "from-ui", "partitions": 2, "replication_factor": 1}); code != 403 {
		t.Fatalf("create without --allow-writes: %d %v", code, body)
	}
	if out, code := describe(t, "from-ui"); code == 0 && strings.Contains(out, "PartitionCount") {
		t.Fatalf("from-ui exists after a refused write:\n%s", out)
	}
	stopRO()

	// With --allow-writes: the form is shown, a preview changes nothing,
	// the confirmation creates the topic.
	printed, _ = startBackground(t, cfg, isURL, "ui", "--listen", "127.0.0.1:0", "--allow-writes")
	d = splitURL(t, printed)
	openPage(t, d, page{"topics-writes", "#/c/real/topics", []string{`id="write-create-topic"`, "writes enabled"}})
	code, prev := postJSON(t, d, "api/c/real/write/create-topic", map[string]any{"topic": "from-ui", "partitions": 2, "replication_factor": 1})
	tok, _ := prev["confirm_token"].(string)
	if code != 200 || tok == "" {
		t.Fatalf("preview: %d %v", code, prev)
	}
	if out, code := describe(t, "from-ui"); code == 0 && strings.Contains(out, "PartitionCount") {
		t.Fatalf("the preview created from-ui:\n%s", out)
	}
	if code, res := postJSON(t, d, "api/c/real/write/create-topic", map[string]any{"confirm": tok}); code != 200 || res["applied"] != true {
		t.Fatalf("confirm: %d %v", code, res)
	}
	out, dcode := describe(t, "from-ui")
	if dcode != 0 || !strings.Contains(out, "PartitionCount: 2") {
		t.Fatalf("kafka-topics --describe from-ui (exit %d):\n%s", dcode, out)
	}

	// The same through the page in the browser: fill the create form,
	// Preview (nothing created yet), Confirm, "Applied.".
	dt := openDevtools(t, d.open("#/c/real/topics"))
	dt.loaded()
	preview := dt.eval(`(async () => { ` + waitJS + `
		await wait(() => document.body.getAttribute('data-ready') === '1', 60000);
		const form = await wait(() => document.getElementById('write-create-topic'), 5000);
		form.querySelector('[name=topic]').value = 'from-browser';
		form.querySelector('[name=partitions]').value = '3';
		form.querySelector('[name=replication_factor]').value = '1';
		form.querySelector('button[type=submit]').click();
		await wait(() => form.querySelector('button.danger') || form.querySelector('.error'), 60000);
		const err = form.querySelector('.error');
		if (err) throw new Error(err.textContent);
		return form.querySelector('pre.preview').textContent; })()`)
	if !strings.Contains(preview, `"name": "from-browser"`) || !strings.Contains(preview, `"dry_run": true`) {
		t.Fatalf("browser preview:\n%s", preview)
	}
	if out, code := describe(t, "from-browser"); code == 0 && strings.Contains(out, "PartitionCount") {
		t.Fatalf("the browser's preview created from-browser:\n%s", out)
	}
	applied := dt.eval(`(async () => { ` + waitJS + `
		const form = document.getElementById('write-create-topic');
		form.querySelector('button.danger').click();
		await wait(() => form.querySelector('p.ok') || form.querySelector('.error'), 60000);
		const err = form.querySelector('.error');
		if (err) throw new Error(err.textContent);
		return form.querySelector('p.ok').textContent + ' ' + JSON.stringify(window.kboxErrors); })()`)
	if applied != "Applied. []" {
		t.Fatalf("browser confirm: %q", applied)
	}
	out, dcode = describe(t, "from-browser")
	if dcode != 0 || !strings.Contains(out, "PartitionCount: 3") {
		t.Fatalf("kafka-topics --describe from-browser (exit %d):\n%s", dcode, out)
	}
}
