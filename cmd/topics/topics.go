// Package topics is the kafka-topics applet: a drop-in for Apache's
// kafka-topics.sh (TopicCommand of Kafka 4.4) with kbox's native output
// formats and a dry-run mode.
package topics

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/topics"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kerr"
)

// apacheOptions is the option table jopt-simple prints for TopicCommand of
// Kafka 4.4.0, captured from the real tool (see testdata/).
//
//go:embed apache_options.txt
var apacheOptions string

const nativeHelp = `
kbox extensions (not in Apache's kafka-topics):
  -o, --output FORMAT     apache (default), table, wide, json, yaml; "-o help" prints the schema
  --dry-run               validate create/alter/delete on the broker and print what would happen
  --disable-rack-aware    compute a non-rack-aware replica assignment client-side (create, alter)
  --bytes                 -o wide: replica sizes as byte counts (default: KiB/MiB/GiB)
  --profile NAME          connection profile (see "kbox profile")
`

// Applet registers kafka-topics.
const short = "Create, delete, describe, or change a topic"

// Applet is the applet table entry.
var Applet = cmdutil.Applet{Name: "kafka-topics", Alias: "topics", Short: short, Run: Run, Complete: complete,
	ConnOptions: []string{"bootstrap-server"}}

// tool is kafka-topics' part of the drop-in prologue.
var tool = cmdutil.ApacheTool{
	Title:      helpMessage,
	Bare:       "Create, delete, describe, or change a topic.",
	Options:    apacheOptions,
	Extensions: nativeHelp,
	Unreadable: "%s (No such file or directory)",
}

type runner struct {
	f   *cmdutil.Factory
	p   *parsed
	out io.Writer
	err io.Writer
}

func (r *runner) usage(msg string) error { return tool.Usage(r.f, msg) }

// execError prints Apache's "Error while executing topic command" line on
// stdout and exits 1.
func (r *runner) execError(err error) error {
	fmt.Fprintf(r.out, "Error while executing topic command : %s\n", err.Error())
	return cmdutil.Exit(1)
}

const helpMessage = "This tool helps to create, delete, describe, or change a topic."

// Run executes kafka-topics with Apache's argv.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	r := &runner{f: f, out: f.IO.Out, err: f.IO.ErrOut}
	p, err := parseArgs(args)
	if done, err := tool.Prologue(f, args, err, p.has); done {
		return err
	}
	r.p = p
	format, err := r.format()
	if err != nil {
		fmt.Fprintf(r.err, "%v\n", err)
		return cmdutil.Exit(1)
	}
	if format == "help" {
		_, err := io.WriteString(r.out, schemaHelp)
		return err
	}

	outNotes, errNotes, cerr := p.checkArgs(p.has("bootstrap-server"))
	for _, n := range errNotes {
		fmt.Fprintln(r.err, n)
	}
	for _, n := range outNotes {
		fmt.Fprintln(r.out, n)
	}
	if cerr != nil {
		var ue *UsageError
		if errors.As(cerr, &ue) {
			return r.usage(ue.Msg)
		}
		fmt.Fprintln(r.err, cerr.Error())
		return cmdutil.Exit(1)
	}
	// TopicService(commandConfig(), bootstrapServer()): the file is read
	// first, then the single-valued bootstrap server.
	// jopt reports a repeated --bootstrap-server lazily, inside the try.
	bootstrap, cc, err := tool.ConnArgs(p.Set)
	if err != nil {
		return r.execError(err)
	}
	act, err := r.prepare()
	if err != nil {
		return r.execError(err)
	}
	if act.warnCollision {
		fmt.Fprintln(r.out, topics.CollisionWarning)
	}
	if act.preErr != nil {
		return r.execError(act.preErr)
	}
	ov := config.Overrides{Bootstrap: bootstrap, CommandConfig: cc}
	cl, err := f.Connect(ctx, ov, kafka.Admin, kafka.Options{})
	if err != nil {
		return r.execError(err)
	}
	defer cl.Close()
	svc := &topics.Service{Client: cl.Client, Admin: cl.Admin()}
	if cl.Settings.RequestTimeout > 0 {
		svc.TimeoutMs = int32(cl.Settings.RequestTimeout.Milliseconds())
	}
	err = act.run(ctx, r, svc, format)
	if err == nil {
		return nil
	}
	var ee *cmdutil.ExitError
	if errors.As(err, &ee) {
		return err
	}
	return r.execError(cl.Explain(err))
}

