package consoleproducer

import (
	"errors"
	"fmt"
	"io"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/console"
	"github.com/kboxdev/kbox/pkg/jopt"
)

// deprecatedNames warns, on stdout, of each deprecated option given and
// returns the names in use of the client property, config file and reader
// property options.
func deprecatedNames(s *jopt.Set, out io.Writer) (commandProperty, commandConfig, readerProperty string) {
	commandProperty, commandConfig, readerProperty = "command-property", "command-config", "reader-property"
	if s.Has("producer-property") {
		fmt.Fprintln(out, "Warning: --producer-property is deprecated and will be removed in a future version. Use --command-property instead.")
		commandProperty = "producer-property"
	}
	if s.Has("producer.config") {
		fmt.Fprintln(out, "Warning: --producer.config is deprecated and will be removed in a future version. Use --command-config instead.")
		commandConfig = "producer.config"
	}
	if s.Has("property") {
		fmt.Fprintln(out, "Warning: --property is deprecated and will be removed in a future version. Use --reader-property instead.")
		readerProperty = "property"
	}
	if s.Has("max-partition-memory-bytes") {
		fmt.Fprintln(out, "Warning: --max-partition-memory-bytes is deprecated and will be removed in Apache Kafka 5.0. Use --batch-size instead.")
	}
	return commandProperty, commandConfig, readerProperty
}

// failure is how the tool ends on err once its options are parsed:
// a jopt exception prints its message alone (exit 1), any other
// exception its stack trace.
func failure(f *cmdutil.Factory, usage func(string) error) func(error) error {
	errOut := f.IO.ErrOut
	return func(err error) error {
		var je *jopt.Error
		var ex *javaException
		var re *console.ReaderError
		var fe *cmdutil.FlagError
		switch {
		case tool.Native(f) && errors.As(err, &je):
			return usage(je.Msg)
		case tool.Native(f) && errors.As(err, &fe):
			return usage(fe.Error())
		case errors.As(err, &je):
			fmt.Fprintln(errOut, je.Msg)
		case errors.As(err, &ex):
			fmt.Fprintln(errOut, ex.Error())
		case errors.As(err, &re):
			fmt.Fprintf(errOut, "%s: %s\n", re.Class, re.Msg)
		default:
			return err
		}
		return cmdutil.Exit(1)
	}
}
