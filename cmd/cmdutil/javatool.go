package cmdutil

import (
	"fmt"
	"os"
	"time"

	"github.com/kboxdev/kbox/pkg/argparse"
	"github.com/kboxdev/kbox/pkg/config"
)

// What the verifiable and console drop-ins share beyond their loops: their
// log4j stderr layout and the rules of their config-file options.

// LogLine is a stderr line in the tools' log4j layout "[%d] %p %m (%c)%n".
func LogLine(level, class, format string, a ...any) string {
	return fmt.Sprintf("[%s] %s %s (%s)\n", time.Now().Format("2006-01-02 15:04:05,000"), level, fmt.Sprintf(format, a...), class)
}

// CommandConfigFile applies the 4.x rules for the deprecated --<old> (e.g.
// --producer.config) and its newer alias --command-config, given their
// values: both together is a usage error (argparse.Error); the deprecated one comes with a
// notice for stdout; an unreadable file is reported with its path. file
// is "" (and props nil) when neither was given.
func CommandConfigFile(old, oldFile, newFile string) (file string, props *config.Properties, notice string, err error) {
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
