package app

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
)

// Version and Commit are stamped by the linker (see the Makefile).
var (
	Version = "dev"
	Commit  = "none"
)

var versionApplet = cmdutil.Applet{Kind: cmdutil.Command, Alias: "version", Short: "Print kbox's version", NoProfile: true} // New: set in init

// versionFormats: the default (table) is the one line "kbox VERSION (commit
// COMMIT)", as before -o existed.
var versionFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML}, NoProfile: true}

// VersionInfo is what `kbox version -o json` prints.
type VersionInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	// GoVersion is the Go toolchain that built the binary.
	GoVersion string `json:"go_version"`
	// FranzGoVersion is the franz-go module version linked in ("unknown"
	// when the binary carries no module information).
	FranzGoVersion string `json:"franz_go_version"`
	// ApacheKafkaVersion is the Apache Kafka release whose tools the
	// drop-ins follow.
	ApacheKafkaVersion string `json:"apache_kafka_version"`
}

// line is the default (table) form: one line, unchanged since before -o.
func (v VersionInfo) line() string { return fmt.Sprintf("kbox %s (commit %s)\n", v.Version, v.Commit) }

// currentVersion reads the stamped version and the build information.
func currentVersion() VersionInfo {
	v := VersionInfo{Version: Version, Commit: Commit, GoVersion: runtime.Version(),
		FranzGoVersion: "unknown", ApacheKafkaVersion: cmdutil.ApacheVersion}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.FranzGoVersion = moduleVersion(bi, "github.com/twmb/franz-go")
	}
	return v
}

// moduleVersion is the version of module path in bi ("unknown" if absent),
// following a replace directive.
func moduleVersion(bi *debug.BuildInfo, path string) string {
	for _, m := range bi.Deps {
		if m.Path != path {
			continue
		}
		if m.Replace != nil && m.Replace.Version != "" {
			return m.Replace.Version
		}
		if m.Version != "" {
			return m.Version
		}
	}
	return "unknown"
}

func newVersionCmd(f *cmdutil.Factory) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print kbox's version",
		Long: `Print kbox's version and commit. With -o json or -o yaml, also the Go version,
the franz-go version and the Apache Kafka version the drop-ins follow.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := currentVersion()
			if output.Format(out) == output.Table {
				_, err := fmt.Fprint(f.IO.Out, v.line())
				return err
			}
			return output.Print(f.IO, output.Format(out), v)
		},
	}
	cmdutil.AddOutputFlag(f, cmd, &out, versionFormats)
	return cmd
}
