// Command verifylogs writes a producer and a consumer log of N records
// (optionally gzip-compressed) for benchmarking `kbox verify check`:
//
//	go run ./test/bench/verifylogs -n 1000000 -gzip -out /tmp/v
//
// writes /tmp/v.producer.log.gz and /tmp/v.consumer.log.gz.
package main

import (
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kboxdev/kbox/internal/verifygen"
)

func main() {
	n := flag.Int("n", 1_000_000, "records")
	parts := flag.Int("partitions", 3, "partitions")
	gz := flag.Bool("gzip", false, "gzip the logs")
	out := flag.String("out", "verify", "path prefix of the logs")
	lost := flag.Int("lost", 0, "acked records the consumer does not read (every n/lost-th)")
	flag.Parse()
	s := verifygen.Spec{Records: *n, Partitions: *parts, Lost: map[int]bool{}}
	for k := 1; k <= *lost; k++ {
		s.Lost[k*(*n/(*lost+1))] = true
	}
	ext := ".log"
	if *gz {
		ext += ".gz"
	}
	for _, w := range []struct {
		name string
		gen  func(io.Writer, verifygen.Spec) error
	}{{"producer", verifygen.Producer}, {"consumer", verifygen.Consumer}} {
		path := *out + "." + w.name + ext
		if err := write(path, *gz, func(wr io.Writer) error { return w.gen(wr, s) }); err != nil {
			fmt.Fprintln(os.Stderr, "verifylogs:", err)
			os.Exit(1)
		}
		fmt.Println(path)
	}
}

func write(path string, gz bool, gen func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	var w io.Writer = fh
	var zw *gzip.Writer
	if gz {
		zw, _ = gzip.NewWriterLevel(fh, gzip.BestSpeed)
		w = zw
	}
	if err := gen(w); err != nil {
		fh.Close()
		return err
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			fh.Close()
			return err
		}
	}
	return fh.Close()
}
