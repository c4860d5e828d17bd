//go:build integration

package security_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/test/integration/testbed"
)

// bad is one bad invocation or configuration: the applet must exit with
// exit, say culprit on the first line of its error output, not panic, and
// leave the cluster unchanged.
type bad struct {
	name    string
	applet  string
	args    []string // "{bs}" = SASL_SSL bootstrap, "{ssl}" = SSL, "{plain}" = PLAINTEXT, "{cfg}" = the props file
	props   string   // client properties for {cfg} ("" = the test bed's SASL_SSL SCRAM file)
	exit    int
	culprit string
	// oneLine: the whole error output is this one line (usage errors may
	// be followed by Apache's usage text).
	oneLine bool
}

const scramOK = "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nssl.truststore.type=PEM\nssl.truststore.location={ca}\n"

func scramWith(user, pw string) string {
	return scramOK + "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\"" + pw + "\";\n"
}

func badCases(st map[string]string) []bad {
	good := scramWith("admin", testbed.AdminPassword)
	sslBase := "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location={ca}\n"
	list := []string{"--bootstrap-server", "{bs}", "--command-config", "{cfg}", "--list"}
	create := func(extra ...string) []string {
		return append([]string{"--bootstrap-server", "{bs}", "--command-config", "{cfg}", "--create", "--topic", "bad-topic"}, extra...)
	}
	perf := func(extra ...string) []string {
		return append([]string{"--bootstrap-server", "{bs}", "--command-config", "{cfg}", "--topic", "bad-perf", "--num-records", "1", "--record-size", "1", "--throughput", "-1"}, extra...)
	}
	return []bad{
		// --- key material and TLS ---
		{"missing command config", "kafka-topics", []string{"--bootstrap-server", "{bs}", "--command-config", "/nonexistent/client.properties", "--list"}, "", 1, "/nonexistent/client.properties", true},
		{"missing truststore", "kafka-topics", list, scramOK + "ssl.truststore.location=/nonexistent/trust.jks\nssl.truststore.type=JKS\n" + strings.TrimPrefix(good, scramOK), 1, "ssl.truststore.location: /nonexistent/trust.jks", true},
		{"wrong JKS truststore password", "kafka-topics", list, good + "ssl.truststore.type=JKS\nssl.truststore.location=" + st["trust.jks"] + "\nssl.truststore.password=wrong-trust-pw\n", 1, "ssl.truststore.password: wrong password", true},
		{"wrong PKCS12 truststore password", "kafka-log-dirs", []string{"--bootstrap-server", "{bs}", "--command-config", "{cfg}", "--describe"}, good + "ssl.truststore.type=PKCS12\nssl.truststore.location=" + st["trust.p12"] + "\nssl.truststore.password=wrong-trust-pw\n", 1, "ssl.truststore.password: wrong password", true},
		{"wrong JKS keystore password", "kafka-topics", []string{"--bootstrap-server", "{ssl}", "--command-config", "{cfg}", "--list"}, sslBase + "ssl.keystore.location=" + st["client.jks"] + "\nssl.keystore.password=wrong-store-pw\nssl.key.password=" + jksKeyPass + "\n", 1, "ssl.keystore.password: wrong password", true},
		{"wrong JKS key password", "kafka-topics", []string{"--bootstrap-server", "{ssl}", "--command-config", "{cfg}", "--list"}, sslBase + "ssl.keystore.location=" + st["client.jks"] + "\nssl.keystore.password=" + jksStorePass + "\nssl.key.password=wrong-key-pw\n", 1, "ssl.key.password: wrong key password", true},
		{"wrong PKCS12 keystore password", "kafka-producer-perf-test", perf(), sslBase + "ssl.keystore.type=PKCS12\nssl.keystore.location=" + st["client.p12"] + "\nssl.keystore.password=wrong-p12-pw\n", 1, "ssl.keystore.password: wrong password", true},
		{"wrong PEM key password", "kafka-topics", []string{"--bootstrap-server", "{ssl}", "--command-config", "{cfg}", "--list"}, sslBase + "ssl.keystore.type=PEM\nssl.keystore.location=" + st["client-enc.pem"] + "\nssl.key.password=wrong-pem-pw\n", 1, "ssl.key.password: wrong password", true},
		{"encrypted key without password", "kafka-topics", []string{"--bootstrap-server", "{ssl}", "--command-config", "{cfg}", "--list"}, sslBase + "ssl.keystore.type=PEM\nssl.keystore.location=" + st["client-enc.pem"] + "\n", 1, "ssl.key.password: not set", true},
		{"PEM truststore under JKS type", "kafka-topics", list, strings.Replace(good, "ssl.truststore.type=PEM", "ssl.truststore.type=JKS", 1), 1, "set ssl.truststore.type=PEM", true},
		{"unknown store type", "kafka-topics", list, strings.Replace(good, "ssl.truststore.type=PEM", "ssl.truststore.type=BKS", 1), 1, "ssl.truststore.type: unknown store type", true},
		{"no client certificate on the mTLS listener", "kafka-topics", []string{"--bootstrap-server", "{ssl}", "--command-config", "{cfg}", "--list"}, sslBase, 1, "client certificate", true},
		{"untrusted broker certificate (system roots)", "kafka-topics", list, strings.Replace(good, "ssl.truststore.location={ca}", "ssl.truststore.location=", 1), 1, "unknown authority", true},
		{"TLS 1.1 only", "kafka-topics", list, good + "ssl.enabled.protocols=TLSv1.1\n", 1, "ssl.enabled.protocols", true},
		{"bad cipher suite", "kafka-topics", list, good + "ssl.cipher.suites=TLS_BOGUS\n", 1, "ssl.cipher.suites", true},
		{"bad endpoint identification algorithm", "kafka-topics", list, good + "ssl.endpoint.identification.algorithm=ldap\n", 1, "ssl.endpoint.identification.algorithm", true},
		{"TLS client against the SASL_SSL listener without SASL", "kafka-topics", list, "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location={ca}\n", 1, "cannot connect", true},
		{"plaintext client against the TLS listener", "kafka-topics", []string{"--bootstrap-server", "{ssl}", "--list"}, "-", 1, "plaintext connection speaking to a tls endpoint", true},
		{"SASL_SSL client against the PLAINTEXT listener", "kafka-topics", []string{"--bootstrap-server", "{plain}", "--command-config", "{cfg}", "--list"}, "", 1, "cannot connect", true},
		// --- SASL ---
		{"wrong SCRAM password", "kafka-topics", list, scramWith("admin", "wrong-scram-pw"), 1, "authentication failed", true},
		{"unknown SCRAM user", "kafka-log-dirs", []string{"--bootstrap-server", "{bs}", "--command-config", "{cfg}", "--describe"}, scramWith("mallory", "wrong-scram-pw"), 1, "authentication failed", true},
		{"wrong PLAIN password", "kafka-verifiable-producer", []string{"--bootstrap-server", "{bs}", "--command-config", "{cfg}", "--topic", "bad-vp", "--max-messages", "1"}, strings.Replace(scramWith("admin", "wrong-plain-pw"), "SCRAM-SHA-512", "PLAIN", 1), 0, "SaslAuthenticationException", false}, // Apache: send errors as events, exit 0
		{"GSSAPI", "kafka-topics", list, strings.Replace(good, "SCRAM-SHA-512", "GSSAPI", 1), 1, "sasl.kerberos.service.name: not set", true},
		{"unknown mechanism", "kafka-topics", list, strings.Replace(good, "SCRAM-SHA-512", "DIGEST-MD5", 1), 1, "sasl.mechanism: unknown mechanism", true},
		{"JAAS without password", "kafka-topics", list, scramOK + "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"admin\";\n", 1, "sasl.jaas.config: username and password", true},
		{"JAAS not terminated", "kafka-topics", list, scramOK + "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"admin\" password=\"unterminated-pw\"\n", 1, "sasl.jaas.config", true},
		{"JAAS missing", "kafka-topics", list, scramOK, 1, "sasl.jaas.config: not set", true},
		{"OAuth wrong client secret", "kafka-topics", list, clientCredentialsProps("wrong-oauth-pw"), 1, "refused the client credentials", true},
		{"OAuth no token source", "kafka-topics", list, oauthBase(), 1, "sasl.oauthbearer.token.endpoint.url: not set", true},
		{"OAuth two token sources", "kafka-topics", list, oauthBase() + "kbox.sasl.oauthbearer.token=abc\nkbox.sasl.oauthbearer.token.file=/x\n", 1, "conflicts with", true},
		{"OAuth missing token file", "kafka-topics", list, oauthBase() + "kbox.sasl.oauthbearer.token.file=/nonexistent/token\n", 1, "/nonexistent/token", true},
		{"AWS_MSK_IAM against a broker without it", "kafka-topics", list, scramOK + "sasl.mechanism=AWS_MSK_IAM\nsasl.jaas.config=software.amazon.msk.auth.iam.IAMLoginModule required;\nsasl.client.callback.handler.class=software.amazon.msk.auth.iam.IAMClientCallbackHandler\n", 1, "AWS_MSK_IAM", true},
		{"bad security.protocol", "kafka-topics", list, "security.protocol=TLS\n", 1, "security.protocol", true},
		// --- client properties, wrong types, conflicts ---
		{"acks=2", "kafka-producer-perf-test", perf(), good + "acks=2\n", 1, "acks", true},
		{"linger.ms not a number", "kafka-producer-perf-test", perf(), good + "linger.ms=soon\n", 1, "linger.ms", true},
		{"idempotence with acks=1", "kafka-producer-perf-test", perf(), good + "enable.idempotence=true\nacks=1\n", 1, "acks", true},
		{"max.poll.records=0", "kafka-consumer-perf-test", []string{"--bootstrap-server", "{bs}", "--command-config", "{cfg}", "--topic", "bad-cp", "--messages", "1", "--timeout", "1000"}, good + "max.poll.records=0\n", 1, "max.poll.records", true},
		{"bad group.protocol", "kafka-verifiable-consumer", []string{"--bootstrap-server", "{bs}", "--command-config", "{cfg}", "--topic", "bad-vc", "--group-id", "g", "--max-messages", "1"}, good + "group.protocol=stream\n", 1, "group.protocol", false},
		{"bad compression", "kafka-verifiable-producer", []string{"--bootstrap-server", "{bs}", "--command-config", "{cfg}", "--topic", "bad-vp", "--max-messages", "1"}, good + "compression.type=brotli\n", 1, "compression.type", false},
		// --- unreachable brokers ---
		{"connection refused", "kafka-topics", []string{"--bootstrap-server", "127.0.0.1:1", "--list"}, "-", 1, "127.0.0.1:1", true},
		{"unresolvable host", "kafka-log-dirs", []string{"--bootstrap-server", "no-such-host.invalid:9092", "--describe"}, "-", 1, "no-such-host.invalid", true},
		// --- flags ---
		{"topics: unknown flag", "kafka-topics", []string{"--bootstrap-server", "{bs}", "--command-config", "{cfg}", "--list", "--bogus-flag"}, "", 1, "bogus-flag", false},
		{"topics: missing bootstrap value", "kafka-topics", []string{"--list", "--bootstrap-server"}, "-", 1, "bootstrap-server", false},
		{"topics: no action", "kafka-topics", []string{"--bootstrap-server", "{bs}"}, "-", 1, "--list", false},
		{"topics: two actions", "kafka-topics", []string{"--bootstrap-server", "{bs}", "--list", "--describe"}, "-", 1, "--list", false},
		{"topics: create without topic", "kafka-topics", []string{"--bootstrap-server", "{bs}", "--command-config", "{cfg}", "--create", "--partitions", "1"}, "", 1, "[topic]", false},
		{"topics: partitions not a number", "kafka-topics", create("--partitions", "many"), "", 1, "many", false},
		{"topics: duplicate replica", "kafka-topics", create("--replica-assignment", "1:1"), "", 1, "duplicate", false},
		{"topics: ragged replica assignment", "kafka-topics", create("--replica-assignment", "1:2,1"), "", 1, "different replication factor", false},
		{"topics: unknown broker in assignment", "kafka-topics", create("--replica-assignment", "7"), "", 1, "7", false},
		{"topics: bad config value", "kafka-topics", create("--config", "retention.ms=forever"), "", 1, "retention.ms", false},
		{"topics: config without =", "kafka-topics", create("--config", "retention.ms"), "", 1, "key=val", false},
		{"topics: unknown config", "kafka-topics", create("--config", "retention.forever=1"), "", 1, "retention.forever", false},
		{"topics: replication factor above broker count", "kafka-topics", create("--partitions", "1", "--replication-factor", "3"), "", 1, "replication factor", false},
		{"topics: invalid topic name", "kafka-topics", []string{"--bootstrap-server", "{bs}", "--command-config", "{cfg}", "--create", "--topic", "bad/name"}, "", 1, "bad/name", false},
		{"topics: alter missing topic", "kafka-topics", []string{"--bootstrap-server", "{bs}", "--command-config", "{cfg}", "--alter", "--topic", "no-such-topic", "--partitions", "3"}, "", 1, "no-such-topic", false},
		{"topics: delete missing topic", "kafka-topics", []string{"--bootstrap-server", "{bs}", "--command-config", "{cfg}", "--delete", "--topic", "no-such-topic"}, "", 1, "no-such-topic", false},
		{"log-dirs: no bootstrap", "kafka-log-dirs", []string{"--describe"}, "-", 1, "bootstrap-server", false},
		{"log-dirs: bad broker list", "kafka-log-dirs", []string{"--bootstrap-server", "{bs}", "--command-config", "{cfg}", "--describe", "--broker-list", "one,two"}, "", 1, "one", false},
		{"log-dirs: unknown flag", "kafka-log-dirs", []string{"--bootstrap-server", "{bs}", "--describe", "--frobnicate"}, "-", 1, "frobnicate", false},
		{"producer-perf: no topic", "kafka-producer-perf-test", []string{"--bootstrap-server", "{bs}", "--num-records", "1", "--record-size", "1", "--throughput", "-1"}, "-", 1, "topic", false},
		{"producer-perf: num-records not a number", "kafka-producer-perf-test", []string{"--bootstrap-server", "{bs}", "--topic", "t", "--num-records", "lots", "--record-size", "1", "--throughput", "-1"}, "-", 1, "--num-records", false},
		{"producer-perf: no throughput", "kafka-producer-perf-test", []string{"--bootstrap-server", "{bs}", "--topic", "t", "--num-records", "1", "--record-size", "1"}, "-", 1, "throughput", false},
		{"producer-perf: producer-props without =", "kafka-producer-perf-test", []string{"--bootstrap-server", "{bs}", "--topic", "t", "--num-records", "1", "--record-size", "1", "--throughput", "-1", "--producer-props", "acks"}, "-", 1, "acks", false},
		{"consumer-perf: no messages", "kafka-consumer-perf-test", []string{"--bootstrap-server", "{bs}", "--topic", "t"}, "-", 1, "messages", false},
		// (`--timeout later` is not an error: jopt takes an optional
		// argument only when it converts, and Apache ignores "later")
		{"consumer-perf: timeout not a number", "kafka-consumer-perf-test", []string{"--bootstrap-server", "{bs}", "--topic", "t", "--messages", "1", "--timeout=later"}, "-", 1, "later", false},
		{"verifiable-producer: no topic", "kafka-verifiable-producer", []string{"--bootstrap-server", "{bs}", "--max-messages", "1"}, "-", 1, "topic", false},
		{"verifiable-producer: bad acks", "kafka-verifiable-producer", []string{"--bootstrap-server", "{bs}", "--topic", "t", "--acks", "5"}, "-", 1, "acks", false},
		{"verifiable-consumer: no group", "kafka-verifiable-consumer", []string{"--bootstrap-server", "{bs}", "--topic", "t"}, "-", 1, "group-id", false},
		{"verifiable-consumer: max-messages not a number", "kafka-verifiable-consumer", []string{"--bootstrap-server", "{bs}", "--topic", "t", "--group-id", "g", "--max-messages", "few"}, "-", 1, "--max-messages", false},
	}
}

