package configs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/configs"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kerr"
)

// NewNativeCmd builds the native `kbox configs` tree.
func NewNativeCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "configs",
		Short: short,
	}
	cmd.CompletionOptions.DisableDefaultCmd = true
	cmd.AddCommand(newGetCmd(f), newSetCmd(f, false), newSetCmd(f, true), newDiffCmd(f), newExplainCmd(f))
	return cmd
}

var nativeFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML}}

// target is the resource selection of a native command.
type target struct {
	topics         []string
	brokers        []string
	brokerDefaults bool
}

func (t *target) register(cmd *cobra.Command, many bool) {
	fl := cmd.Flags()
	if many {
		fl.StringArrayVar(&t.topics, "topic", nil, "topic name (twice to compare two topics)")
		fl.StringArrayVar(&t.brokers, "broker", nil, "broker id (twice to compare two brokers)")
	} else {
		fl.StringArrayVar(&t.topics, "topic", nil, "topic name")
		fl.StringArrayVar(&t.brokers, "broker", nil, "broker id")
	}
	fl.BoolVar(&t.brokerDefaults, "broker-defaults", false, "the cluster-wide broker defaults")
}

// resources checks the selection: one resource (max 1), or one or two of
// the same type (max 2).
func (t *target) resources(max int) ([]configs.Resource, error) {
	var out []configs.Resource
	for _, n := range t.topics {
		if err := configs.ValidateTopicName(n); err != nil {
			return nil, cmdutil.FlagErrorf("--topic %q: %v", n, err)
		}
		out = append(out, configs.Resource{Type: configs.Topic, Name: n})
	}
	for _, b := range t.brokers {
		if _, err := strconv.ParseInt(b, 10, 32); err != nil {
			return nil, cmdutil.FlagErrorf("--broker %q: not a broker id", b)
		}
		out = append(out, configs.Resource{Type: configs.Broker, Name: b})
	}
	if t.brokerDefaults {
		out = append(out, configs.Resource{Type: configs.Broker, Name: ""})
	}
	if len(out) == 0 {
		return nil, cmdutil.FlagErrorf("one of --topic, --broker or --broker-defaults is required")
	}
	if len(out) > max {
		if max == 1 {
			return nil, cmdutil.FlagErrorf("give one of --topic, --broker or --broker-defaults, once")
		}
		return nil, cmdutil.FlagErrorf("give at most two resources to compare")
	}
	if len(out) == 2 && out[0].Type != out[1].Type {
		return nil, cmdutil.FlagErrorf("compare two topics or two brokers, not a topic and a broker")
	}
	return out, nil
}

// named turns an error about a topic or broker that does not exist into
// one naming it: "topic orders not found", "broker 9 not found" (the
// broker's UNKNOWN_TOPIC_OR_PARTITION, or a request to a broker id the
// cluster does not list, say neither). Of two resources (diff), the one
// that does not describe is named. The drop-in keeps Apache's texts.
func named(ctx context.Context, svc *configs.Service, rs []configs.Resource, err error) error {
	if err == nil {
		return nil
	}
	missing := func(r configs.Resource, err error) bool {
		switch {
		case r.Type == configs.Topic:
			return errors.Is(err, kerr.UnknownTopicOrPartition)
		case r.Type == configs.Broker && r.Name != "":
			ids, lerr := svc.BrokerIDs(ctx)
			return lerr == nil && !slices.Contains(ids, mustID(r.Name))
		}
		return false
	}
	for i, r := range rs {
		rerr := err
		if i > 0 || len(rs) > 1 {
			if _, rerr = svc.Describe(ctx, r, false); rerr == nil {
				continue
			}
		}
		if missing(r, rerr) {
			return fmt.Errorf("%s not found", configs.RefOf(r))
		}
	}
	return err
}

func mustID(s string) int32 {
	n, _ := strconv.ParseInt(s, 10, 32)
	return int32(n)
}

