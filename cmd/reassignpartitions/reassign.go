// Package reassignpartitions is the kafka-reassign-partitions drop-in
// (kbox reassign): Apache's ReassignPartitionsCommand, its messages,
// streams and exit codes.
package reassignpartitions

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/javaerr"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/reassign"
	"github.com/twmb/franz-go/pkg/kerr"
)

//go:embed apache_help.txt
var apacheHelp string

// Applet registers kafka-reassign-partitions (kbox reassign).
var Applet = cmdutil.Applet{
	Kind:   cmdutil.Apache,
	Name:   apacheName,
	Alias:  "reassign",
	Short:  short,
	Run:    run,
	Native: NewNativeCmd,

	ConnOptions: []string{"bootstrap-server", "bootstrap-controller"},
}

const apacheName = "kafka-reassign-partitions"

const short = "Move partition replicas between brokers and log dirs, with throttles"

const title = "This tool helps to move topic partitions between replicas."

var parser = jopt.New(
	jopt.Spec{Name: "verify"},
	jopt.Spec{Name: "generate"},
	jopt.Spec{Name: "execute"},
	jopt.Spec{Name: "cancel"},
	jopt.Spec{Name: "list"},
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.OptionalArg},
	jopt.Spec{Name: "command-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "reassignment-json-file", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "topics-to-move-json-file", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "broker-list", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "bootstrap-controller", Arg: jopt.OptionalArg},
	jopt.Spec{Name: "disable-rack-aware"},
	jopt.Spec{Name: "throttle", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "replica-alter-log-dirs-throttle", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "timeout", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "additional"},
	jopt.Spec{Name: "preserve-throttles"},
	jopt.Spec{Name: "disallow-replication-factor-change"},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
)

var actions = []string{"generate", "execute", "verify", "cancel", "list"}

// permitted is validateAndParseArgs' table (with 4.4's
// --disallow-replication-factor-change on --execute).
var permitted = map[string][]string{
	"verify":   {"bootstrap-server", "command-config", "preserve-throttles", "reassignment-json-file"},
	"generate": {"bootstrap-server", "broker-list", "command-config", "disable-rack-aware", "topics-to-move-json-file"},
	"execute": {"additional", "bootstrap-server", "command-config", "throttle", "replica-alter-log-dirs-throttle",
		"timeout", "reassignment-json-file", "disallow-replication-factor-change"},
	"cancel": {"command-config", "preserve-throttles", "timeout", "reassignment-json-file"},
	"list":   {"command-config"},
}

var required = map[string][]string{
	"verify":   {"reassignment-json-file"},
	"generate": {"topics-to-move-json-file", "broker-list"},
	"execute":  {"reassignment-json-file"},
	"cancel":   {"reassignment-json-file"},
}

// tool is kafka-reassign-partitions' part of the drop-in prologue: its
// options are parsed outside main's try, so a parse error escapes main.
var tool = cmdutil.ApacheTool{Title: title, Options: apacheHelp, ParseError: cmdutil.JoptException}

func usage(f *cmdutil.Factory, msg string) error { return tool.Usage(f, msg) }

// fail is main's catch: "Error: <message>" on stdout, exit 1 (the Java
// stack trace that follows is left out).
func fail(f *cmdutil.Factory, msg string) error {
	fmt.Fprintln(f.IO.Out, "Error: "+msg)
	return cmdutil.Exit(1)
}

// terse is a TerseException: its message on stdout, exit 1.
func terse(f *cmdutil.Factory, msg string) error {
	fmt.Fprintln(f.IO.Out, msg)
	return cmdutil.Exit(1)
}

type opts struct {
	*jopt.Set
	action string
}

