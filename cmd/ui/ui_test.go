package ui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/dashboard"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/twmb/franz-go/pkg/kfake"
)

// Secrets held by the profiles below; none may appear in any answer.
var secrets = []string{"S3cretSaslPassw0rd", "OauthClientSecretXYZ", "KeyPassw0rdSecret", "TlsKeySecretMaterial", "TruststorePassw0rd"}

// No secret from a profile reaches the browser: every read endpoint of
// every cluster (reachable or not) is fetched and searched for them.
func TestNoSecretReachesTheBrowser(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	dir := t.TempDir()
	key := filepath.Join(dir, "client.key")
	if err := os.WriteFile(key, []byte("-----BEGIN PRIVATE KEY-----\nTlsKeySecretMaterial\n-----END PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bs := c.ListenAddrs()
	path := filepath.Join(dir, "config.yaml")
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
	}}
	if err := config.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	ios, _, _, _ := output.Test()
	fac := cmdutil.NewFactory(ios, func(k string) string { return map[string]string{"KBOX_CONFIG": path}[k] }, "test")
	fac.Globals.ConfigPath = path
	clusters, err := buildClusters(fac, &options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(clusters) != 4 {
		t.Fatalf("%d clusters", len(clusters))
	}
	srv, err := dashboard.New(dashboard.Options{Clusters: clusters, AllowWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })

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
		for _, s := range secrets {
			if strings.Contains(string(body), s) {
				t.Errorf("GET %s (%d) shows the secret %q:\n%s", p, resp.StatusCode, s, body)
			}
		}
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
			for _, s := range secrets {
				if strings.Contains(string(b), s) {
					t.Errorf("POST %s on %s (%d) shows the secret %q:\n%s", op, cl.Name, resp.StatusCode, s, b)
				}
			}
		}
	}
	// The endpoints did answer: the profiles and the reachable cluster's
	// topic are there, and the secured ones say what protocol they use.
	for _, want := range []string{`"name":"oauth"`, `"security_protocol":"SASL_SSL"`, `"security_protocol":"SASL_PLAINTEXT"`, `"name":"orders"`, `"confirm_token"`} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("no %s in the answers", want)
		}
	}
}

func kbox(env map[string]string, args ...string) (int, string, string) {
	ios, _, out, errOut := output.Test()
	fac := cmdutil.NewFactory(ios, func(k string) string { return env[k] }, "test")
	cmd := NewCmd(fac)
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.Execute()
	code := 0
	if err != nil {
		code = 1
		if _, ok := err.(*cmdutil.FlagError); ok {
			code = 2
		}
		errOut.WriteString(err.Error())
	}
	return code, out.String(), errOut.String()
}

func TestFlags(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	bs := strings.Join(c.ListenAddrs(), ",")
	env := map[string]string{"KBOX_CONFIG": filepath.Join(t.TempDir(), "none.yaml")}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "0.0.0.0:0"}, "not a loopback address: add --allow-remote"},
		{[]string{"--listen", ":0"}, "not a loopback address"},
		{[]string{"--listen", "nonsense"}, "want host:port"},
		{[]string{"--listen", "127.0.0.1:0", "--token", "short"}, "at least 16"},
		{[]string{"--interval", "10ms"}, "at least 1s"},
		{[]string{"--duration", "-1s"}, "must not be negative"},
	} {
		code, _, errOut := kbox(env, append(tc.args, "--bootstrap-server", bs)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	// A run bounded by --duration prints the URL first, then stops.
	code, out, errOut := kbox(env, "--listen", "127.0.0.1:0", "--duration", "200ms", "--bootstrap-server", bs)
	if code != 0 || !strings.HasPrefix(out, "http://127.0.0.1:") || strings.Contains(out, "token") {
		t.Fatalf("exit %d, out %q, err %q", code, out, errOut)
	}
	// Remote with no token: one is generated and printed once, in the URL.
	code, out, _ = kbox(env, "--listen", "0.0.0.0:0", "--allow-remote", "--duration", "200ms", "--bootstrap-server", bs)
	if code != 0 || !strings.Contains(out, "/?token=") || strings.Count(out, "token=") != 1 {
		t.Fatalf("--allow-remote: exit %d, out %q", code, out)
	}
	u := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	if _, err := http.NewRequest(http.MethodGet, u, nil); err != nil {
		t.Fatalf("URL %q: %v", u, err)
	}
}
