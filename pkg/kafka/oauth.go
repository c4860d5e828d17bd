package kafka

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/redact"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
)

// OAUTHBEARER, as Java's OAuthBearerLoginModule and its login callback
// handlers take it:
//
//   - sasl.oauthbearer.token.endpoint.url=https://... with clientId,
//     clientSecret and scope in sasl.jaas.config (or the 4.1+
//     sasl.oauthbearer.client.credentials.client.id/.secret and
//     sasl.oauthbearer.scope properties): the OIDC client-credentials grant;
//   - sasl.oauthbearer.token.endpoint.url=file:///path: a token file, read
//     again whenever it changes and when the token is due for refresh;
//   - unsecuredLoginStringClaim_sub="..." in sasl.jaas.config: an unsigned
//     (alg "none") token for brokers that run the unsecured validator;
//   - kbox extensions: kbox.sasl.oauthbearer.token (a static token),
//     kbox.sasl.oauthbearer.token.file and kbox.sasl.oauthbearer.token.command
//     (a command printing a JWT, or JSON {"token"|"access_token": ...,
//     "expires_in": seconds, "extensions": {...}}).
//
// Tokens are cached and refreshed as Java's login refresh thread does
// (sasl.login.refresh.window.factor/jitter, .min.period.seconds,
// .buffer.seconds); franz-go asks for a token on every new connection and
// on every re-authentication (connections.max.reauth.ms), so long runs get
// fresh tokens.

// oauthProps are the raw OAUTHBEARER-related properties.
type oauthProps struct {
	tokenURL     string
	clientID     string
	clientSecret string
	scope        string
	subClaim     string
	token        string
	tokenFile    string
	tokenCommand string
	urlEncode    bool

	refreshFactor    float64
	refreshJitter    float64
	refreshMinPeriod time.Duration
	refreshBuffer    time.Duration
	connectTimeout   time.Duration
	readTimeout      time.Duration
	retryBackoff     time.Duration
	retryBackoffMax  time.Duration
}

func defaultOAuthProps() oauthProps {
	return oauthProps{
		subClaim:         "sub",
		refreshFactor:    0.8,
		refreshJitter:    0.05,
		refreshMinPeriod: 60 * time.Second,
		refreshBuffer:    300 * time.Second,
		connectTimeout:   10 * time.Second,
		readTimeout:      30 * time.Second,
		retryBackoff:     100 * time.Millisecond,
		retryBackoffMax:  10 * time.Second,
	}
}

// OAuthError is a failure to obtain an OAUTHBEARER token. Its text never
// holds the token or the client secret.
type OAuthError struct{ Msg string }

func (e *OAuthError) Error() string { return "OAUTHBEARER: " + e.Msg }

// token is a fetched access token.
type token struct {
	value      string
	issued     time.Time
	expires    time.Time // zero: unknown
	extensions map[string]string
}

// tokenFetcher obtains a new token.
type tokenFetcher interface {
	fetch(ctx context.Context) (*token, error)
	// changed reports whether the source changed since the last fetch
	// (token files), so the cached token must be dropped.
	changed() bool
	describe() string
}

// tokenCache hands out the cached token until it is due for refresh.
type tokenCache struct {
	src  tokenFetcher
	p    oauthProps
	ext  map[string]string
	now  func() time.Time
	rand func() float64

	mu        sync.Mutex
	cur       *token
	refreshAt time.Time
	lastErr   error
}

func newTokenCache(src tokenFetcher, p oauthProps, ext map[string]string) *tokenCache {
	return &tokenCache{src: src, p: p, ext: ext, now: time.Now, rand: rand.Float64}
}