func run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	s, err := parser.Parse(args)
	if done, err := tool.Prologue(f, args, err, s.Has); done {
		return err
	}
	var given []string
	for _, a := range actions {
		if s.Has(a) {
			given = append(given, a)
		}
	}
	if len(given) != 1 {
		return usage(f, "Command must include exactly one action: --generate, --execute, --verify, --cancel, --list")
	}
	action := given[0]
	bs, ctl := s.Has("bootstrap-server"), s.Has("bootstrap-controller")
	if bs && ctl {
		return usage(f, "Please don't specify both --bootstrap-server and --bootstrap-controller")
	}
	if !bs && !ctl {
		return usage(f, "Please specify either --bootstrap-server or --bootstrap-controller")
	}
	for _, r := range required[action] {
		if !s.Has(r) {
			return usage(f, fmt.Sprintf("Missing required argument \"[%s]\"", r))
		}
	}
	allowed := map[string]bool{action: true}
	for _, p := range permitted[action] {
		allowed[p] = true
	}
	if action == "cancel" || action == "list" {
		if bs {
			allowed["bootstrap-server"] = true
		} else {
			allowed["bootstrap-controller"] = true
		}
	}
	for _, d := range s.Detected {
		if !allowed[d] {
			return usage(f, fmt.Sprintf("Option \"[%s]\" can't be used with action \"[%s]\"", d, action))
		}
	}
	if ctl {
		return &cmdutil.FlagError{Err: errors.New("--bootstrap-controller is not supported by kbox yet; use --bootstrap-server")}
	}
	o := &opts{Set: s, action: action}
	// Option values Java reads in handleAction (conversion errors first).
	throttle, err := longOpt(o, "throttle", -1)
	if err != nil {
		return fail(f, err.Error())
	}
	dirThrottle, err := longOpt(o, "replica-alter-log-dirs-throttle", -1)
	if err != nil {
		return fail(f, err.Error())
	}
	timeout, err := longOpt(o, "timeout", 10000)
	if err != nil {
		return fail(f, err.Error())
	}
	bootstrap, cc, err := tool.ConnArgs(s)
	if err != nil {
		return fail(f, err.Error())
	}
	// The file is read before the first request.
	var file []byte
	fileOpt := "reassignment-json-file"
	if action == "generate" {
		fileOpt = "topics-to-move-json-file"
	}
	if action != "list" {
		path, _, err := s.Value(fileOpt)
		if err != nil {
			return fail(f, err.Error())
		}
		if file, err = os.ReadFile(path); err != nil {
			return fail(f, "Unable to read file "+path)
		}
	}
	// Everything the file and the options say is checked before connecting.
	in := &input{}
	switch action {
	case "generate":
		brokers, _, verr := s.Value("broker-list")
		if verr != nil {
			return fail(f, verr.Error())
		}
		if in.brokerIDs, in.topics, err = reassign.ParseGenerate(file, brokers); err != nil {
			return fail(f, err.Error())
		}
	case "execute", "verify", "cancel":
		if in.plan, err = reassign.ParsePlan(file); err != nil {
			return fail(f, err.Error())
		}
		if action == "execute" {
			if err := in.plan.ValidateExecute(); err != nil {
				return fail(f, err.Error())
			}
		}
	}
	defaults := config.NewProperties()
	defaults.Set("client.id", "reassign-partitions-tool")
	cl, err := f.Connect(ctx, config.Overrides{Bootstrap: bootstrap, CommandConfig: cc}, kafka.Admin, kafka.Options{Defaults: defaults})
	if err != nil {
		return err
	}
	defer cl.Close()
	svc := &reassign.Service{Client: cl.Client, Admin: cl.Admin()}
	r := &runner{f: f, svc: svc, explain: cl.Explain}
	switch action {
	case "list":
		err = r.list(ctx)
	case "generate":
		err = r.generate(ctx, in.brokerIDs, in.topics, !s.Has("disable-rack-aware"))
	case "execute":
		err = r.execute(ctx, in.plan, s.Has("additional"), throttle, dirThrottle, time.Duration(timeout)*time.Millisecond,
			!s.Has("disallow-replication-factor-change"))
	case "verify":
		err = r.verify(ctx, in.plan, s.Has("preserve-throttles"))
	case "cancel":
		err = r.cancel(ctx, in.plan, s.Has("preserve-throttles"), time.Duration(timeout)*time.Millisecond)
	}
	return r.finish(err)
}

func longOpt(o *opts, name string, def int64) (int64, error) {
	v, ok, err := o.Int(name)
	if err != nil {
		return 0, err
	}
	if !ok {
		return def, nil
	}
	return v, nil
}

type runner struct {
	f       *cmdutil.Factory
	svc     *reassign.Service
	explain func(error) error
}

// terseError is a TerseException raised by an action.
type terseError struct{ msg string }

func (e *terseError) Error() string { return e.msg }

// finish maps an action's error to Apache's output.
func (r *runner) finish(err error) error {
	if err == nil {
		return nil
	}
	var te *terseError
	if errors.As(err, &te) {
		return terse(r.f, te.msg)
	}
	var ee *cmdutil.ExitError
	if errors.As(err, &ee) {
		return err
	}
	var tnf *reassign.TopicNotFoundError
	var pnf *reassign.PartitionsNotFoundError
	var pe *reassign.ParseError
	var rf *reassign.InvalidReplicationFactorError
	switch {
	case errors.As(err, &tnf), errors.As(err, &pnf):
		return fail(r.f, javaerr.String(kerr.UnknownTopicOrPartition.Code, err.Error()))
	case errors.As(err, &pe), errors.As(err, &rf):
		return fail(r.f, err.Error())
	}
	var ke *reassign.KafkaError
	if errors.As(err, &ke) {
		return fail(r.f, ke.JavaString())
	}
	return fail(r.f, r.explain(err).Error())
}

func (r *runner) out(format string, a ...any) { fmt.Fprintf(r.f.IO.Out, format, a...) }

