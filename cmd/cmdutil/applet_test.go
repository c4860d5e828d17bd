package cmdutil

import (
	"context"
	"os"
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

// A profile with bootstrap-controllers and no bootstrap-servers gives a
// drop-in that works over the controllers (Applet.Controllers)
// --bootstrap-controller, and others nothing; bootstrap-servers win.
func TestPrepareApacheControllers(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("profiles:\n  ctl:\n    bootstrap-controllers: [c1:9093]\n  both:\n    bootstrap-servers: [b1:9092]\n    bootstrap-controllers: [c1:9093]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	quorum := Applet{Kind: Apache, Name: "kafka-metadata-quorum", Alias: "quorum", ConnOptions: []string{"bootstrap-server", "bootstrap-controller"},
		AbbrevOptions: true, Controllers: true, ApacheCommands: []string{"describe"}}
	other := quorum
	other.Controllers = false
	for _, c := range []struct {
		profile string
		a       Applet
		want    string
	}{
		{"ctl", quorum, "--bootstrap-controller c1:9093 describe --status"},
		{"ctl", other, "describe --status"},
		{"both", quorum, "--bootstrap-server b1:9092 describe --status"},
	} {
		f := NewFactory(output.System(), func(k string) string { return map[string]string{"KBOX_CONFIG": cfg, "KBOX_PROFILE": c.profile}[k] }, "test")
		f.Invoked = "kafka-metadata-quorum"
		got, err := f.PrepareApache(c.a, []string{"describe", "--status"})
		if err != nil || strings.Join(got, " ") != c.want {
			t.Errorf("%s, controllers %v: %q %v, want %q", c.profile, c.a.Controllers, got, err, c.want)
		}
	}
}
