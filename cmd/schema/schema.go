// Package schema is `kbox schema`: subjects, versions and schemas of a
// Confluent-compatible Schema Registry; registering a schema (or checking
// it with --dry-run), the compatibility level, and deletes.
package schema

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/schemareg"
	"github.com/kboxdev/kbox/pkg/serde"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/sr"
)

// Applet is the `kbox schema` group.
var Applet = cmdutil.Applet{Kind: cmdutil.Group, Alias: "schema", Short: "Schema Registry: subjects, versions, register, compatibility, delete", New: NewCmd}

var formats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML}}

// NewCmd builds `kbox schema`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	var url string
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Schema Registry: subjects, versions, register, compatibility, delete",
		Long: `The Schema Registry is the profile's schema-registry (url, username with
password-env or password-file, or token-env/token-file for a bearer token, tls),
KBOX_SCHEMA_REGISTRY, or --schema-registry URL (which wins). Any
Confluent-compatible registry works (Confluent's, Apicurio's ccompat API,
Karapace, Redpanda's).`,
	}
	cmdutil.AddRegistryFlag(cmd, &url)
	cmd.AddCommand(newListCmd(f, &url), newVersionsCmd(f, &url), newShowCmd(f, &url),
		newRegisterCmd(f, &url), newCompatibilityCmd(f, &url), newDeleteCmd(f, &url))
	return cmd
}

// open resolves the registry; nothing is requested yet.
func open(f *cmdutil.Factory, url string) (*schemareg.Client, error) {
	conn, err := f.Registry(url)
	if err != nil {
		return nil, err
	}
	reg, err := serde.Open(conn)
	if err != nil {
		return nil, err
	}
	return schemareg.New(reg), nil
}

func newListCmd(f *cmdutil.Factory, url *string) *cobra.Command {
	var out string
	var deleted bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the subjects",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := open(f, *url)
			if err != nil {
				return err
			}
			l, err := c.Subjects(cmdutil.Context(cmd), deleted)
			if err != nil {
				return err
			}
			return output.Print(f.IO, output.Format(out), l)
		},
	}
	cmd.Flags().BoolVar(&deleted, "deleted", false, "include soft-deleted subjects")
	cmdutil.AddOutputFlag(f, cmd, &out, formats)
	return cmd
}

func newVersionsCmd(f *cmdutil.Factory, url *string) *cobra.Command {
	var out string
	var deleted bool
	cmd := &cobra.Command{
		Use:   "versions SUBJECT",
		Short: "List a subject's versions with their schema ids and types",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := open(f, *url)
			if err != nil {
				return err
			}
			l, err := c.Versions(cmdutil.Context(cmd), args[0], deleted)
			if err != nil {
				return err
			}
			return output.Print(f.IO, output.Format(out), l)
		},
	}
	cmd.Flags().BoolVar(&deleted, "deleted", false, "include soft-deleted versions")
	cmdutil.AddOutputFlag(f, cmd, &out, formats)
	return cmd
}

func newShowCmd(f *cmdutil.Factory, url *string) *cobra.Command {
	var out string
	var id int
	cmd := &cobra.Command{
		Use:   "show SUBJECT[:VERSION] | --id ID",
		Short: "Show a schema: a subject's version (the latest by default) or a schema id",
		Example: `  kbox schema show orders-value
  kbox schema show orders-value:3 -o json
  kbox schema show --id 42`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == cmd.Flags().Changed("id") {
				return cmdutil.FlagErrorf("give SUBJECT[:VERSION] or --id ID")
			}
			subject, version := "", 0
			if len(args) == 1 {
				var err error
				if subject, version, err = serde.ParseSubjectVersion(args[0]); err != nil {
					return &cmdutil.FlagError{Err: err}
				}
			} else if id <= 0 {
				return cmdutil.FlagErrorf("--id %d: must be positive", id)
			}
			c, err := open(f, *url)
			if err != nil {
				return err
			}
			ctx := cmdutil.Context(cmd)
			var v schemareg.SchemaView
			if subject != "" {
				v, err = c.Show(ctx, subject, version)
			} else {
				v, err = c.ShowID(ctx, id)
			}
			if err != nil {
				return err
			}
			if err := output.Print(f.IO, output.Format(out), v); err != nil {
				return err
			}
			if output.Format(out) == output.Table {
				fmt.Fprintln(f.IO.Out)
				fmt.Fprintln(f.IO.Out, prettySchema(v.Schema))
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&id, "id", 0, "show the schema with this id")
	cmdutil.AddOutputFlag(f, cmd, &out, formats)
	return cmd
}

// prettySchema indents a JSON schema (Avro, JSON Schema); a .proto is
// shown as it is.
func prettySchema(s string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(s), "", "  ") == nil {
		return b.String()
	}
	return strings.TrimRight(s, "\n")
}

