// Package verify holds kbox's drop-in kafka-verifiable-producer and
// kafka-verifiable-consumer applets and the native `kbox verify`.
package verify

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/kboxdev/kbox/pkg/argparse"
	"github.com/kboxdev/kbox/pkg/config"
)

// lineWriter serialises event lines from several goroutines and flushes
// them at least every 50 ms (Java's System.out flushes every println; a
// short delay keeps the tools fast while harnesses still tail them live).
type lineWriter struct {
	mu   sync.Mutex
	w    *bufio.Writer
	done chan struct{}
	wg   sync.WaitGroup
}

func newLineWriter(w io.Writer) *lineWriter {
	lw := &lineWriter{w: bufio.NewWriterSize(w, 64<<10), done: make(chan struct{})}
	lw.wg.Add(1)
	go func() {
		defer lw.wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-lw.done:
				return
			case <-t.C:
				lw.Flush()
			}
		}
	}()
	return lw
}

func (lw *lineWriter) Write(line []byte) {
	lw.mu.Lock()
	_, _ = lw.w.Write(line)
	lw.mu.Unlock()
}

func (lw *lineWriter) Flush() {
	lw.mu.Lock()
	_ = lw.w.Flush()
	lw.mu.Unlock()
}

func (lw *lineWriter) Close() {
	close(lw.done)
	lw.wg.Wait()
	lw.Flush()
}

// javaLog writes a stderr line in the tools' log4j layout
// "[%d] %p %m (%c)%n".
func javaLog(w io.Writer, level, class, format string, a ...any) {
	fmt.Fprintf(w, "[%s] %s %s (%s)\n", time.Now().Format("2006-01-02 15:04:05,000"), level, fmt.Sprintf(format, a...), class)
}

// signals delivers SIGINT/SIGTERM; stop releases it.
func signals() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	return ch, func() { signal.Stop(ch) }
}

// signalExit is the JVM's exit status after a fatal signal.
func signalExit(s os.Signal) int {
	if sig, ok := s.(syscall.Signal); ok {
		return 128 + int(sig)
	}
	return 1
}

// loadConfigFiles applies the 4.x rules for --X.config and its newer
// alias --command-config: both together is an error; the deprecated one
// prints a notice on stdout; an unreadable file is reported with its path.
func loadConfigFiles(p *argparse.Parser, ns *argparse.Namespace, old string, stdout io.Writer) (string, *config.Properties, error) {
	oldFile, _ := ns.String(old)
	newFile, _ := ns.String("commandConfigFile")
	if oldFile != "" && newFile != "" {
		return "", nil, argparse.Errorf("Options --%s and --command-config are mutually exclusive.", old)
	}
	file := newFile
	if oldFile != "" {
		fmt.Fprintf(stdout, "Option --%s has been deprecated and will be removed in a future version. Use --command-config instead.\n", old)
		file = oldFile
	}
	if file == "" {
		return "", nil, nil
	}
	props, err := config.LoadPropertiesFile(file)
	if err != nil {
		if _, statErr := os.Stat(file); statErr != nil {
			return "", nil, argparse.Errorf("%s", file)
		}
		return "", nil, argparse.Errorf("%v", err)
	}
	return file, props, nil
}