// refreshTime is when Java's ExpiringCredentialRefreshingLogin would
// refresh a token issued at issued that expires at exp.
func refreshTime(p oauthProps, issued, exp time.Time, r float64) time.Time {
	if exp.IsZero() {
		return time.Time{}
	}
	life := exp.Sub(issued)
	at := issued.Add(time.Duration(float64(life) * (p.refreshFactor + p.refreshJitter*r)))
	if exp.Sub(at) < p.refreshBuffer {
		at = exp.Add(-p.refreshBuffer)
	}
	if at.Sub(issued) < p.refreshMinPeriod {
		at = issued.Add(p.refreshMinPeriod)
	}
	if at.After(exp) {
		at = exp
	}
	return at
}

// get returns a valid token, fetching a new one when none is cached, the
// cached one is due for refresh or expired, or its source changed.
func (c *tokenCache) get(ctx context.Context) (*token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if c.cur != nil && !c.src.changed() && (c.refreshAt.IsZero() || now.Before(c.refreshAt)) {
		return c.cur, nil
	}
	t, err := c.src.fetch(ctx)
	if err != nil {
		c.lastErr = err
		// Keep using a token that is due for refresh but not expired, as
		// Java does while its refresh retries.
		if c.cur != nil && (c.cur.expires.IsZero() || now.Before(c.cur.expires)) {
			return c.cur, nil
		}
		return nil, err
	}
	c.lastErr = nil
	if t.issued.IsZero() {
		t.issued = now
	}
	if !t.expires.IsZero() && !t.expires.After(now) {
		err := &OAuthError{fmt.Sprintf("the token from %s expired at %s", c.src.describe(), t.expires.UTC().Format(time.RFC3339))}
		c.lastErr = err
		return nil, err
	}
	c.cur = t
	c.refreshAt = refreshTime(c.p, t.issued, t.expires, c.rand())
	return t, nil
}

// LastError is the last token fetch failure (nil after a success).
func (c *tokenCache) LastError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastErr
}

func (c *tokenCache) mechanism() sasl.Mechanism {
	return oauth.Oauth(func(ctx context.Context) (oauth.Auth, error) {
		t, err := c.get(ctx)
		if err != nil {
			return oauth.Auth{}, err
		}
		ext := map[string]string{}
		for k, v := range c.ext {
			ext[k] = v
		}
		for k, v := range t.extensions {
			ext[k] = v
		}
		if len(ext) == 0 {
			ext = nil
		}
		return oauth.Auth{Token: t.value, Extensions: ext}, nil
	})
}

// jwtClaims decodes the claims of a JWS compact token without verifying it.
func jwtClaims(tok string) (map[string]any, bool) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return nil, false
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&m) != nil {
		return nil, false
	}
	return m, true
}

func claimTime(m map[string]any, k string) time.Time {
	n, ok := m[k].(json.Number)
	if !ok {
		return time.Time{}
	}
	f, err := n.Float64()
	if err != nil || f <= 0 || f > 1e11 {
		return time.Time{}
	}
	return time.Unix(int64(f), 0)
}

// newToken builds a token, taking issue and expiry times from the JWT
// claims when the token is a JWT, else from expiresIn (seconds, 0: none).
func newToken(value string, expiresIn int64, now time.Time, src string) (*token, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil, &OAuthError{fmt.Sprintf("%s returned an empty token", src)}
	}
	if strings.ContainsAny(value, " \t\r\n\x01") {
		return nil, &OAuthError{fmt.Sprintf("%s returned a malformed token (it contains white space)", src)}
	}
	t := &token{value: value}
	if m, ok := jwtClaims(value); ok {
		t.issued = claimTime(m, "iat")
		t.expires = claimTime(m, "exp")
	}
	if t.expires.IsZero() && expiresIn > 0 {
		t.issued = now
		t.expires = now.Add(time.Duration(expiresIn) * time.Second)
	}
	return t, nil
}

// --- sources ---

type staticToken struct{ t *token }

func (s staticToken) fetch(context.Context) (*token, error) {
	cp := *s.t
	return &cp, nil
}
func (staticToken) changed() bool    { return false }
func (staticToken) describe() string { return "kbox.sasl.oauthbearer.token" }

