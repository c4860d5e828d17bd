package kafka

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"
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
	"TLS":     tls.VersionTLS12,
}

// Config builds the tls.Config for the settings.
func (t *TLSSettings) Config() (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(t.EnabledProtocols) > 0 {
		lo, hi := uint16(0), uint16(0)
		for _, p := range t.EnabledProtocols {
			v, ok := tlsVersions[strings.ToUpper(p)]
			if !ok {
				return nil, &PropertyError{"ssl.enabled.protocols", fmt.Sprintf("unsupported protocol %q (Go supports TLSv1.2 and TLSv1.3)", p)}
			}
			if lo == 0 || v < lo {
				lo = v
			}
			if v > hi {
				hi = v
			}
		}
		tc.MinVersion, tc.MaxVersion = lo, hi
	}
	if len(t.CipherSuites) > 0 {
		byName := map[string]uint16{}
		for _, c := range tls.CipherSuites() {
			byName[c.Name] = c.ID
		}
		for _, n := range t.CipherSuites {
			id, ok := byName[n]
			if !ok {
				return nil, &PropertyError{"ssl.cipher.suites", fmt.Sprintf("unsupported cipher suite %q", n)}
			}
			tc.CipherSuites = append(tc.CipherSuites, id)
		}
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
	typ := t.TruststoreType
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
	if typ == "" {
		typ = "JKS" // Java's default type
	}
	if typ != "PEM" {
		return nil, &PropertyError{"ssl.truststore.type", fmt.Sprintf("%s truststores are not supported yet; use a PEM truststore (ssl.truststore.type=PEM)", typ)}
	}
	b, err := os.ReadFile(t.TruststoreLocation)
	if err != nil {
		return nil, &PropertyError{"ssl.truststore.location", fileErr(err)}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, &PropertyError{"ssl.truststore.location", fmt.Sprintf("no PEM certificate found in %s", t.TruststoreLocation)}
	}
	return pool, nil
}

func (t *TLSSettings) clientCert() (*tls.Certificate, error) {
	var chain, key []byte
	switch {
	case t.keystoreChain != "" || t.keystoreKey != "":
		if t.keystoreChain == "" || t.keystoreKey == "" {
			return nil, &PropertyError{"ssl.keystore.key", "ssl.keystore.certificate.chain and ssl.keystore.key must be set together"}
		}
		chain, key = []byte(t.keystoreChain), []byte(t.keystoreKey)
	case t.KeystoreLocation != "":
		typ := t.KeystoreType
		if typ == "" {
			typ = "JKS"
		}
		if typ != "PEM" {
			return nil, &PropertyError{"ssl.keystore.type", fmt.Sprintf("%s keystores are not supported yet; use a PEM keystore (ssl.keystore.type=PEM)", typ)}
		}
		b, err := os.ReadFile(t.KeystoreLocation)
		if err != nil {
			return nil, &PropertyError{"ssl.keystore.location", fileErr(err)}
		}
		chain, key = b, b
	default:
		return nil, nil
	}
	keyDER, err := pemKey(key, t.keyPassword != "")
	if err != nil {
		return nil, err
	}
	var certPEM []byte
	rest := chain
	for {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			break
		}
		if blk.Type == "CERTIFICATE" {
			certPEM = append(certPEM, pem.EncodeToMemory(blk)...)
		}
	}
	if len(certPEM) == 0 {
		return nil, &PropertyError{"ssl.keystore.certificate.chain", "no PEM certificate found"}
	}
	cert, err := tls.X509KeyPair(certPEM, pem.EncodeToMemory(keyDER))
	if err != nil {
		return nil, &PropertyError{"ssl.keystore.key", "the private key does not match the certificate or cannot be read"}
	}
	return &cert, nil
}

func pemKey(b []byte, hasPassword bool) (*pem.Block, error) {
	rest := b
	for {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			return nil, &PropertyError{"ssl.keystore.key", "no PEM private key found"}
		}
		switch blk.Type {
		case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY":
			return blk, nil
		case "ENCRYPTED PRIVATE KEY":
			return nil, &PropertyError{"ssl.key.password", "encrypted PKCS#8 keys are not supported yet; decrypt the key (openssl pkcs8 -nocrypt)"}
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
