package acls

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/acls"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kgo"
)

func sortStrings(ss []string) { sort.Strings(ss) }

var nativeFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML}}

// NewNativeCmd builds the native `kbox acls` tree.
func NewNativeCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "acls", Short: short}
	cmd.CompletionOptions.DisableDefaultCmd = true
	cmd.AddCommand(newListCmd(f), newCheckCmd(f), newExportCmd(f), newApplyCmd(f))
	return cmd
}

// withClient connects with the command's flags and runs do.
func withClient(cmd *cobra.Command, f *cmdutil.Factory, conn *cmdutil.ConnFlags, do func(context.Context, *kafka.Client) error) error {
	ctx := cmdutil.Context(cmd)
	cl, err := conn.Connect(ctx, f, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := do(ctx, cl); err != nil {
		if _, ok := err.(*acls.APIError); ok {
			return err
		}
		return cl.Explain(err)
	}
	return nil
}

func newListCmd(f *cmdutil.Factory) *cobra.Command {
	var conn cmdutil.ConnFlags
	var format, principal, rtype string
	cmd := &cobra.Command{
		Use:   "list [--resource-type T] [--principal P]",
		Short: "List every ACL of the cluster, one a row",
		Example: `  kbox acls list
  kbox acls list --resource-type topic --principal User:alice -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt := ""
			if rtype != "" {
				var err error
				if rt, err = acls.ParseResourceType(rtype); err != nil {
					return cmdutil.FlagErrorf("--resource-type: %v", err)
				}
			}
			if principal != "" {
				if _, err := acls.ParsePrincipal(principal); err != nil {
					return cmdutil.FlagErrorf("--principal: %v", err)
				}
			}
			return withClient(cmd, f, &conn, func(ctx context.Context, cl *kafka.Client) error {
				bs, err := acls.Describe(ctx, cl.Client, acls.Filter{Pattern: acls.Pattern{ResourceType: rt}, AnyName: true, Entry: acls.Entry{Principal: principal}})
				if err != nil {
					return err
				}
				return output.Print(f.IO, output.Format(format), &acls.List{ACLs: acls.NewDocument(bs).ACLs})
			})
		},
	}
	cmd.Flags().StringVar(&rtype, "resource-type", "", "only ACLs on this resource type (topic, group, cluster, transactional-id, delegation-token, user)")
	cmd.Flags().StringVar(&principal, "principal", "", "only ACLs of this principal (TYPE:NAME)")
	conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &format, nativeFormats)
	return cmd
}

// parseResource reads RESOURCE: TYPE:NAME (topic:orders, group:g,
// transactional-id:tx, user:User:bob) or cluster.
func parseResource(s string) (string, string, error) {
	t, name, ok := strings.Cut(s, ":")
	rt, err := acls.ParseResourceType(t)
	if err != nil {
		return "", "", err
	}
	if rt == "CLUSTER" {
		if ok && name != acls.ClusterName {
			return "", "", fmt.Errorf("the cluster resource has no name but %s", acls.ClusterName)
		}
		return rt, acls.ClusterName, nil
	}
	if !ok || name == "" {
		return "", "", fmt.Errorf("resource %q: give TYPE:NAME (topic:orders) or cluster", s)
	}
	return rt, name, nil
}

func newCheckCmd(f *cmdutil.Factory) *cobra.Command {
	var conn cmdutil.ConnFlags
	var format, host, superUsers string
	var allowIfNoACL bool
	cmd := &cobra.Command{
		Use:   "check PRINCIPAL OPERATION RESOURCE [--host H]",
		Short: "Decide whether a principal may perform an operation, as the broker's authorizer would",
		Long: `Decide whether PRINCIPAL may perform OPERATION on RESOURCE from --host under
StandardAuthorizer's rules, from the cluster's ACLs and broker configs: a
principal in super.users is allowed; a matching DENY ACL wins over any ALLOW;
a matching ALLOW (literal, prefixed or wildcard name, the principal or User:*,
the host or *, the operation, ALL, or one implying it: READ, WRITE, DELETE and
ALTER imply DESCRIBE, ALTER_CONFIGS implies DESCRIBE_CONFIGS) allows; with no
ACL on the resource at all allow.everyone.if.no.acl.found decides. Without
--host only ACLs for every host (*) are taken. super.users and
allow.everyone.if.no.acl.found are taken from --super-users and
--allow-if-no-acl, else from a broker's configs when it shows them (Kafka
4.4's brokers hide both: a warning says so, and the answer leaves super users
out and takes allow.everyone.if.no.acl.found as false). Prints ALLOWED or DENIED and the ACLs that decide; the
exit status is 0 either way.`,
		Example: `  kbox acls check User:alice write topic:orders --host 10.1.2.3
  kbox acls check User:bob read group:payments -o json
  kbox acls check User:svc IdempotentWrite cluster`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 3 {
				return cmdutil.FlagErrorf("check takes PRINCIPAL OPERATION RESOURCE (%d arguments given)", len(args))
			}
			if _, err := acls.ParsePrincipal(args[0]); err != nil {
				return cmdutil.FlagErrorf("%v", err)
			}
			op, err := acls.ParseOperationName(args[1])
			if err != nil {
				return cmdutil.FlagErrorf("%v", err)
			}
			rt, name, err := parseResource(args[2])
			if err != nil {
				return cmdutil.FlagErrorf("%v", err)
			}
			req := acls.Request{Principal: args[0], Host: host, Operation: op, Type: rt, Name: name}
			var settings acls.Settings
			if cmd.Flags().Changed("super-users") {
				settings.SuperUsers = append([]string{}, acls.ParseSuperUsers(superUsers)...)
			}
			if cmd.Flags().Changed("allow-if-no-acl") {
				settings.AllowIfNoACL = &allowIfNoACL
			}
			if _, err := (&acls.Authorizer{}).Check(req); err != nil {
				return cmdutil.FlagErrorf("%v", err)
			}
			return withClient(cmd, f, &conn, func(ctx context.Context, cl *kafka.Client) error {
				res, err := acls.CheckCluster(ctx, cl.Client, req, settings)
				if err != nil {
					return err
				}
				if !res.SuperUsersRead {
					f.Warn("super.users is not shown by the broker configs and --super-users was not given: the answer leaves super users out")
				}
				if !res.AllowIfNoACLRead {
					f.Warn("allow.everyone.if.no.acl.found is not shown by the broker configs and --allow-if-no-acl was not given: taken as false (its default)")
				}
				return output.Print(f.IO, output.Format(format), res)
			})
		},
	}
	cmd.Flags().StringVar(&host, "host", "", "the client's IP address (default: any host: only ACLs for * are taken)")
	cmd.Flags().StringVar(&superUsers, "super-users", "", "the brokers' super.users (User:a;User:b), when their configs do not show it")
	cmd.Flags().BoolVar(&allowIfNoACL, "allow-if-no-acl", false, "the brokers' allow.everyone.if.no.acl.found, when their configs do not show it")
	conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &format, nativeFormats)
	return cmd
}

func newExportCmd(f *cmdutil.Factory) *cobra.Command {
	var conn cmdutil.ConnFlags
	var file string
	cmd := &cobra.Command{
		Use:   "export [--file F]",
		Short: "Write every ACL of the cluster as a YAML document (for git; apply reads it)",
		Example: `  kbox acls export > acls.yaml
  kbox acls export --file acls.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withClient(cmd, f, &conn, func(ctx context.Context, cl *kafka.Client) error {
				bs, err := acls.All(ctx, cl.Client)
				if err != nil {
					return err
				}
				if file == "" {
					return output.WriteYAML(f.IO.Out, acls.NewDocument(bs))
				}
				var b strings.Builder
				if err := output.WriteYAML(&b, acls.NewDocument(bs)); err != nil {
					return err
				}
				return os.WriteFile(file, []byte(b.String()), 0o644)
			})
		},
	}
	cmd.Flags().StringVar(&file, "file", "", "write the document to this file (default: stdout)")
	conn.Register(cmd, true)
	return cmd
}

