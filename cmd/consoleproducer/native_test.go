package consoleproducer

import (
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
)

func runArgs(t *testing.T, invoked string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{Cmd: run, Invoked: invoked}, args...)
	return r.Stdout, r.ErrOut + r.Msg, r.Code
}

// -X passes client properties, as every native command takes them; they
// win over --command-property.
func TestClientPropertiesX(t *testing.T) {
	o := parsed(t, "--command-property", "linger.ms=7", "-X", "linger.ms=9", "-X", "acks=1")
	s := settings(t, o)
	if s.Linger.Milliseconds() != 9 || s.Acks != "1" {
		t.Errorf("settings %+v", s)
	}
}

// Under its native name a usage error is kbox produce's own (the message,
// its usage and a hint, exit 2), not Apache's option table; under the link
// name it stays Apache's.
func TestNativeUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--bootstrap-server", "b:1", "--topic", "t", "--bogus"},
		{"--bootstrap-server", "b:1"},
		{"--bootstrap-server", "b:1", "--topic", "t", "-X", "no-equals"},
		{"--bootstrap-server", "b:1", "--topic", "t", "-p", "x"},
		{"--bootstrap-server", "b:1", "--topic", "t", "-f", "csv"},
	} {
		_, errOut, code := runArgs(t, "kbox produce", args...)
		lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
		if code != 2 || len(lines) != 4 || !strings.HasPrefix(lines[0], "kbox: error: ") || !strings.HasPrefix(lines[1], "Usage: kbox produce ") ||
			lines[3] != `kbox: hint: run "kbox produce --help" for every option` {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut)
		}
		if strings.Contains(errOut, "Option ") {
			t.Errorf("%q: Apache's option table: %q", args, errOut)
		}
	}
	_, errOut, code := runArgs(t, "kafka-console-producer", "--bootstrap-server", "b:1", "--topic", "t", "--bogus")
	if code != 1 || !strings.HasPrefix(errOut, "bogus is not a recognized option\n") || !strings.Contains(errOut, "Option ") {
		t.Errorf("link name: exit %d, %.100q", code, errOut)
	}
}
