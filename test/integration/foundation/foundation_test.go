//go:build integration

// Package foundation_test checks the connection layer and `kbox cluster
// describe` against real Apache Kafka brokers started by testbed.sh.
package foundation_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/test/integration/testbed"
)

var kboxBin string

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "foundation", Ready: func(e testbed.Env) error {
		kboxBin = e.Kbox
		return nil
	}}))
}

type result = testbed.Result

func kbox(t *testing.T, env []string, args ...string) result {
	t.Helper()
	// A fresh config per call so the developer's own profiles never leak in.
	return testbed.Runner{Timeout: 60 * time.Second, Env: []string{"KBOX_PROFILE="}}.With(env...).Exec(t, kboxBin, args...)
}

type description struct {
	ClusterID  string `json:"cluster_id"`
	Controller int32  `json:"controller"`
	Brokers    []struct {
		ID   int32  `json:"id"`
		Host string `json:"host"`
		Port int32  `json:"port"`
	} `json:"brokers"`
}

func describeJSON(t *testing.T, env []string, args ...string) description {
	t.Helper()
	r := kbox(t, env, append([]string{"cluster", "describe", "-o", "json"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("cluster describe %v: exit %d\nstdout: %s\nstderr: %s", args, r.Code, r.Stdout, r.Stderr)
	}
	var d description
	if err := json.Unmarshal([]byte(r.Stdout), &d); err != nil {
		t.Fatalf("json: %v\n%s", err, r.Stdout)
	}
	return d
}

func checkBrokers(t *testing.T, d description, n int, bootstrap string) {
	t.Helper()
	if d.ClusterID == "" || len(d.Brokers) != n {
		t.Fatalf("want %d brokers and a cluster id, got %+v", n, d)
	}
	ctrlKnown := false
	for i, b := range d.Brokers {
		if b.ID != int32(i+1) || b.Host != "127.0.0.1" || !strings.Contains(bootstrap, ":"+itoa(b.Port)) {
			t.Errorf("broker %d: %+v (bootstrap %s)", i, b, bootstrap)
		}
		if b.ID == d.Controller {
			ctrlKnown = true
		}
	}
	if !ctrlKnown {
		t.Errorf("controller %d is not a broker id", d.Controller)
	}
}

func itoa(i int32) string { return strconv.Itoa(int(i)) }

func TestThreeBrokersIntegration(t *testing.T) {
	c, err := testbed.Up(3, "plaintext", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Down()

	t.Run("describe", func(t *testing.T) {
		d := describeJSON(t, nil, "--bootstrap-server", c.Bootstrap)
		checkBrokers(t, d, 3, c.Bootstrap)
	})
	t.Run("table", func(t *testing.T) {
		r := kbox(t, nil, "cluster", "describe", "--bootstrap-server", c.Bootstrap)
		if r.Code != 0 || !strings.HasPrefix(r.Stdout, "Cluster ") || strings.Count(r.Stdout, "127.0.0.1:") != 3 || !strings.Contains(r.Stdout, "controller") {
			t.Fatalf("table: %d %q %q", r.Code, r.Stdout, r.Stderr)
		}
	})
	t.Run("yaml-and-profile", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "config.yaml")
		if r := kboxWithConfig(t, cfg, "profile", "create", "three", "--bootstrap-server", c.Bootstrap); r.Code != 0 {
			t.Fatalf("profile create: %+v", r)
		}
		r := kboxWithConfig(t, cfg, "--profile", "three", "cluster", "describe", "-o", "yaml")
		if r.Code != 0 || strings.Count(r.Stdout, "- id: ") != 3 {
			t.Fatalf("yaml via profile: %+v", r)
		}
	})
	t.Run("one-seed-finds-all", func(t *testing.T) {
		first := strings.Split(c.Bootstrap, ",")[0]
		d := describeJSON(t, nil, "--bootstrap-server", first)
		checkBrokers(t, d, 3, c.Bootstrap)
	})
	t.Run("stopped-broker-disappears", func(t *testing.T) {
		if err := c.StopBroker(3, false); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(40 * time.Second)
		for {
			d := describeJSON(t, nil, "--bootstrap-server", c.Bootstrap)
			if len(d.Brokers) == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("broker 3 still registered: %+v", d)
			}
			time.Sleep(time.Second)
		}
		if err := c.StartBroker(3); err != nil {
			t.Fatal(err)
		}
		checkBrokers(t, describeJSON(t, nil, "--bootstrap-server", c.Bootstrap), 3, c.Bootstrap)
	})
}

