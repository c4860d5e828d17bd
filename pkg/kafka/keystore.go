package kafka

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"
)

// Store formats, as ssl.truststore.type / ssl.keystore.type name them.
const (
	storeJKS    = "JKS"
	storePKCS12 = "PKCS12"
	storePEM    = "PEM"
)

const (
	jksMagic   = 0xFEEDFEED
	jceksMagic = 0xCECECECE
)

// sniffStore returns the format of a key store file from its content.
// Like the JVM's keystore.type.compat (on by default), a JKS-typed store
// that holds PKCS12 (and the reverse) is read as what it is.
func sniffStore(b []byte) string {
	if len(b) >= 4 {
		switch binary.BigEndian.Uint32(b) {
		case jksMagic:
			return storeJKS
		case jceksMagic:
			return "JCEKS"
		}
	}
	if len(b) > 0 && b[0] == 0x30 {
		return storePKCS12
	}
	if bytes.Contains(b, []byte("-----BEGIN ")) {
		return storePEM
	}
	return ""
}

// normStoreType maps the Java type names (case-insensitive) to ours.
func normStoreType(prop, typ string) (string, error) {
	switch strings.ToUpper(strings.TrimSpace(typ)) {
	case "", storeJKS:
		return storeJKS, nil // Java's default type
	case storePKCS12, "P12", "PFX":
		return storePKCS12, nil
	case storePEM:
		return storePEM, nil
	case "JCEKS", "BCFKS", "PKCS11":
		return "", &PropertyError{prop, fmt.Sprintf("%s stores are not supported (supported: JKS, PKCS12, PEM)", strings.ToUpper(typ))}
	}
	return "", &PropertyError{prop, fmt.Sprintf("unknown store type %q (supported: JKS, PKCS12, PEM)", typ)}
}

// readStore reads a JKS/PKCS12 store file and returns its real format. A PEM
// file under a binary type is an error naming the type property, as in Java.
func readStore(kind, typ, path string) ([]byte, string, error) {
	loc := "ssl." + kind + ".location"
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", &PropertyError{loc, fileErr(err)}
	}
	switch got := sniffStore(b); got {
	case storeJKS, storePKCS12:
		return b, got, nil
	case storePEM:
		return nil, "", &PropertyError{"ssl." + kind + ".type", fmt.Sprintf("%s is a PEM file, not a %s store; set ssl.%s.type=PEM", path, typ, kind)}
	case "JCEKS":
		return nil, "", &PropertyError{loc, fmt.Sprintf("%s is a JCEKS store, which is not supported; convert it with keytool -importkeystore -deststoretype PKCS12", path)}
	}
	return nil, "", &PropertyError{loc, fmt.Sprintf("%s is not a %s store (unrecognised content)", path, typ)}
}

// loadTrustStore reads the CA certificates of a JKS or PKCS12 truststore.
func loadTrustStore(typ, path, password string) ([]*x509.Certificate, error) {
	b, format, err := readStore("truststore", typ, path)
	if err != nil {
		return nil, err
	}
	var certs []*x509.Certificate
	switch format {
	case storeJKS:
		ks, err := loadJKS(b, password, true)
		if err != nil {
			return nil, storeErr("truststore", path, err)
		}
		for _, a := range ks.Aliases() {
			var ders [][]byte
			if ks.IsTrustedCertificateEntry(a) {
				e, err := ks.GetTrustedCertificateEntry(a)
				if err != nil {
					continue
				}
				ders = append(ders, e.Certificate.Content)
			} else if chain, err := ks.GetPrivateKeyEntryCertificateChain(a); err == nil && len(chain) > 0 {
				// Java's PKIX trust manager trusts the certificate of a
				// key entry too.
				ders = append(ders, chain[0].Content)
			}
			for _, d := range ders {
				c, err := x509.ParseCertificate(d)
				if err != nil {
					return nil, &PropertyError{"ssl.truststore.location", fmt.Sprintf("%s: entry %q holds an unreadable certificate: %v", path, a, err)}
				}
				certs = append(certs, c)
			}
		}
	case storePKCS12:
		certs, err = pkcs12.DecodeTrustStore(b, password)
		if err != nil {
			if errors.Is(err, pkcs12.ErrIncorrectPassword) {
				return nil, storeErr("truststore", path, err)
			}
			// Not a Java trust store (no trusted-certificate attribute, or
			// a key inside, as openssl makes them): take every certificate.
			//lint:ignore SA1019 only the CERTIFICATE blocks are used, and ToPEM encodes those correctly
			blocks, perr := pkcs12.ToPEM(b, password)
			if perr != nil {
				return nil, storeErr("truststore", path, perr)
			}
			certs = certs[:0]
			for _, blk := range blocks {
				if blk.Type != "CERTIFICATE" {
					continue
				}
				c, cerr := x509.ParseCertificate(blk.Bytes)
				if cerr != nil {
					return nil, &PropertyError{"ssl.truststore.location", fmt.Sprintf("%s: unreadable certificate: %v", path, cerr)}
				}
				certs = append(certs, c)
			}
		}
	}
	if len(certs) == 0 {
		return nil, &PropertyError{"ssl.truststore.location", fmt.Sprintf("%s holds no certificate", path)}
	}
	return certs, nil
}

