package cmdutil_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/output"
)

// Clusters: every profile by name, or the --profile list in its order
// without repeats, or the one --bootstrap-server; each with its expected
// brokers; an unknown profile, or an address with several profiles, is an
// error before any connection.
func TestClusters(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := config.WriteFile(path, &config.File{Profiles: map[string]*config.Profile{
		"b": {BootstrapServers: []string{"127.0.0.1:1"}, ExpectedBrokers: 3},
		"a": {BootstrapServers: []string{"127.0.0.1:2"}},
	}}); err != nil {
		t.Fatal(err)
	}
	fac := func(profile string) *cmdutil.Factory {
		ios, _, _, _ := output.Test()
		f := cmdutil.NewFactory(ios, func(string) string { return "" }, "test")
		f.Globals.ConfigPath, f.Globals.Profile = path, profile
		return f
	}
	names := func(cs []cmdutil.Cluster) string {
		var s []string
		for _, c := range cs {
			s = append(s, c.Name+"="+strings.Join(c.Conn.Bootstrap, ","))
		}
		return strings.Join(s, " ")
	}
	cs, err := cmdutil.Clusters(fac(""), &cmdutil.ConnFlags{}, "checks")
	if err != nil || names(cs) != "a=127.0.0.1:2 b=127.0.0.1:1" || cs[1].ExpectedBrokers != 3 || cs[0].ExpectedBrokers != 0 {
		t.Fatalf("every profile: %v %q", err, names(cs))
	}
	cs, err = cmdutil.Clusters(fac("b,a,b"), &cmdutil.ConnFlags{}, "checks")
	if err != nil || names(cs) != "b=127.0.0.1:1 a=127.0.0.1:2" {
		t.Fatalf("--profile b,a,b: %v %q", err, names(cs))
	}
	cs, err = cmdutil.Clusters(fac("b"), &cmdutil.ConnFlags{Bootstrap: "127.0.0.1:9"}, "checks")
	if err != nil || names(cs) != "127.0.0.1:9=127.0.0.1:9" {
		t.Fatalf("--bootstrap-server: %v %q", err, names(cs))
	}
	if _, err := cmdutil.Clusters(fac("a,b"), &cmdutil.ConnFlags{Bootstrap: "127.0.0.1:9"}, "shows"); err == nil || !strings.Contains(err.Error(), "--bootstrap-server shows one cluster") {
		t.Fatalf("address with two profiles: %v", err)
	}
	var fe *cmdutil.FlagError
	if _, err := cmdutil.Clusters(fac("a,zz"), &cmdutil.ConnFlags{}, "checks"); err == nil || !strings.Contains(err.Error(), `profile "zz" not found`) || errors.As(err, &fe) {
		t.Fatalf("unknown profile: %v", err)
	}
}