// runNative is the tail every native subcommand shares: connect, do the work,
// print its result in format (a result with a text form, explain's, prints
// that as the table). An error of the work is explained as a client error
// unless the broker answered it (a *configs.Error, an unknown key).
func runNative(cmd *cobra.Command, f *cmdutil.Factory, conn *cmdutil.ConnFlags, format string, do func(context.Context, *configs.Service) (any, error)) error {
	ctx := cmdutil.Context(cmd)
	cl, err := conn.Connect(ctx, f, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer cl.Close()
	v, err := do(ctx, &configs.Service{Client: cl.Client, Admin: cl.Admin()})
	if err != nil {
		var ce *configs.Error
		var ke *keyError
		switch {
		case errors.As(err, &ke):
			return err
		case errors.Is(err, configs.ErrUnknownKey):
			return unknownKeys(err, "")
		case errors.As(err, &ce):
			return err
		}
		return cl.Explain(err)
	}
	if t, ok := v.(interface{ Text() string }); ok && format == string(output.Table) {
		_, err := fmt.Fprint(f.IO.Out, t.Text())
		return err
	}
	return output.Print(f.IO, output.Format(format), v)
}

// keyError is a configs.UnknownKeysError in the native commands' words:
// the flag that names the other kind of resource, and what a change does
// about it.
type keyError struct {
	msg string
	err error
}

func (e *keyError) Error() string { return e.msg }
func (e *keyError) Unwrap() error { return e.err }

// unknownKeys words err, when it is an *UnknownKeysError, for the native
// commands (suffix follows the message); other errors are returned as
// they are.
func unknownKeys(err error, suffix string) error {
	var uk *configs.UnknownKeysError
	if !errors.As(err, &uk) {
		return err
	}
	msg := uk.Text(func(kind string) string {
		if kind == "topic" {
			return "it is a topic config: give --topic NAME"
		}
		return "it is a broker config: give --broker ID or --broker-defaults"
	})
	return &keyError{msg: msg + suffix, err: err}
}

func newGetCmd(f *cmdutil.Factory) *cobra.Command {
	var conn cmdutil.ConnFlags
	var t target
	var format string
	var all bool
	cmd := &cobra.Command{
		Use:   "get (--topic T | --broker ID | --broker-defaults) [KEY...]",
		Short: "Show configs of a topic or broker with the source of each value",
		Example: `  # the values set on a topic (not defaults)
  kbox configs get --topic orders
  # every config of broker 1 with its source, as JSON
  kbox configs get --broker 1 --all -o json
  # two keys
  kbox configs get --topic orders retention.ms cleanup.policy`,
		RunE: func(cmd *cobra.Command, keys []string) error {
			res, err := t.resources(1)
			if err != nil {
				return err
			}
			return runNative(cmd, f, &conn, format, func(ctx context.Context, svc *configs.Service) (any, error) {
				l, err := configs.Get(ctx, svc, res[0], keys, all)
				return l, named(ctx, svc, res, err)
			})
		},
	}
	t.register(cmd, false)
	cmd.Flags().BoolVar(&all, "all", false, "every config, defaults included (default: only values not at their default)")
	conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &format, nativeFormats)
	return cmd
}

