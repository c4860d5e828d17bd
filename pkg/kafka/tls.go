package kafka

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/kboxdev/kbox/pkg/config"
)

// TLSSettings are the ssl.* properties. Secret fields are unexported so they
// never reach a printer through reflection.
type TLSSettings struct {
	TruststoreType           string
	TruststoreLocation       string
	KeystoreType             string
	KeystoreLocation         string
	Protocol                 string
	EnabledProtocols         []string
	CipherSuites             []string
	SkipHostnameVerification bool

	truststorePassword string
	truststoreCerts    string
	keystorePassword   string
	keystoreChain      string
	keystoreKey        string
	keyPassword        string
}

var tlsVersions = map[string]uint16{
	"TLSV1.2": tls.VersionTLS12,
	"TLSV1.3": tls.VersionTLS13,
}

// Java protocol names Go's TLS does not speak.
var legacyProtocols = map[string]bool{"TLSV1": true, "TLSV1.1": true, "SSLV3": true, "SSLV2HELLO": true, "SSL": true, "SSLV2": true}

// tls13Suites are the TLS 1.3 suite names Java accepts in ssl.cipher.suites;
// Go always enables all three and does not let them be chosen.
var tls13Suites = map[string]bool{"TLS_AES_128_GCM_SHA256": true, "TLS_AES_256_GCM_SHA384": true, "TLS_CHACHA20_POLY1305_SHA256": true}

