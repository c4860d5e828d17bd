package groupsnative

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/spf13/cobra"
)

// nativeNames are the native subcommands of `kbox groups` (and "help").
var nativeNames = []string{"list", "describe", "lag", "reset", "delete", "help"}

// NativeArgs reports whether the drop-in's arguments name a native
// subcommand, and returns the arguments for the native tree. The command
// layer may have put the profile's `--bootstrap-server LIST` first
// (PrepareApache); it is moved behind the subcommand name, where the
// native flags take it (and the layer still knows it came from the
// profile).
func NativeArgs(args []string) ([]string, bool) {
	var lead []string
	rest := args
	if len(rest) >= 3 && rest[0] == "--bootstrap-server" {
		lead, rest = rest[:2], rest[2:]
	}
	if len(rest) == 0 || !isNative(rest[0]) {
		return nil, false
	}
	out := append([]string{rest[0]}, lead...)
	return append(out, rest[1:]...), true
}

func isNative(s string) bool {
	for _, n := range nativeNames {
		if s == n {
			return true
		}
	}
	return false
}

// RunNative runs the native tree with args (from NativeArgs): -o is decided
// by each subcommand's output flag, as for any native command.
func RunNative(ctx context.Context, f *cmdutil.Factory, args []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	// Under a "kbox" parent, so help and usage read "kbox groups lag".
	root := &cobra.Command{Use: "kbox", SilenceUsage: true, SilenceErrors: true}
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(NewNativeCmd(f))
	root.SetArgs(append([]string{"groups"}, args...))
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	return root.ExecuteContext(ctx)
}

// WriteNativeHelp writes the short list of native subcommands that follows
// the Apache help of `kbox groups --help`.
func WriteNativeHelp(w io.Writer) {
	cmd := NewNativeCmd(nil)
	var b strings.Builder
	b.WriteString("\nNative subcommands (details: kbox groups SUBCOMMAND --help):\n")
	for _, c := range cmd.Commands() {
		fmt.Fprintf(&b, "  %-9s %s\n", c.Name(), c.Short)
	}
	io.WriteString(w, b.String())
}
