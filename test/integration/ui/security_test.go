//go:build integration

// The dashboard's security model (docs/ui.md), each threat tried against
// the kbox binary: another local user, the token in ps, slow clients
// holding connections, the pending-preview bound, a paging overflow, an
// open redirect, TLS for --allow-remote, and secrets in the messages of
// broken profiles (URL credentials of a token endpoint, a malformed JAAS
// password, an unset password-env variable).
package ui_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/serve"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// lockedBuffer is a process's stderr, read while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// uiProc is a running kbox ui.
type uiProc struct {
	dashboard
	pid    int
	lines  []string // stdout up to the URL (and the fingerprint line)
	stderr *lockedBuffer
}

// runUI starts kbox ui with the config file, env additions and args, and
// waits for its URL (and, with TLS, the fingerprint line); it is stopped
// with SIGTERM when the test ends.
func runUI(t *testing.T, cfg string, env []string, args ...string) *uiProc {
	t.Helper()
	cmd := exec.Command(kboxBin, append([]string{"ui"}, args...)...)
	cmd.Env = append(append(os.Environ(), "KBOX_CONFIG="+cfg, "KBOX_PROFILE=", "KBOX_UI_TOKEN="), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &uiProc{stderr: &lockedBuffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.pid = cmd.Process.Pid
	done := make(chan error, 1)
	tlsOn := false
	for _, a := range args {
		tlsOn = tlsOn || a == "--tls-self-signed" || a == "--tls-cert"
	}
	want := 1
	if tlsOn {
		want = 2
	}
	lines := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		var got []string
		for sc.Scan() {
			if len(got) < want {
				got = append(got, sc.Text())
				if len(got) == want {
					lines <- got
				}
			}
		}
		if len(got) < want {
			close(lines)
		}
		done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("kbox ui %v did not stop within 15s of SIGTERM", args)
		}
	})
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatalf("kbox ui %v exited before printing its URL: %s", args, p.stderr)
		}
		p.lines = l
	case <-time.After(60 * time.Second):
		t.Fatalf("kbox ui %v: no URL after 60s: %s", args, p.stderr)
	}
	u, err := url.Parse(p.lines[0])
	if err != nil {
		t.Fatalf("URL %q: %v", p.lines[0], err)
	}
	p.token = u.Query().Get("token")
	u.RawQuery = ""
	p.base = u.String()
	return p
}

// hostPort is where the dashboard listens, as a loopback address.
func (p *uiProc) hostPort(t *testing.T) string {
	t.Helper()
	u, _ := url.Parse(p.base)
	return net.JoinHostPort("127.0.0.1", u.Port())
}