func (r *runner) list(ctx context.Context) error {
	cur, err := r.svc.ListReassignments(ctx, nil)
	if err != nil {
		return err
	}
	if len(cur) == 0 {
		r.out("No partition reassignments found.\n")
		return nil
	}
	r.out("Current partition reassignments:\n")
	for _, tp := range reassign.SortedTPs(cur) {
		o := cur[tp]
		line := fmt.Sprintf("%s: replicas: %s.", tp, reassign.JoinIDs(o.Replicas, ","))
		if len(o.Adding) > 0 {
			line += fmt.Sprintf(" adding: %s.", reassign.JoinIDs(o.Adding, ","))
		}
		if len(o.Removing) > 0 {
			line += fmt.Sprintf(" removing: %s.", reassign.JoinIDs(o.Removing, ","))
		}
		r.out("%s\n", line)
	}
	return nil
}

// input is what the action reads from its file and options.
type input struct {
	plan      *reassign.Plan
	brokerIDs []int32
	topics    []string
}

func (r *runner) generate(ctx context.Context, ids []int32, topics []string, rackAware bool) error {
	p, err := r.svc.Propose(ctx, ids, topics, rackAware)
	if err != nil {
		return err
	}
	r.out("Current partition replica assignment\n%s\n\n", reassign.FormatJSON(p.Current, p.Dirs))
	r.out("Proposed partition reassignment configuration\n%s\n", reassign.FormatJSON(p.Proposed, nil))
	return nil
}

const cannotExecute = "Cannot execute because there is an existing partition assignment.  Use --additional to override this and create a new partition assignment in addition to the existing one. The --additional flag can also be used to change the throttle by resubmitting the current reassignment."

