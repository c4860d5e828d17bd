// Package serve holds the HTTP server pieces kbox's servers share (kbox ui,
// kbox exporter): time limits, a connection cap, loopback checks, and TLS
// with a certificate made at start.
package serve

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Limits bound what one client can hold of the server.
type Limits struct {
	// ReadHeaderTimeout bounds reading a request's headers (and a TLS
	// handshake); ReadTimeout the whole request, body included.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	// WriteTimeout bounds a response from the end of its request; it
	// must exceed the longest cluster work of a request. No endpoint
	// streams: one that did would lift its own deadline with
	// http.ResponseController.SetWriteDeadline.
	WriteTimeout time.Duration
	// IdleTimeout closes a keep-alive connection left idle.
	IdleTimeout time.Duration
	// MaxConns caps the open connections: one past it is closed at once.
	MaxConns int
}

// DefaultLimits are the limits kbox's servers use; work is the longest
// cluster work of one request (the health check's or a request's time
// limit), which the write timeout must exceed.
func DefaultLimits(work time.Duration) Limits {
	return Limits{ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: max(work, 30*time.Second) + 30*time.Second, IdleTimeout: 60 * time.Second, MaxConns: 128}
}

// NewHTTPServer is the http.Server for h with the limits (HTTP/1.1 only:
// one request at a time per connection, so the connection cap bounds
// the requests too).
func NewHTTPServer(h http.Handler, l Limits) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		ReadTimeout:       l.ReadTimeout,
		WriteTimeout:      l.WriteTimeout,
		IdleTimeout:       l.IdleTimeout,
		TLSNextProto:      map[string]func(*http.Server, *tls.Conn, http.Handler){},
		// A browser meeting a self-signed certificate drops handshakes;
		// the server's own log would print each.
		ErrorLog: log.New(io.Discard, "", 0),
	}
}

// LimitListener closes a connection accepted while n are open.
func LimitListener(ln net.Listener, n int) net.Listener {
	return &limitListener{Listener: ln, max: int64(n)}
}

type limitListener struct {
	net.Listener
	max  int64
	open atomic.Int64
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) > l.max {
			l.open.Add(-1)
			c.Close()
			continue
		}
		return &limitConn{Conn: c, l: l}, nil
	}
}

type limitConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}

// SelfSigned makes a certificate named name (kbox ui) for hosts (names and
// addresses), valid from an hour ago for a year, with a new P-256 key that
// never leaves the process.
func SelfSigned(name string, hosts []string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name, Organization: []string{name + " (self-signed)"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	seen := map[string]bool{}
	for _, h := range hosts {
		if h == "" || seen[h] {
			continue
		}
		seen[h] = true
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// Fingerprint is a certificate's SHA-256 fingerprint as browsers show
// it: upper-case hex pairs joined by colons.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(parts, ":")
}

// LocalHosts are the names and addresses a browser may reach this host
// by: loopback, the host name, and every interface address. They go into
// a self-signed certificate.
func LocalHosts() []string {
	out := []string{"localhost", "127.0.0.1", "::1"}
	if h, err := os.Hostname(); err == nil && h != "" {
		out = append(out, h)
	}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && !n.IP.IsLinkLocalUnicast() {
				out = append(out, n.IP.String())
			}
		}
	}
	return out
}

// URLHost is the host a URL for a server listening on host should name:
// the host itself, or for all interfaces (empty, 0.0.0.0, [::]) this
// host's name when it resolves, else its first global address, else
// localhost. An IPv6 address comes in brackets.
func URLHost(host string) string {
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		if ip != nil && ip.To4() == nil {
			return "[" + host + "]"
		}
		return host
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if addrs, err := net.DefaultResolver.LookupHost(ctx, h); err == nil && len(addrs) > 0 {
			return h
		}
	}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.IsGlobalUnicast() {
				if n.IP.To4() == nil {
					return "[" + n.IP.String() + "]"
				}
				return n.IP.String()
			}
		}
	}
	return "localhost"
}

// LoopbackHost reports whether a Host header (or a host) names the local
// machine: localhost or a loopback address.
func LoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsLoopbackListen reports whether a listen address (host:port) binds
// loopback only; an empty host (all interfaces) is not loopback.
func IsLoopbackListen(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, err
	}
	if host == "" {
		return false, nil
	}
	return LoopbackHost(host), nil
}
