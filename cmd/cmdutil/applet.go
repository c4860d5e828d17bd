package cmdutil

import "github.com/spf13/cobra"

// Applet is one Apache-compatible tool of the multi-call binary. The applet
// table in cmd/app drives dispatch, `kbox --help`, `kbox install-links` and
// the tests.
type Applet struct {
	Name  string // the Apache script name, e.g. "kafka-topics"
	Alias string // the short native name, e.g. "topics"
	Short string // one line for the applet list
	// New builds the applet's command. Applets that emulate an Apache
	// parser set DisableFlagParsing and parse args themselves.
	New func(f *Factory) *cobra.Command
}
