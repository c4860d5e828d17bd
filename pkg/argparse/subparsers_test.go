package argparse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// The parsers of the three Kafka 4.4.0 tools with subcommands, rebuilt from
// their help; testdata/{quorum,features,transactions}-*.* are the real
// tools' output (testbed.sh apache TOOL ARGS...).

func quorumParser() *Parser {
	p := New("kafka-metadata-quorum", "This tool describes kraft metadata quorum status.")
	g := p.AddGroup("", "", true, true)
	g.Add(Arg{Flags: []string{"--bootstrap-server"}, Help: "A comma-separated list of host:port pairs to use for establishing the connection to the Kafka cluster."})
	g.Add(Arg{Flags: []string{"--bootstrap-controller"}, Help: "A comma-separated list of host:port pairs to use for establishing the connection to the Kafka controllers."})
	p.Add(Arg{Flags: []string{"--command-config"}, Help: "Property file containing configs to be passed to Admin Client. For add-controller, the file is used to specify the controller properties as well."})
	subs := p.AddSubparsers(Subparsers{})
	d := subs.Add("describe", "Describe the metadata quorum info")
	d.AddGroup("Status", "", false, false).Add(Arg{Flags: []string{"--status"}, Type: StoreTrue, Help: "A short summary of the quorum status and the other provides detailed information about the status of replication."})
	r := d.AddGroup("Replication", "", false, false)
	r.Add(Arg{Flags: []string{"--replication"}, Type: StoreTrue, Help: "Detailed information about the status of replication"})
	r.Add(Arg{Flags: []string{"--human-readable"}, Type: StoreTrue, Help: "Human-readable output"})
	a := subs.Add("add-controller", "Add a controller to the KRaft controller cluster")
	a.Add(Arg{Flags: []string{"--dry-run"}, Type: StoreTrue, Help: "True if we should print what would be done, but not do it."})
	rm := subs.Add("remove-controller", "Remove a controller from the KRaft controller cluster")
	rm.Add(Arg{Flags: []string{"--controller-id", "-i"}, Type: Int, Required: true, Help: "The id of the controller to remove."})
	rm.Add(Arg{Flags: []string{"--controller-directory-id", "-d"}, Required: true, Help: "The directory ID of the controller to remove."})
	rm.Add(Arg{Flags: []string{"--dry-run"}, Type: StoreTrue, Help: "True if we should print what would be done, but not do it."})
	rm.Add(Arg{Flags: []string{"--unregister"}, Type: StoreTrue, Help: "If set, also unregister the controller after successfully removing it from the voter set."})
	return p
}

func featuresParser() *Parser {
	p := New("kafka-features", "This tool manages feature flags in Kafka.")
	g := p.AddGroup("", "", true, false)
	g.Add(Arg{Flags: []string{"--bootstrap-server"}, Help: "A comma-separated list of host:port pairs to use for establishing the connection to the Kafka cluster."})
	g.Add(Arg{Flags: []string{"--bootstrap-controller"}, Help: "A comma-separated list of host:port pairs to use for establishing the connection to the KRaft quorum."})
	p.Add(Arg{Flags: []string{"--command-config"}, Help: "Property file containing configs to be passed to Admin Client."})
	subs := p.AddSubparsers(Subparsers{})
	subs.Add("describe", "Describes the current active feature flags.").
		Add(Arg{Flags: []string{"--node-id"}, Type: Int, Help: "The node id to which the requests should be sent. If not specified, the requests will be sent to an arbitrary controller/broker."})
	up := subs.Add("upgrade", "Upgrade one or more feature flags.")
	up.Add(Arg{Flags: []string{"--metadata"}, Help: "DEPRECATED -- The level to which we should upgrade the metadata. For example, 3.3-IV3."})
	up.Add(Arg{Flags: []string{"--release-version"}, Help: "The release version to update all features to. For example, 3.9-IV0 will set metadata.version=21 and kraft.version=1. Use the version-mapping command to learn which features will be set for any given version."})
	up.Add(Arg{Flags: []string{"--feature"}, Help: "A feature upgrade we should perform, in feature=level format. For example: `metadata.version=5`."})
	up.Add(Arg{Flags: []string{"--dry-run"}, Type: StoreTrue, Help: "Validate this upgrade, but do not perform it."})
	subs.Add("downgrade", "Downgrade one or more feature flags.")
	subs.Add("disable", "Disable one or more feature flags. This is the same as downgrading the version to zero.")
	subs.Add("version-mapping", "Look up the corresponding features for a given metadata version. Using the command with no --release-version  argument will return the mapping for the latest stable metadata version")
	subs.Add("feature-dependencies", "Look up dependencies for a given feature version. If the feature is not known or the version not yet defined, an error is thrown. Multiple features can be specified.")
	return p
}