type fileToken struct {
	path string
	mu   sync.Mutex
	mod  time.Time
	size int64
}

func (f *fileToken) stat() (time.Time, int64, error) {
	st, err := os.Stat(f.path)
	if err != nil {
		return time.Time{}, 0, err
	}
	return st.ModTime(), st.Size(), nil
}

func (f *fileToken) changed() bool {
	mod, size, err := f.stat()
	f.mu.Lock()
	defer f.mu.Unlock()
	return err != nil || !mod.Equal(f.mod) || size != f.size
}

func (f *fileToken) fetch(context.Context) (*token, error) {
	mod, size, _ := f.stat()
	b, err := os.ReadFile(f.path)
	if err != nil {
		return nil, &OAuthError{"cannot read the token file " + fileErr(err)}
	}
	f.mu.Lock()
	f.mod, f.size = mod, size
	f.mu.Unlock()
	return newToken(string(b), 0, time.Now(), "the token file "+f.path)
}

func (f *fileToken) describe() string { return "the token file " + f.path }

type commandToken struct{ cmd string }

func (commandToken) changed() bool { return false }
func (c commandToken) describe() string {
	return "kbox.sasl.oauthbearer.token.command"
}

func (c commandToken) fetch(ctx context.Context) (*token, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", c.cmd)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		// The command's stderr is its own business (it may hold secrets):
		// report only the exit status.
		return nil, &OAuthError{fmt.Sprintf("the token command (kbox.sasl.oauthbearer.token.command) failed: %v", err)}
	}
	return parseTokenOutput(out.Bytes(), time.Now(), "the token command")
}

// parseTokenOutput reads a token command's stdout: a bare token, or JSON
// with token/access_token, expires_in and extensions.
func parseTokenOutput(b []byte, now time.Time, src string) (*token, error) {
	s := strings.TrimSpace(string(b))
	if !strings.HasPrefix(s, "{") {
		return newToken(s, 0, now, src)
	}
	var v struct {
		Token       string            `json:"token"`
		AccessToken string            `json:"access_token"`
		ExpiresIn   json.Number       `json:"expires_in"`
		Extensions  map[string]string `json:"extensions"`
	}
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, &OAuthError{fmt.Sprintf("%s printed malformed JSON (want {\"token\": ..., \"expires_in\": ..., \"extensions\": {...}})", src)}
	}
	val := v.Token
	if val == "" {
		val = v.AccessToken
	}
	exp, _ := strconv.ParseFloat(string(v.ExpiresIn), 64)
	t, err := newToken(val, int64(exp), now, src)
	if err != nil {
		return nil, err
	}
	for k := range v.Extensions {
		if err := checkExtensionName(k); err != nil {
			return nil, &OAuthError{fmt.Sprintf("%s: %v", src, err)}
		}
	}
	t.extensions = v.Extensions
	return t, nil
}

// checkExtensionName applies the SASL OAUTHBEARER extension key rules
// (RFC 7628: ALPHA+; "auth" is reserved).
func checkExtensionName(k string) error {
	if k == "" || k == "auth" {
		return fmt.Errorf("invalid SASL extension name %q", k)
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return fmt.Errorf("invalid SASL extension name %q (letters only)", k)
		}
	}
	return nil
}

// unsecuredToken is what OAuthBearerUnsecuredLoginCallbackHandler makes: an
// unsigned JWT with the unsecuredLoginStringClaim_/NumberClaim_ options.
type unsecuredToken struct {
	claims   map[string]any
	lifetime time.Duration
}

func (unsecuredToken) changed() bool    { return false }
func (unsecuredToken) describe() string { return "the unsecured login options" }