func newSetCmd(f *cmdutil.Factory, unset bool) *cobra.Command {
	var conn cmdutil.ConnFlags
	var t target
	var format string
	var dry, allowUnknown bool
	use, sh, ex := "set (--topic T | --broker ID | --broker-defaults) KEY=VALUE...", "Set configs (incrementally: other configs are kept)", `  # retention of one day; the broker validates first with --dry-run
  kbox configs set --topic orders retention.ms=86400000 --dry-run
  kbox configs set --topic orders retention.ms=86400000 cleanup.policy=[compact,delete]
  # a cluster-wide broker default
  kbox configs set --broker-defaults log.cleaner.threads=2`
	if unset {
		use, sh, ex = "unset (--topic T | --broker ID | --broker-defaults) KEY...", "Remove dynamic configs (they fall back to their defaults)", `  kbox configs unset --topic orders retention.ms --dry-run
  kbox configs unset --broker 1 log.cleaner.threads`
	}
	cmd := &cobra.Command{
		Use: strings.Fields(use)[0] + " " + strings.Join(strings.Fields(use)[1:], " "), Short: sh, Example: ex,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := t.resources(1)
			if err != nil {
				return err
			}
			var ops []configs.Op
			if unset {
				for _, k := range args {
					ops = append(ops, configs.Op{Name: k, Op: configs.Delete})
				}
			} else {
				props := &configs.Props{}
				for _, a := range args {
					if err := configs.ParseAddConfig(props, a); err != nil {
						return cmdutil.FlagErrorf("%q: want KEY=VALUE (a list value in brackets: k=[a,b])", a)
					}
				}
				if err := configs.ValidateKeys(*props); err != nil {
					return cmdutil.FlagErrorf("%v", err)
				}
				for _, p := range *props {
					ops = append(ops, configs.Op{Name: p.Name, Value: p.Value, Op: configs.Set})
				}
			}
			var opts []configs.ChangeOption
			if allowUnknown {
				opts = append(opts, configs.AllowUnknown)
			}
			return runNative(cmd, f, &conn, format, func(ctx context.Context, svc *configs.Service) (any, error) {
				r, err := configs.Change(ctx, svc, res[0], ops, dry, opts...)
				if errors.Is(err, configs.ErrUnknownKey) {
					verb := "sets"
					if unset {
						verb = "deletes"
					}
					return nil, unknownKeys(err, fmt.Sprintf("; nothing was changed (--allow-unknown %s a config the broker does not know, such as a plugin's)", verb))
				}
				var ce *configs.Error
				if errors.As(err, &ce) {
					// the broker refused the change: say where
					return nil, fmt.Errorf("%s: %w", configs.RefOf(res[0]), err)
				}
				return r, err
			})
		},
	}
	t.register(cmd, false)
	cmd.Flags().BoolVar(&dry, "dry-run", false, "have the broker validate the change (validate-only request); change nothing")
	cmd.Flags().BoolVar(&allowUnknown, "allow-unknown", false, "accept config names the broker does not know (a plugin's); by default they are refused, with the nearest known names, and nothing is changed")
	conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &format, nativeFormats)
	return cmd
}

func newDiffCmd(f *cmdutil.Factory) *cobra.Command {
	var conn cmdutil.ConnFlags
	var t target
	var format string
	cmd := &cobra.Command{
		Use:   "diff (--topic T [--topic T2] | --broker ID [--broker ID2])",
		Short: "Show what differs from the defaults, or between two topics or brokers",
		Example: `  # what is not at its default on a topic
  kbox configs diff --topic orders
  # what differs between two topics
  kbox configs diff --topic orders --topic payments`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := t.resources(2)
			if err != nil {
				return err
			}
			return runNative(cmd, f, &conn, format, func(ctx context.Context, svc *configs.Service) (any, error) {
				d, err := configs.Compare(ctx, svc, res)
				return d, named(ctx, svc, res, err)
			})
		},
	}
	t.register(cmd, true)
	conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &format, nativeFormats)
	return cmd
}

func newExplainCmd(f *cmdutil.Factory) *cobra.Command {
	var conn cmdutil.ConnFlags
	var t target
	var format string
	cmd := &cobra.Command{
		Use:   "explain KEY [--topic T | --broker ID]",
		Short: "Explain a config: its documentation, type, default and current value, from the broker",
		Example: `  # a topic config (any topic: the broker documents the key)
  kbox configs explain retention.ms --topic orders
  # a broker config (broker 1 unless --broker is given)
  kbox configs explain log.cleaner.threads`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var res configs.Resource
			if len(t.topics)+len(t.brokers) > 0 || t.brokerDefaults {
				rs, err := t.resources(1)
				if err != nil {
					return err
				}
				res = rs[0]
			}
			return runNative(cmd, f, &conn, format, func(ctx context.Context, svc *configs.Service) (any, error) {
				if res.Type == 0 {
					ids, err := svc.BrokerIDs(ctx)
					if err != nil {
						return nil, err
					}
					if len(ids) == 0 {
						return nil, errors.New("the cluster lists no broker")
					}
					res = configs.Resource{Type: configs.Broker, Name: strconv.Itoa(int(ids[0]))}
				}
				e, err := configs.ExplainKey(ctx, svc, res, args[0])
				return e, named(ctx, svc, []configs.Resource{res}, err)
			})
		},
	}
	t.register(cmd, false)
	conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &format, nativeFormats)
	return cmd
}
