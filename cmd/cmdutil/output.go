package cmdutil

import (
	"fmt"
	"strings"

	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
)

// Formats is the output formats a command declares: the list feeds the -o
// flag's help and the error for an unsupported format.
type Formats struct {
	Default output.Format
	Allowed []output.Format
	// NoProfile: the profile's output default does not apply (profile
	// management must work whatever profile is selected).
	NoProfile bool
}

// Names lists the allowed formats, comma-separated.
func (fs Formats) Names() string {
	names := make([]string, len(fs.Allowed))
	for i, a := range fs.Allowed {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}

func (fs Formats) allows(v output.Format) bool {
	for _, a := range fs.Allowed {
		if a == v {
			return true
		}
	}
	return false
}

// Usage is the -o flag's help text.
func (fs Formats) Usage() string {
	return fmt.Sprintf("output format: %s (default %s)", fs.Names(), fs.Default)
}

// Output decides the output format once: the command's own -o flag, then
// -o given before the command name, then KBOX_OUTPUT, then the profile's
// output, then the command's default. A format given by flag must be one
// the command declares; one from KBOX_OUTPUT or a profile (defaults for
// every command) falls back to the command's default when this command
// cannot print it, but a name that is no format at all is an error
// wherever it comes from. Under an Apache name (ApacheName) only an
// explicit -o counts: KBOX_OUTPUT and the profile's output are defaults of
// the kbox forms, and Apache's tool prints what it prints. Call it before
// any request or load.
func (f *Factory) Output(flag string, fs Formats) (output.Format, error) {
	for _, v := range []string{flag, f.Globals.Output} {
		if v == "" {
			continue
		}
		fm := output.Format(strings.ToLower(strings.TrimSpace(v)))
		if !fs.allows(fm) {
			return "", fmt.Errorf("unknown output format %q (allowed: %s)", v, fs.Names())
		}
		return fm, nil
	}
	if f.ApacheName() {
		return fs.Default, nil
	}
	if fs.NoProfile {
		if v := f.Getenv("KBOX_OUTPUT"); v != "" && fs.allows(output.Format(strings.ToLower(v))) {
			return output.Format(strings.ToLower(v)), nil
		}
		return fs.Default, nil
	}
	sel, err := f.Selection()
	if err != nil {
		return "", err
	}
	if v := sel.Output; v != "" {
		fm := output.Format(strings.ToLower(strings.TrimSpace(v)))
		if !output.Known(fm) {
			src := "profile " + sel.Name
			if f.Getenv("KBOX_OUTPUT") != "" {
				src = "KBOX_OUTPUT"
			}
			return "", fmt.Errorf("%s: unknown output format %q (allowed: %s)", src, v, fs.Names())
		}
		if fs.allows(fm) {
			return fm, nil
		}
	}
	return fs.Default, nil
}

const annotationFormats = "kbox/formats"

// AddOutputFlag gives a native command its -o/--output flag with the
// declared formats in its help. Before the command runs, the layer decides
// the format (Factory.Output) and stores it in *dst, so RunE reads the
// decision and a bad -o fails before any work with exit code 2.
func AddOutputFlag(f *Factory, cmd *cobra.Command, dst *string, fs Formats) {
	cmd.Flags().StringVarP(dst, "output", "o", "", fs.Usage())
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[annotationFormats] = fs.Names()
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		fm, err := f.Output(*dst, fs)
		if err != nil {
			return &FlagError{Err: err}
		}
		*dst = string(fm)
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}