// runKbox runs kbox to completion.
func runKbox(t *testing.T, cfg string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(kboxBin, args...)
	cmd.Env = append(append(os.Environ(), "KBOX_CONFIG="+cfg, "KBOX_PROFILE=", "KBOX_UI_TOKEN="), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

func writeConfig(t *testing.T, profiles map[string]*config.Profile) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := config.WriteFile(path, &config.File{Profiles: profiles}); err != nil {
		t.Fatal(err)
	}
	return path
}

func realConfig(t *testing.T) string {
	return writeConfig(t, map[string]*config.Profile{"real": {BootstrapServers: strings.Split(cluster.Bootstrap, ",")}})
}

// Item 2: on loopback, another user of the host (nobody, with curl and
// the custom header) gets 401 from every endpoint, reads and writes; with
// the token it gets in (so the refusals are the token's, not the UID's).
func TestOtherLocalUserNeedsToken(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs curl as another user (nobody): needs root")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no user nobody")
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl")
	}
	p := runUI(t, realConfig(t), nil, "--listen", "127.0.0.1:0", "--allow-writes")
	asNobody := func(args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(curl, append([]string{"-s", "-w", "\n%{http_code}", "--max-time", "30"}, args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		cmd.Dir = "/"
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("curl as nobody %v: %v %s", args, err, out)
		}
		s := strings.TrimSpace(string(out))
		i := strings.LastIndexByte(s, '\n')
		code, _ := strconv.Atoi(s[i+1:])
		return code, s[:max(i, 0)]
	}
	write := []string{"-X", "POST", "-H", "Content-Type: application/json", "-H", "X-Kbox-Request: 1", "--data", `{"topic":"by-nobody","partitions":1,"replication_factor":1}`}
	for _, c := range [][]string{
		{p.base + "api/clusters?sample=0"},
		{p.base + "api/c/real/topics"},
		{p.base},
		append([]string{p.base + "api/c/real/write/create-topic"}, write...),
		{"-H", "Authorization: Bearer wrong-token-0123456789", p.base + "api/info"},
	} {
		if code, body := asNobody(c...); code != 401 {
			t.Errorf("nobody: curl %v: %d %s, want 401", c, code, body)
		}
	}
	if code, body := asNobody("-H", "Authorization: Bearer "+p.token, p.base+"api/c/real/topics"); code != 200 {
		t.Errorf("nobody with the token: %d %s", code, body)
	}
	// The write in full, as the attack did it: a preview, then its
	// confirmation (refused at the first step).
	if code, body := asNobody(append([]string{p.base + "api/c/real/write/create-topic"}, write...)...); code == 200 {
		var prev struct {
			Confirm string `json:"confirm_token"`
		}
		_ = json.Unmarshal([]byte(body), &prev)
		confirm := append([]string{p.base + "api/c/real/write/create-topic"}, write[:len(write)-1]...)
		code, body = asNobody(append(confirm, `{"confirm":"`+prev.Confirm+`"}`)...)
		t.Errorf("nobody previewed a topic create, and confirmed it: %d %s", code, body)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	td, err := kadm.NewClient(cl).ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if td.Has("by-nobody") {
		t.Errorf("nobody created the topic by-nobody")
	}
}

// Item 3: --token-file and KBOX_UI_TOKEN keep the token out of the
// process's command line (what ps shows every user); --token warns.
func TestTokenNotInProcessList(t *testing.T) {
	cfg := realConfig(t)
	file := filepath.Join(t.TempDir(), "token")
	const fromFile, fromEnv, fromFlag = "tok-from-file-0123456789", "tok-from-env-0123456789", "tok-from-flag-0123456789"
	if err := os.WriteFile(file, []byte(fromFile+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmdline := func(pid int) string {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(string(b), "\x00", " ")
	}
	for _, c := range []struct {
		env  []string
		args []string
		tok  string
	}{
		{nil, []string{"--token-file", file}, fromFile},
		{[]string{"KBOX_UI_TOKEN=" + fromEnv}, nil, fromEnv},
	} {
		p := runUI(t, cfg, c.env, append([]string{"--listen", "127.0.0.1:0"}, c.args...)...)
		if p.token != c.tok || strings.Contains(cmdline(p.pid), c.tok) || strings.Contains(p.stderr.String(), "warning") {
			t.Errorf("%v %v: URL token %q, cmdline %q, stderr %q", c.env, c.args, p.token, cmdline(p.pid), p.stderr)
		}
		resp, err := p.get(t, "api/info")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%v %v: the token is refused: %d", c.env, c.args, resp.StatusCode)
		}
	}
	p := runUI(t, cfg, nil, "--listen", "127.0.0.1:0", "--token", fromFlag)
	// The URL on stdout can reach the test before the warning on stderr
	// has been copied from its pipe: wait for it (CI, load 20).
	const warning = "kbox: warning: --token on the command line is visible to every user of this host"
	for end := time.Now().Add(10 * time.Second); !strings.Contains(p.stderr.String(), warning) && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(cmdline(p.pid), fromFlag) || !strings.Contains(p.stderr.String(), warning) {
		t.Errorf("--token: cmdline %q, stderr %q", cmdline(p.pid), p.stderr)
	}
	// Empty and blank tokens are refused, from every source.
	for _, c := range []struct {
		env  []string
		args []string
	}{{nil, []string{"--token", " "}}, {[]string{"KBOX_UI_TOKEN=  "}, nil}} {
		code, _, errOut := runKbox(t, cfg, c.env, append([]string{"ui", "--listen", "127.0.0.1:0", "--duration", "1s"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, "the token is empty or white space only") {
			t.Errorf("%v %v: exit %d %s", c.env, c.args, code, errOut)
		}
	}
}

// rawRequest opens a connection to addr and writes text to it.
func rawRequest(t *testing.T, addr, text string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if text != "" {
		if _, err := io.WriteString(c, text); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// closedWithin reads r until the server closes the connection and
// returns how long that took and what was read; it fails past limit.
func closedWithin(t *testing.T, what string, c net.Conn, r io.Reader, limit time.Duration) (time.Duration, string) {
	t.Helper()
	start := time.Now()
	_ = c.SetReadDeadline(start.Add(limit))
	b, err := io.ReadAll(r)
	took := time.Since(start)
	if err != nil {
		t.Errorf("%s: connection still open after %s (%v); read %q", what, limit, err, b)
	}
	return took, string(b)
}

// Item 4: connections cannot be held. With short limits (read header 1 s,
// read 2 s, idle 2 s): an idle keep-alive, a half-sent second request and
// a POST that announces a body and sends none are closed within them; a
// POST without the token gets its 401 before any body and is closed; a
// connection past the cap is closed at once.
func TestSlowClientsClosed(t *testing.T) {
	cfg := realConfig(t)
	p := runUI(t, cfg, nil, "--listen", "127.0.0.1:0", "--allow-writes", "--read-header-timeout", "1s", "--read-timeout", "2s", "--idle-timeout", "2s")
	addr := p.hostPort(t)
	get := "GET /api/info HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + p.token + "\r\n\r\n"
	const slack = 8 * time.Second // a loaded machine

	// An idle keep-alive after one request.
	c := rawRequest(t, addr, get)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("first request: %v %v", resp, err)
	}
	_, _ = io.ReadAll(resp.Body)
	took, _ := closedWithin(t, "idle keep-alive", c, br, 2*time.Second+slack)
	t.Logf("idle keep-alive closed after %s (idle timeout 2s)", took.Round(time.Millisecond))

	// A second request sent in part.
	c = rawRequest(t, addr, get)
	br = bufio.NewReader(c)
	if resp, err = http.ReadResponse(br, nil); err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(resp.Body)
	_, _ = io.WriteString(c, "GET /api/info HTTP/1.1\r\nHost: "+addr+"\r\n")
	took, _ = closedWithin(t, "half-sent second request", c, br, 3*time.Second+slack)
	t.Logf("half-sent second request closed after %s (read header timeout 1s)", took.Round(time.Millisecond))

	// A POST with the token, announcing a body it never sends.
	post := "POST /api/c/real/write/create-topic HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nX-Kbox-Request: 1\r\nContent-Length: 100000\r\n"
	c = rawRequest(t, addr, post+"Authorization: Bearer "+p.token+"\r\n\r\n")
	took, _ = closedWithin(t, "POST without its body", c, c, 2*time.Second+slack)
	t.Logf("POST without its body closed after %s (read timeout 2s)", took.Round(time.Millisecond))

	// The same without the token: 401 at once, before any body.
	c = rawRequest(t, addr, post+"\r\n")
	_ = c.SetReadDeadline(time.Now().Add(slack))
	start := time.Now()
	br = bufio.NewReader(c)
	resp, err = http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 401 {
		t.Fatalf("POST without token and body: %v %v", resp, err)
	}
	_, _ = io.ReadAll(resp.Body)
	t.Logf("401 without a token after %s", time.Since(start).Round(time.Millisecond))
	closedWithin(t, "POST without token and body, after its 401", c, br, slack)

	// The cap: 4 connections held (the header timeout is long here); the
	// 5th is closed at once; when one goes, a new one is served.
	q := runUI(t, cfg, nil, "--listen", "127.0.0.1:0", "--max-connections", "4", "--read-header-timeout", "60s")
	addr = q.hostPort(t)
	var held []net.Conn
	for i := 0; i < 4; i++ {
		held = append(held, rawRequest(t, addr, ""))
	}
	// The server has accepted them all when a request on a fifth is
	// refused; poll, as the accepts happen in the server's time.
	deadline := time.Now().Add(30 * time.Second)
	for {
		c := rawRequest(t, addr, "GET /api/info HTTP/1.1\r\nHost: "+addr+"\r\nAuthorization: Bearer "+q.token+"\r\n\r\n")
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, err := io.ReadAll(c)
		c.Close()
		if err == nil && len(b) == 0 {
			break // closed at once, unanswered
		}
		if time.Now().After(deadline) {
			t.Fatalf("a 5th connection is not closed with 4 held: %v %q", err, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
	held[0].Close()
	deadline = time.Now().Add(30 * time.Second)
	for {
		c := rawRequest(t, addr, "GET /api/info HTTP/1.1\r\nHost: "+addr+"\r\nAuthorization: Bearer "+q.token+"\r\nConnection: close\r\n\r\n")
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, _ := io.ReadAll(c)
		c.Close()
		if strings.HasPrefix(string(b), "HTTP/1.1 200") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no connection served after one of 4 closed: %q", b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func rss(t *testing.T, pid int) (int64, int64) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	var cur, peak int64
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "VmRSS:" {
			cur, _ = strconv.ParseInt(f[1], 10, 64)
		}
		if len(f) >= 2 && f[0] == "VmHWM:" {
			peak, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	return cur >> 10, peak >> 10
}

// Item 5: the previews waiting for confirmation are bounded: the 101st
// small preview, or the one past 32 MiB of previews of about 1 MB each,
// gets 429 with a message (150 previews of 1 MB took the process from 30
// to 585 MB).
func TestPendingPreviewsBound(t *testing.T) {
	cfg := realConfig(t)
	p := runUI(t, cfg, nil, "--listen", "127.0.0.1:0", "--allow-writes")
	preview := func(p *uiProc, i int, pad string) (int, string, http.Header) {
		body, _ := json.Marshal(map[string]any{"topic": fmt.Sprintf("preview-%d", i), "partitions": 1, "replication_factor": 1, "pad": pad})
		req, _ := http.NewRequest(http.MethodPost, p.base+"api/c/real/write/create-topic", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Kbox-Request", "1")
		req.Header.Set("Authorization", "Bearer "+p.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	for i := 0; i < 100; i++ {
		if code, body, _ := preview(p, i, ""); code != 200 {
			t.Fatalf("preview %d: %d %s", i+1, code, body)
		}
	}
	code, body, hdr := preview(p, 100, "")
	if code != 429 || !strings.Contains(body, "too many pending previews: 100 previews are waiting for their confirmation (at most 100)") || hdr.Get("Retry-After") == "" {
		t.Fatalf("101st preview: %d %s (Retry-After %q)", code, body, hdr.Get("Retry-After"))
	}

	// About 1 MB each: refused past 32 MiB.
	q := runUI(t, cfg, nil, "--listen", "127.0.0.1:0", "--allow-writes")
	before, _ := rss(t, q.pid)
	pad := strings.Repeat("x", 1_000_000)
	n := 0
	for ; n < 150; n++ {
		code, body, _ = preview(q, n, pad)
		if code != 200 {
			break
		}
	}
	after, peak := rss(t, q.pid)
	t.Logf("previews of about 1 MB: %d accepted, then %d; RSS %d MB before, %d MB after (peak %d MB)", n, code, before, after, peak)
	if n != 33 || code != 429 || !strings.Contains(body, "would pass the bound of 33554432") {
		t.Fatalf("1 MB previews: %d accepted, then %d %s", n, code, body)
	}
}

// Item 6: a paging offset of 2^63-1 (it overflowed offset+limit, the
// handler panicked and the client got an empty reply) and other bad query
// values are a 400 with a message.
func TestQueryOverflow(t *testing.T) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 3, 1, nil, "paged"); err != nil && !strings.Contains(err.Error(), "TOPIC_ALREADY_EXISTS") {
		t.Fatal(err)
	}
	p := runUI(t, realConfig(t), nil, "--listen", "127.0.0.1:0")
	for q, want := range map[string]string{
		"offset=9223372036854775807": "query parameter offset: want an integer from 0 to 2147483647",
		"offset=2147483647":          "",
		"limit=-5":                   "query parameter limit: want an integer from 1 to 1000",
		"problems=maybe":             "query parameter problems: want 0 or 1",
		"colour=red":                 `query parameter "colour": unknown`,
	} {
		resp, err := p.get(t, "api/c/real/topics/paged?"+q)
		if err != nil {
			t.Fatalf("%s: %v (an empty reply?)", q, err)
		}
		var e struct {
			Error string `json:"error"`
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		_ = json.Unmarshal(b, &e)
		if want == "" && resp.StatusCode != 200 || want != "" && (resp.StatusCode != 400 || !strings.Contains(e.Error, want)) {
			t.Errorf("?%s: %d %s, want %q", q, resp.StatusCode, b, want)
		}
	}
}

// Item 7: after a token login the redirect is to this server's page,
// never to a place the request names.
func TestNoOpenRedirect(t *testing.T) {
	p := runUI(t, realConfig(t), []string{"KBOX_UI_TOKEN=redirect-token-0123456789"}, "--listen", "127.0.0.1:0")
	p.token = "redirect-token-0123456789"
	addr := p.hostPort(t)
	for _, path := range []string{"//evil.example/", "//evil.example/path", "/\\evil.example/", "/%09/evil.example/"} {
		c := rawRequest(t, addr, "GET "+path+"?token="+p.token+" HTTP/1.1\r\nHost: "+addr+"\r\nConnection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
			t.Errorf("GET %s?token=: %d, Location %q; want 303 to /", path, resp.StatusCode, resp.Header.Get("Location"))
		}
		if !strings.Contains(resp.Header.Get("Set-Cookie"), "HttpOnly") {
			t.Errorf("GET %s?token=: cookie %q", path, resp.Header.Get("Set-Cookie"))
		}
	}
}

// Item 10: --allow-remote serves HTTPS (a self-signed certificate made at
// start, its fingerprint printed, or --tls-cert/--tls-key), refuses plain
// HTTP unless the network is said to be trusted, and prints a URL that
// names this host (not 0.0.0.0 or [::]) and works.
func TestRemoteServesTLS(t *testing.T) {
	cfg := realConfig(t)
	code, _, errOut := runKbox(t, cfg, nil, "ui", "--listen", "0.0.0.0:0", "--allow-remote", "--duration", "1s")
	if code != 2 || !strings.Contains(errOut, "--allow-remote serves HTTPS") {
		t.Fatalf("--allow-remote without TLS: exit %d %s", code, errOut)
	}
	for _, listen := range []string{"0.0.0.0:0", "[::]:0"} {
		p := runUI(t, cfg, nil, "--listen", listen, "--allow-remote", "--tls-self-signed")
		u, _ := url.Parse(p.lines[0])
		fp := strings.TrimPrefix(p.lines[1], "TLS certificate SHA-256 fingerprint: ")
		if u.Scheme != "https" || u.Hostname() == "0.0.0.0" || u.Hostname() == "::" || p.token == "" || len(fp) != 95 {
			t.Fatalf("--listen %s: printed %q", listen, p.lines)
		}
		// The URL as printed, its certificate pinned by the fingerprint.
		var seen atomic.Value
		pinned := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true,
			VerifyConnection: func(cs tls.ConnectionState) error {
				sum := sha256.Sum256(cs.PeerCertificates[0].Raw)
				got := strings.ToUpper(strings.Join(strings.Split(fmt.Sprintf("% x", sum), " "), ":"))
				seen.Store(got)
				if got != fp {
					return fmt.Errorf("fingerprint %s, printed %s", got, fp)
				}
				return nil
			}}}}
		req, _ := http.NewRequest(http.MethodGet, p.base+"api/info", nil)
		req.Header.Set("Authorization", "Bearer "+p.token)
		resp, err := pinned.Do(req)
		if err != nil {
			t.Fatalf("GET %sapi/info: %v", p.base, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %sapi/info over TLS: %d", p.base, resp.StatusCode)
		}
		// Plain HTTP to the same port is not served.
		resp, err = http.Get("http://" + p.hostPort(t) + "/api/info")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				t.Errorf("plain HTTP served on the TLS port")
			}
		}
	}
	// With a certificate of one's own: verified as any browser would.
	cert, err := serve.SelfSigned("kbox ui", []string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	keyDER, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600)
	_ = os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)
	p := runUI(t, cfg, nil, "--listen", "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile)
	pool := x509.NewCertPool()
	pool.AddCert(cert.Leaf)
	verified := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequest(http.MethodGet, p.base+"api/info", nil)
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := verified.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("--tls-cert: %v %v", resp, err)
	}
	resp.Body.Close()
	// Plain HTTP on a trusted network, said so.
	p = runUI(t, cfg, nil, "--listen", "0.0.0.0:0", "--allow-remote", "--plain-http-on-trusted-network")
	if u, _ := url.Parse(p.lines[0]); u.Scheme != "http" || u.Hostname() == "0.0.0.0" {
		t.Errorf("--plain-http-on-trusted-network: %q", p.lines)
	}
}

// oauthBroker makes kfake answer a SASL handshake for OAUTHBEARER, as a
// broker that asks for it does; the client then fetches a token.
func oauthBroker(t *testing.T) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	c.ControlKey(int16(kmsg.SASLHandshake), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := r.(*kmsg.SASLHandshakeRequest)
		if req.Mechanism != "OAUTHBEARER" {
			return nil, nil, false
		}
		resp := req.ResponseKind().(*kmsg.SASLHandshakeResponse)
		resp.SupportedMechanisms = []string{"OAUTHBEARER"}
		return resp, nil, true
	})
	return c
}

// Items 1, 8 and 9: profiles that cannot connect show why, in kbox
// status (table and -o json), kbox top -o json, the dashboard's API and
// its rendered page, and never a secret: a token endpoint URL with
// credentials (user:password@ and ?secret=) answering 401 or unreachable,
// behind a broker that asks for OAUTHBEARER; a JAAS password broken by a
// space or a stray quote; a password-env variable unset. The real
// cluster's profile works beside them.
func TestBrokenProfilesShowNoSecret(t *testing.T) {
	fake := oauthBroker(t)
	var idpCalls atomic.Int32
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		idpCalls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
	}))
	t.Cleanup(idp.Close)
	idpHost := strings.TrimPrefix(idp.URL, "http://")
	secrets := []string{"UrlUserS3CR3T", "UrlPassS3CR3T", "UrlQueryS3CR3T", "ClientS3CR3T", "JaasS3CR3T", "'b'", "'tail'"}
	oauth := func(hostport string) map[string]string {
		return map[string]string{
			"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
			"sasl.oauthbearer.token.endpoint.url": "http://UrlUserS3CR3T:UrlPassS3CR3T@" + hostport + "/token?secret=UrlQueryS3CR3T",
			"sasl.jaas.config":                    `org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="kbox" clientSecret="ClientS3CR3T";`,
			"sasl.login.retry.backoff.ms":         "1", "sasl.login.retry.backoff.max.ms": "2",
		}
	}
	jaas := func(pw string) map[string]string {
		return map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
			"sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password=` + pw + `;`}
	}
	real := strings.Split(cluster.Bootstrap, ",")
	cfg := writeConfig(t, map[string]*config.Profile{
		"real":         {BootstrapServers: real},
		"oauth-401":    {BootstrapServers: fake.ListenAddrs(), ConnectTimeout: "3s", Properties: oauth(idpHost)},
		"oauth-gone":   {BootstrapServers: fake.ListenAddrs(), ConnectTimeout: "3s", Properties: oauth("127.0.0.1:1")},
		"jaas-space":   {BootstrapServers: real, ConnectTimeout: "5s", Properties: jaas(`JaasS3CR3T-a b`)},
		"jaas-quote":   {BootstrapServers: real, ConnectTimeout: "5s", Properties: jaas(`"JaasS3CR3T"tail"`)},
		"password-env": {BootstrapServers: real, SASL: &config.SASL{Mechanism: "PLAIN", Username: "u", PasswordEnv: "KBOX_IT_UNSET_PASSWORD"}},
	})
	check := func(what, text string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s shows %q:\n%s", what, s, text)
			}
		}
	}
	reasons := []string{
		"token endpoint http://" + idpHost + "/token refused the client credentials",
		"token endpoint http://127.0.0.1:1/token: ",
		"Value not specified for an option in JAAS config (character 102: expected '='",
		"Value not specified for an option in JAAS config (character 104: expected '='",
		"password-env KBOX_IT_UNSET_PASSWORD is not set",
	}
	all := func(what, text string) {
		t.Helper()
		check(what, text)
		for _, r := range reasons {
			if !strings.Contains(text, r) {
				t.Errorf("%s: no %q in:\n%s", what, r, text)
			}
		}
	}

	// kbox status: every broken profile with its reason; real is ok.
	code, out, errOut := runKbox(t, cfg, nil, "status", "--sample", "0", "--timeout", "20s")
	t.Logf("kbox status: exit %d\n%s%s", code, out, errOut)
	all("kbox status", out+errOut)
	if code != 1 || !regexp.MustCompile(`(?m)^real +ok `).MatchString(out) || !regexp.MustCompile(`(?m)^password-env +NOT CHECKED `).MatchString(out) {
		t.Errorf("kbox status: exit %d\n%s", code, out)
	}
	code, out, errOut = runKbox(t, cfg, nil, "status", "-o", "json", "--sample", "0", "--timeout", "20s")
	all("kbox status -o json", out+errOut)
	if code != 1 {
		t.Errorf("kbox status -o json: exit %d", code)
	}
	var rep struct {
		Clusters []struct {
			Name    string  `json:"name"`
			Healthy bool    `json:"healthy"`
			Error   *string `json:"error"`
		} `json:"clusters"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Clusters) != 6 {
		t.Fatalf("kbox status -o json: %v\n%s", err, out)
	}
	for _, c := range rep.Clusters {
		if (c.Name == "real") != (c.Error == nil) || (c.Name == "real") != c.Healthy {
			t.Errorf("kbox status -o json: %s healthy %v error %v", c.Name, c.Healthy, c.Error)
		}
	}
	for _, prof := range []string{"oauth-401", "oauth-gone"} {
		code, out, errOut := runKbox(t, cfg, nil, "--profile", prof, "top", "-o", "json", "--iterations", "1")
		check("kbox top -o json --profile "+prof, out+errOut)
		if code != 1 || !strings.Contains(errOut, "kbox: error: OAUTHBEARER: token endpoint http://") {
			t.Errorf("kbox top --profile %s: exit %d %s%s", prof, code, out, errOut)
		}
	}

	// kbox ui starts, shows every profile, and the real one works.
	p := runUI(t, cfg, nil, "--listen", "127.0.0.1:0", "--allow-writes", "--timeout", "20s")
	var api strings.Builder
	for _, path := range []string{"api/info", "api/clusters?sample=0", "api/c/real/topics", "api/c/oauth-401/topics", "api/c/oauth-gone/brokers",
		"api/c/jaas-space/groups", "api/c/jaas-quote/logdirs", "api/c/password-env/topics"} {
		resp, err := p.get(t, path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Logf("GET %s: %d %.300s", path, resp.StatusCode, b)
		if path == "api/c/real/topics" && resp.StatusCode != 200 {
			t.Errorf("the real profile's topics: %d %s", resp.StatusCode, b)
		}
		api.Write(b)
	}
	all("the dashboard's API", api.String())
	dom, _ := chromium(t, p.open("#/"), "--dump-dom")
	all("the rendered page", dom)
	if !strings.Contains(dom, `data-cluster="real"`) {
		t.Errorf("the page does not show the real cluster:\n%s", tail(dom))
	}
	if idpCalls.Load() == 0 {
		t.Error("the token endpoint was never called")
	}
}
