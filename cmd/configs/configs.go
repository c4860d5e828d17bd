// Package configs is the kafka-configs applet: a drop-in for Apache's
// kafka-configs.sh (ConfigCommand of Kafka 4.4) for every entity type, and
// the native `kbox configs get|set|unset|diff|explain` commands.
//
// Deliberate differences from Apache's tool:
//   - Where Apache prints "Error while executing config command with args
//     '...'" and a Java stack trace, kbox prints the same first line and one
//     line with the cause. In that echo of the arguments, and in the
//     "Invalid credential property" message, whatever follows "password="
//     (up to the closing ']') is printed as "<redacted>": kbox never prints
//     a SCRAM password.
//   - --add-config values are parsed, and entity combinations checked,
//     before connecting (Apache connects first), so they fail the same way
//     whether or not the cluster is reachable.
//   - --bootstrap-controller is taken as the bootstrap list and spoken to
//     like brokers (not tested against controller listeners).
package configs

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/configs"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/twmb/franz-go/pkg/kerr"
)

// apacheOptions is the option table jopt-simple prints for ConfigCommand
// of Kafka 4.4.0, captured from the real tool.
//
//go:embed apache_options.txt
var apacheOptions string

const helpMessage = "This tool helps to manipulate and describe entity config for a topic, client, user, broker, ip, client-metrics or group"

const short = "Describe or change the configs of topics, brokers, loggers, clients, users, IPs, client-metrics and groups"

// Applet is the registry entry: `kafka-configs` and `kbox configs`.
var Applet = cmdutil.Applet{Kind: cmdutil.Apache, Name: "kafka-configs", Alias: "configs", Short: short, Run: Run, Native: NewNativeCmd,
	ConnOptions: []string{"bootstrap-server", "bootstrap-controller"}}

type runner struct {
	f    *cmdutil.Factory
	p    *parsed
	args []string
	out  io.Writer
	err  io.Writer
}

// tool is kafka-configs' part of the drop-in prologue.
var tool = cmdutil.ApacheTool{Title: helpMessage, Options: apacheOptions}

func (r *runner) usage(msg string) error { return tool.Usage(r.f, msg) }

// fail prints an error as ConfigCommand.main does: the message alone for
// argument and config errors, otherwise its generic line (Apache follows
// it with a Java stack trace; kbox with the cause on one line).
func (r *runner) fail(err error) error {
	var ae *argError
	var ue *usageError
	switch {
	case errors.As(err, &ue):
		return r.usage(ue.msg)
	case errors.As(err, &ae):
		fmt.Fprintln(r.err, ae.msg)
	case errors.Is(err, kerr.UnsupportedVersion):
		fmt.Fprintln(r.err, err.Error())
	default:
		// Apache echoes the arguments; kbox never echoes a password.
		fmt.Fprintf(r.err, "Error while executing config command with args '%s'\n", configs.RedactPasswords(strings.Join(r.args, " ")))
		fmt.Fprintln(r.err, causeLine(err))
	}
	return cmdutil.Exit(1)
}

// causeLine is the one line kbox prints where Apache prints the stack
// trace of an unexpected error.
func causeLine(err error) string {
	var ke *kerr.Error
	var ce *configs.Error
	if errors.As(err, &ce) || errors.As(err, &ke) {
		return "Caused by: " + err.Error()
	}
	return err.Error()
}

// Run executes kafka-configs with Apache's argv (`kbox configs get ...` is
// the native tree, NewNativeCmd, which the command layer runs).
func Run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	r := &runner{f: f, args: args, out: f.IO.Out, err: f.IO.ErrOut}
	s, err := parser.Parse(args)
	if done, err := tool.Prologue(f, args, err, s.Has); done {
		return err
	}
	r.p = &parsed{s}
	if err := r.p.checkArgs(); err != nil {
		return r.fail(err)
	}
	if err := r.run(ctx); err != nil {
		var ee *cmdutil.ExitError
		if errors.As(err, &ee) {
			return err
		}
		return r.fail(err)
	}
	return nil
}

// alteration is everything --alter asks for, parsed and checked before
// connecting.
type alteration struct {
	add *configs.Props
	del []string
}