// kboxWithConfig runs kbox with a persistent config file (kbox() uses a
// fresh one per call).
func kboxWithConfig(t *testing.T, cfg string, args ...string) result {
	t.Helper()
	return testbed.Runner{Config: cfg, Env: []string{"KBOX_PROFILE="}}.Exec(t, kboxBin, args...)
}

func TestUnreachableIntegration(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:1", "127.0.0.1:9"} {
		r := kbox(t, nil, "cluster", "describe", "--bootstrap-server", addr)
		if r.Code != 1 || r.Took > 15*time.Second || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || !strings.Contains(r.Stderr, addr) {
			t.Fatalf("%s: exit %d in %s, stderr %q", addr, r.Code, r.Took, r.Stderr)
		}
	}
	// A listener that accepts but never answers: the connect timeout bounds the wait.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	r := kbox(t, []string{"KBOX_CONNECT_TIMEOUT=2s"}, "cluster", "describe", "--bootstrap-server", ln.Addr().String())
	if r.Code != 1 || r.Took > 10*time.Second || !strings.Contains(r.Stderr, ln.Addr().String()) {
		t.Fatalf("silent listener: exit %d in %s, stderr %q", r.Code, r.Took, r.Stderr)
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func readProps(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// otherCA writes a self-signed CA that did not sign the broker certificate.
func otherCA(t *testing.T, dir string) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "not the test bed CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, "other-ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
}

func TestSecuredIntegration(t *testing.T) {
	c, err := testbed.Up(1, "sasl_ssl", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Down()
	dir := t.TempDir()
	tlsDir := filepath.Join(c.Dir, "tls")
	ca := filepath.Join(tlsDir, "ca.pem")
	base := readProps(t, c.ClientProperties)
	const adminPW = "admin-secret"

	t.Run("plaintext-one-broker", func(t *testing.T) {
		checkBrokers(t, describeJSON(t, nil, "--bootstrap-server", c.PlaintextBootstrap), 1, c.PlaintextBootstrap)
	})
	t.Run("sasl-ssl-scram-512-properties", func(t *testing.T) {
		d := describeJSON(t, nil, "--bootstrap-server", c.Bootstrap, "--command-config", c.ClientProperties)
		checkBrokers(t, d, 1, c.Bootstrap)
	})
	t.Run("apache-accepts-the-same-file", func(t *testing.T) {
		_, stderr, code, err := c.Apache(nil, "kafka-topics", "--bootstrap-server", c.Bootstrap, "--command-config", c.ClientProperties, "--list")
		if err != nil || code != 0 {
			t.Fatalf("apache: %d %v %s", code, err, stderr)
		}
	})
	t.Run("imported-profile-same-result", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "config.yaml")
		r := kboxWithConfig(t, cfg, "profile", "import", "secured", "--from-properties", c.ClientProperties, "--bootstrap-server", c.Bootstrap)
		if r.Code != 0 {
			t.Fatalf("import: %+v", r)
		}
		viaProfile := kboxWithConfig(t, cfg, "--profile", "secured", "cluster", "describe", "-o", "json")
		viaFile := kbox(t, nil, "cluster", "describe", "-o", "json", "--bootstrap-server", c.Bootstrap, "--command-config", c.ClientProperties)
		if viaProfile.Code != 0 || viaProfile.Stdout != viaFile.Stdout {
			t.Fatalf("profile %+v\nfile %+v", viaProfile, viaFile)
		}
		show := kboxWithConfig(t, cfg, "profile", "show", "secured")
		if strings.Contains(show.Stdout+show.Stderr, adminPW) {
			t.Fatalf("secret in profile show: %s", show.Stdout)
		}
	})
	t.Run("profile-with-password-env", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "config.yaml")
		r := kboxWithConfig(t, cfg, "profile", "create", "s256", "--bootstrap-server", c.Bootstrap, "--tls-ca", ca,
			"--sasl-mechanism", "SCRAM-SHA-256", "--sasl-username", "alice", "--password-env", "ALICE_PW")
		if r.Code != 0 {
			t.Fatalf("create: %+v", r)
		}
		cmd := exec.Command(kboxBin, "--profile", "s256", "cluster", "describe", "-o", "json")
		cmd.Env = append(os.Environ(), "KBOX_CONFIG="+cfg, "ALICE_PW=alice-secret")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), `"brokers"`) {
			t.Fatalf("describe via profile: %v %s", err, out)
		}
	})
	t.Run("plain-mechanism", func(t *testing.T) {
		p := writeFile(t, dir, "plain.properties", "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nssl.truststore.type=PEM\nssl.truststore.location="+ca+
			"\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\"alice-secret\";\n")
		describeJSON(t, nil, "--bootstrap-server", c.Bootstrap, "--command-config", p)
	})
	t.Run("wrong-password", func(t *testing.T) {
		p := writeFile(t, dir, "wrong.properties", strings.ReplaceAll(base, adminPW, "not-the-password"))
		r := kbox(t, nil, "cluster", "describe", "--bootstrap-server", c.Bootstrap, "--command-config", p)
		if r.Code != 1 || !strings.Contains(r.Stderr, "authentication failed") || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
			t.Fatalf("wrong password: %+v", r)
		}
		if strings.Contains(r.Stdout+r.Stderr, "not-the-password") {
			t.Fatal("password echoed")
		}
	})
	t.Run("unknown-ca", func(t *testing.T) {
		p := writeFile(t, dir, "otherca.properties", strings.ReplaceAll(base, ca, otherCA(t, dir)))
		r := kbox(t, nil, "cluster", "describe", "--bootstrap-server", c.Bootstrap, "--command-config", p)
		if r.Code != 1 || !strings.Contains(r.Stderr, "TLS check failed") || !strings.Contains(r.Stderr, "unknown authority") {
			t.Fatalf("unknown CA: %+v", r)
		}
	})
	t.Run("tls-to-plaintext-listener", func(t *testing.T) {
		r := kbox(t, nil, "cluster", "describe", "--bootstrap-server", c.PlaintextBootstrap, "--command-config", c.ClientProperties)
		if r.Code != 1 || !strings.Contains(r.Stderr, "TLS") {
			t.Fatalf("TLS to plaintext: %+v", r)
		}
	})
	t.Run("mtls", func(t *testing.T) {
		if c.SSLBootstrap == "" {
			t.Skip("test bed has no mTLS listener")
		}
		cert, key := filepath.Join(tlsDir, "client-cert.pem"), filepath.Join(tlsDir, "client-key.pem")
		noCert := writeFile(t, dir, "ssl.properties", "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location="+ca+"\n")
		r := kbox(t, nil, "cluster", "describe", "--bootstrap-server", c.SSLBootstrap, "--command-config", noCert)
		if r.Code != 1 || !strings.Contains(r.Stderr, "client certificate") {
			t.Fatalf("mTLS without cert: %+v", r)
		}
		withCert := writeFile(t, dir, "mtls.properties", readProps(t, noCert)+"ssl.keystore.type=PEM\nssl.keystore.location="+filepath.Join(dir, "client-bundle.pem")+"\n")
		writeFile(t, dir, "client-bundle.pem", readProps(t, cert)+readProps(t, key))
		describeJSON(t, nil, "--bootstrap-server", c.SSLBootstrap, "--command-config", withCert)
		// The same through a profile with cert-file/key-file.
		cfg := filepath.Join(t.TempDir(), "config.yaml")
		if r := kboxWithConfig(t, cfg, "profile", "create", "m", "--bootstrap-server", c.SSLBootstrap, "--tls-ca", ca, "--tls-cert", cert, "--tls-key", key); r.Code != 0 {
			t.Fatalf("create: %+v", r)
		}
		if r := kboxWithConfig(t, cfg, "--profile", "m", "cluster", "describe"); r.Code != 0 {
			t.Fatalf("mTLS via profile: %+v", r)
		}
	})
	t.Run("ignored-properties-warned", func(t *testing.T) {
		p := writeFile(t, dir, "extra.properties", base+"send.buffer.bytes=65536\nno.such.property=1\n")
		r := kbox(t, nil, "cluster", "describe", "--bootstrap-server", c.Bootstrap, "--command-config", p)
		if r.Code != 0 || !strings.Contains(r.Stderr, "send.buffer.bytes") || !strings.Contains(r.Stderr, "no.such.property") {
			t.Fatalf("ignored: %+v", r)
		}
	})
	t.Run("malformed-property", func(t *testing.T) {
		p := writeFile(t, dir, "bad.properties", base+"request.timeout.ms=soon\n")
		r := kbox(t, nil, "cluster", "describe", "--bootstrap-server", c.Bootstrap, "--command-config", p)
		if r.Code != 1 || !strings.Contains(r.Stderr, "request.timeout.ms") {
			t.Fatalf("malformed: %+v", r)
		}
	})
}