// loadKeyStore reads the client certificate chain and key of a JKS or
// PKCS12 keystore. The key password defaults to the store password, as in
// Java.
func loadKeyStore(typ, path, storePass, keyPass string) (*tls.Certificate, error) {
	b, format, err := readStore("keystore", typ, path)
	if err != nil {
		return nil, err
	}
	if keyPass == "" {
		keyPass = storePass
	}
	var (
		keyDER []byte
		chain  [][]byte
	)
	switch format {
	case storeJKS:
		ks, err := loadJKS(b, storePass, false)
		if err != nil {
			return nil, storeErr("keystore", path, err)
		}
		aliases := ks.Aliases()
		sort.Strings(aliases)
		var alias string
		for _, a := range aliases {
			if ks.IsPrivateKeyEntry(a) {
				alias = a
				break
			}
		}
		if alias == "" {
			return nil, &PropertyError{"ssl.keystore.location", fmt.Sprintf("%s holds no private key entry", path)}
		}
		e, err := ks.GetPrivateKeyEntry(alias, []byte(keyPass))
		if err != nil {
			return nil, &PropertyError{"ssl.key.password", fmt.Sprintf("wrong key password for entry %q in %s (cannot decrypt the private key)", alias, path)}
		}
		keyDER = e.PrivateKey
		for _, c := range e.CertificateChain {
			chain = append(chain, c.Content)
		}
	case storePKCS12:
		key, leaf, cas, err := pkcs12.DecodeChain(b, storePass)
		if errors.Is(err, pkcs12.ErrIncorrectPassword) && keyPass != storePass {
			key, leaf, cas, err = pkcs12.DecodeChain(b, keyPass)
		}
		if err != nil {
			return nil, storeErr("keystore", path, err)
		}
		if keyDER, err = x509.MarshalPKCS8PrivateKey(key); err != nil {
			return nil, &PropertyError{"ssl.keystore.location", fmt.Sprintf("%s: unsupported private key type %T", path, key)}
		}
		chain = append(chain, leaf.Raw)
		for _, c := range cas {
			chain = append(chain, c.Raw)
		}
	}
	if len(chain) == 0 {
		return nil, &PropertyError{"ssl.keystore.location", fmt.Sprintf("%s: the private key entry has no certificate", path)}
	}
	return keyPair(chain, keyDER, "ssl.keystore.location")
}

// loadJKS loads a JKS store. A truststore without a password is read
// without the integrity check, as Java does.
func loadJKS(b []byte, password string, trust bool) (keystore.KeyStore, error) {
	ks := keystore.New(keystore.WithOrderedAliases())
	err := ks.Load(bytes.NewReader(b), []byte(password))
	if err != nil && trust && password == "" && strings.Contains(err.Error(), "invalid digest") {
		return ks, nil
	}
	return ks, err
}

func storeErr(kind, path string, err error) error {
	msg := err.Error()
	if errors.Is(err, pkcs12.ErrIncorrectPassword) || strings.Contains(msg, "invalid digest") || strings.Contains(msg, "decryption password incorrect") {
		return &PropertyError{"ssl." + kind + ".password", fmt.Sprintf("wrong password for %s (integrity check failed)", path)}
	}
	return &PropertyError{"ssl." + kind + ".location", fmt.Sprintf("cannot read %s: %s", path, msg)}
}

// keyPair builds a tls.Certificate from DER certificates (leaf first) and a
// PKCS#8/PKCS#1/SEC1 DER key, checking that they match and that the leaf
// is valid now.
func keyPair(chain [][]byte, keyDER []byte, prop string) (*tls.Certificate, error) {
	leaf, err := x509.ParseCertificate(chain[0])
	if err != nil {
		return nil, &PropertyError{prop, fmt.Sprintf("unreadable client certificate: %v", err)}
	}
	key, err := parseKeyDER(keyDER)
	if err != nil {
		return nil, &PropertyError{prop, fmt.Sprintf("unreadable private key: %v", err)}
	}
	cert := &tls.Certificate{Certificate: chain, PrivateKey: key, Leaf: leaf}
	if !publicKeysMatch(leaf, key) {
		return nil, &PropertyError{prop, fmt.Sprintf("the private key does not match the client certificate (%s)", leaf.Subject)}
	}
	now := time.Now()
	if now.After(leaf.NotAfter) {
		return nil, &PropertyError{prop, fmt.Sprintf("the client certificate (%s) expired on %s", leaf.Subject, leaf.NotAfter.UTC().Format(time.RFC3339))}
	}
	if now.Before(leaf.NotBefore) {
		return nil, &PropertyError{prop, fmt.Sprintf("the client certificate (%s) is not valid before %s", leaf.Subject, leaf.NotBefore.UTC().Format(time.RFC3339))}
	}
	return cert, nil
}

func parseKeyDER(der []byte) (any, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil {
		return k, nil
	}
	return nil, errors.New("not a PKCS#8, PKCS#1 or SEC 1 key")
}

func publicKeysMatch(leaf *x509.Certificate, key any) bool {
	p, ok := key.(crypto.Signer)
	if !ok {
		return false
	}
	type eq interface{ Equal(crypto.PublicKey) bool }
	lp, ok := leaf.PublicKey.(eq)
	return ok && lp.Equal(p.Public())
}

// pemCerts returns the DER certificates of the PEM blocks in b.
func pemCerts(b []byte) [][]byte {
	var out [][]byte
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			return out
		}
		if blk.Type == "CERTIFICATE" {
			out = append(out, blk.Bytes)
		}
	}
}
