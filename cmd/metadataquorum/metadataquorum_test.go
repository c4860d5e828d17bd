package metadataquorum

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
)

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Apache 4.4's checks (texts captured with testbed.sh apache), all before
// any connection: 127.0.0.1:1 is never dialled.
func TestApacheChecks(t *testing.T) {
	dir := t.TempDir()
	meta := filepath.Join(dir, "data")
	if err := os.MkdirAll(meta, 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, meta, "meta.properties", "version=1\nnode.id=4\ndirectory.id=A0y-o1ZpL4e8JDOG_pA6Zg\n")
	ctl := write(t, dir, "ctl.properties", "node.id=4\nprocess.roles=controller\nlog.dirs="+meta+"\n"+
		"listeners=CONTROLLER://:9093,PLAINTEXT://h:9092\nadvertised.listeners=CONTROLLER://[::1]:9094\ncontroller.listener.names=controller\n")
	bs := []string{"--bootstrap-server", "127.0.0.1:1"}
	cases := []struct {
		args      []string
		out, errL string
		code      int
	}{
		{[]string{"describe"}, "", "One of --status or --replication must be specified with describe sub-command", 1},
		{[]string{"describe", "--status", "--replication"}, "", "Only one of --status or --replication should be specified with describe sub-command", 1},
		{[]string{"describe", "--status", "--human-readable"}, "", "The option --human-readable is only supported along with --replication", 1},
		{[]string{"add-controller"}, "", "You must supply the configuration file of the controller you are adding when using add-controller.", 1},
		{[]string{"--command-config", write(t, dir, "a", "x=1\n"), "add-controller"}, "", "node.id not found in configuration file. Is this a valid controller configuration file?", 1},
		{[]string{"--command-config", write(t, dir, "b", "node.id=-1\n"), "add-controller"}, "", "node.id was negative in configuration file. Is this a valid controller configuration file?", 1},
		{[]string{"--command-config", write(t, dir, "c", "node.id=1\nprocess.roles=broker\n"), "add-controller"}, "", "process.roles did not contain 'controller' in configuration file. Is this a valid controller configuration file?", 1},
		{[]string{"--command-config", write(t, dir, "d", "node.id=1\nprocess.roles=controller\n"), "add-controller"}, "", "Neither metadata.log.dir nor log.dirs were found. Is this a valid controller configuration file?", 1},
		{[]string{"--command-config", ctl, "add-controller", "--dry-run"}, "DRY RUN of adding controller 4 with directory id A0y-o1ZpL4e8JDOG_pA6Zg and endpoints: CONTROLLER://[::1]:9094\n", "", 0},
		{[]string{"--command-config", filepath.Join(dir, "none"), "describe", "--status"}, "", "Properties file " + filepath.Join(dir, "none") + " does not exist.", 1},
		{[]string{"remove-controller", "-i", "-3", "-d", "x"}, "", "Invalid negative --controller-id: -3", 1},
		{[]string{"remove-controller", "-i", "3", "-d", "xyz"}, "", "Failed to parse --controller-directory-id: Input string `xyz` decoded as 2 bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID", 1},
		{[]string{"remove-controller", "-i", "3", "-d", "AAAAAAAAAAAAAAAAAAAAAQ", "--dry-run"}, "DRY RUN of removing KRaft controller 3 with directory id AAAAAAAAAAAAAAAAAAAAAQ\n", "", 0},
		{[]string{"remove-controller", "-i", "3", "-d", "AAAAAAAAAAAAAAAAAAAAAQ", "--unregister", "--dry-run"}, "DRY RUN of removing KRaft controller 3 with directory id AAAAAAAAAAAAAAAAAAAAAQ\nDRY RUN of unregistering KRaft controller 3\n", "", 0},
	}
	for _, c := range cases {
		r := cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kafka-metadata-quorum"}, append(append([]string(nil), bs...), c.args...)...)
		if r.Code != c.code || r.Stdout != c.out || strings.TrimSuffix(r.Stderr, "\n") != c.errL {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q\nwant exit %d, %q, %q", c.args, r.Code, r.Stdout, r.Stderr, c.code, c.out, c.errL)
		}
	}
}

// Parse errors are argparse4j's (exit 1, usage on stderr); help is on
// stdout with exit 0.
func TestParse(t *testing.T) {
	r := cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kafka-metadata-quorum"})
	if r.Code != 1 || !strings.HasSuffix(r.Stderr, "kafka-metadata-quorum: error: too few arguments\n") {
		t.Errorf("no arguments: %d %q", r.Code, r.Stderr)
	}
	r = cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: "kafka-metadata-quorum"}, "--help")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "usage: kafka-metadata-quorum [-h] [--command-config COMMAND_CONFIG]\n") || strings.Contains(r.Stdout, "-o") {
		t.Errorf("--help: %d %q", r.Code, r.Stdout)
	}
}
