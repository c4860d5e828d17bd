package features

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
)

// Apache 4.4's checks (texts captured with testbed.sh apache), all before
// any connection: 127.0.0.1:1 is never dialled.
func TestApacheChecks(t *testing.T) {
	bs := []string{"--bootstrap-server", "127.0.0.1:1"}
	none := filepath.Join(t.TempDir(), "none")
	cases := []struct {
		args      []string
		out, errL string
		code      int
	}{
		{[]string{"upgrade"}, "", "You must specify at least one feature to upgrade\n", 1},
		{[]string{"disable", "--dry-run"}, "", "You must specify at least one feature to disable\n", 1},
		{[]string{"disable", "--feature", "a", "--feature", "a"}, "", "Feature a was specified more than once.\n", 1},
		{[]string{"upgrade", "--feature", "x"}, "", "Can't parse feature=level string x: equals sign not found.\n", 1},
		{[]string{"upgrade", "--feature", "x=a"}, "", "Can't parse feature=level string x=a: unable to parse a as a short.\n", 1},
		{[]string{"upgrade", "--feature", "x=1", "--feature", "x=2"}, "", "Feature x was specified more than once.\n", 1},
		{[]string{"upgrade", "--release-version", "4.4", "--feature", "x=2"}, "", "Can not specify `release-version` with other feature flags.\n", 1},
		{[]string{"downgrade", "--release-version", "9.9"}, "", "Unknown metadata.version '9.9'. Supported metadata.version are: 3.3-IV3, 3.4-IV0, 3.5-IV0, 3.5-IV1, 3.5-IV2, 3.6-IV0, 3.6-IV1, 3.6-IV2, 3.7-IV0, 3.7-IV1, 3.7-IV2, 3.7-IV3, 3.7-IV4, 3.8-IV0, 3.9-IV0, 4.0-IV0, 4.0-IV1, 4.0-IV2, 4.0-IV3, 4.1-IV0, 4.1-IV1, 4.2-IV0, 4.2-IV1, 4.3-IV0, 4.4-IV0, 4.4-IV1, 4.4-IV2, 4.5-IV0\n", 1},
		{[]string{"upgrade", "--metadata", "4.4", "--feature", "metadata.version=3"}, " `metadata` flag is deprecated and may be removed in a future release.\n", "Feature metadata.version was specified more than once.\n", 1},
		{[]string{"upgrade", "--feature", " =3"}, "", "Provided feature can not be empty.\n", 1},
		{[]string{"disable", "--feature", "a", "--feature", " "}, "", "Provided feature can not be empty.\n", 1},
		{[]string{"describe", "--node-id", "-1"}, "", "Invalid node id -1: must be non-negative.\n", 1},
		{[]string{"describe", "--node-id", "x"}, "", `Command line error: argument --node-id: could not convert 'x' to Integer (For input string: "x"). Type --help for help.`, 1},
		{[]string{"--command-config", none, "describe"}, "", none + "\n", 1},
		{[]string{"bogus"}, "", "Command line error: invalid choice: 'bogus' (choose from 'describe', 'upgrade', 'downgrade', 'disable', 'version-mapping', 'feature-dependencies'). Type --help for help.", 1},
		{[]string{"--bootstrap-controller", "x:1", "describe"}, "", "Command line error: argument --bootstrap-controller: not allowed with argument --bootstrap-server. Type --help for help.", 1},
		{[]string{"feature-dependencies"}, "", "Command line error: argument --feature is required. Type --help for help.", 1},
		{[]string{"feature-dependencies", "--feature", "eligible.leader.replicas.version=1"}, "eligible.leader.replicas.version=1 requires:\n    metadata.version=23 (4.0-IV1)\n", "", 0},
		{[]string{"version-mapping", "--release-version", "3.9"}, "metadata.version=21 (3.9)\nkraft.version=1\ntransaction.version=0\ngroup.version=0\neligible.leader.replicas.version=0\nshare.version=0\nstreams.version=0\n", "", 0},
	}
	for _, c := range cases {
		r := cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kafka-features"}, append(append([]string(nil), bs...), c.args...)...)
		if r.Code != c.code || r.Stdout != c.out || r.Stderr != c.errL {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q\nwant exit %d, %q, %q", c.args, r.Code, r.Stdout, r.Stderr, c.code, c.out, c.errL)
		}
	}
}

// No bootstrap option: Apache's InitializeBootstrapException as a command
// line error, except for the offline subcommands.
func TestNoBootstrap(t *testing.T) {
	r := cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kafka-features"}, "describe")
	if r.Code != 1 || r.Stderr != "Command line error: You must specify either --bootstrap-controller or --bootstrap-server.. Type --help for help." {
		t.Errorf("describe: %d %q", r.Code, r.Stderr)
	}
	r = cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kafka-features"}, "version-mapping")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "metadata.version=33 (4.4-IV2)\n") {
		t.Errorf("version-mapping: %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	r = cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kafka-features"}, "--help")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "usage: kafka-features [-h] [--command-config COMMAND_CONFIG]\n") || strings.Contains(r.Stdout, "-o") {
		t.Errorf("--help: %d %q", r.Code, r.Stdout)
	}
	r = cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kafka-features"}, "-o", "json", "version-mapping")
	if r.Code == 0 {
		t.Errorf("-o json version-mapping: %d %q", r.Code, r.Stderr)
	}
}
