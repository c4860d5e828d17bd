//go:build integration

package security_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func oauthBase() string {
	return "security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\nssl.truststore.type=PEM\nssl.truststore.location=" + cluster.CAFile() + "\n"
}

func clientCredentialsProps(secret string) string {
	return oauthBase() +
		"sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler\n" +
		"sasl.oauthbearer.token.endpoint.url=" + theIDP.url + "/token\n" +
		"sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId=\"" + oauthClientID + "\" clientSecret=\"" + secret + "\" scope=\"kafka\";\n"
}

func TestOAuthClientCredentialsOnBroker(t *testing.T) {
	before := theIDP.issued.Load()
	cfg := writeProps(t, "oauth.properties", clientCredentialsProps(oauthClientSecret))
	r := kbox(t, nil, "kafka-topics", "--bootstrap-server", saslBootstrap(), "--command-config", cfg, "--create", "--topic", "oauth-cc", "--partitions", "1", "--replication-factor", "1")
	if r.exit != 0 || !strings.Contains(r.stdout, "Created topic oauth-cc.") {
		t.Fatalf("create over OAUTHBEARER:\n%s", r)
	}
	if theIDP.issued.Load() == before {
		t.Fatal("no token was fetched from the token endpoint")
	}
	r = kbox(t, nil, "kafka-topics", "--bootstrap-server", saslBootstrap(), "--command-config", cfg, "--list")
	if r.exit != 0 || !strings.Contains(r.stdout, "oauth-cc") {
		t.Fatalf("list:\n%s", r)
	}
	// Wrong client secret: the token endpoint refuses; one line, no secret.
	bad := writeProps(t, "bad.properties", clientCredentialsProps("wrong-oauth-secret"))
	r = kbox(t, nil, "kafka-topics", "--bootstrap-server", saslBootstrap(), "--command-config", bad, "--list")
	// (kafka-topics prints errors on stdout, as Apache's does.)
	if r.exit == 0 || !strings.Contains(r.stdout, `refused the client credentials of client "kbox-client": HTTP 401 invalid_client`) || strings.Contains(r.stdout+r.stderr, "wrong-oauth-secret") {
		t.Fatalf("wrong client secret:\n%s", r)
	}
	if n := strings.Count(strings.TrimSpace(r.stdout+r.stderr), "\n"); n > 0 {
		t.Errorf("error is not one line:\n%s", r)
	}
}

func TestOAuthStaticFileCommandOnBroker(t *testing.T) {
	good := theIDP.token("static-user", time.Hour, theIDP.key)
	forged := theIDP.token("forged-user", time.Hour, theIDP.other)
	tokFile := filepath.Join(t.TempDir(), "token.jwt")
	if err := os.WriteFile(tokFile, []byte(good+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, props string
		ok          bool
	}{
		{"static token", "kbox.sasl.oauthbearer.token=" + good + "\n", true},
		{"token file (file: URL)", "sasl.oauthbearer.token.endpoint.url=file://" + tokFile + "\n", true},
		{"token file (kbox)", "kbox.sasl.oauthbearer.token.file=" + tokFile + "\n", true},
		{"token command", "kbox.sasl.oauthbearer.token.command=cat " + tokFile + "\n", true},
		{"token signed by an unknown key", "kbox.sasl.oauthbearer.token=" + forged + "\n", false},
		{"unsecured token (rejected by the validating broker)", "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub=\"admin\";\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := writeProps(t, "c.properties", oauthBase()+c.props)
			r := kbox(t, nil, "kafka-topics", "--bootstrap-server", saslBootstrap(), "--command-config", cfg, "--list")
			out := r.stdout + r.stderr
			if strings.Contains(out, good) || strings.Contains(out, forged) {
				t.Fatalf("token printed:\n%s", r)
			}
			if c.ok && r.exit != 0 {
				t.Fatalf("want success:\n%s", r)
			}
			if !c.ok {
				if r.exit == 0 || !strings.Contains(out, "authentication failed: the broker rejected the OAUTHBEARER token") {
					t.Fatalf("want an authentication failure:\n%s", r)
				}
			}
		})
	}
}

// A producer run longer than two token lifetimes (8 s tokens, broker
// sessions capped by the token expiry) survives: kbox refreshes the token
// before it expires and re-authenticates.
func TestOAuthRefreshDuringLongRun(t *testing.T) {
	theIDP.lifetime.Store(8)
	defer theIDP.lifetime.Store(3600)
	cfg := writeProps(t, "refresh.properties", clientCredentialsProps(oauthClientSecret)+
		"sasl.login.refresh.min.period.seconds=0\nsasl.login.refresh.buffer.seconds=0\n")
	r := kbox(t, nil, "kafka-topics", "--bootstrap-server", saslBootstrap(), "--command-config", cfg, "--create", "--topic", "oauth-refresh", "--partitions", "1", "--replication-factor", "1")
	if r.exit != 0 {
		t.Fatalf("create:\n%s", r)
	}
	before := theIDP.issued.Load()
	start := time.Now()
	r = kbox(t, nil, "kafka-producer-perf-test", "--topic", "oauth-refresh", "--num-records", "200", "--record-size", "100",
		"--throughput", "8", "--bootstrap-server", saslBootstrap(), "--command-config", cfg)
	elapsed := time.Since(start)
	if r.exit != 0 || !strings.Contains(r.stdout, "200 records sent") {
		t.Fatalf("perf run over OAUTHBEARER with 8 s tokens:\n%s", r)
	}
	issued := theIDP.issued.Load() - before
	t.Logf("run took %v, %d tokens fetched", elapsed, issued)
	if elapsed < 20*time.Second || issued < 3 {
		t.Fatalf("expected a >20 s run with >=3 token fetches, got %v and %d", elapsed, issued)
	}
}
