package verify

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/kboxdev/kbox/pkg/argparse"
	"github.com/kboxdev/kbox/pkg/config"
)

// What the drop-in tools share beyond their loops: the process signals
// that stop them, the JVM's exit status, their log4j stderr layout and
// the rules of their config-file options.

// Signals delivers SIGINT and SIGTERM (the JVM's shutdown-hook signals)
// for a Producer's or Consumer's Stop; release stops the delivery.
func Signals() (sigs <-chan os.Signal, release func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	return ch, func() { signal.Stop(ch) }
}

// SignalExit is the JVM's exit status after the fatal signal s.
func SignalExit(s os.Signal) int {
	if sig, ok := s.(syscall.Signal); ok {
		return 128 + int(sig)
	}
	return 1
}

// LogLine is a stderr line in the tools' log4j layout "[%d] %p %m (%c)%n".
func LogLine(level, class, format string, a ...any) string {
	return fmt.Sprintf("[%s] %s %s (%s)\n", time.Now().Format("2006-01-02 15:04:05,000"), level, fmt.Sprintf(format, a...), class)
}

// ConfigFile applies the 4.x rules for the deprecated --<old> (e.g.
// --producer.config) and its newer alias --command-config, given their
// values: both together is a usage error (argparse.Error); the deprecated one comes with a
// notice for stdout; an unreadable file is reported with its path. file
// is "" (and props nil) when neither was given.
func ConfigFile(old, oldFile, newFile string) (file string, props *config.Properties, notice string, err error) {
	if oldFile != "" && newFile != "" {
		return "", nil, "", argparse.Errorf("Options --%s and --command-config are mutually exclusive.", old)
	}
	file = newFile
	if oldFile != "" {
		notice = fmt.Sprintf("Option --%s has been deprecated and will be removed in a future version. Use --command-config instead.\n", old)
		file = oldFile
	}
	if file == "" {
		return "", nil, notice, nil
	}
	props, err = config.LoadPropertiesFile(file)
	if err != nil {
		if _, statErr := os.Stat(file); statErr != nil {
			return "", nil, notice, argparse.Errorf("%s", file)
		}
		return "", nil, notice, argparse.Errorf("%v", err)
	}
	return file, props, notice, nil
}