type registerOptions struct {
	file   string
	typ    string
	refs   []string
	dryRun bool
	out    string
}

func newRegisterCmd(f *cmdutil.Factory, url *string) *cobra.Command {
	var o registerOptions
	cmd := &cobra.Command{
		Use:   "register SUBJECT --file FILE",
		Short: "Register a schema from a file (or check it with --dry-run)",
		Long: `Registers the schema in FILE under SUBJECT and prints its version and id (a
schema the subject already has gets its existing version back). The type comes
from --type, or from the file name: .avsc is Avro, .proto is Protobuf.

The schema is parsed first (with the schemas its references name), so a schema
kbox cannot read is refused before anything changes. --dry-run asks the registry
whether the schema is compatible with the subject's latest version under its
compatibility level, registers nothing, and exits 1 when it is not.`,
		Example: `  kbox schema register orders-value --file order.avsc
  kbox schema register orders-value --file order.proto \
      --reference common.proto=common.proto:1
  kbox schema register orders-value --file order-v2.avsc --dry-run`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return register(cmdutil.Context(cmd), f, *url, args[0], o)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.file, "file", "f", "", "the schema file (required)")
	fl.StringVar(&o.typ, "type", "", "avro, protobuf or json (JSON Schema); default from the file name")
	fl.StringArrayVar(&o.refs, "reference", nil, "a reference NAME=SUBJECT:VERSION (repeatable): the import path, $ref or type name it stands for")
	fl.BoolVar(&o.dryRun, "dry-run", false, "only check compatibility with the latest version; register nothing")
	cmdutil.AddOutputFlag(f, cmd, &o.out, formats)
	return cmd
}

func schemaType(file, typ string) (sr.SchemaType, error) {
	switch strings.ToLower(typ) {
	case "avro":
		return sr.TypeAvro, nil
	case "protobuf", "proto":
		return sr.TypeProtobuf, nil
	case "json", "json-schema":
		return sr.TypeJSON, nil
	case "":
		switch strings.ToLower(filepath.Ext(file)) {
		case ".avsc":
			return sr.TypeAvro, nil
		case ".proto":
			return sr.TypeProtobuf, nil
		}
		return 0, fmt.Errorf("cannot tell the schema type of %s from its name; give --type avro, protobuf or json", file)
	}
	return 0, fmt.Errorf("--type %q: want avro, protobuf or json", typ)
}

func parseReference(s string) (sr.SchemaReference, error) {
	name, target, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return sr.SchemaReference{}, fmt.Errorf("--reference %q: want NAME=SUBJECT:VERSION", s)
	}
	subject, version, err := serde.ParseSubjectVersion(target)
	if err != nil || version == 0 {
		return sr.SchemaReference{}, fmt.Errorf("--reference %q: want NAME=SUBJECT:VERSION with a version number", s)
	}
	return sr.SchemaReference{Name: name, Subject: subject, Version: version}, nil
}

func register(ctx context.Context, f *cmdutil.Factory, url, subject string, o registerOptions) error {
	if o.file == "" {
		return cmdutil.FlagErrorf("--file is required")
	}
	typ, err := schemaType(o.file, o.typ)
	if err != nil {
		return &cmdutil.FlagError{Err: err}
	}
	s := sr.Schema{Type: typ}
	for _, r := range o.refs {
		ref, err := parseReference(r)
		if err != nil {
			return &cmdutil.FlagError{Err: err}
		}
		s.References = append(s.References, ref)
	}
	text, err := os.ReadFile(o.file)
	if err != nil {
		return fmt.Errorf("--file: %w", err)
	}
	s.Schema = string(text)
	c, err := open(f, url)
	if err != nil {
		return err
	}
	if err := c.Compile(ctx, s); err != nil {
		return fmt.Errorf("%s: %w", o.file, err)
	}
	if o.dryRun {
		res, err := c.Check(ctx, subject, s)
		if err != nil {
			return err
		}
		if err := output.Print(f.IO, output.Format(o.out), res); err != nil {
			return err
		}
		if !res.Compatible {
			return cmdutil.Exit(cmdutil.ExitFailure)
		}
		return nil
	}
	res, err := c.Register(ctx, subject, s)
	if err != nil {
		return err
	}
	return output.Print(f.IO, output.Format(o.out), res)
}

