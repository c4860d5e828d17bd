package kafka

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"
)

// pki is a test CA with a server and a client certificate, written as PEM
// files (and, lazily, as JKS/PKCS12 stores and encrypted keys).
type pki struct {
	dir        string
	caCert     *x509.Certificate
	caKey      *ecdsa.PrivateKey
	caPEM      string // file
	serverCert tls.Certificate
	clientCert *x509.Certificate
	clientKey  *rsa.PrivateKey
	clientPEM  string // cert + key file
	certPEM    string // client cert only
	keyPEM     string // client PKCS#8 key only
}

var (
	pkiOnce sync.Once
	thePKI  *pki
	pkiErr  error
)

func testPKI(t *testing.T) *pki {
	t.Helper()
	pkiOnce.Do(func() { thePKI, pkiErr = newPKI() })
	if pkiErr != nil {
		t.Fatal(pkiErr)
	}
	return thePKI
}

func newPKI() (*pki, error) {
	dir, err := os.MkdirTemp("", "kbox-pki-")
	if err != nil {
		return nil, err
	}
	p := &pki{dir: dir}
	p.caKey, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kbox test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &p.caKey.PublicKey, p.caKey)
	if err != nil {
		return nil, err
	}
	p.caCert, _ = x509.ParseCertificate(der)
	p.caPEM = p.write("ca.pem", pemBytes("CERTIFICATE", der))

	p.serverCert = p.leaf("localhost", []string{"localhost"}, time.Now().Add(24*time.Hour), x509.ExtKeyUsageServerAuth)

	p.clientKey, _ = rsa.GenerateKey(rand.Reader, 2048)
	cder := p.sign(&x509.Certificate{SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "client"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, &p.clientKey.PublicKey)
	p.clientCert, _ = x509.ParseCertificate(cder)
	k8, _ := x509.MarshalPKCS8PrivateKey(p.clientKey)
	p.certPEM = p.write("client-cert.pem", pemBytes("CERTIFICATE", cder))
	p.keyPEM = p.write("client-key.pem", pemBytes("PRIVATE KEY", k8))
	p.clientPEM = p.write("client.pem", append(pemBytes("CERTIFICATE", cder), pemBytes("PRIVATE KEY", k8)...))
	return p, nil
}

func (p *pki) sign(tmpl *x509.Certificate, pub any) []byte {
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, pub, p.caKey)
	if err != nil {
		panic(err)
	}
	return der
}

// leaf makes a server certificate for ip 127.0.0.1 and the given DNS names.
func (p *pki) leaf(cn string, dns []string, notAfter time.Time, eku x509.ExtKeyUsage) tls.Certificate {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: notAfter, DNSNames: dns,
		ExtKeyUsage: []x509.ExtKeyUsage{eku}, KeyUsage: x509.KeyUsageDigitalSignature}
	if cn == "localhost" {
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
	}
	der := p.sign(tmpl, &k.PublicKey)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: k}
}

func (p *pki) write(name string, b []byte) string {
	f := filepath.Join(p.dir, name)
	if err := os.WriteFile(f, b, 0o600); err != nil {
		panic(err)
	}
	return f
}

func pemBytes(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// tlsServer runs a TLS server requiring a client certificate from the CA;
// it returns its address and the handshake error channel.
func tlsServer(t *testing.T, p *pki, cert tls.Certificate) string {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(p.caCert)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// The handler may outlive the test: it must not touch t.
			// A failed handshake shows on the client side.
			go func() {
				_ = c.(*tls.Conn).Handshake()
				_, _ = c.Write([]byte("ok"))
				c.Close()
			}()
		}
	}()
	return ln.Addr().String()
}

// handshake dials addr (as host:port) with the settings' TLS config and
// reads the server's "ok", which it only sends after a full handshake.
func handshake(t *testing.T, s *Settings, host, addr string) error {
	t.Helper()
	tc, err := s.TLS.Config()
	if err != nil {
		return err
	}
	tc = tc.Clone()
	tc.ServerName = host
	d := &tls.Dialer{Config: tc}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	buf := make([]byte, 2)
	if n, err := io.ReadFull(c, buf); n != 2 {
		return err
	}
	if string(buf) != "ok" {
		return errors.New("no ok")
	}
	return nil
}

func parseSSL(t *testing.T, text string) (*Settings, error) {
	t.Helper()
	return Parse(props(t, "security.protocol=SSL\n"+text), Admin)
}

