package kafka

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// jwt makes an unsigned JWT with the given claims.
func jwt(claims map[string]any) string {
	b, _ := json.Marshal(claims)
	return base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`)) + "." + base64.RawURLEncoding.EncodeToString(b) + ".sig"
}

func oauthSettings(t *testing.T, text string) (*Settings, error) {
	t.Helper()
	return Parse(props(t, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"+text), Admin)
}

// authBytes runs the mechanism's first step and returns the client message.
func authBytes(t *testing.T, s *Settings) (string, error) {
	t.Helper()
	m := s.saslMechanism()
	if m == nil || m.Name() != "OAUTHBEARER" {
		t.Fatalf("mechanism %v", m)
	}
	_, b, err := m.Authenticate(context.Background(), "127.0.0.1:9092")
	return string(b), err
}

func bearer(msg string) string {
	i := strings.Index(msg, "auth=Bearer ")
	if i < 0 {
		return ""
	}
	rest := msg[i+len("auth=Bearer "):]
	return rest[:strings.IndexByte(rest, '\x01')]
}

func TestOAuthStaticAndUnsecured(t *testing.T) {
	tok := jwt(map[string]any{"sub": "alice", "exp": time.Now().Add(time.Hour).Unix()})
	s, err := oauthSettings(t, "kbox.sasl.oauthbearer.token="+tok+"\nsasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required extension_traceId=\"abc\";\n")
	if err != nil {
		t.Fatal(err)
	}
	msg, err := authBytes(t, s)
	if err != nil || bearer(msg) != tok || !strings.Contains(msg, "\x01traceId=abc\x01") {
		t.Fatalf("static: %q %v", msg, err)
	}

	s, err = oauthSettings(t, "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub=\"admin\" unsecuredLoginLifetimeSeconds=\"120\";\n")
	if err != nil {
		t.Fatal(err)
	}
	msg, err = authBytes(t, s)
	if err != nil {
		t.Fatal(err)
	}
	claims, ok := jwtClaims(bearer(msg) + "x")
	if !ok {
		// The unsecured token has an empty signature part.
		claims, ok = jwtClaims(bearer(msg))
	}
	if !ok || claims["sub"] != "admin" || s.SASLUser != "admin" {
		t.Fatalf("unsecured claims: %v (%q)", claims, bearer(msg))
	}
	exp, iat := claimTime(claims, "exp"), claimTime(claims, "iat")
	if exp.Sub(iat) != 120*time.Second {
		t.Fatalf("lifetime %v", exp.Sub(iat))
	}
	hdr, _ := base64.RawURLEncoding.DecodeString(strings.Split(bearer(msg), ".")[0])
	if string(hdr) != `{"alg":"none"}` {
		t.Fatalf("header %s", hdr)
	}

	// An expired static token is refused before connecting.
	old := jwt(map[string]any{"sub": "a", "exp": time.Now().Add(-time.Minute).Unix()})
	s, err = oauthSettings(t, "kbox.sasl.oauthbearer.token="+old+"\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := authBytes(t, s); err == nil || !strings.Contains(err.Error(), "expired at") || strings.Contains(err.Error(), old) {
		t.Fatalf("expired static token: %v", err)
	}
}

func TestOAuthTokenFileReRead(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "token")
	t1 := jwt(map[string]any{"sub": "a", "n": 1, "exp": time.Now().Add(time.Hour).Unix()})
	t2 := jwt(map[string]any{"sub": "a", "n": 2, "exp": time.Now().Add(2 * time.Hour).Unix()})
	if err := os.WriteFile(f, []byte(t1+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"sasl.oauthbearer.token.endpoint.url=file://" + f + "\n", "kbox.sasl.oauthbearer.token.file=" + f + "\n"} {
		_ = os.WriteFile(f, []byte(t1+"\n"), 0o600)
		s, err := oauthSettings(t, text)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := authBytes(t, s)
		if err != nil || bearer(msg) != t1 {
			t.Fatalf("%s: first read: %v", text, err)
		}
		_ = os.WriteFile(f, []byte(t2), 0o600)
		// Make sure the mtime differs even on coarse file systems.
		_ = os.Chtimes(f, time.Now().Add(time.Second), time.Now().Add(time.Second))
		msg, err = authBytes(t, s)
		if err != nil || bearer(msg) != t2 {
			t.Fatalf("%s: after rewrite: got %q %v", text, bearer(msg), err)
		}
		_ = os.Remove(f)
		// The file is gone: the cached (still valid) token keeps working.
		if msg, err = authBytes(t, s); err != nil || bearer(msg) != t2 {
			t.Fatalf("%s: after removal: %v", text, err)
		}
	}
	s, _ := oauthSettings(t, "kbox.sasl.oauthbearer.token.file="+dir+"/missing\n")
	if _, err := authBytes(t, s); err == nil || !strings.Contains(err.Error(), "OAUTHBEARER: cannot read the token file "+dir+"/missing") {
		t.Fatalf("missing token file: %v", err)
	}
}

func TestOAuthTokenCommand(t *testing.T) {
	dir := t.TempDir()
	counter := filepath.Join(dir, "n")
	tok := jwt(map[string]any{"sub": "c", "exp": time.Now().Add(time.Hour).Unix()})
	script := fmt.Sprintf(`echo x >> %s; printf '{"token":"%s","extensions":{"tenant":"t1"}}'`, counter, tok)
	s, err := oauthSettings(t, "kbox.sasl.oauthbearer.token.command="+script+"\n")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		msg, err := authBytes(t, s)
		if err != nil || bearer(msg) != tok || !strings.Contains(msg, "tenant=t1") {
			t.Fatalf("command: %q %v", msg, err)
		}
	}
	if b, _ := os.ReadFile(counter); strings.Count(string(b), "x") != 1 {
		t.Fatalf("the command ran %d times, want 1 (cached)", strings.Count(string(b), "x"))
	}
	s, _ = oauthSettings(t, "kbox.sasl.oauthbearer.token.command=echo my-secret-output >&2; exit 3\n")
	if _, err := authBytes(t, s); err == nil || !strings.Contains(err.Error(), "token command") || strings.Contains(err.Error(), "my-secret-output") {
		t.Fatalf("failing command: %v", err)
	}
	for in, want := range map[string]string{
		"plain-token\n":                         "plain-token",
		`{"access_token":"at","expires_in":60}`: "at",
	} {
		tk, err := parseTokenOutput([]byte(in), time.Now(), "x")
		if err != nil || tk.value != want {
			t.Errorf("%q: %v %v", in, tk, err)
		}
	}
	for _, in := range []string{"", "{", `{"token":""}`, "two words", `{"token":"a","extensions":{"auth":"x"}}`} {
		if _, err := parseTokenOutput([]byte(in), time.Now(), "x"); err == nil {
			t.Errorf("%q: accepted", in)
		}
	}
}

func TestRefreshTime(t *testing.T) {
	p := defaultOAuthProps()
	iss := time.Unix(1_000_000, 0)
	for _, c := range []struct {
		life, want time.Duration
		r          float64
	}{
		{time.Hour, 48 * time.Minute, 0},        // 0.8 of the lifetime
		{time.Hour, 51 * time.Minute, 1},        // + full jitter (0.05)
		{10 * time.Minute, 5 * time.Minute, 0},  // buffer: 300 s before expiry
		{90 * time.Second, 60 * time.Second, 0}, // min period 60 s
		{30 * time.Second, 30 * time.Second, 0}, // never after expiry
		{10 * time.Hour, 8 * time.Hour, 0},      // long tokens: the factor
		{20 * time.Minute, 15 * time.Minute, 0}, // 0.8 leaves 4 min < buffer: 5 min before expiry
	} {
		got := refreshTime(p, iss, iss.Add(c.life), c.r).Sub(iss)
		if got != c.want {
			t.Errorf("life %v r %v: refresh after %v, want %v", c.life, c.r, got, c.want)
		}
	}
	if !refreshTime(p, iss, time.Time{}, 0).IsZero() {
		t.Error("no expiry must mean no scheduled refresh")
	}
}

func TestTokenCacheRefresh(t *testing.T) {
	var n atomic.Int32
	now := time.Unix(2_000_000, 0)
	src := &funcSource{f: func() (*token, error) {
		i := n.Add(1)
		return &token{value: fmt.Sprintf("t%d", i), issued: now, expires: now.Add(time.Hour)}, nil
	}}
	c := newTokenCache(src, defaultOAuthProps(), nil)
	c.now = func() time.Time { return now }
	c.rand = func() float64 { return 0 }
	get := func() string {
		tk, err := c.get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return tk.value
	}
	if first, second := get(), get(); first != "t1" || second != "t1" {
		t.Fatal("cached token not reused")
	}
	now = now.Add(47 * time.Minute)
	if get() != "t1" {
		t.Fatal("refreshed too early")
	}
	now = now.Add(2 * time.Minute) // 49 min: past 0.8 of the lifetime
	if get() != "t2" {
		t.Fatal("not refreshed at 80% of the lifetime")
	}
	// A failing refresh keeps the still-valid token, and reports nothing.
	src.f = func() (*token, error) { return nil, &OAuthError{"down"} }
	now = now.Add(50 * time.Minute)
	if get() != "t2" || c.LastError() == nil {
		t.Fatal("a failed refresh must keep the valid token and remember the error")
	}
	now = now.Add(time.Hour)
	if _, err := c.get(context.Background()); err == nil {
		t.Fatal("expired token handed out")
	}
}

type funcSource struct{ f func() (*token, error) }

func (s *funcSource) fetch(context.Context) (*token, error) { return s.f() }
func (s *funcSource) changed() bool                         { return false }
func (s *funcSource) describe() string                      { return "test" }

func TestOAuthClientCredentials(t *testing.T) {
	var calls atomic.Int32
	var fail atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		id, secret, ok := r.BasicAuth()
		_ = r.ParseForm()
		if r.Method != http.MethodPost || r.Form.Get("grant_type") != "client_credentials" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if fail.Load() {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		if !ok || id != "kbox-client" || secret != "s3cr3t/+=" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid_client","error_description":"bad credentials"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": jwt(map[string]any{"sub": id, "scope": r.Form.Get("scope"), "exp": time.Now().Add(time.Hour).Unix()}), "token_type": "bearer", "expires_in": 3600})
	}))
	defer srv.Close()
	jaas := func(secret string) string {
		return "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId=\"kbox-client\" clientSecret=\"" + secret + "\" scope=\"kafka.admin\";\n"
	}
	base := "sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler\nsasl.oauthbearer.token.endpoint.url=" + srv.URL + "/token\nsasl.login.retry.backoff.ms=1\nsasl.login.retry.backoff.max.ms=5\n"
	s, err := oauthSettings(t, base+jaas("s3cr3t/+="))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Ignored) != 0 {
		t.Fatalf("known callback handler reported: %v", s.Ignored)
	}
	msg, err := authBytes(t, s)
	if err != nil {
		t.Fatal(err)
	}
	claims, _ := jwtClaims(bearer(msg))
	if claims["sub"] != "kbox-client" || claims["scope"] != "kafka.admin" {
		t.Fatalf("claims %v", claims)
	}
	if _, err := authBytes(t, s); err != nil || calls.Load() != 1 {
		t.Fatalf("token not cached: %d calls, %v", calls.Load(), err)
	}
	// 4.1+ property names.
	s, err = oauthSettings(t, "sasl.oauthbearer.token.endpoint.url="+srv.URL+"\nsasl.oauthbearer.client.credentials.client.id=kbox-client\nsasl.oauthbearer.client.credentials.client.secret=s3cr3t/+=\nsasl.oauthbearer.scope=x\nsasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := authBytes(t, s); err != nil {
		t.Fatal(err)
	}
	// Wrong secret: one line naming the endpoint and client, not the secret.
	s, _ = oauthSettings(t, base+jaas("WRONG-secret-42"))
	_, err = authBytes(t, s)
	if err == nil || !strings.Contains(err.Error(), `refused the client credentials of client "kbox-client": HTTP 401 invalid_client (bad credentials)`) {
		t.Fatalf("wrong secret: %v", err)
	}
	assertNoSecret(t, "wrong secret", err, "WRONG-secret-42")
	// 5xx is retried (5 attempts), 4xx is not.
	fail.Store(true)
	before := calls.Load()
	s, _ = oauthSettings(t, base+jaas("s3cr3t/+="))
	if _, err := authBytes(t, s); err == nil || !strings.Contains(err.Error(), "HTTP 503") || calls.Load()-before != 5 {
		t.Fatalf("5xx: %v after %d calls", err, calls.Load()-before)
	}
	// Unreachable endpoint.
	s, _ = oauthSettings(t, "sasl.oauthbearer.token.endpoint.url=http://127.0.0.1:1/token\nsasl.login.retry.backoff.ms=1\nsasl.login.retry.backoff.max.ms=2\n"+jaas("zz-secret"))
	if _, err := authBytes(t, s); err == nil || !strings.Contains(err.Error(), "token endpoint http://127.0.0.1:1/token") || strings.Contains(err.Error(), "zz-secret") {
		t.Fatalf("unreachable: %v", err)
	}
}

func TestOAuthConfigErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"", "property sasl.oauthbearer.token.endpoint.url: not set: OAUTHBEARER needs a token source"},
		{"sasl.oauthbearer.token.endpoint.url=https://idp/token\n", "property sasl.jaas.config: clientId and clientSecret options are required"},
		{"sasl.oauthbearer.token.endpoint.url=ftp://idp/token\nsasl.jaas.config=x required clientId=\"a\" clientSecret=\"b\";\n", "unsupported URL scheme \"ftp\""},
		{"kbox.sasl.oauthbearer.token=abc\nkbox.sasl.oauthbearer.token.file=/x\n", "property kbox.sasl.oauthbearer.token.file: conflicts with kbox.sasl.oauthbearer.token"},
		{"kbox.sasl.oauthbearer.token=a b\n", "property kbox.sasl.oauthbearer.token: kbox.sasl.oauthbearer.token returned a malformed token"},
		{"sasl.jaas.config=x required unsecuredLoginStringClaim_scope=\"a\";\n", "unsecuredLoginStringClaim_sub is required"},
		{"sasl.jaas.config=x required extension_auth=\"a\" unsecuredLoginStringClaim_sub=\"u\";\n", "invalid SASL extension name \"auth\""},
		{"sasl.login.refresh.window.factor=2\n", "property sasl.login.refresh.window.factor: invalid value \"2\": must be a number between 0.5 and 1"},
		{"sasl.oauthbearer.jwt.retriever.class=com.example.X\n", "property sasl.oauthbearer.jwt.retriever.class"},
	} {
		_, err := oauthSettings(t, c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.want)
		}
	}
	// A custom Java login callback handler is reported, not silently used.
	s, err := oauthSettings(t, "sasl.login.callback.handler.class=com.example.MyHandler\nkbox.sasl.oauthbearer.token=abc\n")
	if err != nil || len(s.Ignored) != 1 || s.Ignored[0].Name != "sasl.login.callback.handler.class" {
		t.Fatalf("custom handler: %v %v", s, err)
	}
}

// A token endpoint URL may carry credentials in its userinfo and query
// string: no message names them (refused, unreachable, no access token,
// an unreadable answer, a malformed URL), while each still names the
// endpoint's host and path.
func TestOAuthEndpointURLCredentialsNotShown(t *testing.T) {
	var mode atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch mode.Load() {
		case 0:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid_client","error_description":"see http://u:S3CR3T-d@idp/help?S3CR3T-d"}`))
		case 1:
			_, _ = w.Write([]byte(`{}`))
		case 2:
			w.Header().Set("Content-Length", "100")
			_, _ = w.Write([]byte(`{"access`))
		}
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	jaas := "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId=\"cid\" clientSecret=\"S3CR3T-js\";\nsasl.login.retry.backoff.ms=1\nsasl.login.retry.backoff.max.ms=2\n"
	for _, tc := range []struct {
		name, url string
		mode      int32
		want      string
	}{
		{"refused", "http://cid:S3CR3T@" + host + "/token?secret=S3CR3T-q", 0, "token endpoint http://" + host + "/token refused the client credentials"},
		{"no access token", "http://cid:S3CR3T@" + host + "/token?secret=S3CR3T-q", 1, "token endpoint http://" + host + "/token answered without an access_token"},
		{"short answer", "http://cid:S3CR3T@" + host + "/token?secret=S3CR3T-q", 2, "token endpoint http://" + host + "/token: reading the response"},
		{"unreachable", "http://cid:S3CR3T@127.0.0.1:1/token?secret=S3CR3T-q", 0, "token endpoint http://127.0.0.1:1/token: "},
		{"bad URL", "http://cid:S3CR3T@127.0.0.1:1/t%zz?secret=S3CR3T-q", 0, "bad token endpoint URL http://127.0.0.1:1/t%zz"},
	} {
		mode.Store(tc.mode)
		s, err := oauthSettings(t, "sasl.oauthbearer.token.endpoint.url="+tc.url+"\n"+jaas)
		if err != nil {
			if tc.name == "bad URL" && !strings.Contains(err.Error(), "S3CR3T") {
				continue // refused as a property, without the value
			}
			t.Fatalf("%s: %v", tc.name, err)
		}
		_, err = authBytes(t, s)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "S3CR3T") {
			t.Errorf("%s: %v, want %q and no S3CR3T", tc.name, err, tc.want)
		}
	}
}
