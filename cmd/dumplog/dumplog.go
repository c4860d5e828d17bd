// Package dumplog is the kafka-dump-log drop-in (kbox dump-log): Apache's
// DumpLogSegments, which decodes segment files offline (.log batches and
// records, .index, .timeindex, producer state .snapshot, .txnindex) and
// needs no connection. The reading is pkg/segment's; this package prints
// Apache's lines.
//
// Supported: .log files and KRaft snapshots (.checkpoint) (batches; records with --deep-iteration or
// --print-data-log; --max-bytes; --skip-record-metadata; control records:
// transaction markers), .index and .timeindex files (--verify-index-only,
// --index-sanity-check, --max-message-size), producer state snapshots
// (.snapshot: each producer and its last batch; a corrupt one's reason on
// stderr) and transaction indexes (.txnindex: the aborted transactions),
// the decoders --offsets-decoder (offset commits; classic group metadata,
// with the consumer protocol's subscriptions and assignments; the records
// of consumer (KIP-848), share and streams groups),
// --transaction-log-decoder, --share-group-state-decoder (share snapshots
// and updates), --remote-log-metadata-decoder (remote log segment
// metadata, its updates and snapshots, partition deletions, printed as
// Apache's objects print themselves), and --key-decoder-class/--value-decoder-class
// naming org.apache.kafka.tools.api.StringDecoder, IntegerDecoder,
// LongDecoder or DefaultDecoder (which prints a Java byte array's
// identity, "[B@1b6d3586", different in every run as in Java); a class
// from a custom jar cannot be loaded: kbox prints Apache's "Failed to load
// decoder class". --cluster-metadata-decoder decodes every KRaft metadata
// record type of Kafka 4.4 and the KRaft control records (LeaderChange,
// SnapshotHeader/Footer, KRaftVersion, KRaftVoters) as Apache prints them.
// The record tables of the group and share coordinators, the KRaft
// metadata and the remote log metadata are generated from Apache 4.4's
// JSON schemas (pkg/segment/schemagen.go).
//
// Deliberate differences from Apache 4.4's tool:
//   - An exception that escapes Apache's main is printed as its first line
//     (Exception in thread "main" CLASS: MESSAGE), without the stack trace.
//   - Not yet decoded (kbox says so on stderr and exits 1): records of
//     message format v0/v1 (their batches are printed).
//   - A .checkpoint file whose name is not a snapshot's
//     (OFFSET-EPOCH.checkpoint, 20 and 10 digits) nor bootstrap.checkpoint
//     fails with java.util.NoSuchElementException; Apache's exception
//     depends on the name's shape.
//   - A damaged record's "Error at offset O, skipping. MSG" carries
//     Apache's message for the damage the captures cover (truncated keys
//     and values of every group and share coordinator record type; bad
//     frames, types, versions and truncations of metadata and remote log
//     metadata records; what remote log metadata constructors refuse);
//     other damage (and any in a __transaction_state record) may be worded
//     otherwise than the Java exception.
//   - Several files with index mismatches or offset gaps: the reports come
//     in the order of the files (Apache: a HashMap's order of the paths).
//   - Invalid UTF-8 in a key or value is replaced byte by byte with U+FFFD
//     (Java replaces a truncated multi-byte sequence once).
package dumplog

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/jopt"
)

//go:embed apache_help.txt
var apacheHelp string

// Applet registers kafka-dump-log (kbox dump-log).
var Applet = cmdutil.Applet{
	Kind:  cmdutil.Apache,
	Name:  "kafka-dump-log",
	Alias: "dump-log",
	Short: "Decode Kafka segment files (.log, .index, .timeindex) offline",
	Run:   Run,

	Offline: true,
}

const title = "This tool helps to parse a log file and dump its contents to the console, useful for debugging a seemingly corrupt log segment."

var parser = jopt.New(
	jopt.Spec{Name: "print-data-log"},
	jopt.Spec{Name: "verify-index-only"},
	jopt.Spec{Name: "index-sanity-check"},
	jopt.Spec{Name: "files", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "max-message-size", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "max-bytes", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "deep-iteration"},
	jopt.Spec{Name: "value-decoder-class", Arg: jopt.OptionalArg},
	jopt.Spec{Name: "key-decoder-class", Arg: jopt.OptionalArg},
	jopt.Spec{Name: "offsets-decoder"},
	jopt.Spec{Name: "transaction-log-decoder"},
	jopt.Spec{Name: "cluster-metadata-decoder"},
	jopt.Spec{Name: "remote-log-metadata-decoder"},
	jopt.Spec{Name: "share-group-state-decoder"},
	jopt.Spec{Name: "skip-record-metadata"},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
)

