//go:build integration

package security_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kboxdev/kbox/test/integration/testbed"
)

// Secrets used by the stores made here (each distinct so the grep test can
// tell them apart).
const (
	jksStorePass  = "jks-store-pass-77"
	jksKeyPass    = "jks-key-pass-88"
	trustPass     = "trust-pass-99"
	p12Pass       = "p12-pass-66"
	pemKeyPass    = "pem-key-pass-55"
	scram256Pass  = testbed.AlicePassword
	plainPassword = testbed.AdminPassword
)

var (
	storesOnce sync.Once
	stores     map[string]string
	storesErr  string
)

// makeStores converts the test bed's PEM material into JKS, PKCS12 and an
// encrypted PKCS#8 key with keytool and openssl.
func makeStores(t *testing.T) map[string]string {
	t.Helper()
	storesOnce.Do(func() {
		dir := filepath.Join(work, "stores")
		_ = os.MkdirAll(dir, 0o700)
		s := map[string]string{
			"trust.jks": filepath.Join(dir, "trust.jks"), "trust.p12": filepath.Join(dir, "trust.p12"),
			"client.p12": filepath.Join(dir, "client.p12"), "client.jks": filepath.Join(dir, "client.jks"),
			"client-enc.pem": filepath.Join(dir, "client-enc.pem"),
		}
		encKey := filepath.Join(dir, "client-key-enc.pem")
		cmds := [][]string{
			{"keytool", "-importcert", "-noprompt", "-alias", "ca", "-file", cluster.CAFile(), "-keystore", s["trust.jks"], "-storepass", trustPass, "-storetype", "JKS"},
			{"keytool", "-importcert", "-noprompt", "-alias", "ca", "-file", cluster.CAFile(), "-keystore", s["trust.p12"], "-storepass", trustPass, "-storetype", "PKCS12"},
			{"openssl", "pkcs12", "-export", "-in", cluster.ClientCertFile(), "-inkey", cluster.ClientKeyFile(), "-name", "client", "-out", s["client.p12"], "-passout", "pass:" + p12Pass},
			{"keytool", "-importkeystore", "-noprompt", "-srckeystore", s["client.p12"], "-srcstoretype", "PKCS12", "-srcstorepass", p12Pass,
				"-destkeystore", s["client.jks"], "-deststoretype", "JKS", "-deststorepass", jksStorePass, "-destkeypass", jksKeyPass, "-srcalias", "client", "-destalias", "client"},
			{"openssl", "pkcs8", "-topk8", "-in", cluster.ClientKeyFile(), "-out", encKey, "-v2", "aes-256-cbc", "-v2prf", "hmacWithSHA256", "-passout", "pass:" + pemKeyPass},
		}
		for _, c := range cmds {
			if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
				storesErr = strings.Join(c[:2], " ") + ": " + err.Error() + "\n" + string(out)
				return
			}
		}
		cert, _ := os.ReadFile(cluster.ClientCertFile())
		key, _ := os.ReadFile(encKey)
		_ = os.WriteFile(s["client-enc.pem"], append(cert, key...), 0o600)
		stores = s
	})
	if storesErr != "" {
		t.Fatal(storesErr)
	}
	return stores
}

type secured struct {
	name, bootstrap, props string
	secrets                []string
}

