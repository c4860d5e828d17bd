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

// A profile whose connection does not resolve (its password-env variable
// unset) is a cluster with its error, and the others are resolved; an
// error every selected profile shares is the command's.
func TestClustersBrokenProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	sasl := func(env string) *config.SASL {
		return &config.SASL{Mechanism: "PLAIN", Username: "u", PasswordEnv: env}
	}
	if err := config.WriteFile(path, &config.File{Profiles: map[string]*config.Profile{
		"good":   {BootstrapServers: []string{"127.0.0.1:1"}},
		"broken": {BootstrapServers: []string{"127.0.0.1:2"}, SASL: sasl("KBOX_TEST_UNSET_PW")},
		"other":  {BootstrapServers: []string{"127.0.0.1:3"}, SASL: sasl("KBOX_TEST_UNSET_PW")},
	}}); err != nil {
		t.Fatal(err)
	}
	fac := func(profile string) *cmdutil.Factory {
		ios, _, _, _ := output.Test()
		f := cmdutil.NewFactory(ios, func(string) string { return "" }, "test")
		f.Globals.ConfigPath, f.Globals.Profile = path, profile
		return f
	}
	cs, err := cmdutil.Clusters(fac("good,broken"), &cmdutil.ConnFlags{}, "checks")
	if err != nil || len(cs) != 2 {
		t.Fatalf("good,broken: %v %v", err, cs)
	}
	if cs[0].Err != nil || cs[0].Conn == nil || cs[1].Conn != nil || cs[1].Err == nil ||
		cs[1].Err.Error() != "profile broken: password-env KBOX_TEST_UNSET_PW is not set" {
		t.Fatalf("good: %v; broken: %v", cs[0].Err, cs[1].Err)
	}
	// Every selected profile broken the same way: the command's error.
	if _, err := cmdutil.Clusters(fac("broken,other"), &cmdutil.ConnFlags{}, "checks"); err == nil || !strings.Contains(err.Error(), "password-env KBOX_TEST_UNSET_PW is not set") {
		t.Fatalf("broken,other: %v", err)
	}
	if _, err := cmdutil.Clusters(fac("broken"), &cmdutil.ConnFlags{}, "checks"); err == nil {
		t.Fatal("broken alone: no error")
	}
}
