package cmdutil_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
)

// Connect: the connection the overrides (or a native command's flags)
// name, dialed; an unknown profile or a bad property fails before any
// dial, with the message of the step that refused it.
func TestConnect(t *testing.T) {
	bs, _ := cmdtest.Kfake(t)
	ios, _, _, errOut := output.Test()
	f := cmdutil.NewFactory(ios, func(string) string { return "" }, "test")
	f.Globals.ConfigPath = t.TempDir() + "/missing.yaml"
	ctx := context.Background()

	cl, err := f.Connect(ctx, config.Overrides{Bootstrap: bs}, kafka.Admin, kafka.Options{})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if _, err := cl.Admin().BrokerMetadata(ctx); err != nil {
		t.Fatalf("metadata through the connected client: %v", err)
	}
	cl.Close()

	flags := &cmdutil.ConnFlags{Bootstrap: bs, Props: []string{"client.id=connect-test"}}
	cl, err = flags.Connect(ctx, f, kafka.Admin, kafka.Options{})
	if err != nil {
		t.Fatalf("ConnFlags.Connect: %v", err)
	}
	if got := cl.Settings.ClientID; got != "connect-test" {
		t.Errorf("client.id from -X: %q", got)
	}
	cl.Close()

	f.Globals.Profile = "nope"
	if _, err := f.Connect(ctx, config.Overrides{Bootstrap: bs}, kafka.Admin, kafka.Options{}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("unknown profile: %v", err)
	}
	f.Globals.Profile = ""
	bad := &cmdutil.ConnFlags{Bootstrap: bs, Props: []string{"acks=maybe"}}
	if _, err := bad.Connect(ctx, f, kafka.Producer, kafka.Options{}); err == nil || !strings.Contains(err.Error(), "acks") {
		t.Fatalf("bad property: %v", err)
	}
	if strings.Contains(errOut.String(), "panic") {
		t.Fatal(errOut.String())
	}
}
