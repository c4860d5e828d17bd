package cmdutil

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
)

// A drop-in whose Apache tool has subcommands (kafka-transactions): its
// native tree may not take one of their names or a prefix of one.
func TestCheckNames(t *testing.T) {
	f := NewFactory(output.System(), func(string) string { return "" }, "test")
	tree := func(names ...string) func(*Factory) *cobra.Command {
		return func(*Factory) *cobra.Command {
			root := &cobra.Command{Use: "transactions"}
			for _, n := range names {
				root.AddCommand(&cobra.Command{Use: n, Run: func(*cobra.Command, []string) {}})
			}
			return root
		}
	}
	a := Applet{Kind: Apache, Name: "kafka-transactions", Alias: "transactions",
		ApacheCommands: []string{"list", "describe", "describe-producers", "abort"}}
	for names, bad := range map[string]string{"hanging,watch": "", "hanging,list": `"list"`, "desc": `"describe"`, "watch,abort-all": ""} {
		a.Native = tree(strings.Split(names, ",")...)
		err := a.CheckNames(f)
		if (bad == "") != (err == nil) || bad != "" && !strings.Contains(err.Error(), bad) {
			t.Errorf("native %s: %v, want an error naming %s", names, err, bad)
		}
	}
}

// An invocation that starts with one of the Apache tool's subcommands is
// a named one: the profile's bootstrap list goes before it (where the
// Apache parser takes --bootstrap-server); a bare invocation and one
// naming no subcommand get none.
func TestPrepareApacheSubcommands(t *testing.T) {
	env := map[string]string{"KBOX_CONFIG": filepath.Join(t.TempDir(), "none.yaml"), "KBOX_BOOTSTRAP_SERVERS": "b.invalid:9092"}
	a := Applet{Kind: Apache, Name: "kafka-transactions", Alias: "transactions", ConnOptions: []string{"bootstrap-server"},
		AbbrevOptions: true, ApacheCommands: []string{"list", "describe", "describe-producers"},
		Run: func(context.Context, *Factory, []string) error { return nil }}
	for in, want := range map[string]string{
		"list":                        "--bootstrap-server b.invalid:9092 list",
		"desc --transactional-id t":   "--bootstrap-server b.invalid:9092 desc --transactional-id t",
		"":                            "",
		"foo":                         "foo",
		"--bootstrap-server x:1 list": "--bootstrap-server x:1 list",
	} {
		f := NewFactory(output.System(), func(k string) string { return env[k] }, "test")
		f.Invoked = "kbox transactions"
		got, err := f.PrepareApache(a, strings.Fields(in))
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
}