func (r *runner) run(ctx context.Context) error {
	p := r.p
	bs, cc, err := tool.ConnArgs(p.Set)
	if je := (*jopt.Error)(nil); errors.As(err, &je) {
		return &argError{msg: je.Msg}
	} else if err != nil {
		return err
	}
	if p.Has("bootstrap-controller") {
		if bs, _, err = p.single("bootstrap-controller"); err != nil {
			return err
		}
	}
	types := p.entityTypes()
	names, err := p.entityNames()
	if err != nil {
		return err
	}
	if p.Has("alter") && len(types) != len(names) {
		return &argError{msg: errNoEntity.Error()}
	}
	var alt *alteration
	if p.Has("alter") {
		if alt, err = r.parseAlteration(); err != nil {
			return err
		}
		if err := checkAlteration(types, names, alt); err != nil {
			return err
		}
	}
	cl, err := r.f.Connect(ctx, config.Overrides{Bootstrap: bs, CommandConfig: cc}, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer cl.Close()
	svc := &configs.Service{Client: cl.Client, Admin: cl.Admin()}
	if alt != nil {
		err = r.alter(ctx, svc, types, names, alt)
	} else {
		err = r.describe(ctx, svc, types, names)
	}
	if err != nil {
		var ae *argError
		if errors.As(err, &ae) {
			return err
		}
		var ce *configs.Error
		if errors.As(err, &ce) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return cl.Explain(err)
	}
	return nil
}

// parseAlteration is parseConfigsToBeAdded and parseConfigsToBeDeleted.
func (r *runner) parseAlteration() (*alteration, error) {
	p := r.p
	alt := &alteration{add: &configs.Props{}}
	if file, ok, err := p.single("add-config-file"); err != nil {
		return nil, err
	} else if ok {
		props, err := config.LoadPropertiesFile(file)
		if err != nil {
			if os.IsNotExist(errors.Unwrap(err)) || os.IsNotExist(err) {
				return nil, fmt.Errorf("%s", file)
			}
			return nil, err
		}
		keys := props.Keys()
		// Properties.putAll: the loaded entries in hash order.
		for _, k := range javafmt.HashMapOrder(keys, -1) {
			v, _ := props.Get(k)
			alt.add.Set(k, v)
		}
	}
	if v, ok, err := p.single("add-config"); err != nil {
		return nil, err
	} else if ok {
		if err := configs.ParseAddConfig(alt.add, v); err != nil {
			return nil, &argError{msg: err.Error()}
		}
	}
	if err := configs.ValidateKeys(*alt.add); err != nil {
		return nil, &argError{msg: err.Error()}
	}
	alt.del = p.deleteConfigs()
	return alt, nil
}

// hashSetJoin joins names in the order of a HashSet<String> filled with
// them (the order Apache lists unexpected names in).
func hashSetJoin(names []string, sep string) string {
	return strings.Join(javafmt.HashMapOrder(names, -1), sep)
}

// checkAlteration is the part of alterConfig that needs no cluster: which
// configs an entity type accepts.
func checkAlteration(types, names []string, alt *alteration) error {
	typ := types[0]
	switch typ {
	case typeUsers, typeClients:
		var unknownAdd, scramAdd, unknownDel, scramDel []string
		hasQuotaAdd, hasQuotaDel := false, false
		for _, k := range alt.add.Names() {
			switch {
			case quotaConfigs[k]:
				hasQuotaAdd = true
			case configs.IsScram(k):
				scramAdd = append(scramAdd, k)
			default:
				unknownAdd = append(unknownAdd, k)
			}
		}
		for _, k := range alt.del {
			switch {
			case quotaConfigs[k]:
				hasQuotaDel = true
			case configs.IsScram(k):
				scramDel = append(scramDel, k)
			default:
				unknownDel = append(unknownDel, k)
			}
		}
		if typ == typeClients || len(types) == 2 {
			if len(unknownAdd) > 0 || len(scramAdd) > 0 {
				return argErrorf("Only quota configs can be added for '%s' using --bootstrap-server. Unexpected config names: %s", typeClients, hashSetJoin(append(unknownAdd, scramAdd...), ","))
			}
			if len(unknownDel) > 0 || len(scramDel) > 0 {
				return argErrorf("Only quota configs can be deleted for '%s' using --bootstrap-server. Unexpected config names: %s", typeClients, hashSetJoin(append(unknownDel, scramDel...), ","))
			}
		} else {
			if len(unknownAdd) > 0 {
				return argErrorf("Only quota and SCRAM credential configs can be added for '%s' using --bootstrap-server. Unexpected config names: %s", typeUsers, hashSetJoin(unknownAdd, ","))
			}
			if len(unknownDel) > 0 {
				return argErrorf("Only quota and SCRAM credential configs can be deleted for '%s' using --bootstrap-server. Unexpected config names: %s", typeUsers, hashSetJoin(unknownDel, ","))
			}
			if len(scramAdd) > 0 || len(scramDel) > 0 {
				if contains(names, "") {
					return argErrorf("The use of --entity-default or --user-defaults is not allowed with User SCRAM Credentials using --bootstrap-server.")
				}
				if hasQuotaAdd || hasQuotaDel {
					return argErrorf("Cannot alter both quota and SCRAM credential configs simultaneously for '%s' using --bootstrap-server.", typeUsers)
				}
			}
		}
		if hasQuotaAdd || hasQuotaDel {
			return checkQuotaValues(alt)
		}
		for _, k := range alt.add.Names() {
			v, _ := alt.add.Get(k)
			if _, err := configs.ParseScram(k, v); err != nil {
				return &argError{msg: err.Error()}
			}
		}
	case typeIPs:
		var unknown []string
		for _, k := range append(alt.add.Names(), alt.del...) {
			if k != ipQuotaConfig && !contains(unknown, k) {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			return argErrorf("Only connection quota configs can be added for '%s' using --bootstrap-server. Unexpected config names: %s", typeIPs, hashSetJoin(unknown, ", "))
		}
		return checkQuotaValues(alt)
	}
	return nil
}

func (r *runner) alter(ctx context.Context, svc *configs.Service, types, names []string, alt *alteration) error {
	typ, name := types[0], names[0]
	switch typ {
	case typeTopics, typeClientMetrics, typeBrokers, typeGroups:
		res, err := resource(typ, name)
		if err != nil {
			return err
		}
		// Kafka 4.4 leaves deletions of configs that are not set to the
		// broker (which ignores them).
		if err := svc.Alter(ctx, res, ops(alt), false); err != nil {
			return err
		}
	case typeBrokerLoggers:
		res := configs.Resource{Type: configs.BrokerLogger, Name: name}
		old, err := svc.Describe(ctx, res, false)
		if err != nil {
			return err
		}
		valid := map[string]bool{}
		for _, e := range old {
			valid[e.Name] = true
		}
		var invalid []string
		for _, d := range alt.del {
			if !valid[d] {
				invalid = append(invalid, d)
			}
		}
		for _, k := range javafmt.HashMapOrder(alt.add.Names(), -1) {
			if !valid[k] {
				invalid = append(invalid, k)
			}
		}
		if len(invalid) > 0 {
			return argErrorf("Invalid broker logger(s): %s", strings.Join(invalid, ","))
		}
		if err := svc.Alter(ctx, res, ops(alt), false); err != nil {
			return err
		}
	case typeUsers, typeClients, typeIPs:
		quota := typ == typeIPs
		for _, k := range append(alt.add.Names(), alt.del...) {
			if quotaConfigs[k] {
				quota = true
			}
		}
		if quota {
			if err := alterQuotas(ctx, svc, types, names, alt); err != nil {
				return err
			}
			break
		}
		var ups []configs.ScramUpsert
		for _, k := range alt.add.Names() {
			v, _ := alt.add.Get(k)
			u, err := configs.ParseScram(k, v)
			if err != nil {
				return &argError{msg: err.Error()}
			}
			ups = append(ups, u)
		}
		if err := svc.AlterScram(ctx, name, alt.del, ups); err != nil {
			return err
		}
	default:
		return argErrorf("Unsupported entity type: %s", typ)
	}
	if name != "" {
		fmt.Fprintf(r.out, "Completed updating config for %s %s.\n", typ[:len(typ)-1], name)
	} else {
		fmt.Fprintf(r.out, "Completed updating default config for %s in the cluster.\n", typ)
	}
	return nil
}

// ops is the incremental alteration: deletions first, then sets.
func ops(alt *alteration) []configs.Op {
	var out []configs.Op
	for _, d := range alt.del {
		out = append(out, configs.Op{Name: d, Op: configs.Delete})
	}
	for _, p := range *alt.add {
		out = append(out, configs.Op{Name: p.Name, Value: p.Value, Op: configs.Set})
	}
	return out
}

// resource maps an entity type and name to a config resource, with the
// checks getResourceConfig makes.
func resource(typ, name string) (configs.Resource, error) {
	switch typ {
	case typeTopics:
		if name != "" {
			if err := configs.ValidateTopicName(name); err != nil {
				return configs.Resource{}, err
			}
		}
		return configs.Resource{Type: configs.Topic, Name: name}, nil
	case typeBrokers:
		return configs.Resource{Type: configs.Broker, Name: name}, nil
	case typeBrokerLoggers:
		return configs.Resource{Type: configs.BrokerLogger, Name: name}, nil
	case typeClientMetrics:
		return configs.Resource{Type: configs.ClientMetrics, Name: name}, nil
	case typeGroups:
		return configs.Resource{Type: configs.Group, Name: name}, nil
	}
	return configs.Resource{}, argErrorf("Invalid entity type: %s", typ)
}

func (r *runner) describe(ctx context.Context, svc *configs.Service, types, names []string) error {
	typ := types[0]
	switch typ {
	case typeTopics, typeBrokers, typeBrokerLoggers, typeClientMetrics, typeGroups:
		var name *string
		if len(names) > 0 {
			name = &names[0]
		}
		return r.describeResources(ctx, svc, typ, name, r.p.Has("all"))
	case typeUsers, typeClients, typeIPs:
		qs, err := svc.DescribeQuotas(ctx, quotaFilter(types, names))
		if err != nil {
			return err
		}
		if err := qs.WriteApache(r.out); err != nil {
			return err
		}
		if typ == typeIPs || contains(types, typeClients) || contains(names, "") {
			return nil
		}
		users, err := svc.DescribeScram(ctx, names)
		if err != nil {
			return err
		}
		return configs.WriteScramApache(r.out, users)
	}
	return argErrorf("Invalid entity type: %s", typ)
}

func (r *runner) notFound(typ, name string) {
	fmt.Fprintf(r.out, "The %s '%s' doesn't exist and doesn't have dynamic config.\n", typ[:len(typ)-1], name)
}

func (r *runner) describeResources(ctx context.Context, svc *configs.Service, typ string, name *string, all bool) error {
	if !all && name != nil {
		n := *name
		switch typ {
		case typeTopics:
			if err := configs.ValidateTopicName(n); err != nil {
				return &argError{msg: err.Error()}
			}
			ts, err := svc.ListTopics(ctx)
			if err != nil {
				return err
			}
			if !contains(ts, n) {
				r.notFound(typ, n)
				return nil
			}
		case typeBrokers, typeBrokerLoggers:
			ids, err := svc.BrokerIDs(ctx)
			if err != nil {
				return err
			}
			found := n == ""
			for _, id := range ids {
				if fmt.Sprint(id) == n {
					found = true
				}
			}
			if !found {
				r.notFound(typ, n)
				return nil
			}
		case typeClientMetrics:
			rs, err := svc.ListConfigResources(ctx, configs.ClientMetrics)
			if err != nil {
				return err
			}
			if !contains(rs, n) {
				r.notFound(typ, n)
				return nil
			}
		case typeGroups:
			gs, err := svc.ListGroups(ctx)
			if err != nil {
				return err
			}
			rs, rerr := svc.ListConfigResources(ctx, configs.Group)
			noRes := false
			switch {
			case rerr == nil:
				noRes = !contains(rs, n)
			case errors.Is(rerr, kerr.UnsupportedVersion) || errors.Is(rerr, kerr.ClusterAuthorizationFailed):
			default:
				return rerr
			}
			if !contains(gs, n) && noRes {
				r.notFound(typ, n)
				return nil
			}
		}
	}
	var entities []string
	if name != nil {
		entities = []string{*name}
	} else {
		switch typ {
		case typeTopics:
			ts, err := svc.ListTopics(ctx)
			if err != nil {
				return err
			}
			entities = javafmt.HashMapOrder(ts, -1)
		case typeBrokers, typeBrokerLoggers:
			ids, err := svc.BrokerIDs(ctx)
			if err != nil {
				return err
			}
			for _, id := range ids {
				entities = append(entities, fmt.Sprint(id))
			}
			entities = append(entities, "")
		case typeClientMetrics:
			rs, err := svc.ListConfigResources(ctx, configs.ClientMetrics)
			if err != nil {
				return err
			}
			entities = rs
		case typeGroups:
			gs, err := svc.ListGroups(ctx)
			if err != nil {
				return err
			}
			gs = javafmt.HashMapOrder(gs, -1)
			rs, rerr := svc.ListConfigResources(ctx, configs.Group)
			if rerr != nil && !errors.Is(rerr, kerr.UnsupportedVersion) && !errors.Is(rerr, kerr.ClusterAuthorizationFailed) {
				return rerr
			}
			entities = javafmt.HashMapOrder(append(gs, rs...), javafmt.HashSetCopyCapacity(len(gs)))
		}
	}
	for _, e := range entities {
		var header string
		if e == "" {
			header = fmt.Sprintf("Default configs for %s in the cluster are:", typ)
		} else {
			src := "Dynamic"
			if all {
				src = "All"
			}
			header = fmt.Sprintf("%s configs for %s %s are:", src, typ[:len(typ)-1], e)
		}
		if _, err := fmt.Fprintln(r.out, header); err != nil {
			return err
		}
		res, err := resource(typ, e)
		if err != nil {
			return err
		}
		if typ == typeBrokerLoggers && e == "" {
			// getResourceConfig skips the broker id check for "".
			res.Name = ""
		}
		entries, err := svc.Describe(ctx, res, false)
		if err != nil {
			return err
		}
		dyn := configs.DynamicSource(res)
		var shown []configs.Entry
		for _, en := range entries {
			if all || dyn == "" || en.Source == dyn {
				shown = append(shown, en)
			}
		}
		if err := configs.WriteEntriesApache(r.out, shown); err != nil {
			return err
		}
	}
	return nil
}