// versions returns the TLS version range of ssl.enabled.protocols and
// ssl.protocol, plus the listed protocols Go cannot use (to be warned about).
func (t *TLSSettings) versions() (lo, hi uint16, skipped []string, err error) {
	protos := t.EnabledProtocols
	if len(protos) == 0 {
		protos = []string{"TLSv1.2", "TLSv1.3"} // Java's default
	}
	for _, p := range protos {
		u := strings.ToUpper(strings.TrimSpace(p))
		v, ok := tlsVersions[u]
		if !ok {
			if legacyProtocols[u] {
				skipped = append(skipped, p)
				continue
			}
			return 0, 0, nil, &PropertyError{"ssl.enabled.protocols", fmt.Sprintf("unknown protocol %q (supported: TLSv1.2, TLSv1.3)", p)}
		}
		if lo == 0 || v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	if lo == 0 {
		return 0, 0, nil, &PropertyError{"ssl.enabled.protocols", fmt.Sprintf("none of %s is supported (Go speaks TLSv1.2 and TLSv1.3 only)", strings.Join(protos, ","))}
	}
	switch u := strings.ToUpper(strings.TrimSpace(t.Protocol)); {
	case u == "" || u == "TLS" || u == "TLSV1.3":
	case u == "TLSV1.2":
		// Java: with ssl.protocol=TLSv1.2 the client never uses TLS 1.3.
		if hi > tls.VersionTLS12 {
			hi = tls.VersionTLS12
		}
		if lo > hi {
			return 0, 0, nil, &PropertyError{"ssl.protocol", "TLSv1.2 conflicts with ssl.enabled.protocols=TLSv1.3"}
		}
	case legacyProtocols[u] || strings.HasPrefix(u, "TLSV1."):
		return 0, 0, nil, &PropertyError{"ssl.protocol", fmt.Sprintf("%s is not supported (Go speaks TLSv1.2 and TLSv1.3 only)", t.Protocol)}
	default:
		return 0, 0, nil, &PropertyError{"ssl.protocol", fmt.Sprintf("unknown protocol %q (supported: TLSv1.2, TLSv1.3, TLS)", t.Protocol)}
	}
	return lo, hi, skipped, nil
}

func (t *TLSSettings) cipherSuites() ([]uint16, error) {
	if len(t.CipherSuites) == 0 {
		return nil, nil
	}
	byName := map[string]uint16{}
	for _, c := range tls.CipherSuites() {
		byName[c.Name] = c.ID
	}
	for _, c := range tls.InsecureCipherSuites() {
		byName[c.Name] = c.ID
	}
	var ids []uint16
	for _, n := range t.CipherSuites {
		if tls13Suites[n] {
			continue
		}
		id, ok := byName[n]
		if !ok {
			return nil, &PropertyError{"ssl.cipher.suites", fmt.Sprintf("unsupported cipher suite %q (use IANA names such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)", n)}
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// Config builds the tls.Config for the settings.
func (t *TLSSettings) Config() (*tls.Config, error) {
	lo, hi, _, err := t.versions()
	if err != nil {
		return nil, err
	}
	tc := &tls.Config{MinVersion: lo, MaxVersion: hi}
	if tc.CipherSuites, err = t.cipherSuites(); err != nil {
		return nil, err
	}
	roots, err := t.rootCAs()
	if err != nil {
		return nil, err
	}
	tc.RootCAs = roots
	cert, err := t.clientCert()
	if err != nil {
		return nil, err
	}
	if cert != nil {
		tc.Certificates = []tls.Certificate{*cert}
	}
	if t.SkipHostnameVerification {
		// Java's ssl.endpoint.identification.algorithm= (empty) turns off
		// the host name check only; the chain is still verified.
		tc.InsecureSkipVerify = true
		tc.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("tls: server sent no certificate")
			}
			opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
			for _, c := range cs.PeerCertificates[1:] {
				opts.Intermediates.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(opts)
			return err
		}
	}
	return tc, nil
}

func (t *TLSSettings) rootCAs() (*x509.CertPool, error) {
	if t.truststoreCerts != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(t.truststoreCerts)) {
			return nil, &PropertyError{"ssl.truststore.certificates", "no PEM certificate found"}
		}
		return pool, nil
	}
	if t.TruststoreLocation == "" {
		return nil, nil // system roots
	}
	typ, err := normStoreType("ssl.truststore.type", t.TruststoreType)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if typ != storePEM {
		certs, err := loadTrustStore(typ, t.TruststoreLocation, t.truststorePassword)
		if err != nil {
			return nil, err
		}
		for _, c := range certs {
			pool.AddCert(c)
		}
		return pool, nil
	}
	b, err := os.ReadFile(t.TruststoreLocation)
	if err != nil {
		return nil, &PropertyError{"ssl.truststore.location", fileErr(err)}
	}
	if !pool.AppendCertsFromPEM(b) {
		if f := sniffStore(b); f == storeJKS || f == storePKCS12 {
			return nil, &PropertyError{"ssl.truststore.type", fmt.Sprintf("%s is a %s store, not PEM; set ssl.truststore.type=%s", t.TruststoreLocation, f, f)}
		}
		return nil, &PropertyError{"ssl.truststore.location", fmt.Sprintf("no PEM certificate found in %s", t.TruststoreLocation)}
	}
	return pool, nil
}

func (t *TLSSettings) clientCert() (*tls.Certificate, error) {
	var chain, key []byte
	prop := "ssl.keystore.key"
	switch {
	case t.keystoreChain != "" || t.keystoreKey != "":
		if t.keystoreChain == "" || t.keystoreKey == "" {
			return nil, &PropertyError{"ssl.keystore.key", "ssl.keystore.certificate.chain and ssl.keystore.key must be set together"}
		}
		chain, key = []byte(t.keystoreChain), []byte(t.keystoreKey)
	case t.KeystoreLocation != "":
		typ, err := normStoreType("ssl.keystore.type", t.KeystoreType)
		if err != nil {
			return nil, err
		}
		if typ != storePEM {
			return loadKeyStore(typ, t.KeystoreLocation, t.keystorePassword, t.keyPassword)
		}
		b, err := os.ReadFile(t.KeystoreLocation)
		if err != nil {
			return nil, &PropertyError{"ssl.keystore.location", fileErr(err)}
		}
		if f := sniffStore(b); f == storeJKS || f == storePKCS12 {
			return nil, &PropertyError{"ssl.keystore.type", fmt.Sprintf("%s is a %s store, not PEM; set ssl.keystore.type=%s", t.KeystoreLocation, f, f)}
		}
		chain, key = b, b
		prop = "ssl.keystore.location"
	default:
		return nil, nil
	}
	keyDER, err := pemKey(key, t.keyPassword, prop)
	if err != nil {
		return nil, err
	}
	certs := pemCerts(chain)
	if len(certs) == 0 {
		if prop == "ssl.keystore.key" {
			prop = "ssl.keystore.certificate.chain"
		}
		return nil, &PropertyError{prop, "no PEM certificate found"}
	}
	return keyPair(certs, keyDER, prop)
}

// pemKey returns the DER of the first private key in b, decrypting an
// encrypted PKCS#8 key with password.
func pemKey(b []byte, password, prop string) ([]byte, error) {
	rest := b
	for {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			return nil, &PropertyError{prop, "no PEM private key found"}
		}
		switch blk.Type {
		case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY":
			if blk.Headers["Proc-Type"] != "" {
				return nil, &PropertyError{prop, "legacy OpenSSL-encrypted keys are not supported; convert with openssl pkcs8 -topk8 -v2 aes-256-cbc"}
			}
			return blk.Bytes, nil
		case "ENCRYPTED PRIVATE KEY":
			if password == "" {
				return nil, &PropertyError{"ssl.key.password", "not set, but the private key is encrypted"}
			}
			der, err := decryptPKCS8(blk.Bytes, password)
			if errors.Is(err, errWrongKeyPassword) {
				return nil, &PropertyError{"ssl.key.password", "wrong password (cannot decrypt the private key)"}
			}
			if err != nil {
				return nil, &PropertyError{prop, err.Error()}
			}
			return der, nil
		}
	}
}

func fileErr(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s: %v", pe.Path, pe.Err)
	}
	return err.Error()
}

// TLSConfig turns ssl.* Java client properties into a tls.Config with the
// rules of a broker connection (PEM, JKS and PKCS12 stores, encrypted keys,
// ssl.endpoint.identification.algorithm): the Schema Registry's TLS.
func TLSConfig(props *config.Properties) (*tls.Config, error) {
	p := config.NewProperties()
	p.Merge(props)
	p.Set("security.protocol", "SSL")
	s, err := Parse(p, Admin)
	if err != nil {
		return nil, err
	}
	return s.TLS.Config()
}