func transactionsParser() *Parser {
	p := New("kafka-transactions.sh", "This tool is used to analyze the transactional state of producers in the cluster. It can be used to detect and recover from hanging transactions.")
	p.Add(Arg{Flags: []string{"-v", "--version"}, Type: StoreTrue, Help: "show the version of this Kafka distribution and exit"})
	p.Add(Arg{Flags: []string{"--command-config"}, Metavar: "FILE", Help: "property file containing configs to be passed to admin client"})
	p.Add(Arg{Flags: []string{"--bootstrap-server"}, Metavar: "host:port", Required: true, Help: "hostname and port for the broker to connect to, in the form `host:port`  (multiple comma-separated entries can be given)"})
	subs := p.AddSubparsers(Subparsers{Title: "commands", Metavar: "COMMAND"})
	l := subs.Add("list", "list transactions")
	l.Add(Arg{Flags: []string{"--duration-filter"}, Type: Long, Help: "Duration (in millis) to filter by: if < 0, all transactions will be returned; otherwise, only transactions running longer than this duration will be returned"})
	l.Add(Arg{Flags: []string{"--transactional-id-pattern"}, Help: "Transactional id regular expression pattern to filter by"})
	d := subs.Add("describe", "describe the state of an active transactional-id")
	d.Description = "Describe the state of an active transactional-id."
	d.Add(Arg{Flags: []string{"--transactional-id"}, Required: true, Help: "transactional id"})
	dp := subs.Add("describe-producers", "describe the states of active producers for a topic partition")
	dp.Add(Arg{Flags: []string{"--broker-id"}, Type: Int, Help: "optional broker id to describe the producer state on a specific replica"})
	dp.Add(Arg{Flags: []string{"--topic"}, Required: true, Help: "topic name"})
	dp.Add(Arg{Flags: []string{"--partition"}, Type: Int, Required: true, Help: "partition number"})
	ab := subs.Add("abort", "abort a hanging transaction (requires administrative privileges)")
	ab.Add(Arg{Flags: []string{"--topic"}, Required: true, Help: "topic name"})
	ab.Add(Arg{Flags: []string{"--partition"}, Type: Int, Required: true, Help: "partition number"})
	ab.AddGroup("Brokers on versions 3.0 and above", "For newer brokers, only the start offset of the transaction to be aborted is required", false, false).
		Add(Arg{Flags: []string{"--start-offset"}, Type: Long, Help: "start offset of the transaction to abort"})
	old := ab.AddGroup("Brokers on versions older than 3.0", "For older brokers, you must provide all of these arguments", false, false)
	old.Add(Arg{Flags: []string{"--producer-id"}, Type: Long, Help: "producer id"})
	old.Add(Arg{Flags: []string{"--producer-epoch"}, Type: Int, Help: "producer epoch"})
	old.Add(Arg{Flags: []string{"--coordinator-epoch"}, Type: Int, Help: "coordinator epoch"})
	subs.Add("find-hanging", "find hanging transactions")
	subs.Add("forceTerminateTransaction", "Force abort an ongoing transaction on transactionalId (requires administrative privileges)")
	return p
}

// subcommandTool is how each tool's main reports what its parser says:
// the help (and its exit code), or the parse error.
type subcommandTool struct {
	parser   func() *Parser
	helpExit int
	// report writes a parse error; nil: argparse4j's handleError.
	report func(p *Parser, err error, width int, w io.Writer)
}

var subcommandTools = map[string]subcommandTool{
	"quorum":       {parser: quorumParser, helpExit: 0},
	"transactions": {parser: transactionsParser, helpExit: 1},
	// kafka-features catches the parse error itself.
	"features": {parser: featuresParser, helpExit: 0, report: func(_ *Parser, err error, _ int, w io.Writer) {
		fmt.Fprintf(w, "Command line error: %s. Type --help for help.", err)
	}},
}