func (u unsecuredToken) fetch(context.Context) (*token, error) {
	now := time.Now()
	claims := map[string]any{}
	for k, v := range u.claims {
		claims[k] = v
	}
	claims["iat"] = now.Unix()
	claims["exp"] = now.Add(u.lifetime).Unix()
	hdr := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`))
	body, err := json.Marshal(claims)
	if err != nil {
		return nil, &OAuthError{err.Error()}
	}
	val := hdr + "." + base64.RawURLEncoding.EncodeToString(body) + "."
	return &token{value: val, issued: now, expires: now.Add(u.lifetime)}, nil
}

// clientCredentials is the OIDC client-credentials grant, as Java's
// ClientCredentialsJwtRetriever sends it: POST
// grant_type=client_credentials[&scope=...] with HTTP basic auth.
type clientCredentials struct {
	endpoint string
	// shown is the endpoint as messages name it: without its userinfo
	// and query string (redact.URL), which may hold credentials.
	shown   string
	id      string
	secret  string
	scope   string
	encode  bool // sasl.oauthbearer.header.urlencode
	client  *http.Client
	backoff time.Duration
	max     time.Duration
}

func (clientCredentials) changed() bool { return false }
func (c clientCredentials) describe() string {
	return "the token endpoint " + c.shown
}

func (c clientCredentials) fetch(ctx context.Context) (*token, error) {
	wait := c.backoff
	var last error
	for attempt := 0; attempt < 5; attempt++ {
		t, retry, err := c.once(ctx)
		if err == nil {
			return t, nil
		}
		last = err
		if !retry {
			break
		}
		select {
		case <-ctx.Done():
			return nil, last
		case <-time.After(wait):
		}
		wait = min(wait*2, c.max)
	}
	return nil, last
}

func (c clientCredentials) once(ctx context.Context) (*token, bool, error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	if c.scope != "" {
		form.Set("scope", c.scope)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, false, &OAuthError{fmt.Sprintf("bad token endpoint URL %s: %s", c.shown, redact.URLs(redactURLErr(err).Error()))}
	}
	id, secret := c.id, c.secret
	if c.encode {
		id, secret = url.QueryEscape(id), url.QueryEscape(secret)
	}
	req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(id+":"+secret)))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, true, &OAuthError{fmt.Sprintf("token endpoint %s: %s", c.shown, redact.URLs(redactURLErr(err).Error()))}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, true, &OAuthError{fmt.Sprintf("token endpoint %s: reading the response: %s", c.shown, redact.URLs(err.Error()))}
	}
	var v struct {
		AccessToken string      `json:"access_token"`
		ExpiresIn   json.Number `json:"expires_in"`
		Error       string      `json:"error"`
		Description string      `json:"error_description"`
	}
	_ = json.Unmarshal(body, &v)
	if resp.StatusCode/100 != 2 {
		msg := fmt.Sprintf("token endpoint %s refused the client credentials of client %q: HTTP %d", c.shown, c.id, resp.StatusCode)
		if v.Error != "" {
			msg += " " + redact.URLs(oneLineText(v.Error))
			if v.Description != "" {
				msg += " (" + redact.URLs(oneLineText(v.Description)) + ")"
			}
		}
		return nil, resp.StatusCode >= 500 || resp.StatusCode == 429, &OAuthError{msg}
	}
	if v.AccessToken == "" {
		return nil, false, &OAuthError{fmt.Sprintf("token endpoint %s answered without an access_token", c.shown)}
	}
	exp, _ := strconv.ParseFloat(string(v.ExpiresIn), 64)
	t, err := newToken(v.AccessToken, int64(exp), time.Now(), "token endpoint "+c.shown)
	return t, false, err
}

func oneLineText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// redactURLErr drops the URL (which may carry credentials in userinfo)
// from a *url.Error, keeping the cause.
func redactURLErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// --- settings ---

// finishOAuth builds the OAUTHBEARER mechanism from the properties and the
// JAAS options.
func (s *Settings) finishOAuth(opts map[string]string) error {
	p := s.oauth
	ext := map[string]string{}
	claims := map[string]any{}
	lifetime := time.Hour
	for k, v := range opts {
		switch {
		case strings.HasPrefix(k, "extension_"):
			name := strings.TrimPrefix(k, "extension_")
			if err := checkExtensionName(name); err != nil {
				return &PropertyError{"sasl.jaas.config", err.Error()}
			}
			ext[name] = v
		case strings.HasPrefix(k, "unsecuredLoginStringClaim_"):
			claims[strings.TrimPrefix(k, "unsecuredLoginStringClaim_")] = v
		case strings.HasPrefix(k, "unsecuredLoginNumberClaim_"):
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return &PropertyError{"sasl.jaas.config", fmt.Sprintf("option %s: not a number", k)}
			}
			claims[strings.TrimPrefix(k, "unsecuredLoginNumberClaim_")] = n
		case strings.HasPrefix(k, "unsecuredLoginListClaim_"):
			if len(v) > 0 {
				claims[strings.TrimPrefix(k, "unsecuredLoginListClaim_")] = strings.Split(v[1:], v[:1])
			}
		case k == "unsecuredLoginLifetimeSeconds":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return &PropertyError{"sasl.jaas.config", "option unsecuredLoginLifetimeSeconds: not a positive integer"}
			}
			lifetime = time.Duration(n) * time.Second
		case k == "clientId" && p.clientID == "":
			p.clientID = v
		case k == "clientSecret" && p.clientSecret == "":
			p.clientSecret = v
		case k == "scope" && p.scope == "":
			p.scope = v
		}
	}
	var src tokenFetcher
	var sources []string
	if p.token != "" {
		sources = append(sources, "kbox.sasl.oauthbearer.token")
	}
	if p.tokenFile != "" {
		sources = append(sources, "kbox.sasl.oauthbearer.token.file")
	}
	if p.tokenCommand != "" {
		sources = append(sources, "kbox.sasl.oauthbearer.token.command")
	}
	if p.tokenURL != "" {
		sources = append(sources, "sasl.oauthbearer.token.endpoint.url")
	}
	if len(sources) > 1 {
		return &PropertyError{sources[1], fmt.Sprintf("conflicts with %s: set one token source", sources[0])}
	}
	switch {
	case p.token != "":
		t, err := newToken(p.token, 0, time.Now(), "kbox.sasl.oauthbearer.token")
		if err != nil {
			return &PropertyError{"kbox.sasl.oauthbearer.token", strings.TrimPrefix(err.Error(), "OAUTHBEARER: ")}
		}
		src = staticToken{t}
	case p.tokenFile != "":
		src = &fileToken{path: p.tokenFile}
	case p.tokenCommand != "":
		src = commandToken{p.tokenCommand}
	case p.tokenURL != "":
		u, err := url.Parse(p.tokenURL)
		if err != nil || u.Scheme == "" {
			return &PropertyError{"sasl.oauthbearer.token.endpoint.url", "not a URL (want https://..., http://... or file:///path)"}
		}
		switch strings.ToLower(u.Scheme) {
		case "file":
			path := u.Path
			if path == "" {
				path = u.Opaque
			}
			src = &fileToken{path: path}
		case "http", "https":
			if p.clientID == "" || p.clientSecret == "" {
				return &PropertyError{"sasl.jaas.config", "clientId and clientSecret options are required with an http(s) sasl.oauthbearer.token.endpoint.url"}
			}
			hc, err := s.oauthHTTPClient()
			if err != nil {
				return err
			}
			src = clientCredentials{endpoint: p.tokenURL, shown: redact.URL(p.tokenURL), id: p.clientID, secret: p.clientSecret, scope: p.scope,
				encode: p.urlEncode, client: hc, backoff: p.retryBackoff, max: p.retryBackoffMax}
			s.SASLUser = p.clientID
		default:
			return &PropertyError{"sasl.oauthbearer.token.endpoint.url", fmt.Sprintf("unsupported URL scheme %q (want https, http or file)", u.Scheme)}
		}
	case len(claims) > 0:
		sub := p.subClaim
		if v, ok := claims[sub].(string); ok {
			s.SASLUser = v
		} else {
			return &PropertyError{"sasl.jaas.config", fmt.Sprintf("option unsecuredLoginStringClaim_%s is required for an unsecured token", sub)}
		}
		src = unsecuredToken{claims: claims, lifetime: lifetime}
	default:
		return &PropertyError{"sasl.oauthbearer.token.endpoint.url", "not set: OAUTHBEARER needs a token source (sasl.oauthbearer.token.endpoint.url, unsecuredLoginStringClaim_sub in sasl.jaas.config, or kbox.sasl.oauthbearer.token/.token.file/.token.command)"}
	}
	s.tokens = newTokenCache(src, p, ext)
	return nil
}

// oauthHTTPClient is the HTTP client for the token endpoint: the
// sasl.login timeouts, and the system roots plus the configured truststore.
func (s *Settings) oauthHTTPClient() (*http.Client, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if s.TLS.truststoreCerts != "" || s.TLS.TruststoreLocation != "" {
		extra, err := s.TLS.rootCAs()
		if err != nil {
			return nil, err
		}
		if extra != nil {
			pool = extra // x509.CertPool cannot be merged; the truststore wins, as in Java
		}
	}
	tc.RootCAs = pool
	p := s.oauth
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: p.connectTimeout}).DialContext,
		TLSClientConfig:       tc,
		TLSHandshakeTimeout:   p.connectTimeout,
		ResponseHeaderTimeout: p.readTimeout,
	}
	return &http.Client{Transport: tr, Timeout: p.connectTimeout + p.readTimeout}, nil
}

// oauthRows are the OAUTHBEARER rows of the property table.
func oauthRows() map[string]property {
	str := func(f func(*oauthProps) *string) func(*Settings, string) error {
		return func(s *Settings, v string) error { *f(&s.oauth) = strings.TrimSpace(v); return nil }
	}
	secret := func(f func(*oauthProps) *string) func(*Settings, string) error {
		return func(s *Settings, v string) error { *f(&s.oauth) = v; return nil }
	}
	frac := func(lo, hi float64, f func(*oauthProps) *float64) func(*Settings, string) error {
		return func(s *Settings, v string) error {
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || x < lo || x > hi {
				return fmt.Errorf("must be a number between %g and %g", lo, hi)
			}
			*f(&s.oauth) = x
			return nil
		}
	}
	secs := func(hi int64, f func(*oauthProps) *time.Duration) func(*Settings, string) error {
		return func(s *Settings, v string) error {
			n, err := parseInt(v, 0, hi)
			if err != nil {
				return fmt.Errorf("%v (seconds)", err)
			}
			*f(&s.oauth) = time.Duration(n) * time.Second
			return nil
		}
	}
	ms := func(f func(*oauthProps) *time.Duration) func(*Settings, string) error {
		return func(s *Settings, v string) error {
			n, err := parseInt(v, 0, 1<<40)
			if err != nil {
				return fmt.Errorf("%v (milliseconds)", err)
			}
			*f(&s.oauth) = time.Duration(n) * time.Millisecond
			return nil
		}
	}
	broker := "used by brokers to validate tokens, not by clients"
	return map[string]property{
		"sasl.oauthbearer.token.endpoint.url":               {roles: Common, apply: str(func(p *oauthProps) *string { return &p.tokenURL })},
		"sasl.oauthbearer.client.credentials.client.id":     {roles: Common, apply: str(func(p *oauthProps) *string { return &p.clientID })},
		"sasl.oauthbearer.client.credentials.client.secret": {roles: Common, apply: secret(func(p *oauthProps) *string { return &p.clientSecret })},
		"sasl.oauthbearer.scope":                            {roles: Common, apply: str(func(p *oauthProps) *string { return &p.scope })},
		"sasl.oauthbearer.sub.claim.name":                   {roles: Common, apply: str(func(p *oauthProps) *string { return &p.subClaim })},
		"sasl.oauthbearer.scope.claim.name":                 {roles: Common, reason: "kbox does not validate the scope claim of its own tokens"},
		"sasl.oauthbearer.header.urlencode": {roles: Common, apply: func(s *Settings, v string) error {
			return boolp(func(s *Settings) *bool { return &s.oauth.urlEncode })(s, v)
		}},
		"sasl.oauthbearer.jwt.retriever.class":                {roles: Common, apply: jwtRetriever},
		"sasl.oauthbearer.jwks.endpoint.url":                  {roles: Common, reason: broker},
		"sasl.oauthbearer.jwks.endpoint.refresh.ms":           {roles: Common, reason: broker},
		"sasl.oauthbearer.jwks.endpoint.retry.backoff.ms":     {roles: Common, reason: broker},
		"sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms": {roles: Common, reason: broker},
		"sasl.oauthbearer.expected.audience":                  {roles: Common, reason: broker},
		"sasl.oauthbearer.expected.issuer":                    {roles: Common, reason: broker},
		"sasl.oauthbearer.clock.skew.seconds":                 {roles: Common, reason: broker},
		"sasl.login.refresh.window.factor":                    {roles: Common, apply: frac(0.5, 1.0, func(p *oauthProps) *float64 { return &p.refreshFactor })},
		"sasl.login.refresh.window.jitter":                    {roles: Common, apply: frac(0, 0.25, func(p *oauthProps) *float64 { return &p.refreshJitter })},
		"sasl.login.refresh.min.period.seconds":               {roles: Common, apply: secs(900, func(p *oauthProps) *time.Duration { return &p.refreshMinPeriod })},
		"sasl.login.refresh.buffer.seconds":                   {roles: Common, apply: secs(3600, func(p *oauthProps) *time.Duration { return &p.refreshBuffer })},
		"sasl.login.connect.timeout.ms":                       {roles: Common, apply: ms(func(p *oauthProps) *time.Duration { return &p.connectTimeout })},
		"sasl.login.read.timeout.ms":                          {roles: Common, apply: ms(func(p *oauthProps) *time.Duration { return &p.readTimeout })},
		"sasl.login.retry.backoff.ms":                         {roles: Common, apply: ms(func(p *oauthProps) *time.Duration { return &p.retryBackoff })},
		"sasl.login.retry.backoff.max.ms":                     {roles: Common, apply: ms(func(p *oauthProps) *time.Duration { return &p.retryBackoffMax })},
		"kbox.sasl.oauthbearer.token":                         {roles: Common, apply: secret(func(p *oauthProps) *string { return &p.token })},
		"kbox.sasl.oauthbearer.token.file":                    {roles: Common, apply: str(func(p *oauthProps) *string { return &p.tokenFile })},
		"kbox.sasl.oauthbearer.token.command":                 {roles: Common, apply: str(func(p *oauthProps) *string { return &p.tokenCommand })},
	}
}

func jwtRetriever(_ *Settings, v string) error {
	switch strings.TrimSpace(v) {
	case "", "org.apache.kafka.common.security.oauthbearer.DefaultJwtRetriever",
		"org.apache.kafka.common.security.oauthbearer.ClientCredentialsJwtRetriever",
		"org.apache.kafka.common.security.oauthbearer.FileJwtRetriever":
		return nil
	}
	return fmt.Errorf("only the client-credentials and file retrievers are supported")
}

// oauthCallbackHandlers are the Java login callback handler classes whose
// behaviour kbox implements itself.
var oauthCallbackHandlers = map[string]bool{
	"org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler":                              true,
	"org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler":                      true,
	"org.apache.kafka.common.security.oauthbearer.internals.unsecured.OAuthBearerUnsecuredLoginCallbackHandler": true,
}