func newApplyCmd(f *cmdutil.Factory) *cobra.Command {
	var conn cmdutil.ConnFlags
	var format string
	var dry bool
	cmd := &cobra.Command{
		Use:   "apply FILE [--dry-run]",
		Short: "Make the cluster's ACLs those of a YAML document: add what it adds, remove what it lacks",
		Long: `Read FILE (the document kbox acls export writes; - for stdin), compare it with
the cluster's ACLs and print the diff (- removed, + added). Without --dry-run
the ACLs the diff adds are created and those it removes are deleted, each by
an exact filter, so nothing else changes. The whole file is checked before any
request.`,
		Example: `  kbox acls apply acls.yaml --dry-run
  kbox acls apply acls.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdutil.FlagErrorf("apply takes one FILE (- for stdin), %d arguments given", len(args))
			}
			data, err := readInput(f, args[0])
			if err != nil {
				return err
			}
			doc, err := acls.ParseDocument(data)
			if err != nil {
				return cmdutil.FlagErrorf("%s: %v", args[0], err)
			}
			return withClient(cmd, f, &conn, func(ctx context.Context, cl *kafka.Client) error {
				return apply(ctx, f, cl.Client, doc, dry, format)
			})
		},
	}
	cmd.Flags().BoolVar(&dry, "dry-run", false, "print the diff only")
	conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &format, nativeFormats)
	return cmd
}

func readInput(f *cmdutil.Factory, path string) ([]byte, error) {
	if path == "-" {
		var b strings.Builder
		buf := make([]byte, 32<<10)
		for {
			n, err := f.IO.In.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				return []byte(b.String()), nil
			}
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", path, err)
	}
	return data, nil
}

func apply(ctx context.Context, f *cmdutil.Factory, cl *kgo.Client, doc *acls.Document, dry bool, format string) error {
	current, err := acls.All(ctx, cl)
	if err != nil {
		return err
	}
	d := acls.Compute(current, doc)
	if format == string(output.Table) {
		if d.Empty() {
			fmt.Fprintln(f.IO.Out, "no changes: the cluster's ACLs are the document's")
		}
		for _, l := range d.Lines() {
			fmt.Fprintln(f.IO.Out, l)
		}
	} else if err := output.Print(f.IO, output.Format(format), d); err != nil {
		return err
	}
	if dry || d.Empty() {
		return nil
	}
	if err := acls.Create(ctx, cl, d.Add); err != nil {
		return err
	}
	var fs []acls.Filter
	for _, b := range d.Remove {
		fs = append(fs, acls.Exact(b))
	}
	_, err = acls.Delete(ctx, cl, fs)
	return err
}
