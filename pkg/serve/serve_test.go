package serve

import (
	"crypto/x509"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// A URL for a server on all interfaces names this host, never 0.0.0.0 or
// [::]; a given host is kept, an IPv6 address in brackets.
func TestURLHost(t *testing.T) {
	for _, h := range []string{"", "0.0.0.0", "::"} {
		got := URLHost(h)
		if got == "" || got == "0.0.0.0" || got == "[::]" || strings.Contains(got, ":") && !strings.HasPrefix(got, "[") {
			t.Errorf("URLHost(%q) = %q", h, got)
		}
	}
	for h, want := range map[string]string{"127.0.0.1": "127.0.0.1", "::1": "[::1]", "localhost": "localhost", "10.1.2.3": "10.1.2.3"} {
		if got := URLHost(h); got != want {
			t.Errorf("URLHost(%q) = %q, want %q", h, got, want)
		}
	}
}

// One connection past the cap is closed at once; closing one makes room.
func TestLimitListener(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := LimitListener(tcp, 2)
	defer ln.Close()
	accepted := make(chan net.Conn, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", tcp.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c1, c2 := dial(), dial()
	s1, s2 := <-accepted, <-accepted
	c3 := dial()
	_ = c3.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c3.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("third connection: %v, want EOF (closed at once)", err)
	}
	s1.Close()
	c4 := dial()
	select {
	case s4 := <-accepted:
		s4.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("no room after a close")
	}
	for _, c := range []net.Conn{c1, c2, c3, c4, s2} {
		c.Close()
	}
}

func TestIsLoopbackListen(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:0": true, "localhost:8089": true, "[::1]:80": true, "127.5.0.1:80": true, "0.0.0.0:80": false, ":8089": false, "10.1.2.3:80": false, "[::]:80": false} {
		got, err := IsLoopbackListen(addr)
		if err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", addr, got, err, want)
		}
	}
	if _, err := IsLoopbackListen("nonsense"); err == nil {
		t.Error("nonsense: no error")
	}
}

// A self-signed certificate names what it serves and the hosts given.
func TestSelfSigned(t *testing.T) {
	c, err := SelfSigned("kbox exporter", []string{"localhost", "127.0.0.1", "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if leaf.Subject.CommonName != "kbox exporter" || len(leaf.DNSNames) != 1 || len(leaf.IPAddresses) != 1 {
		t.Fatalf("subject %q, names %v, addresses %v", leaf.Subject.CommonName, leaf.DNSNames, leaf.IPAddresses)
	}
	if fp := Fingerprint(c.Certificate[0]); len(fp) != 95 || strings.ToUpper(fp) != fp {
		t.Fatalf("fingerprint %q", fp)
	}
}