func topicList(t *testing.T) []string {
	t.Helper()
	r := kbox(t, nil, "kafka-topics", "--bootstrap-server", cluster.PlaintextBootstrap, "--list", "--exclude-internal")
	if r.exit != 0 {
		t.Fatalf("listing topics:\n%s", r)
	}
	l := strings.Fields(r.stdout)
	sort.Strings(l)
	return l
}

func TestBadInvocations(t *testing.T) {
	st := makeStores(t)
	cases := badCases(st)
	if len(cases) < 50 {
		t.Fatalf("only %d cases", len(cases))
	}
	before := topicList(t)
	secrets := []string{"wrong-trust-pw", "wrong-store-pw", "wrong-key-pw", "wrong-p12-pw", "wrong-pem-pw", "wrong-scram-pw", "wrong-plain-pw", "unterminated-pw", "wrong-oauth-pw",
		jksKeyPass, jksStorePass, testbed.AdminPassword, oauthClientSecret}
	dump := os.Getenv("KBOX_SECURITY_DUMP") != ""
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repl := strings.NewReplacer("{bs}", saslBootstrap(), "{ssl}", sslBootstrap(), "{plain}", cluster.PlaintextBootstrap, "{ca}", cluster.CAFile())
			var args []string
			cfg := cluster.ClientProperties
			if c.props != "" && c.props != "-" {
				cfg = filepath.Join(t.TempDir(), "bad.properties")
				if err := os.WriteFile(cfg, []byte(repl.Replace(c.props)), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for _, a := range c.args {
				args = append(args, strings.ReplaceAll(repl.Replace(a), "{cfg}", cfg))
			}
			r := kbox(t, nil, c.applet, args...)
			if dump {
				t.Logf("%s %q\n%s", c.applet, args, r)
			}
			out := r.stdout + r.stderr
			for _, s := range secrets {
				if strings.Contains(out, s) {
					t.Fatalf("secret %q in output:\n%s", s, r)
				}
			}
			if r.exit != c.exit {
				t.Errorf("exit %d, want %d\n%s", r.exit, c.exit, r)
			}
			errOut := strings.TrimSpace(r.stderr)
			if errOut == "" || !strings.Contains(errOut, c.culprit) {
				errOut = strings.TrimSpace(r.stdout) // kafka-topics reports on stdout, as Apache's does
			}
			// Warnings (kbox: warning: ...) may precede the error.
			lines := strings.Split(errOut, "\n")
			for len(lines) > 1 && strings.HasPrefix(lines[0], "kbox: warning:") {
				lines = lines[1:]
			}
			if c.oneLine {
				if !strings.Contains(lines[0], c.culprit) || len(lines) != 1 {
					t.Errorf("want one error line naming %q\n%s", c.culprit, r)
				}
				return
			}
			// Usage errors: Apache's usage text may come first; the error
			// line itself must name the culprit.
			named := false
			for _, l := range lines {
				low := strings.ToLower(l)
				if strings.Contains(l, c.culprit) && (l == lines[0] || strings.Contains(low, "error") || strings.Contains(low, "exception") || strings.Contains(low, "missing")) {
					named = true
				}
			}
			if !named {
				t.Errorf("no error line names %q\n%s", c.culprit, r)
			}
		})
	}
	if after := topicList(t); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Fatalf("the bad invocations changed the cluster's topics:\nbefore %v\nafter  %v", before, after)
	}
}