func (r *runner) outputFlag() string {
	if v := r.p.Values("output"); len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

// formats is what kafka-topics prints as; Apache's text is the default
// (under the native name too, so scripts see one format).
var formats = cmdutil.Formats{Default: output.Apache, Allowed: []output.Format{output.Apache, output.Table, output.Wide, output.JSON, output.YAML}}

// format is the layer's output decision; "-o help" prints the JSON schema.
func (r *runner) format() (string, error) {
	v := r.outputFlag()
	if v == "help" {
		return "help", nil
	}
	fm, err := r.f.Output(v, formats)
	return string(fm), err
}

// action is a prepared action: everything Apache parses lazily has been
// parsed, in Apache's order, before connecting.
type action struct {
	warnCollision bool
	preErr        error // raised after the collision warning
	run           func(ctx context.Context, r *runner, svc *topics.Service, format string) error
}

func (r *runner) prepare() (*action, error) {
	p := r.p
	switch {
	case p.has("create"):
		return r.prepareCreate()
	case p.has("alter"):
		return r.prepareAlter()
	case p.has("list"):
		topic, err := p.single("topic")
		if err != nil {
			return nil, err
		}
		if topic != nil {
			if _, err := topics.NewFilter(*topic); err != nil {
				return nil, err
			}
		}
		return &action{run: func(ctx context.Context, r *runner, svc *topics.Service, format string) error {
			names, _, err := svc.ListTopics(ctx, topic, p.has("exclude-internal"))
			if err != nil {
				return err
			}
			return r.print(format, &topics.TopicList{Names: names})
		}}, nil
	case p.has("describe"):
		return r.prepareDescribe()
	default:
		return r.prepareDelete()
	}
}

func (r *runner) print(format string, v any) error {
	switch format {
	case "apache":
		return v.(output.ApacheWriter).WriteApache(r.out)
	case "json", "yaml":
		if n, ok := v.(interface{ Native() any }); ok {
			v = n.Native()
		}
	}
	return output.Print(r.f.IO, output.Format(format), v)
}

type commandTopicPartition struct {
	name       string
	partitions *int
	rf         *int
	assignment [][]int32
	configs    map[string]string
}

// newCTP is CommandTopicPartition's constructor: the values are read (and
// so validated) in this order.
func (r *runner) newCTP() (*commandTopicPartition, error) {
	p := r.p
	c := &commandTopicPartition{}
	t, err := p.single("topic")
	if err != nil {
		return nil, err
	}
	c.name = *t
	if c.partitions, err = p.integer("partitions"); err != nil {
		return nil, err
	}
	if c.rf, err = p.integer("replication-factor"); err != nil {
		return nil, err
	}
	ra, err := p.single("replica-assignment")
	if err != nil {
		return nil, err
	}
	if ra != nil && *ra != "" {
		if c.assignment, err = topics.ParseReplicaAssignment(*ra); err != nil {
			return nil, err
		}
	}
	if c.configs, err = topics.ParseConfigs(p.Values("config")); err != nil {
		return nil, err
	}
	return c, nil
}

func (r *runner) prepareCreate() (*action, error) {
	c, err := r.newCTP()
	if err != nil {
		return nil, err
	}
	act := &action{warnCollision: topics.HasCollisionChars(c.name)}
	if c.rf != nil && (*c.rf > 32767 || *c.rf < 1) {
		act.preErr = errors.New("The replication factor must be between 1 and 32767 inclusive")
		return act, nil
	}
	if c.partitions != nil && *c.partitions < 1 {
		act.preErr = errors.New("The partitions must be greater than 0")
		return act, nil
	}
	dry := r.p.has("dry-run")
	act.run = func(ctx context.Context, r *runner, svc *topics.Service, format string) error {
		req := topics.CreateRequest{Name: c.name, Partitions: -1, ReplicationFactor: -1, Assignment: c.assignment, Configs: c.configs, ValidateOnly: dry}
		if c.partitions != nil {
			req.Partitions = int32(*c.partitions)
		}
		if c.rf != nil {
			req.ReplicationFactor = int16(*c.rf)
		}
		if r.p.has("disable-rack-aware") && len(c.assignment) == 0 {
			a, err := clientAssignment(ctx, svc, c)
			if err != nil {
				return err
			}
			req.Assignment = a
		}
		res, err := svc.Create(ctx, req)
		if err != nil {
			if r.p.has("if-not-exists") && errors.Is(err, kerr.TopicAlreadyExists) {
				return nil
			}
			return err
		}
		switch {
		case format == "json" || format == "yaml":
			return output.Print(r.f.IO, output.Format(format), res)
		case dry:
			fmt.Fprintf(r.out, "Dry run: topic %s would be created with %d partition(s) and replication factor %d (validated by the broker; nothing was changed).\n", res.Name, res.Partitions, res.ReplicationFactor)
		default:
			fmt.Fprintf(r.out, "Created topic %s.\n", c.name)
		}
		return nil
	}
	return act, nil
}

// clientAssignment computes the plain (non-rack-aware) assignment of Kafka's
// classic placement for --disable-rack-aware.
func clientAssignment(ctx context.Context, svc *topics.Service, c *commandTopicPartition) ([][]int32, error) {
	cluster, err := svc.Metadata(ctx)
	if err != nil {
		return nil, err
	}
	if len(cluster.Brokers) == 0 {
		return nil, errors.New("no live brokers")
	}
	parts, rf := 0, 0
	if c.partitions != nil {
		parts = *c.partitions
	}
	if c.rf != nil {
		rf = *c.rf
	}
	if parts == 0 || rf == 0 {
		ids := make([]int32, 0, len(cluster.Brokers))
		for _, b := range cluster.Brokers {
			ids = append(ids, b.ID)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		dp, drf, err := svc.BrokerDefaults(ctx, ids[0])
		if err != nil {
			return nil, err
		}
		if parts == 0 {
			parts = dp
		}
		if rf == 0 {
			rf = drf
		}
	}
	return topics.AssignReplicas(parts, rf, cluster.Brokers, false, -1, -1, 0)
}

func notFound(topic *string) error {
	return fmt.Errorf("Topic '%s' does not exist as expected", *topic)
}

func (r *runner) prepareAlter() (*action, error) {
	c, err := r.newCTP()
	if err != nil {
		return nil, err
	}
	topic := &c.name
	if _, err := topics.NewFilter(c.name); err != nil {
		return nil, err
	}
	dry := r.p.has("dry-run")
	return &action{run: func(ctx context.Context, r *runner, svc *topics.Service, format string) error {
		names, cluster, err := svc.ListTopics(ctx, topic, r.p.has("exclude-internal"))
		if err != nil {
			return err
		}
		if len(names) == 0 {
			if !r.p.has("if-exists") && c.name != "" {
				return notFound(topic)
			}
			return nil
		}
		current := map[string]int{}
		for _, n := range names {
			current[n] = len(cluster.Topics[n].Partitions)
		}
		req := topics.AlterRequest{Topics: names, Count: int32(*c.partitions), Assignment: c.assignment, ValidateOnly: dry}
		if r.p.has("disable-rack-aware") && len(c.assignment) == 0 {
			// Place the new partitions client-side with the plain
			// (non-rack-aware) variant of Kafka's classic algorithm.
			req.NewAssignments = map[string][][]int32{}
			for _, n := range names {
				parts := cluster.Topics[n].Partitions
				if *c.partitions <= len(parts) || len(parts) == 0 {
					continue // the broker refuses it with its own message
				}
				a, err := topics.AssignReplicas(*c.partitions-len(parts), len(parts[0].Replicas), cluster.Brokers, false, -1, -1, len(parts))
				if err != nil {
					return err
				}
				req.NewAssignments[n] = a
			}
		}
		res, err := svc.Alter(ctx, req, current)
		if err != nil {
			return err
		}
		switch {
		case format == "json" || format == "yaml":
			return output.Print(r.f.IO, output.Format(format), res)
		case dry:
			for _, a := range res {
				fmt.Fprintf(r.out, "Dry run: topic %s would go from %d to %d partition(s) (validated by the broker; nothing was changed).\n", a.Topic, a.OldPartitions, a.NewPartitions)
			}
		}
		return nil
	}}, nil
}

func (r *runner) prepareDelete() (*action, error) {
	topic, err := r.p.single("topic")
	if err != nil {
		return nil, err
	}
	if _, err := topics.NewFilter(*topic); err != nil {
		return nil, err
	}
	dry := r.p.has("dry-run")
	return &action{run: func(ctx context.Context, r *runner, svc *topics.Service, format string) error {
		names, _, err := svc.ListTopics(ctx, topic, r.p.has("exclude-internal"))
		if err != nil {
			return err
		}
		if len(names) == 0 && !r.p.has("if-exists") && *topic != "" {
			return notFound(topic)
		}
		if dry {
			if format == "json" || format == "yaml" {
				return output.Print(r.f.IO, output.Format(format), map[string]any{"dry_run": true, "delete": nonNilStrings(names)})
			}
			for _, n := range names {
				fmt.Fprintf(r.out, "Dry run: topic %s would be deleted (nothing was changed).\n", n)
			}
			return nil
		}
		if err := svc.Delete(ctx, names); err != nil {
			return err
		}
		if format == "json" || format == "yaml" {
			return output.Print(r.f.IO, output.Format(format), map[string]any{"deleted": nonNilStrings(names)})
		}
		return nil
	}}, nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (r *runner) prepareDescribe() (*action, error) {
	p := r.p
	topicID, err := p.single("topic-id")
	if err != nil {
		return nil, err
	}
	var id *[16]byte
	if topicID != nil {
		v, err := topics.ParseTopicID(*topicID)
		if err != nil {
			return nil, err
		}
		if v != ([16]byte{}) {
			id = &v
		}
	}
	topic, err := p.single("topic")
	if err != nil {
		return nil, err
	}
	if id == nil && topic != nil {
		if _, err := topics.NewFilter(*topic); err != nil {
			return nil, err
		}
	}
	limit, err := p.integer("partition-size-limit-per-response")
	if err != nil {
		return nil, err
	}
	o := topics.DescribeOptions{
		UnderReplicated:     p.has("under-replicated-partitions"),
		Unavailable:         p.has("unavailable-partitions"),
		UnderMinISR:         p.has("under-min-isr-partitions"),
		AtMinISR:            p.has("at-min-isr-partitions"),
		TopicsWithOverrides: p.has("topics-with-overrides"),
	}
	if limit != nil {
		o.PartitionLimit = int32(*limit)
	}
	return &action{run: func(ctx context.Context, r *runner, svc *topics.Service, format string) error {
		o.Wide = format == "wide"
		o.RawBytes = p.has("bytes")
		excl := p.has("exclude-internal")
		var names []string
		var cluster *topics.Cluster
		var err error
		if id != nil {
			cluster, err = svc.Metadata(ctx)
			if err != nil {
				return err
			}
			for n, t := range cluster.Topics {
				if t.TopicID == *id && !(excl && t.IsInternal) {
					names = append(names, n)
				}
			}
			o.ByID = true
			if len(names) == 0 && !p.has("if-exists") {
				return fmt.Errorf("TopicId '%s' does not exist as expected", topics.TopicIDString(*id))
			}
		} else {
			names, cluster, err = svc.ListTopics(ctx, topic, excl)
			if err != nil {
				return err
			}
			if len(names) == 0 && topic != nil && *topic != "" && !p.has("if-exists") {
				return notFound(topic)
			}
		}
		d, err := svc.Describe(ctx, names, cluster, o)
		if err != nil {
			return err
		}
		return r.print(format, d)
	}}, nil
}

// complete offers topic names from the cluster after --topic.
func complete(ctx context.Context, f *cmdutil.Factory, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 0 || args[len(args)-1] != "--topic" {
		if strings.HasPrefix(toComplete, "--") {
			var out []string
			for _, s := range parser.Specs() {
				if strings.HasPrefix("--"+s.Name, toComplete) {
					out = append(out, "--"+s.Name)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveDefault
	}
	p, _ := parseArgs(args[:len(args)-1])
	ov := config.Overrides{}
	if p != nil {
		if bs, _ := p.single("bootstrap-server"); bs != nil {
			ov.Bootstrap = *bs
		}
		if cc, _ := p.single("command-config"); cc != nil {
			ov.CommandConfig = *cc
		}
	}
	conn, err := f.Connection(ov)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	cl, err := kafka.NewClient(conn, kafka.Admin, kafka.Options{})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer cl.Close()
	if err := cl.Connect(ctx); err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	svc := &topics.Service{Client: cl.Client, Admin: cl.Admin()}
	names, _, err := svc.ListTopics(ctx, nil, false)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, toComplete) {
			out = append(out, n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
