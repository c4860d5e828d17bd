// Command blackhole is a listener that accepts every connection and never
// answers (it reads and discards what it is sent): a Kafka cluster that
// hangs, for `make bench-status`.
//
//	go run ./test/bench/blackhole -listen 127.0.0.1:0
//
// prints "Listening on HOST:PORT" and serves until killed.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
)

func main() {
	addr := flag.String("listen", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "blackhole:", err)
		os.Exit(1)
	}
	fmt.Println("Listening on", ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "blackhole:", err)
			os.Exit(1)
		}
		go func() { _, _ = io.Copy(io.Discard, c) }()
	}
}
