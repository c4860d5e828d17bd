//go:build integration

// Package delegationtokens_test checks kafka-delegation-tokens against
// Apache 4.4's DelegationTokenCommand on a 1-broker SASL_SSL bed (which
// sets delegation.token.secret.key), Apache's cases in two JVMs, and that
// a token kbox creates logs a client in (SCRAM-SHA-256 and -512 with the
// token id, the HMAC and tokenauth="true") until it is expired. The bed's
// PLAINTEXT listener is the cluster without SASL: a plaintext bed answers
// delegation token requests with the same error (the broker refuses them
// on PLAINTEXT listeners before it looks at the secret key).
package delegationtokens_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/test/integration/testbed"
)

var (
	cluster *testbed.Cluster
	kboxBin string
	binDir  string
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "delegationtokens", Applets: []string{"kafka-delegation-tokens", "kafka-topics"},
		Brokers: 1, Security: "sasl_ssl",
		Ready: func(e testbed.Env) error {
			kboxBin, binDir, cluster = e.Kbox, e.BinDir, e.Cluster
			return nil
		}}))
}

func kbox(t *testing.T, args ...string) testbed.Result {
	t.Helper()
	return testbed.Runner{Config: filepath.Join(binDir, "no-config.yaml"), Timeout: 90 * time.Second}.Exec(t, kboxBin, args...)
}

func tool(t *testing.T, args ...string) testbed.Result {
	t.Helper()
	return kbox(t, append([]string{"kafka-delegation-tokens"}, args...)...)
}

