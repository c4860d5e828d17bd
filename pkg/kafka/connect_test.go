package kafka

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
)

// A listener that accepts and never answers (a hung broker) is "no broker
// answered within" the limit in effect, not a network timeout; a closed
// port is still "connection refused".
func TestConnectNoAnswer(t *testing.T) {
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
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	connect := func(ctx context.Context, addr string, timeout time.Duration) error {
		cl, err := NewClient(&config.Connection{Bootstrap: []string{addr}, Props: config.NewProperties(), ConnectTimeout: timeout}, Admin, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		return cl.Connect(ctx)
	}
	addr := ln.Addr().String()
	err = connect(context.Background(), addr, 500*time.Millisecond)
	if want := "cannot connect to " + addr + ": no broker answered within 500ms"; err == nil || err.Error() != want {
		t.Fatalf("hung broker: %v, want %q", err, want)
	}
	// The caller's deadline first: its limit is the one named.
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	err = connect(ctx, addr, 10*time.Second)
	if want := "cannot connect to " + addr + ": no broker answered within 700ms"; err == nil || err.Error() != want {
		t.Fatalf("hung broker, caller's deadline: %v, want %q", err, want)
	}

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	caddr := closed.Addr().String()
	closed.Close()
	if err := connect(context.Background(), caddr, 2*time.Second); err == nil || !strings.HasSuffix(err.Error(), ": connection refused") {
		t.Fatalf("closed port: %v", err)
	}
}
