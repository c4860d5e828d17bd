package ui_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kboxdev/kbox/cmd/app"
	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/ui"
	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/dashboard"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Secrets held by the profiles below; none may appear in any answer. The
// last three are in the URL of an OAuth token endpoint: its userinfo and
// its query string.
var secrets = []string{"S3cretSaslPassw0rd", "OauthClientSecretXYZ", "KeyPassw0rdSecret", "TlsKeySecretMaterial", "TruststorePassw0rd",
	"UrlUserS3CR3T", "UrlPassS3CR3T", "UrlQueryS3CR3T"}

// oauthBroker answers a SASL handshake for OAUTHBEARER as a broker that
// asks for it does (kfake itself knows PLAIN and SCRAM only); the client
// then fetches a token, which fails at the endpoints below.
func oauthBroker(c *kfake.Cluster) {
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
}

// No secret from a profile reaches the browser, kbox status or kbox top:
// every read endpoint of every cluster (reachable or not) is fetched and
// searched for them, and so are every write preview, kbox status (table
// and -o json) and kbox top -o json's error. Two profiles use OAUTHBEARER
// against a broker that asks for it, with a token endpoint URL holding
// credentials (user:password@ and ?secret=): one endpoint answers 401, the
// other is unreachable.
func TestNoSecretReachesTheBrowser(t *testing.T) {
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.SeedTopics(2, "orders"))
	oauthBroker(c)
	var idpCalls atomic.Int32
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		idpCalls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
	}))
	t.Cleanup(idp.Close)
	idpHost := strings.TrimPrefix(idp.URL, "http://")
	dir := t.TempDir()
	key := filepath.Join(dir, "client.key")
	if err := os.WriteFile(key, []byte("-----BEGIN PRIVATE KEY-----\nTlsKeySecretMaterial\n-----END PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bs := c.ListenAddrs()
	path := filepath.Join(dir, "config.yaml")
	oauthURL := func(hostport string) map[string]string {
		return map[string]string{
			"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
			"sasl.oauthbearer.token.endpoint.url": "http://UrlUserS3CR3T:UrlPassS3CR3T@" + hostport + "/token?secret=UrlQueryS3CR3T",
			"sasl.login.retry.backoff.ms":         "1", "sasl.login.retry.backoff.max.ms": "2",
			"sasl.jaas.config": `org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="kbox" clientSecret="OauthClientSecretXYZ";`,
		}
	}
	f := &config.File{Profiles: map[string]*config.Profile{
		"plain": {BootstrapServers: bs},
		"sasl": {BootstrapServers: bs, ConnectTimeout: "2s", SASL: &config.SASL{Mechanism: "PLAIN", Username: "alice", Password: "S3cretSaslPassw0rd"},
			Properties: map[string]string{"ssl.truststore.password": "TruststorePassw0rd"}},
		"tls": {BootstrapServers: bs, ConnectTimeout: "2s", TLS: &config.TLS{Enabled: true, CertFile: key, KeyFile: key},
			Properties: map[string]string{"ssl.key.password": "KeyPassw0rdSecret"}},
		"oauth": {BootstrapServers: bs, ConnectTimeout: "2s", Properties: map[string]string{
			"security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER",
			"sasl.jaas.config": `org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="kbox" clientSecret="OauthClientSecretXYZ";`,
		}},
		"oauth-url-401":  {BootstrapServers: bs, ConnectTimeout: "3s", Properties: oauthURL(idpHost)},
		"oauth-url-gone": {BootstrapServers: bs, ConnectTimeout: "3s", Properties: oauthURL("127.0.0.1:1")},
	}}
	if err := config.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"KBOX_CONFIG": path}
	ios, _, _, _ := output.Test()
	fac := cmdutil.NewFactory(ios, func(k string) string { return env[k] }, "test")
	fac.Globals.ConfigPath = path
	clusters, err := ui.BuildClusters(fac)
	if err != nil {
		t.Fatal(err)
	}
	if len(clusters) != 6 {
		t.Fatalf("%d clusters", len(clusters))
	}
	srv, err := dashboard.New(dashboard.Options{Clusters: clusters, AllowWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })

	check := func(what, text string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s shows the secret %q:\n%s", what, s, text)
			}
		}
	}
	paths := []string{"/", "/app.js", "/api/info", "/api/clusters?sample=0"}
	for _, cl := range clusters {
		b := "/api/c/" + cl.Name
		paths = append(paths, b+"/brokers", b+"/topics", b+"/topics/orders", b+"/groups", b+"/logdirs", b+"/rates")
	}
	var all strings.Builder
	for _, p := range paths {
		resp, err := hs.Client().Get(hs.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		all.Write(body)
		t.Logf("GET %s: %d %.200s", p, resp.StatusCode, body)
		check("GET "+p, string(body))
	}
	// The write previews too (errors included).
	writes := map[string]string{
		dashboard.OpCreateTopic:    `{"topic":"new","partitions":1}`,
		dashboard.OpAddPartitions:  `{"topic":"orders","partitions":3}`,
		dashboard.OpAlterConfig:    `{"resource_type":"topic","resource_name":"orders","set":{"retention.ms":"1000"}}`,
		dashboard.OpElectPreferred: `{}`,
		dashboard.OpResetOffsets:   `{"group":"g","to":"earliest"}`,
	}
	for _, cl := range clusters {
		for op, body := range writes {
			req, _ := http.NewRequest(http.MethodPost, hs.URL+"/api/c/"+cl.Name+"/write/"+op, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(dashboard.WriteHeader, "1")
			resp, err := hs.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			all.Write(b)
			check("POST "+op+" on "+cl.Name, string(b))
		}
	}
	// The endpoints did answer: the profiles and the reachable cluster's
	// topic are there, the secured ones say what protocol they use, and
	// the token endpoints' failures are told (the endpoint named by its
	// host and path).
	for _, want := range []string{`"name":"oauth"`, `"security_protocol":"SASL_SSL"`, `"security_protocol":"SASL_PLAINTEXT"`, `"name":"orders"`, `"confirm_token"`,
		"token endpoint http://" + idpHost + "/token refused the client credentials", "token endpoint http://127.0.0.1:1/token: "} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("no %s in the answers", want)
		}
	}
	if idpCalls.Load() == 0 {
		t.Error("the token endpoint was never called")
	}

	// kbox status (table and JSON) and kbox top -o json (whose connection
	// error goes to stderr), as the binary runs them.
	for _, args := range [][]string{
		{"--profile", "oauth-url-401,oauth-url-gone", "status", "--sample", "0", "--timeout", "10s"},
		{"--profile", "oauth-url-401,oauth-url-gone", "status", "-o", "json", "--sample", "0", "--timeout", "10s"},
		{"--profile", "oauth-url-401", "top", "-o", "json", "--iterations", "1"},
		{"--profile", "oauth-url-gone", "top", "-o", "json", "--iterations", "1"},
	} {
		ios, _, out, errOut := output.Test()
		code := app.Main(append([]string{"kbox"}, args...), ios, func(k string) string { return env[k] })
		text := out.String() + errOut.String()
		t.Logf("kbox %s: exit %d\n%s", strings.Join(args, " "), code, text)
		if code != 1 || !strings.Contains(text, "token endpoint http://") {
			t.Errorf("kbox %s: exit %d, want 1 and the token endpoint's failure:\n%s", strings.Join(args, " "), code, text)
		}
		check("kbox "+strings.Join(args, " "), text)
	}
}
