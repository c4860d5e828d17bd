// Package leaderelection is the kafka-leader-election drop-in (kbox
// elect-leaders): Apache's LeaderElectionCommand, its lines (partition
// lists in Java HashSet order), streams and exit codes.
package leaderelection

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/reassign"
)

//go:embed apache_help.txt
var apacheHelp string

// Applet registers kafka-leader-election (kbox elect-leaders).
var Applet = cmdutil.Applet{
	Kind:  cmdutil.Apache,
	Name:  apacheName,
	Alias: "elect-leaders",
	Short: "Elect preferred or unclean partition leaders",
	Run:   run,

	ConnOptions: []string{"bootstrap-server"},
}

const apacheName = "kafka-leader-election"

const title = "This tool attempts to elect a new leader for a set of topic partitions. The type of elections supported are preferred replicas and unclean replicas."

var parser = jopt.New(
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "admin.config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "command-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "path-to-json-file", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "topic", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "partition", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "all-topic-partitions"},
	jopt.Spec{Name: "election-type", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
	// kbox extensions (leader balance).
	jopt.Spec{Name: "preview"},
	jopt.Spec{Name: "execute"},
	jopt.Spec{Name: "output", Short: "o", Arg: jopt.RequiredArg},
)

// nativeHelp follows the Apache help under kbox elect-leaders.
const nativeHelp = `
kbox extensions (leader balance, -o table|json|yaml):
  kbox elect-leaders --preview [--topic T] [--bootstrap-server B]
      partitions not led by their preferred replica, and leaders per
      broker before and after a preferred election
  kbox elect-leaders --execute [--topic T] [--bootstrap-server B]
      run that election and print the balance read back afterwards
`

// tool is kafka-leader-election's part of the drop-in prologue.
var tool = cmdutil.ApacheTool{Title: title, Options: apacheHelp, Extensions: nativeHelp}

// fail is mainNoExit's catch: the exception's message on stderr, exit 1
// (the stack trace that follows is left out).
func fail(f *cmdutil.Factory, msg string) error {
	fmt.Fprintln(f.IO.ErrOut, msg)
	return cmdutil.Exit(1)
}

func run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	s, err := parser.Parse(args)
	if done, err := tool.Prologue(f, args, err, s.Has); done {
		return err
	}
	if s.Has("preview") || s.Has("execute") || s.Has("output") {
		return runBalance(ctx, f, s)
	}
	var missing []string
	for _, r := range []string{"bootstrap-server", "election-type"} {
		if !s.Has(r) {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		return fail(f, "Missing required option(s): "+strings.Join(missing, ", "))
	}
	n := 0
	for _, o := range []string{"topic", "all-topic-partitions", "path-to-json-file"} {
		if s.Has(o) {
			n++
		}
	}
	if n != 1 {
		return fail(f, "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file")
	}
	if s.Has("topic") && !s.Has("partition") {
		return fail(f, "Missing required option(s): partition")
	}
	if !s.Has("topic") && s.Has("partition") {
		return fail(f, "Option partition is only allowed if topic is used")
	}
	et, _, err := s.Value("election-type")
	if err != nil {
		return fail(f, err.Error())
	}
	var how int8
	switch strings.ToUpper(et) {
	case "PREFERRED":
		how = reassign.Preferred
	case "UNCLEAN":
		how = reassign.Unclean
	default:
		return fail(f, "Cannot parse argument '"+et+"' of option election-type")
	}
	var tps []reassign.TP
	if s.Has("path-to-json-file") {
		path, _, err := s.Value("path-to-json-file")
		if err != nil {
			return fail(f, err.Error())
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return fail(f, "java.io.IOException: Unable to read file "+path)
		}
		if tps, err = parseElectionData(data); err != nil {
			return fail(f, err.Error())
		}
	}
	topic, hasTopic, err := s.Value("topic")
	if err != nil {
		return fail(f, err.Error())
	}
	part, hasPart, err := s.Int("partition")
	if err != nil {
		return fail(f, err.Error())
	}
	if hasTopic && hasPart && tps == nil {
		tps = []reassign.TP{{Topic: topic, Partition: int32(part)}}
	}
	cc, hasCC, err := s.Value("command-config")
	if err != nil {
		return fail(f, err.Error())
	}
	if s.Has("admin.config") {
		fmt.Fprintln(f.IO.Out, "Option --admin.config has been deprecated and will be removed in a future version. Use --command-config instead.")
		if cc, hasCC, err = s.Value("admin.config"); err != nil {
			return fail(f, err.Error())
		}
	}
	if err := tool.CommandConfig(cc, hasCC); err != nil {
		return fail(f, err.Error())
	}
	bs, _, err := s.Value("bootstrap-server")
	if err != nil {
		return fail(f, err.Error())
	}
	defaults := config.NewProperties()
	defaults.Set("default.api.timeout.ms", "30000")
	defaults.Set("request.timeout.ms", "15000")
	cl, err := f.Connect(ctx, config.Overrides{Bootstrap: bs, CommandConfig: cc}, kafka.Admin, kafka.Options{Defaults: defaults})
	if err != nil {
		return err
	}
	defer cl.Close()
	svc := &reassign.Service{Client: cl.Client, Admin: cl.Admin()}
	results, err := svc.Elect(ctx, how, tps, 30000)
	if err != nil {
		if ke, ok := err.(*reassign.KafkaError); ok && ke.Code == 31 { // CLUSTER_AUTHORIZATION_FAILED
			fmt.Fprintln(f.IO.Out, "Not authorized to perform leader election")
			return fail(f, "Not authorized to perform leader election")
		}
		return cl.Explain(err)
	}
	return printResults(f, how, results)
}

