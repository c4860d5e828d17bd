// Package deleterecords is the kafka-delete-records drop-in (kbox
// delete-records): Apache's DeleteRecordsCommand, its --offset-json-file
// format and messages, its per-partition lines, streams and exit codes.
//
// Deliberate differences from Apache 4.4's tool:
//   - Stack traces are left out: where Apache prints the exception's
//     message and then the Java stack trace, kbox prints the message only.
//   - The file is read and checked before kbox connects, and an
//     unreachable --bootstrap-server fails within kbox's connect timeout
//     with one line (kbox: error: ...); the Java tool prints its two
//     "Executing"/"completed" lines and a TimeoutException per partition
//     after default.api.timeout.ms.
//   - The per-partition lines come in the file's order. Apache's come in
//     the order of the admin client's immutable map of partitions
//     (Collectors.toUnmodifiableMap), which the JVM salts at random on
//     every run: no fixed order to follow.
//   - A partition the cluster does not know fails, once
//     default.api.timeout.ms has passed, with "TimeoutException: Timed out
//     waiting for a node assignment. Call: deleteRecords(api=METADATA)";
//     Apache prints that or "Call(callName=..., deadlineMs=..., tries=N,
//     ...) timed out at ... after N attempt(s)", depending on where its
//     retries were at the deadline.
//   - A field of the wrong type is shown as Go re-encodes it compactly;
//     Jackson normalises some numbers (1e3 as 1000.0) and string escapes.
//   - The Java admin client's own log4j ERROR line for a partition that
//     fails ("[time] ERROR [AdminClient clientId=...] DeleteRecords request for topic
//     partition T-P failed due to an unexpected error CODE (...Handler)")
//     is not printed; the tool's own line for that partition is.
package deleterecords

import (
	"context"
	_ "embed"
	"fmt"
	"os"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/offsets"
)

//go:embed apache_help.txt
var apacheHelp string

// Applet registers kafka-delete-records (kbox delete-records).
var Applet = cmdutil.Applet{
	Kind:  cmdutil.Apache,
	Name:  "kafka-delete-records",
	Alias: "delete-records",
	Short: "Delete the records of partitions below an offset",
	Run:   Run,

	ConnOptions: []string{"bootstrap-server"},
}

const title = "This tool helps to delete records of the given partitions down to the specified offset."

var parser = jopt.New(
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "offset-json-file", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "command-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
)

var tool = cmdutil.ApacheTool{Title: title, Options: apacheHelp}

// fail is mainNoExit's catch: the exception's message on stderr, exit 1
// (the stack trace that follows is left out).
func fail(f *cmdutil.Factory, msg string) error {
	fmt.Fprintln(f.IO.ErrOut, msg)
	return cmdutil.Exit(1)
}

// Run is kafka-delete-records.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	s, err := parser.Parse(args)
	if done, err := tool.Prologue(f, args, err, s.Has); done {
		return err
	}
	if err := tool.Require(f, s.Has, "bootstrap-server", "offset-json-file"); err != nil {
		return err
	}
	// createAdminClient: the properties file, then the bootstrap list.
	bs, cc, err := tool.ConnArgs(s)
	if err != nil {
		return fail(f, err.Error())
	}
	if cmdutil.ValidateBootstrap(bs, true) != "" {
		return fail(f, "Failed to create new KafkaAdminClient")
	}
	path, _, err := s.Value("offset-json-file")
	if err != nil {
		return fail(f, err.Error())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fail(f, "Unable to read file "+path)
	}
	entries, err := offsets.ParseDeleteJSON(data)
	if err != nil {
		return fail(f, err.Error())
	}
	cl, err := f.Connect(ctx, config.Overrides{Bootstrap: bs, CommandConfig: cc}, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer cl.Close()
	fmt.Fprintln(f.IO.Out, "Executing records delete operation")
	results, err := offsets.DeleteRecords(ctx, cl.Client, entries, cl.Settings.APITimeout)
	if err != nil {
		return cl.Explain(err)
	}
	fmt.Fprintln(f.IO.Out, "Records delete operation completed:")
	return offsets.WriteDeleteResults(f.IO.Out, results)
}
