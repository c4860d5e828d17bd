package cmdutil

import "github.com/spf13/cobra"

// Kind says how a registry entry is reached.
type Kind int

const (
	// Apache is a drop-in for an Apache script: reachable through a link
	// named Name (with or without .sh), as `kbox Name` and as `kbox Alias`.
	// It parses the Apache tool's flags itself.
	Apache Kind = iota
	// Group is a native command group (`kbox perf ...`): `kbox Alias` only.
	Group
	// Command is a native command with no subcommands (`kbox version`).
	Command
)

// Applet is one entry of the command registry (cmd/app/applets.go): every
// Apache drop-in, native group and native command is one. The registry
// drives argv[0] dispatch, `kbox --help`, `kbox install-links` and the tests.
type Applet struct {
	Kind  Kind
	Name  string // the Apache script name, e.g. "kafka-topics"; "" for native entries
	Alias string // the native name, e.g. "topics": `kbox topics`
	Short string // one line for the applet list and --help
	// New builds the entry's command. Apache applets set DisableFlagParsing
	// and parse args themselves.
	New func(f *Factory) *cobra.Command
	// NoProfile marks native entries that must work whatever profile is
	// selected (profile management, version, install-links): the layer does
	// not check the selected profile before running them.
	NoProfile bool
}

// Display is the name an entry is listed under: the native name.
func (a Applet) Display() string {
	if a.Alias != "" {
		return a.Alias
	}
	return a.Name
}

// ApacheVersion is the Apache Kafka version whose tools the drop-ins
// follow (their --version output, texts and exit codes).
const ApacheVersion = "4.4.0"