func printResults(f *cmdutil.Factory, how int8, results []reassign.ElectResult) error {
	var ok, noop, failed []reassign.ElectResult
	for _, r := range results {
		switch {
		case r.Err == nil:
			ok = append(ok, r)
		case r.NotNeeded():
			noop = append(noop, r)
		default:
			failed = append(failed, r)
		}
	}
	names := func(rs []reassign.ElectResult) string {
		parts := make([]string, len(rs))
		for i, r := range reassign.JavaSetOrder(results, rs) {
			parts[i] = r.TP.String()
		}
		return strings.Join(parts, ", ")
	}
	name := reassign.ElectionName(how)
	if len(ok) > 0 {
		fmt.Fprintf(f.IO.Out, "Successfully completed leader election (%s) for partitions %s\n", name, names(ok))
	}
	if len(noop) > 0 {
		fmt.Fprintf(f.IO.Out, "Valid replica already elected for partitions %s\n", names(noop))
	}
	if len(failed) > 0 {
		for _, r := range reassign.JavaSetOrder(results, failed) {
			fmt.Fprintf(f.IO.Out, "Error completing leader election (%s) for partition: %s: %s\n", name, r.TP, r.Err.JavaString())
		}
		return fail(f, fmt.Sprintf("%d replica(s) could not be elected", len(failed)))
	}
	return nil
}

// parseElectionData is parseReplicaElectionData: {"partitions":[{"topic":
// "t","partition":0},...]}, no partition twice.
func parseElectionData(data []byte) ([]reassign.TP, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("Replica election data is empty")
	}
	raw, ok := obj["partitions"]
	if !ok {
		return nil, fmt.Errorf("Replica election data is missing \"partitions\" field")
	}
	var entries []struct {
		Topic     *string `json:"topic"`
		Partition *int32  `json:"partition"`
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("com.fasterxml.jackson.databind.JsonMappingException: %v", err)
	}
	var tps []reassign.TP
	count := map[reassign.TP]int{}
	for _, e := range entries {
		if e.Topic == nil {
			return nil, fmt.Errorf("com.fasterxml.jackson.databind.JsonMappingException: No such field exists: `topic`")
		}
		if e.Partition == nil {
			return nil, fmt.Errorf("com.fasterxml.jackson.databind.JsonMappingException: No such field exists: `partition`")
		}
		tp := reassign.TP{Topic: *e.Topic, Partition: *e.Partition}
		tps = append(tps, tp)
		count[tp]++
	}
	var dups []reassign.ElectResult
	seen := map[reassign.TP]bool{}
	for _, tp := range tps {
		if count[tp] > 1 && !seen[tp] {
			seen[tp] = true
			dups = append(dups, reassign.ElectResult{TP: tp})
		}
	}
	if len(dups) > 0 {
		parts := []string{}
		for _, d := range reassign.JavaSetOrder(dups, dups) {
			parts = append(parts, d.TP.String())
		}
		return nil, fmt.Errorf("Replica election data contains duplicate partitions: [%s]", strings.Join(parts, ", "))
	}
	if tps == nil {
		tps = []reassign.TP{}
	}
	return tps, nil
}