func (r *runner) execute(ctx context.Context, plan *reassign.Plan, additional bool, throttle, dirThrottle int64, timeout time.Duration, allowRF bool) error {
	proposed := plan.Targets()
	dirMoves := plan.DirMoves()
	ongoing, err := r.svc.ListReassignments(ctx, nil)
	if err != nil {
		return err
	}
	if !additional && len(ongoing) > 0 {
		return &terseError{cannotExecute}
	}
	cluster, err := r.svc.Brokers(ctx)
	if err != nil {
		return err
	}
	known := map[int32]bool{}
	for _, b := range cluster {
		known[b.ID] = true
	}
	// verifyBrokerIds: the first unknown id of a HashSet of all targets.
	var all []int32
	for _, tp := range reassign.SortedTPs(proposed) {
		all = append(all, proposed[tp]...)
	}
	for _, id := range javafmt.IntSetOrder(all, -1) {
		if !known[id] {
			return &reassign.ParseError{Msg: fmt.Sprintf("Unknown broker id %d", id)}
		}
	}
	current, err := r.svc.PartitionAssignment(ctx, reassign.SortedTPs(proposed))
	if err != nil {
		return err
	}
	dirs, err := r.svc.CurrentDirs(ctx, current)
	if err != nil {
		return err
	}
	r.out("Current partition replica assignment\n\n%s\n\nSave this to use as the --reassignment-json-file option during rollback\n",
		reassign.FormatJSON(current, dirs))
	if throttle >= 0 || dirThrottle >= 0 {
		r.out("Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is removed.\n")
		if throttle >= 0 {
			moves, err := reassign.MoveMap(ongoing, proposed, current)
			if err != nil {
				return err
			}
			leader, follower := reassign.TopicThrottleValues(moves)
			if err := r.svc.SetTopicThrottles(ctx, leader, follower); err != nil {
				return err
			}
			if err := r.svc.SetBrokerConfigs(ctx, reassign.ReassigningBrokers(moves), throttle, reassign.LeaderRate, reassign.FollowerRate); err != nil {
				return err
			}
			r.out("The inter-broker throttle limit was set to %d B/s\n", throttle)
		}
		if dirThrottle >= 0 {
			moving := map[int32]bool{}
			for rep := range dirMoves {
				moving[rep.Broker] = true
			}
			var ids []int32
			for b := range moving {
				ids = append(ids, b)
			}
			if err := r.svc.SetBrokerConfigs(ctx, ids, dirThrottle, reassign.LogDirRate); err != nil {
				return err
			}
			r.out("The replica-alter-dir throttle limit was set to %d B/s\n", dirThrottle)
		}
	}
	errs, err := r.svc.Alter(ctx, proposed, allowRF)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		lines := []string{"Error reassigning partition(s):"}
		for _, tp := range reassign.SortedTPs(errs) {
			lines = append(lines, fmt.Sprintf("%s: %s", tp, errs[tp].Error()))
		}
		return &terseError{strings.Join(lines, "\n")}
	}
	tps := reassign.SortedTPs(proposed)
	names := make([]string, len(tps))
	for i, tp := range tps {
		names[i] = tp.String()
	}
	r.out("Successfully started partition reassignment%s for %s\n", plural(len(tps)), strings.Join(names, ","))
	if len(dirMoves) > 0 {
		return r.executeMoves(ctx, dirMoves, timeout)
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// executeMoves starts the log dir moves (retried until each replica is on
// its new broker, or the timeout).
func (r *runner) executeMoves(ctx context.Context, moves map[reassign.Replica]string, timeout time.Duration) error {
	left, err := r.svc.StartDirMoves(ctx, moves, timeout, func(rep reassign.Replica, dir string) {
		r.out("Successfully started moving log directory to %s for replica %s-%d with broker %d \n", dir, rep.Topic, rep.Partition, rep.Broker)
	})
	if err != nil || len(left) == 0 {
		return err
	}
	parts := make([]string, len(left))
	for i, rep := range left {
		parts[i] = rep.String()
	}
	return &terseError{fmt.Sprintf("Timed out before log directory move%s could be started for: %s", plural(len(left)), strings.Join(parts, ","))}
}

func (r *runner) verify(ctx context.Context, plan *reassign.Plan, preserve bool) error {
	states, ongoing, err := r.svc.PartitionStates(ctx, plan)
	if err != nil {
		return err
	}
	r.out("%s\n", reassign.PartitionStatesText(states))
	dirStates, err := r.svc.DirStates(ctx, plan.DirMoves())
	if err != nil {
		return err
	}
	r.out("%s\n", reassign.DirStatesText(dirStates))
	movesOngoing := false
	for _, st := range dirStates {
		if !st.Done() {
			movesOngoing = true
		}
	}
	if !ongoing && !movesOngoing && !preserve {
		return r.clearAll(ctx, plan)
	}
	return nil
}

// clearAll is clearAllThrottles: every registered broker and every target
// replica's broker, and every topic of the plan.
func (r *runner) clearAll(ctx context.Context, plan *reassign.Plan) error {
	cluster, err := r.svc.Brokers(ctx)
	if err != nil {
		return err
	}
	ids := reassign.BrokerIDs(cluster)
	for _, mv := range plan.Moves {
		ids = append(ids, mv.Replicas...)
	}
	ids = javafmt.IntSetOrder(ids, -1)
	r.out("Clearing broker-level throttles on broker%s %s\n", plural(len(ids)), reassign.JoinIDs(ids, ","))
	if err := r.svc.ClearBrokerThrottles(ctx, ids); err != nil {
		return err
	}
	var topics []string
	for _, mv := range plan.Moves {
		topics = append(topics, mv.Topic)
	}
	topics = javafmt.HashMapOrder(topics, -1)
	r.out("Clearing topic-level throttles on topic%s %s\n", plural(len(topics)), strings.Join(topics, ","))
	return r.svc.ClearTopicThrottles(ctx, topics)
}

func (r *runner) cancel(ctx context.Context, plan *reassign.Plan, preserve bool, timeout time.Duration) error {
	var tps []reassign.TP
	for _, mv := range plan.Moves {
		tps = append(tps, mv.TP)
	}
	cur, err := r.svc.ListReassignments(ctx, tps)
	if err != nil {
		return err
	}
	cancel := map[reassign.TP][]int32{}
	for tp, o := range cur {
		if len(o.Adding) == 0 || len(o.Removing) > 0 {
			cancel[tp] = nil
		}
	}
	if len(cancel) > 0 {
		errs, err := r.svc.Alter(ctx, cancel, true)
		if err != nil {
			return err
		}
		if len(errs) > 0 {
			lines := []string{fmt.Sprintf("Error cancelling partition reassignment%s for:", plural(len(errs)))}
			for _, tp := range reassign.SortedTPs(errs) {
				lines = append(lines, fmt.Sprintf("%s: %s", tp, errs[tp].Error()))
			}
			return &terseError{strings.Join(lines, "\n")}
		}
		names := []string{}
		for _, tp := range reassign.SortedTPs(cancel) {
			names = append(names, tp.String())
		}
		r.out("Successfully cancelled partition reassignment%s for: %s\n", plural(len(names)), strings.Join(names, ","))
	} else {
		r.out("None of the specified partition reassignments are active.\n")
	}
	dirStates, err := r.svc.DirStates(ctx, plan.DirMoves())
	if err != nil {
		return err
	}
	back := map[reassign.Replica]string{}
	for rep, st := range dirStates {
		if st.Kind == reassign.DirActive {
			back[rep] = st.Current
		}
	}
	if len(back) == 0 {
		r.out("None of the specified partition moves are active.")
	} else if err := r.executeMoves(ctx, back, timeout); err != nil {
		return err
	}
	if !preserve {
		return r.clearAll(ctx, plan)
	}
	return nil
}