func newCompatibilityCmd(f *cmdutil.Factory, url *string) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "compatibility",
		Aliases: []string{"compat"},
		Short:   "Get or set the compatibility level (of a subject, or the global one)",
	}
	var getOut string
	get := &cobra.Command{
		Use:   "get [SUBJECT]",
		Short: "Show the level in effect for SUBJECT (its own, else the global one), or the global level",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := open(f, *url)
			if err != nil {
				return err
			}
			subject := ""
			if len(args) == 1 {
				subject = args[0]
			}
			res, err := c.GetCompatibility(cmdutil.Context(cmd), subject)
			if err != nil {
				return err
			}
			return output.Print(f.IO, output.Format(getOut), res)
		},
	}
	cmdutil.AddOutputFlag(f, get, &getOut, formats)
	var setOut string
	var global bool
	set := &cobra.Command{
		Use:   "set LEVEL (SUBJECT | --global)",
		Short: "Set SUBJECT's level, or with --global the registry's default",
		Long:  "LEVEL is one of " + strings.Join(schemareg.Levels, ", ") + ".",
		Example: `  kbox schema compatibility set FULL orders-value
  kbox schema compatibility set BACKWARD --global`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			level, err := schemareg.ParseLevel(args[0])
			if err != nil {
				return &cmdutil.FlagError{Err: err}
			}
			if (len(args) == 2) == global {
				return cmdutil.FlagErrorf("give a SUBJECT or --global (the registry's default level), not both")
			}
			subject := ""
			if len(args) == 2 {
				subject = args[1]
			}
			c, err := open(f, *url)
			if err != nil {
				return err
			}
			res, err := c.SetCompatibility(cmdutil.Context(cmd), subject, level)
			if err != nil {
				return err
			}
			return output.Print(f.IO, output.Format(setOut), res)
		},
	}
	set.Flags().BoolVar(&global, "global", false, "set the registry's default level")
	cmdutil.AddOutputFlag(f, set, &setOut, formats)
	cmd.AddCommand(get, set)
	return cmd
}

func newDeleteCmd(f *cmdutil.Factory, url *string) *cobra.Command {
	var out string
	var permanent, yes bool
	cmd := &cobra.Command{
		Use:   "delete SUBJECT[:VERSION]",
		Short: "Delete a subject or one version (soft; --permanent for good, confirmed)",
		Long: `A soft delete hides the subject (or version) but keeps its schemas: records
written with them still decode, and the registry can list them (--deleted).
--permanent deletes for good (soft-deleting first when needed): it asks for
"yes" on the terminal, or needs --yes.`,
		Example: `  kbox schema delete orders-value:2
  kbox schema delete old-value --permanent --yes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			subject, version, err := serde.ParseSubjectVersion(args[0])
			if err != nil {
				return &cmdutil.FlagError{Err: err}
			}
			if strings.HasSuffix(args[0], ":latest") {
				return cmdutil.FlagErrorf("%s: name the version to delete by its number", args[0])
			}
			if permanent && !yes {
				what := "subject " + subject + " (every version)"
				if version > 0 {
					what = "subject " + subject + " version " + strconv.Itoa(version)
				}
				if err := confirm(f, "Permanently delete "+what+"? Its schemas cannot be recovered. Type yes to go on: "); err != nil {
					return err
				}
			}
			c, err := open(f, *url)
			if err != nil {
				return err
			}
			res, err := c.Delete(cmdutil.Context(cmd), subject, version, permanent)
			if err != nil {
				return err
			}
			return output.Print(f.IO, output.Format(out), res)
		},
	}
	cmd.Flags().BoolVar(&permanent, "permanent", false, "delete for good (hard delete)")
	cmd.Flags().BoolVar(&yes, "yes", false, "do not ask before a permanent delete")
	cmdutil.AddOutputFlag(f, cmd, &out, formats)
	return cmd
}

// confirm asks on the terminal; without one, --yes is needed.
func confirm(f *cmdutil.Factory, prompt string) error {
	if !f.IO.IsStdinTTY() {
		return cmdutil.FlagErrorf("--permanent deletes for good: confirm with --yes (stdin is not a terminal to ask)")
	}
	fmt.Fprint(f.IO.ErrOut, prompt)
	line, err := bufio.NewReader(f.IO.In).ReadString('\n')
	if err != nil && line == "" {
		return fmt.Errorf("not deleted: no answer")
	}
	if strings.TrimSpace(line) != "yes" {
		return fmt.Errorf("not deleted (answered %q, not yes)", strings.TrimSpace(line))
	}
	return nil
}
