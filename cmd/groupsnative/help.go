package groupsnative

import (
	"fmt"
	"io"
	"strings"
)

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