var (
	warnLine = regexp.MustCompile(`(?m)^\[[^\]]+\] (WARN|INFO) .*\n`)
	date     = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d`)
	tokenID  = regexp.MustCompile(`tokenId : (\S+)`)
)

// normalize makes Apache's and kbox's texts comparable: the admin
// client's log lines out, and of a stack trace (Apache's, after its
// message) the message line only.
func normalize(s string) string {
	s = warnLine.ReplaceAllString(s, "")
	if i := strings.Index(s, "\n\tat "); i >= 0 {
		// the message, then the exception's toString, then its frames
		first, _, _ := strings.Cut(s, "\n")
		return first + "\n"
	}
	return s
}

// anonymize replaces the token ids and HMACs given, and every date, by
// placeholders: they differ between Apache's token and kbox's.
func anonymize(s string, secrets ...string) string {
	for _, x := range secrets {
		if x != "" {
			s = strings.ReplaceAll(s, x, "<"+fmt.Sprint(len(x))+">")
		}
	}
	return date.ReplaceAllString(s, "<date>")
}

func compare(t *testing.T, name string, want, got testbed.Result, wantSecrets, gotSecrets []string) {
	t.Helper()
	w := func(s string) string { return anonymize(normalize(s), wantSecrets...) }
	g := func(s string) string { return anonymize(normalize(s), gotSecrets...) }
	if want.Code != got.Code || w(want.Stdout) != g(got.Stdout) || w(want.Stderr) != g(got.Stderr) {
		t.Errorf("%s:\napache: exit %d\nstdout:\n%q\nstderr:\n%q\nkbox: exit %d\nstdout:\n%q\nstderr:\n%q", name,
			want.Code, w(want.Stdout), w(want.Stderr), got.Code, g(got.Stdout), g(got.Stderr))
	}
}

// created is the token id and HMAC in --create's output.
func created(t *testing.T, out string) (id, hmac string) {
	t.Helper()
	m := tokenID.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no token in %q", out)
	}
	row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(m[1]) + ` (\S+) `).FindStringSubmatch(out)
	if row == nil {
		t.Fatalf("no token row in %q", out)
	}
	return m[1], row[1]
}

func TestDifferential(t *testing.T) {
	conn := []string{"--bootstrap-server", cluster.Bootstrap, "--command-config", cluster.ClientProperties}
	with := func(args ...string) []string { return append(append([]string{}, conn...), args...) }
	// Cases that change nothing: checks, errors, and the describes that
	// find no token.
	stateless := [][]string{
		{},
		{"--help"},
		{"--version"},
		{"--bootstrap-server", cluster.Bootstrap},
		{"--create", "--renew"},
		{"--create"},
		{"--create", "--bootstrap-server", cluster.Bootstrap},
		with("--create"),
		with("--renew"),
		with("--renew", "--hmac", "x"),
		with("--expire", "--hmac", "x"),
		with("--create", "--max-life-time-period", "1", "--hmac", "x"),
		with("--create", "--max-life-time-period", "1", "--expiry-time-period", "1"),
		with("--renew", "--hmac", "x", "--renew-time-period", "1", "--owner-principal", "User:a"),
		with("--renew", "--hmac", "x", "--renew-time-period", "1", "--max-life-time-period", "1"),
		with("--expire", "--hmac", "x", "--expiry-time-period", "1", "--renew-time-period", "3"),
		with("--describe", "--hmac", "x"),
		with("--describe", "--max-life-time-period", "1"),
		{"--describe", "--bootstrap-server", cluster.Bootstrap, "--command-config", "/nonexistent/client.properties"},
		with("--describe"),
		with("--describe", "--owner-principal"),
		with("--describe", "--owner-principal", "User:nobody"),
		with("--describe", "--owner-principal", "bad"),
		with("--create", "--max-life-time-period"),
		with("--create", "--max-life-time-period=abc"),
		with("--create", "--max-life-time-period", "1", "--max-life-time-period", "2"),
		with("--create", "--max-life-time-period", "-1", "--renewer-principal", "bad"),
		with("--create", "--max-life-time-period", "-1", "--owner-principal", "bad"),
		with("--renew", "--hmac", "--renew-time-period", "1"),
		with("--renew", "--hmac", "!!!!", "--renew-time-period", "1"),
		with("--renew", "--hmac", "a", "--renew-time-period", "1"),
		with("--renew", "--hmac", "YWJj=", "--renew-time-period", "1"),
		with("--renew", "--hmac", "YWJj", "--renew-time-period"),
		with("--renew", "--hmac", "YWJj", "--renew-time-period", "1"),
		with("--expire", "--hmac", "YWJj", "--expiry-time-period", "-1"),
		with("--expire", "--hmac", "", "--expiry-time-period", "0"),
		// the PLAINTEXT listener: no SASL, no delegation tokens
		{"--describe", "--owner-principal", "User:admin", "--bootstrap-server", cluster.PlaintextBootstrap, "--command-config", os.DevNull},
		{"--create", "--max-life-time-period", "-1", "--bootstrap-server", cluster.PlaintextBootstrap, "--command-config", os.DevNull},
		{"--renew", "--hmac", "YWJj", "--renew-time-period", "-1", "--bootstrap-server", cluster.PlaintextBootstrap, "--command-config", os.DevNull},
		{"--bogus"},
		{"--describe", "--bootstrap-server"},
	}
	creates := [][]string{
		with("--create", "--max-life-time-period", "-1"),
		with("--create", "--max-life-time-period", "86400000", "--renewer-principal", "User:alice", "--renewer-principal", " User:bob ", "--owner-principal", "User:carol"),
	}
	want, err := cluster.ApacheBatch("kafka-delegation-tokens", append(append([][]string{}, stateless...), creates...))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range stateless {
		compare(t, strings.Join(c, " "), want[i], tool(t, c...), nil, nil)
	}
	var apacheTokens, kboxTokens [][2]string
	for i, c := range creates {
		w := want[len(stateless)+i]
		g := tool(t, c...)
		if w.Code != 0 || g.Code != 0 {
			t.Fatalf("create %v: apache %s\nkbox %s", c, w, g)
		}
		aid, ah := created(t, w.Stdout)
		kid, kh := created(t, g.Stdout)
		apacheTokens, kboxTokens = append(apacheTokens, [2]string{aid, ah}), append(kboxTokens, [2]string{kid, kh})
		compare(t, strings.Join(c, " "), w, g, []string{aid, ah}, []string{kid, kh})
	}

	// Every token of admin and carol, Apache's and kbox's: the same
	// answer, byte for byte. kbox asks first; Apache then renews and
	// expires its first token, kbox its own.
	describe := with("--describe", "--owner-principal", "User:admin", "--owner-principal", "User:carol")
	cmdtest.Eventually(t, 30*time.Second, func() (bool, string) { // the broker has every token
		r := tool(t, append(append([]string{}, describe...), "-o", "json")...)
		for _, tok := range append(apacheTokens, kboxTokens...) {
			if !strings.Contains(r.Stdout, `"token_id":"`+tok[0]+`"`) {
				return false, r.String()
			}
		}
		return true, ""
	})
	gotDescribe := tool(t, describe...)
	ah, kh := apacheTokens[0][1], kboxTokens[0][1]
	changes := func(h string) [][]string {
		return [][]string{
			with("--renew", "--hmac", h, "--renew-time-period", "7200000"),
			with("--expire", "--hmac", h, "--expiry-time-period", "600000"),
			with("--expire", "--hmac", h, "--expiry-time-period", "-1"),
			with("--renew", "--hmac", h, "--renew-time-period", "-1"),
		}
	}
	want2, err := cluster.ApacheBatch("kafka-delegation-tokens", append([][]string{describe}, changes(ah)...))
	if err != nil {
		t.Fatal(err)
	}
	if want2[0].Code != 0 || !strings.Contains(want2[0].Stdout, "Total number of tokens : ") || strings.Contains(want2[0].Stdout, "Total number of tokens : 0") {
		t.Errorf("describe: %s", want2[0])
	}
	compare(t, "describe admin and carol", want2[0], gotDescribe, nil, nil)
	for i, c := range changes(kh) {
		compare(t, strings.Join(c, " "), want2[1+i], tool(t, c...), []string{ah}, []string{kh})
	}
}

// tokenProps is a client config that logs in with a delegation token.
func tokenProps(t *testing.T, mech, id, hmac string, tokenauth bool) string {
	t.Helper()
	opt := ""
	if tokenauth {
		opt = ` tokenauth="true"`
	}
	p := filepath.Join(t.TempDir(), "token.properties")
	text := fmt.Sprintf("security.protocol=SASL_SSL\nsasl.mechanism=%s\n"+
		"sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"%s\" password=\"%s\"%s;\n"+
		"ssl.truststore.type=PEM\nssl.truststore.location=%s\n", mech, id, hmac, opt, cluster.CAFile())
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A token kbox creates logs a client in (kbox's, and Apache's for one)
// with the SCRAM tokenauth extension, not without it, and no longer once
// kbox has expired it. The HMAC shows nowhere but in the tool's output.
func TestTokenAuthenticates(t *testing.T) {
	admin := []string{"--bootstrap-server", cluster.Bootstrap, "--command-config", cluster.ClientProperties}
	for _, c := range []struct{ mech, expiry string }{{"SCRAM-SHA-256", "0"}, {"SCRAM-SHA-512", "-1"}} {
		t.Run(c.mech, func(t *testing.T) {
			r := tool(t, append([]string{"--create", "--max-life-time-period", "-1", "-o", "json"}, admin...)...)
			var tok struct {
				ID    string `json:"token_id"`
				HMAC  string `json:"hmac"`
				Owner string `json:"owner"`
			}
			if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &tok) != nil || tok.ID == "" || tok.HMAC == "" || tok.Owner != "User:admin" {
				t.Fatalf("create -o json: %s", r)
			}
			// The broker knows the token once it has the controller's
			// record of it.
			cmdtest.Eventually(t, 30*time.Second, func() (bool, string) {
				d := tool(t, append([]string{"--describe", "--owner-principal", "User:admin", "-o", "json"}, admin...)...)
				return d.Code == 0 && strings.Contains(d.Stdout, `{"token_id":"`+tok.ID+`","hmac":"`+tok.HMAC+`","owner":"User:admin"`), d.String()
			})
			// kbox delegation-tokens list: every token, the HMAC only
			// when asked for.
			l := kbox(t, append([]string{"delegation-tokens", "list", "-o", "json"}, admin...)...)
			if l.Code != 0 || !strings.Contains(l.Stdout, `{"token_id":"`+tok.ID+`","owner":"User:admin"`) || strings.Contains(l.Stdout, `"hmac"`) {
				t.Errorf("list -o json: %s", l)
			}
			l = kbox(t, append([]string{"delegation-tokens", "list", "--owner", "User:admin", "--show-hmac"}, admin...)...)
			if l.Code != 0 || !strings.Contains(l.Stdout, tok.ID) || !strings.Contains(l.Stdout, tok.HMAC) {
				t.Errorf("list --show-hmac: %s", l)
			}
			props := tokenProps(t, c.mech, tok.ID, tok.HMAC, true)
			topic := "dt-" + strings.ToLower(c.mech)
			if r := kbox(t, "kafka-topics", "--bootstrap-server", cluster.Bootstrap, "--command-config", props, "--create", "--topic", topic, "--partitions", "1"); r.Code != 0 {
				t.Fatalf("create a topic with the token: %s", r)
			}
			if r := kbox(t, append([]string{"kafka-topics", "--list"}, admin...)...); !strings.Contains(r.Stdout, topic+"\n") {
				t.Errorf("the token's topic is not there: %s", r)
			}
			if c.mech == "SCRAM-SHA-512" {
				out, errOut, code, err := cluster.Apache(nil, "kafka-topics", "--bootstrap-server", cluster.Bootstrap, "--command-config", props, "--list")
				if err != nil || code != 0 || !strings.Contains(out, topic+"\n") {
					t.Errorf("Apache's client with kbox's token: %v exit %d\n%s\n%s", err, code, out, errOut)
				}
			}
			// The same credentials without tokenauth="true" are a SCRAM
			// user that does not exist.
			plain := tokenProps(t, c.mech, tok.ID, tok.HMAC, false)
			if r := kbox(t, "kafka-topics", "--bootstrap-server", cluster.Bootstrap, "--command-config", plain, "--list"); r.Code == 0 || !strings.Contains(r.Stdout, "authentication failed") {
				t.Errorf("without tokenauth: %s", r)
			}
			e := tool(t, append([]string{"--expire", "--hmac", tok.HMAC, "--expiry-time-period", c.expiry}, admin...)...)
			if e.Code != 0 || !strings.HasPrefix(e.Stdout, "Calling expire token operation with hmac :"+tok.HMAC+" , expire-time-period :"+c.expiry+"\nCompleted expire operation. New expiry date : ") {
				t.Fatalf("expire: %s", e)
			}
			cmdtest.Eventually(t, 60*time.Second, func() (bool, string) {
				r := kbox(t, "kafka-topics", "--bootstrap-server", cluster.Bootstrap, "--command-config", props, "--list")
				if strings.Contains(r.Stdout+r.Stderr, tok.HMAC) {
					t.Errorf("the HMAC is in kbox's output: %s", r)
				}
				// kafka-topics prints its error on stdout
				return r.Code != 0 && strings.Contains(r.Stdout, "during authentication") || strings.Contains(r.Stdout, "authentication failed"), r.String()
			})
			if r := tool(t, append([]string{"--renew", "--hmac", tok.HMAC, "--renew-time-period", "-1"}, admin...)...); r.Code != 1 || !strings.HasPrefix(r.Stderr, "org.apache.kafka.common.errors.DelegationToken") || strings.Contains(r.Stderr, tok.HMAC) {
				t.Errorf("renew the expired token: %s", r)
			}
		})
	}
}