// securedConfigs are client configurations for every secured listener and
// kind of key material.
func securedConfigs(t *testing.T) []secured {
	s := makeStores(t)
	inline := func(f string) string {
		b, _ := os.ReadFile(f)
		return strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", "\\n\\\n")
	}
	return []secured{
		{"SSL mTLS, JKS truststore and keystore (own key password)", sslBootstrap(),
			"security.protocol=SSL\nssl.truststore.location=" + s["trust.jks"] + "\nssl.truststore.password=" + trustPass +
				"\nssl.keystore.location=" + s["client.jks"] + "\nssl.keystore.password=" + jksStorePass + "\nssl.key.password=" + jksKeyPass + "\n",
			[]string{trustPass, jksStorePass, jksKeyPass}},
		{"SSL mTLS, PKCS12 truststore and keystore", sslBootstrap(),
			"security.protocol=SSL\nssl.truststore.type=PKCS12\nssl.truststore.location=" + s["trust.p12"] + "\nssl.truststore.password=" + trustPass +
				"\nssl.keystore.type=PKCS12\nssl.keystore.location=" + s["client.p12"] + "\nssl.keystore.password=" + p12Pass + "\n",
			[]string{trustPass, p12Pass}},
		{"SSL mTLS, PEM with encrypted PKCS#8 key, TLSv1.2 only", sslBootstrap(),
			"security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=" + cluster.CAFile() +
				"\nssl.keystore.type=PEM\nssl.keystore.location=" + s["client-enc.pem"] + "\nssl.key.password=" + pemKeyPass +
				"\nssl.enabled.protocols=TLSv1.2\nssl.protocol=TLSv1.2\n",
			[]string{pemKeyPass}},
		{"SSL mTLS, inline PEM", sslBootstrap(),
			"security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.certificates=" + inline(cluster.CAFile()) +
				"\nssl.keystore.type=PEM\nssl.keystore.certificate.chain=" + inline(cluster.ClientCertFile()) +
				"\nssl.keystore.key=" + inline(cluster.ClientKeyFile()) + "\n",
			[]string{"PRIVATE KEY"}},
		{"SASL_SSL SCRAM-SHA-256, JKS truststore", saslBootstrap(),
			"security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-256\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"alice\" password=\"" + scram256Pass + "\";\n" +
				"ssl.truststore.location=" + s["trust.jks"] + "\nssl.truststore.password=" + trustPass + "\n",
			[]string{scram256Pass, trustPass}},
		{"SASL_SSL PLAIN, PKCS12 truststore, TLSv1.3", saslBootstrap(),
			"security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=\"" + plainPassword + "\";\n" +
				"ssl.truststore.type=PKCS12\nssl.truststore.location=" + s["trust.p12"] + "\nssl.truststore.password=" + trustPass + "\nssl.enabled.protocols=TLSv1.3\n",
			[]string{plainPassword, trustPass}},
		{"SASL_SSL OAUTHBEARER client credentials", saslBootstrap(), clientCredentialsProps(oauthClientSecret), []string{oauthClientSecret}},
	}
}

// appletRuns are one cheap, bounded invocation of every applet.
func appletRuns(bs, cfg, topic, tag string) [][]string {
	return [][]string{
		{"kafka-topics", "--bootstrap-server", bs, "--command-config", cfg, "--create", "--if-not-exists", "--topic", topic, "--partitions", "1", "--replication-factor", "1"},
		{"kafka-topics", "--bootstrap-server", bs, "--command-config", cfg, "--describe", "--topic", topic},
		{"kafka-log-dirs", "--bootstrap-server", bs, "--command-config", cfg, "--describe", "--topic-list", topic},
		{"kafka-producer-perf-test", "--bootstrap-server", bs, "--command-config", cfg, "--topic", topic, "--num-records", "20", "--record-size", "50", "--throughput", "-1"},
		{"kafka-verifiable-producer", "--bootstrap-server", bs, "--command-config", cfg, "--topic", topic, "--max-messages", "5"},
		{"kafka-consumer-perf-test", "--bootstrap-server", bs, "--command-config", cfg, "--topic", topic, "--messages", "20", "--timeout", "20000"},
		{"kafka-verifiable-consumer", "--bootstrap-server", bs, "--command-config", cfg, "--topic", topic, "--group-id", "g-" + tag, "--max-messages", "5", "--reset-policy", "earliest"},
	}
}

// Every applet connects through every secured listener with every kind of
// key material, and no secret shows up in any output.
func TestEveryAppletEverySecuredListener(t *testing.T) {
	for i, c := range securedConfigs(t) {
		t.Run(c.name, func(t *testing.T) {
			cfg := writeProps(t, "client.properties", c.props)
			tag := strings.NewReplacer(" ", "", ",", "", "#", "").Replace(c.name)[:8] + string(rune('a'+i))
			topic := "sec-" + string(rune('a'+i))
			for _, args := range appletRuns(c.bootstrap, cfg, topic, tag) {
				r := kbox(t, nil, args[0], args[1:]...)
				if r.exit != 0 {
					t.Fatalf("%s failed:\n%s", strings.Join(args, " "), r)
				}
				for _, sec := range append(c.secrets, testbed.AdminPassword, testbed.AlicePassword, oauthClientSecret) {
					if strings.Contains(r.stdout+r.stderr, sec) {
						t.Fatalf("%s printed secret %q:\n%s", args[0], sec, r)
					}
				}
			}
		})
	}
}