var tool = cmdutil.ApacheTool{Title: title, Options: apacheHelp, ParseError: cmdutil.JoptException}

// javaException is an exception escaping main: its first line, exit 1.
type javaException struct{ class, msg string }

func (e *javaException) Error() string {
	if e.msg == "" {
		return e.class
	}
	return e.class + ": " + e.msg
}

// dumper holds one run's options and the reports printed at the end.
type dumper struct {
	s          *jopt.Set
	out        *bufio.Writer
	errOut     io.Writer
	printData  bool
	deep       bool
	skipMeta   bool
	indexOnly  bool
	verifyOnly bool
	mismatches reports // .index: index offset → log offset, per file
	gaps       reports // .log: non-consecutive offsets, per file
	timeErrs   timeIndexErrors
	arrays     int // byte arrays printed by DefaultDecoder
}

// Run is kafka-dump-log.
func Run(_ context.Context, f *cmdutil.Factory, args []string) error {
	s, err := parser.Parse(args)
	if done, err := tool.Prologue(f, args, err, s.Has); done {
		return err
	}
	if err := tool.Require(f, s.Has, "files"); err != nil {
		return err
	}
	files, _, err := s.Value("files")
	if err != nil {
		fmt.Fprintln(f.IO.ErrOut, "Exception in thread \"main\" joptsimple.OptionException: "+err.Error())
		return cmdutil.Exit(1)
	}
	d := &dumper{s: s, out: bufio.NewWriterSize(f.IO.Out, 1<<16), errOut: f.IO.ErrOut}
	d.printData = s.Has("print-data-log") || s.Has("offsets-decoder") || s.Has("transaction-log-decoder") || s.Has("cluster-metadata-decoder") ||
		s.Has("remote-log-metadata-decoder") || s.Has("value-decoder-class") || s.Has("key-decoder-class") || s.Has("share-group-state-decoder")
	d.deep = s.Has("deep-iteration") || d.printData
	d.skipMeta, d.indexOnly, d.verifyOnly = s.Has("skip-record-metadata"), s.Has("index-sanity-check"), s.Has("verify-index-only")
	err = d.run(strings.Split(files, ","))
	d.out.Flush()
	if je, ok := err.(*javaException); ok {
		fmt.Fprintf(f.IO.ErrOut, "Exception in thread \"main\" %s\n", je.Error())
		return cmdutil.Exit(1)
	}
	return err
}

func (d *dumper) run(files []string) error {
	for _, name := range files {
		fmt.Fprintf(d.out, "Dumping %s\n", name)
		base := filepath.Base(name)
		dot := strings.LastIndex(base, ".")
		var err error
		switch suffix := base[max(dot, 0):]; {
		case dot < 0:
			d.warn("Ignoring unknown file " + name)
		case suffix == ".log" || suffix == ".checkpoint":
			err = d.dumpLog(name)
		case suffix == ".index":
			err = d.dumpIndex(name)
		case suffix == ".timeindex":
			err = d.dumpTimeIndex(name)
		case suffix == ".snapshot":
			err = d.dumpProducerSnapshot(name)
		case suffix == ".txnindex":
			err = d.dumpTxnIndex(name)
		default:
			d.warn("Ignoring unknown file " + name)
		}
		if err != nil {
			return err
		}
	}
	d.out.Flush()
	d.mismatches.print(d.errOut, "Mismatches in :%s\n", "  Index offset: %d, log offset: %d\n")
	d.timeErrs.print(d.errOut)
	d.gaps.print(d.errOut, "Non-consecutive offsets in %s\n", "  %d is followed by %d\n")
	return nil
}

func (d *dumper) warn(msg string) {
	d.out.Flush()
	fmt.Fprintln(d.errOut, msg)
}

// startOffset is the segment's base offset from its file name (Java's
// Long.parseLong of the part before the first dot).
func startOffset(name string) (int64, error) {
	s := strings.SplitN(filepath.Base(name), ".", 2)[0]
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, &javaException{"java.lang.NumberFormatException", fmt.Sprintf("For input string: \"%s\"", s)}
	}
	return n, nil
}

// open opens a file as Java's FileRecords.open: a missing file is
// NoSuchFileException.
func open(name string) (*os.File, int64, error) {
	fh, err := os.Open(name)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, 0, &javaException{"java.nio.file.NoSuchFileException", name}
		}
		if os.IsPermission(err) {
			return nil, 0, &javaException{"java.nio.file.AccessDeniedException", name}
		}
		return nil, 0, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, 0, err
	}
	return fh, st.Size(), nil
}

func absPath(name string) string {
	if p, err := filepath.Abs(name); err == nil {
		return p
	}
	return name
}
