//go:build integration

package security_test

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// idp is a tiny OIDC identity provider on loopback: a JWKS endpoint for the
// broker's OAuthBearerValidatorCallbackHandler and a client-credentials
// token endpoint for kbox.
type idp struct {
	url      string
	key      *rsa.PrivateKey
	other    *rsa.PrivateKey // a key the broker does not know
	lifetime atomic.Int64    // token lifetime in seconds
	issued   atomic.Int32    // tokens issued by /token
	srv      *http.Server
}

const (
	oauthClientID     = "kbox-client"
	oauthClientSecret = "oauth-client-s3cret"
)

func newIDP() (*idp, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &idp{url: "http://" + ln.Addr().String()}
	p.key, _ = rsa.GenerateKey(rand.Reader, 2048)
	p.other, _ = rsa.GenerateKey(rand.Reader, 2048)
	p.lifetime.Store(3600)
	mux := http.NewServeMux()
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []any{map[string]any{
			"kty": "RSA", "kid": "k1", "use": "sig", "alg": "RS256",
			"n": b64(p.key.N.Bytes()), "e": b64(big.NewInt(int64(p.key.E)).Bytes()),
		}}})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		_ = r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		if !ok || id != oauthClientID || secret != oauthClientSecret || r.Form.Get("grant_type") != "client_credentials" {
			w.WriteHeader(401)
			_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
			return
		}
		p.issued.Add(1)
		life := time.Duration(p.lifetime.Load()) * time.Second
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": p.token(id, life, p.key), "token_type": "Bearer", "expires_in": int(life.Seconds())})
	})
	p.srv = &http.Server{Handler: mux}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// token is an RS256 JWT for sub valid for life, signed with key.
func (p *idp) token(sub string, life time.Duration, key *rsa.PrivateKey) string {
	now := time.Now()
	hdr, _ := json.Marshal(map[string]any{"alg": "RS256", "typ": "JWT", "kid": "k1"})
	claims, _ := json.Marshal(map[string]any{"sub": sub, "iat": now.Unix(), "exp": now.Add(life).Unix(), "scope": "kafka", "iss": p.url, "aud": "kafka"})
	in := b64(hdr) + "." + b64(claims)
	h := sha256.Sum256([]byte(in))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, h[:])
	if err != nil {
		panic(err)
	}
	return in + "." + b64(sig)
}

// brokerProps are the extra server properties that add OAUTHBEARER with
// JWKS validation to the test bed's SASL_SSL listener.
func (p *idp) brokerProps() string {
	return strings.Join([]string{
		"sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER",
		"listener.name.sasl_ssl.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;",
		"listener.name.sasl_ssl.oauthbearer.sasl.server.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler",
		"sasl.oauthbearer.jwks.endpoint.url=" + p.url + "/jwks",
		"sasl.oauthbearer.expected.issuer=" + p.url,
		"sasl.oauthbearer.expected.audience=kafka",
		// Sessions end when the token expires or after 20 s, so long runs
		// must re-authenticate with fresh tokens.
		"connections.max.reauth.ms=20000",
	}, "\n")
}

func (p *idp) jvmOpts() string {
	return "-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=" + p.url + "/jwks," + p.url + "/token"
}