func mustSSL(t *testing.T, text string) *Settings {
	t.Helper()
	s, err := parseSSL(t, text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func keytool(t *testing.T, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("keytool"); err != nil {
		t.Skip("keytool not installed")
	}
	out, err := exec.Command("keytool", append(args, "-noprompt")...).CombinedOutput()
	if err != nil {
		t.Fatalf("keytool %v: %v\n%s", args, err, out)
	}
}

func openssl(t *testing.T, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed")
	}
	out, err := exec.Command("openssl", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("openssl %v: %v\n%s", args, err, out)
	}
}

func TestPEMMutualTLS(t *testing.T) {
	p := testPKI(t)
	addr := tlsServer(t, p, p.serverCert)
	s := mustSSL(t, "ssl.truststore.type=PEM\nssl.truststore.location="+p.caPEM+"\nssl.keystore.type=PEM\nssl.keystore.location="+p.clientPEM+"\n")
	if err := handshake(t, s, "localhost", addr); err != nil {
		t.Fatalf("PEM files: %v", err)
	}
	ca, _ := os.ReadFile(p.caPEM)
	cert, _ := os.ReadFile(p.certPEM)
	key, _ := os.ReadFile(p.keyPEM)
	props := NewInlinePEMProps(string(ca), string(cert), string(key))
	s2, err := Parse(props, Admin)
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(t, s2, "localhost", addr); err != nil {
		t.Fatalf("inline PEM: %v", err)
	}
	// No client certificate: the server refuses.
	s3 := mustSSL(t, "ssl.truststore.type=PEM\nssl.truststore.location="+p.caPEM+"\n")
	if err := handshake(t, s3, "localhost", addr); err == nil {
		t.Fatal("handshake without a client certificate succeeded")
	}
}

func TestJKSAndPKCS12WithKeytool(t *testing.T) {
	p := testPKI(t)
	addr := tlsServer(t, p, p.serverCert)
	dir := t.TempDir()
	trustJKS := filepath.Join(dir, "trust.jks")
	trustP12 := filepath.Join(dir, "trust.p12")
	keyP12 := filepath.Join(dir, "client.p12")
	keyJKS := filepath.Join(dir, "client.jks")
	keytool(t, "-importcert", "-alias", "ca", "-file", p.caPEM, "-keystore", trustJKS, "-storepass", "trust-pw", "-storetype", "JKS")
	keytool(t, "-importcert", "-alias", "ca", "-file", p.caPEM, "-keystore", trustP12, "-storepass", "trust-pw", "-storetype", "PKCS12")
	openssl(t, "pkcs12", "-export", "-in", p.certPEM, "-inkey", p.keyPEM, "-certfile", p.caPEM, "-name", "client", "-out", keyP12, "-passout", "pass:store-pw")
	keytool(t, "-importkeystore", "-srckeystore", keyP12, "-srcstoretype", "PKCS12", "-srcstorepass", "store-pw",
		"-destkeystore", keyJKS, "-deststoretype", "JKS", "-deststorepass", "store-pw", "-destkeypass", "key-pw", "-srcalias", "client", "-destalias", "client")

	ok := []struct{ name, text string }{
		{"JKS trust + JKS key with own key password", "ssl.truststore.location=" + trustJKS + "\nssl.truststore.password=trust-pw\nssl.keystore.location=" + keyJKS + "\nssl.keystore.password=store-pw\nssl.key.password=key-pw\n"},
		{"JKS truststore without password", "ssl.truststore.location=" + trustJKS + "\nssl.keystore.type=PKCS12\nssl.keystore.location=" + keyP12 + "\nssl.keystore.password=store-pw\n"},
		{"PKCS12 both", "ssl.truststore.type=PKCS12\nssl.truststore.location=" + trustP12 + "\nssl.truststore.password=trust-pw\nssl.keystore.type=PKCS12\nssl.keystore.location=" + keyP12 + "\nssl.keystore.password=store-pw\n"},
		{"PKCS12 file under JKS type (keystore.type.compat)", "ssl.truststore.type=JKS\nssl.truststore.location=" + trustP12 + "\nssl.truststore.password=trust-pw\nssl.keystore.type=jks\nssl.keystore.location=" + keyP12 + "\nssl.keystore.password=store-pw\n"},
	}
	for _, c := range ok {
		s, err := parseSSL(t, c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := handshake(t, s, "localhost", addr); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}

	bad := []struct{ name, text, want string }{
		{"wrong JKS truststore password", "ssl.truststore.location=" + trustJKS + "\nssl.truststore.password=nope\n", "property ssl.truststore.password: wrong password for " + trustJKS},
		{"wrong PKCS12 truststore password", "ssl.truststore.type=PKCS12\nssl.truststore.location=" + trustP12 + "\nssl.truststore.password=nope\n", "property ssl.truststore.password: wrong password"},
		{"wrong JKS keystore password", "ssl.keystore.location=" + keyJKS + "\nssl.keystore.password=nope\nssl.key.password=key-pw\n", "property ssl.keystore.password: wrong password for " + keyJKS},
		{"wrong JKS key password", "ssl.keystore.location=" + keyJKS + "\nssl.keystore.password=store-pw\nssl.key.password=nope\n", "property ssl.key.password: wrong key password"},
		{"JKS key password defaults to store password", "ssl.keystore.location=" + keyJKS + "\nssl.keystore.password=store-pw\n", "property ssl.key.password: wrong key password"},
		{"wrong PKCS12 keystore password", "ssl.keystore.type=PKCS12\nssl.keystore.location=" + keyP12 + "\nssl.keystore.password=nope\n", "property ssl.keystore.password: wrong password"},
		{"missing keystore", "ssl.keystore.location=" + dir + "/missing.jks\nssl.keystore.password=x\n", "property ssl.keystore.location: " + dir + "/missing.jks: no such file or directory"},
		{"PEM under JKS type", "ssl.truststore.location=" + p.caPEM + "\n", "property ssl.truststore.type: " + p.caPEM + " is a PEM file, not a JKS store; set ssl.truststore.type=PEM"},
		{"JKS under PEM type", "ssl.truststore.type=PEM\nssl.truststore.location=" + trustJKS + "\n", "set ssl.truststore.type=JKS"},
		{"unknown type", "ssl.truststore.type=XYZ\nssl.truststore.location=" + trustJKS + "\n", "property ssl.truststore.type: unknown store type"},
		{"JCEKS type", "ssl.keystore.type=JCEKS\nssl.keystore.location=" + keyJKS + "\n", "property ssl.keystore.type: JCEKS stores are not supported"},
		{"keystore with no key", "ssl.keystore.location=" + trustJKS + "\nssl.keystore.password=trust-pw\n", "holds no private key entry"},
	}
	for _, c := range bad {
		s, err := parseSSL(t, c.text)
		if err == nil {
			_, err = s.Opts()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
			continue
		}
		assertNoSecret(t, c.name, err, "store-pw", "key-pw", "trust-pw", "nope")
	}
}

func assertNoSecret(t *testing.T, name string, err error, secrets ...string) {
	t.Helper()
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("%s: multi-line error %q", name, msg)
	}
	for _, s := range secrets {
		if strings.Contains(msg, s) {
			t.Errorf("%s: error shows secret %q: %s", name, s, msg)
		}
	}
}

// Stores written in Go (no Java needed): JKS with keystore-go, PKCS12 with
// go-pkcs12 (modern AES/PBKDF2 and legacy RC2/3DES encodings).
func TestStoresWrittenInGo(t *testing.T) {
	p := testPKI(t)
	addr := tlsServer(t, p, p.serverCert)
	dir := t.TempDir()

	ks := keystore.New()
	if err := ks.SetTrustedCertificateEntry("ca", keystore.TrustedCertificateEntry{CreationTime: time.Now(), Certificate: keystore.Certificate{Type: "X509", Content: p.caCert.Raw}}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ks.Store(&buf, []byte("changeit")); err != nil {
		t.Fatal(err)
	}
	trustJKS := p.write("go-trust.jks", buf.Bytes())
	k8, _ := x509.MarshalPKCS8PrivateKey(p.clientKey)
	ks = keystore.New()
	if err := ks.SetPrivateKeyEntry("me", keystore.PrivateKeyEntry{CreationTime: time.Now(), PrivateKey: k8,
		CertificateChain: []keystore.Certificate{{Type: "X509", Content: p.clientCert.Raw}, {Type: "X509", Content: p.caCert.Raw}}}, []byte("keypass")); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := ks.Store(&buf, []byte("storepass")); err != nil {
		t.Fatal(err)
	}
	keyJKS := filepath.Join(dir, "go-client.jks")
	_ = os.WriteFile(keyJKS, buf.Bytes(), 0o600)

	for _, enc := range []*pkcs12.Encoder{pkcs12.Modern, pkcs12.LegacyDES, pkcs12.Modern2023} {
		tp, err := enc.EncodeTrustStore([]*x509.Certificate{p.caCert}, "tpw")
		if err != nil {
			t.Fatal(err)
		}
		kp, err := enc.Encode(p.clientKey, p.clientCert, []*x509.Certificate{p.caCert}, "kpw")
		if err != nil {
			t.Fatal(err)
		}
		tf := filepath.Join(dir, "t.p12")
		kf := filepath.Join(dir, "k.p12")
		_ = os.WriteFile(tf, tp, 0o600)
		_ = os.WriteFile(kf, kp, 0o600)
		s := mustSSL(t, "ssl.truststore.type=PKCS12\nssl.truststore.location="+tf+"\nssl.truststore.password=tpw\nssl.keystore.type=PKCS12\nssl.keystore.location="+kf+"\nssl.keystore.password=kpw\n")
		if err := handshake(t, s, "localhost", addr); err != nil {
			t.Errorf("PKCS12: %v", err)
		}
		// A key-and-cert PKCS12 (openssl style) as a truststore: its
		// certificates are trusted.
		s = mustSSL(t, "ssl.truststore.type=PKCS12\nssl.truststore.location="+kf+"\nssl.truststore.password=kpw\nssl.keystore.type=PKCS12\nssl.keystore.location="+kf+"\nssl.keystore.password=kpw\n")
		if err := handshake(t, s, "localhost", addr); err != nil {
			t.Errorf("PKCS12 keystore as truststore: %v", err)
		}
	}
	s := mustSSL(t, "ssl.truststore.location="+trustJKS+"\nssl.truststore.password=changeit\nssl.keystore.location="+keyJKS+"\nssl.keystore.password=storepass\nssl.key.password=keypass\n")
	if err := handshake(t, s, "localhost", addr); err != nil {
		t.Errorf("Go JKS: %v", err)
	}
}

func TestEncryptedPKCS8(t *testing.T) {
	p := testPKI(t)
	addr := tlsServer(t, p, p.serverCert)
	dir := t.TempDir()
	for _, c := range []struct{ name, cipher, prf string }{
		{"aes256-sha256", "aes-256-cbc", "hmacWithSHA256"},
		{"aes128-sha1", "aes-128-cbc", "hmacWithSHA1"},
		{"aes192-sha512", "aes-192-cbc", "hmacWithSHA512"},
		{"3des-sha1", "des3", "hmacWithSHA1"},
	} {
		out := filepath.Join(dir, c.name+".pem")
		openssl(t, "pkcs8", "-topk8", "-in", p.keyPEM, "-out", out, "-v2", c.cipher, "-v2prf", c.prf, "-passout", "pass:k3y-p@ss")
		enc, _ := os.ReadFile(out)
		if !bytes.Contains(enc, []byte("ENCRYPTED PRIVATE KEY")) {
			t.Fatalf("%s: openssl did not encrypt", c.name)
		}
		cert, _ := os.ReadFile(p.certPEM)
		ks := filepath.Join(dir, c.name+"-ks.pem")
		_ = os.WriteFile(ks, append(cert, enc...), 0o600)
		s, err := parseSSL(t, "ssl.truststore.type=PEM\nssl.truststore.location="+p.caPEM+"\nssl.keystore.type=PEM\nssl.keystore.location="+ks+"\nssl.key.password=k3y-p@ss\n")
		if err != nil {
			t.Fatal(err)
		}
		if err := handshake(t, s, "localhost", addr); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		// Inline (ssl.keystore.key) too.
		pr := NewInlinePEMProps(mustRead(p.caPEM), string(cert), string(enc))
		pr.Set("ssl.key.password", "k3y-p@ss")
		s, err = Parse(pr, Admin)
		if err != nil {
			t.Fatal(err)
		}
		if err := handshake(t, s, "localhost", addr); err != nil {
			t.Errorf("%s inline: %v", c.name, err)
		}
		for _, bad := range []struct{ pw, want string }{
			{"wrong-pass", "property ssl.key.password: wrong password (cannot decrypt the private key)"},
			{"", "property ssl.key.password: not set, but the private key is encrypted"},
		} {
			text := "ssl.keystore.type=PEM\nssl.keystore.location=" + ks + "\n"
			if bad.pw != "" {
				text += "ssl.key.password=" + bad.pw + "\n"
			}
			s := mustSSL(t, text)
			_, err := s.Opts()
			if err == nil || err.Error() != bad.want {
				t.Errorf("%s with password %q: got %v, want %q", c.name, bad.pw, err, bad.want)
			} else {
				assertNoSecret(t, c.name, err, "wrong-pass", "k3y-p@ss")
			}
		}
	}
	// PBES1 (legacy) is refused with a pointer to the fix.
	out := filepath.Join(dir, "pbes1.pem")
	openssl(t, "pkcs8", "-topk8", "-in", p.keyPEM, "-out", out, "-v1", "PBE-SHA1-3DES", "-passout", "pass:x")
	s := mustSSL(t, "ssl.keystore.type=PEM\nssl.keystore.key="+strings.ReplaceAll(mustRead(out), "\n", "\\n")+"\nssl.keystore.certificate.chain="+strings.ReplaceAll(mustRead(p.certPEM), "\n", "\\n")+"\nssl.key.password=x\n")
	if _, err := s.Opts(); err == nil || !strings.Contains(err.Error(), "only PBES2 is supported") {
		t.Errorf("PBES1: %v", err)
	}
}

func mustRead(f string) string {
	b, err := os.ReadFile(f)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// NewInlinePEMProps returns ssl.* properties with inline PEM material.
func NewInlinePEMProps(ca, cert, key string) *config.Properties {
	pr := config.NewProperties()
	pr.Set("security.protocol", "SSL")
	pr.Set("ssl.truststore.type", "PEM")
	pr.Set("ssl.truststore.certificates", ca)
	pr.Set("ssl.keystore.type", "PEM")
	pr.Set("ssl.keystore.certificate.chain", cert)
	pr.Set("ssl.keystore.key", key)
	return pr
}

func TestCertificateChecks(t *testing.T) {
	p := testPKI(t)
	trust := "ssl.truststore.type=PEM\nssl.truststore.location=" + p.caPEM + "\nssl.keystore.type=PEM\nssl.keystore.location=" + p.clientPEM + "\n"

	// Host name mismatch: the certificate is for other.example only.
	other := p.leaf("other", []string{"other.example"}, time.Now().Add(time.Hour), x509.ExtKeyUsageServerAuth)
	addr := tlsServer(t, p, other)
	s := mustSSL(t, trust)
	err := handshake(t, s, "localhost", addr)
	msg := explainErr(addr, err, s)
	if !strings.Contains(msg, "TLS check failed: host name") || !strings.Contains(msg, "other.example") {
		t.Errorf("host name mismatch: %s", msg)
	}
	// ssl.endpoint.identification.algorithm= (empty): the host name check
	// is off (with a warning), the chain is still checked.
	s = mustSSL(t, trust+"ssl.endpoint.identification.algorithm=\n")
	if err := handshake(t, s, "localhost", addr); err != nil {
		t.Errorf("host name check off: %v", err)
	}
	warned := false
	for _, ig := range s.Ignored {
		if ig.Name == "ssl.endpoint.identification.algorithm" && ig.Warning && strings.Contains(ig.String(), "NOT checked") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning for the empty endpoint identification algorithm: %v", s.Ignored)
	}

	// Expired server certificate: still refused with the check off.
	expired := p.leaf("localhost", []string{"localhost"}, time.Now().Add(-time.Hour), x509.ExtKeyUsageServerAuth)
	addr = tlsServer(t, p, expired)
	for _, extra := range []string{"", "ssl.endpoint.identification.algorithm=\n"} {
		s = mustSSL(t, trust+extra)
		msg = explainErr(addr, handshake(t, s, "localhost", addr), s)
		if !strings.Contains(msg, "TLS check failed: certificate") || !strings.Contains(msg, "expired") {
			t.Errorf("expired server certificate (%q): %s", extra, msg)
		}
	}

	// Unknown CA.
	other2, _ := newPKI()
	addr = tlsServer(t, p, p.serverCert)
	s = mustSSL(t, "ssl.truststore.type=PEM\nssl.truststore.location="+other2.caPEM+"\nssl.keystore.type=PEM\nssl.keystore.location="+p.clientPEM+"\n")
	msg = explainErr(addr, handshake(t, s, "localhost", addr), s)
	if !strings.Contains(msg, "unknown authority") {
		t.Errorf("unknown CA: %s", msg)
	}

	// Mismatched client key and certificate.
	ks := p.write("mismatch.pem", append([]byte(mustRead(p.certPEM)), []byte(mustRead(other2.keyPEM))...))
	s = mustSSL(t, "ssl.keystore.type=PEM\nssl.keystore.location="+ks+"\n")
	if _, err := s.Opts(); err == nil || !strings.Contains(err.Error(), "property ssl.keystore.location: the private key does not match the client certificate") {
		t.Errorf("mismatched key: %v", err)
	}
	// Expired client certificate.
	k8, _ := x509.MarshalPKCS8PrivateKey(p.clientKey)
	der := p.sign(&x509.Certificate{SerialNumber: big.NewInt(9), Subject: pkix.Name{CommonName: "old-client"}, NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-24 * time.Hour)}, &p.clientKey.PublicKey)
	ks = p.write("expired-client.pem", append(pemBytes("CERTIFICATE", der), pemBytes("PRIVATE KEY", k8)...))
	s = mustSSL(t, "ssl.keystore.type=PEM\nssl.keystore.location="+ks+"\n")
	if _, err := s.Opts(); err == nil || !strings.Contains(err.Error(), "the client certificate (CN=old-client) expired on") {
		t.Errorf("expired client certificate: %v", err)
	}
}

func explainErr(addr string, err error, s *Settings) string {
	if err == nil {
		return "<nil>"
	}
	if e := explainDial(addr, err, s); e != nil {
		return e.Error()
	}
	return "unexplained: " + err.Error()
}

func TestProtocols(t *testing.T) {
	p := testPKI(t)
	addr := tlsServer(t, p, p.serverCert)
	base := "ssl.truststore.type=PEM\nssl.truststore.location=" + p.caPEM + "\nssl.keystore.type=PEM\nssl.keystore.location=" + p.clientPEM + "\n"
	for _, c := range []struct {
		text   string
		lo, hi uint16
	}{
		{"", tls.VersionTLS12, tls.VersionTLS13},
		{"ssl.protocol=TLSv1.2\n", tls.VersionTLS12, tls.VersionTLS12},
		{"ssl.enabled.protocols=TLSv1.3\n", tls.VersionTLS13, tls.VersionTLS13},
		{"ssl.enabled.protocols=TLSv1.1,TLSv1.2\n", tls.VersionTLS12, tls.VersionTLS12},
		{"ssl.protocol=TLS\nssl.enabled.protocols=tlsv1.2,TLSv1.3\n", tls.VersionTLS12, tls.VersionTLS13},
	} {
		s := mustSSL(t, base+c.text)
		tc, err := s.TLS.Config()
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if tc.MinVersion != c.lo || tc.MaxVersion != c.hi {
			t.Errorf("%q: versions %x-%x, want %x-%x", c.text, tc.MinVersion, tc.MaxVersion, c.lo, c.hi)
		}
		if err := handshake(t, s, "localhost", addr); err != nil {
			t.Errorf("%q: %v", c.text, err)
		}
	}
	s := mustSSL(t, base+"ssl.enabled.protocols=TLSv1.1,TLSv1.2\n")
	if len(s.Ignored) != 1 || !strings.Contains(s.Ignored[0].String(), "TLSv1.1 not supported") {
		t.Errorf("legacy protocol warning: %v", s.Ignored)
	}
	for _, c := range []struct{ text, want string }{
		{"ssl.enabled.protocols=TLSv1.1\n", "property ssl.enabled.protocols: none of TLSv1.1 is supported"},
		{"ssl.enabled.protocols=TLSv9\n", "property ssl.enabled.protocols: unknown protocol \"TLSv9\""},
		{"ssl.protocol=TLSv1.1\n", "property ssl.protocol: TLSv1.1 is not supported"},
		{"ssl.protocol=TLSv1.2\nssl.enabled.protocols=TLSv1.3\n", "property ssl.protocol: TLSv1.2 conflicts"},
		{"ssl.cipher.suites=TLS_FOO\n", "property ssl.cipher.suites: unsupported cipher suite \"TLS_FOO\""},
	} {
		s, err := parseSSL(t, base+c.text)
		if err == nil {
			_, err = s.Opts()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.want)
		}
	}
	// Cipher suites: TLS 1.2 suites are applied, TLS 1.3 names accepted.
	s = mustSSL(t, base+"ssl.enabled.protocols=TLSv1.2\nssl.cipher.suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256\n")
	tc, err := s.TLS.Config()
	if err != nil || len(tc.CipherSuites) != 1 || tc.CipherSuites[0] != tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 {
		t.Fatalf("cipher suites: %v %v", tc, err)
	}
	if err := handshake(t, s, "localhost", addr); err != nil {
		t.Errorf("cipher suite handshake: %v", err)
	}
}