func runTool(tool subcommandTool, args []string, getenv func(string) string) (stdout, stderr string, exit int) {
	p := tool.parser()
	width := FormatWidth(getenv)
	var out, errb bytes.Buffer
	_, err := p.Parse(args)
	var he *HelpError
	switch {
	case errors.As(err, &he):
		out.WriteString(he.Parser.FormatHelp(width))
		return out.String(), "", tool.helpExit
	case err != nil && tool.report != nil:
		tool.report(p, err, width, &errb)
		return "", errb.String(), 1
	case err != nil:
		errb.WriteString(p.FormatError(err, width))
		return "", errb.String(), 1
	}
	return "", "", 0
}

// Every captured invocation of kafka-metadata-quorum, kafka-features and
// kafka-transactions that ends in the parser: the same stdout, stderr and
// exit code, byte for byte.
func TestSubcommandsAgainstApache(t *testing.T) {
	n := 0
	for prefix, tool := range subcommandTools {
		files, _ := filepath.Glob("testdata/" + prefix + "-*.args")
		for _, f := range files {
			n++
			name := strings.TrimSuffix(filepath.Base(f), ".args")
			t.Run(name, func(t *testing.T) {
				args, env, wantOut, wantErr, wantExit := readCase(t, name)
				out, errOut, code := runTool(tool, args, func(k string) string { return env[k] })
				if code != wantExit {
					t.Errorf("exit %d, want %d", code, wantExit)
				}
				if out != wantOut {
					t.Errorf("stdout differs:\n--- got\n%s\n--- want\n%s", out, wantOut)
				}
				if errOut != wantErr {
					t.Errorf("stderr differs:\n--- got\n%s\n--- want\n%s", errOut, wantErr)
				}
			})
		}
	}
	if n < 40 {
		t.Fatalf("only %d captured cases", n)
	}
}

// What a subcommand's parse gives the tool: the subcommand's full name
// under Dest (a prefix names it), its options and the parent's in one
// Namespace, and the subcommand's parser in a help request.
func TestSubcommandNamespace(t *testing.T) {
	ns, err := transactionsParser().Parse([]string{"--bootstrap-server", "b:9092", "describe-p", "--topic", "t", "--part", "3"})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := ns.String("command"); c != "describe-producers" {
		t.Errorf("command %q", c)
	}
	if b, _ := ns.String("bootstrap_server"); b != "b:9092" {
		t.Errorf("bootstrap %q", b)
	}
	if n, _ := ns.Int("partition"); n != 3 {
		t.Errorf("partition %d", n)
	}
	ns, err = quorumParser().Parse([]string{"--bootstrap-controller", "c:9093", "remove-controller", "-i", "2", "-d", "dir", "--dry-run"})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := ns.String("command"); c != "remove-controller" || !ns.Bool("dry_run") {
		t.Errorf("command %q dry-run %v", c, ns.Bool("dry_run"))
	}
	if id, _ := ns.Int("controller_id"); id != 2 {
		t.Errorf("controller id %d", id)
	}
	_, err = featuresParser().Parse([]string{"upgrade", "--help"})
	var he *HelpError
	if !errors.As(err, &he) || !errors.Is(err, ErrHelp) || he.Parser.Command() != "upgrade" {
		t.Errorf("help request %v", err)
	}
}

// A hidden flag (kbox's -o on an Apache parser) parses, but leaves the
// Apache tool's usage, help, errors and prefix resolution as they were.
func TestHiddenFlag(t *testing.T) {
	plain := transactionsParser()
	withO := transactionsParser()
	withO.Add(Arg{Flags: []string{"-o", "--output"}, Hidden: true})
	withO.Add(Arg{Flags: []string{"--command-timeout"}, Hidden: true})
	for _, args := range [][]string{{"--help"}, {"--bootstrap-server", "x", "list", "--help"}, {"--bogus"}, {"--bootstrap-server", "x"}, {"--outpt", "x"}} {
		get := func(string) string { return "" }
		o1, e1, c1 := runTool(subcommandTool{parser: func() *Parser { return plain }, helpExit: 1}, args, get)
		o2, e2, c2 := runTool(subcommandTool{parser: func() *Parser { return withO }, helpExit: 1}, args, get)
		if o1 != o2 || e1 != e2 || c1 != c2 {
			t.Errorf("%v: the hidden flags show:\n%s%s\nvs\n%s%s", args, o2, e2, o1, e1)
		}
	}
	// --command- stays the unique prefix of --command-config.
	ns, err := withO.Parse([]string{"--command-", "f", "-o", "json", "--bootstrap-server", "x", "list"})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := ns.String("command_config"); c != "f" {
		t.Errorf("command config %q", c)
	}
	if o, _ := ns.String("output"); o != "json" {
		t.Errorf("output %q", o)
	}
}
