//go:build integration

package security_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/test/integration/testbed"
)

// Every applet and the native commands run with a secured profile that
// holds its secrets literally, by environment variable, and in
// properties; no output of any of them shows a secret.
func TestSecuredProfileNeverLeaks(t *testing.T) {
	st := makeStores(t)
	dir := t.TempDir()
	const envSecret = "profile-env-secret-31"
	cfg := filepath.Join(dir, "config.yaml")
	yaml := `current-profile: lit
profiles:
  lit:
    bootstrap-servers: [` + saslBootstrap() + `]
    tls:
      enabled: true
      ca-file: ` + cluster.CAFile() + `
    sasl:
      mechanism: SCRAM-SHA-512
      username: admin
      password: ` + testbed.AdminPassword + `
  env:
    bootstrap-servers: [` + saslBootstrap() + `]
    sasl:
      mechanism: SCRAM-SHA-256
      username: alice
      password-env: KBOX_TEST_ALICE_PW
    properties:
      security.protocol: SASL_SSL
      ssl.truststore.type: JKS
      ssl.truststore.location: ` + st["trust.jks"] + `
      ssl.truststore.password: ` + trustPass + `
  oauth:
    bootstrap-servers: [` + saslBootstrap() + `]
    properties:
      security.protocol: SASL_SSL
      sasl.mechanism: OAUTHBEARER
      ssl.truststore.type: PEM
      ssl.truststore.location: ` + cluster.CAFile() + `
      sasl.oauthbearer.token.endpoint.url: ` + theIDP.url + `/token
      sasl.jaas.config: org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="` + oauthClientID + `" clientSecret="` + oauthClientSecret + `";
`
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	secrets := []string{testbed.AdminPassword, testbed.AlicePassword, trustPass, oauthClientSecret, envSecret}
	env := []string{"KBOX_CONFIG=" + cfg, "KBOX_TEST_ALICE_PW=" + testbed.AlicePassword}
	check := func(t *testing.T, r result, what string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(r.stdout+r.stderr, s) {
				t.Fatalf("%s printed secret %q:\n%s", what, s, r)
			}
		}
	}
	for _, prof := range []string{"lit", "env", "oauth"} {
		t.Run(prof, func(t *testing.T) {
			penv := append(env, "KBOX_PROFILE="+prof)
			for _, args := range appletRuns(saslBootstrap(), "", "prof-"+prof, "p"+prof) {
				// Drop --command-config: the profile carries the security.
				var a []string
				for i := 0; i < len(args); i++ {
					if args[i] == "--command-config" {
						i++
						continue
					}
					a = append(a, args[i])
				}
				r := kbox(t, penv, a[0], a[1:]...)
				if r.exit != 0 {
					t.Fatalf("%s with profile %s:\n%s", strings.Join(a, " "), prof, r)
				}
				check(t, r, a[0])
			}
			for _, args := range [][]string{
				{"profile", "show", prof}, {"profile", "show", prof, "-o", "json"}, {"profile", "show", prof, "-o", "yaml"},
				{"profile", "list"}, {"profile", "list", "-o", "json"}, {"cluster", "describe"}, {"cluster", "describe", "-o", "json"},
			} {
				r := kbox(t, penv, "kbox", args...)
				if r.exit != 0 {
					t.Fatalf("kbox %v:\n%s", args, r)
				}
				check(t, r, "kbox "+strings.Join(args, " "))
			}
		})
	}
	// The literal password is reported (where it is), without its value.
	r := kbox(t, append(env, "KBOX_PROFILE=lit"), "kbox", "profile", "show", "lit")
	if !strings.Contains(r.stdout+r.stderr, "literal") {
		t.Errorf("no literal-secret warning:\n%s", r)
	}
}
