package metrics

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/kboxdev/kbox/pkg/javafmt"
)

// WriteTable prints vs as ToolsUtils.printMetrics does: nothing for no
// metrics; else an empty line, "Metric Name" padded to the longest name,
// three spaces, "Value", then one line per metric sorted by name,
// "name : value" with the value as Java's %.3f.
func WriteTable(w io.Writer, vs []Value) error {
	if len(vs) == 0 {
		return nil
	}
	vs = Sorted(vs)
	width := 0
	for _, v := range vs {
		width = max(width, utf8.RuneCountInString(v.Name.String()))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-*s   %s\n", width, "Metric Name", "Value")
	for _, v := range vs {
		fmt.Fprintf(&b, "%-*s : %s\n", width, v.Name.String(), javafmt.Fixed(v.Value, 3))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
