package output

import (
	"fmt"
	"io"
)

// Frames prints the successive frames of a watch (kbox top, groups lag
// --watch, reassign status --watch) the one way every command does:
//   - JSON: one compact line per frame (a JSON-lines stream);
//   - YAML: one document per frame, each ended by "---";
//   - a table on a terminal: the screen cleared and the frame redrawn in
//     place of the last, as watch(1) does;
//   - a table piped: the frames one after the other, separated by an empty
//     line when Gap is set.
type Frames struct {
	s *IOStreams
	f Format
	n int
	// Gap separates piped table frames by an empty line.
	Gap bool
}

// NewFrames returns the frame printer of a watch printing in format f.
func NewFrames(s *IOStreams, f Format) *Frames { return &Frames{s: s, f: f} }

// Screen reports whether frames replace each other on a terminal.
func (fr *Frames) Screen() bool {
	return fr.f != JSON && fr.f != YAML && fr.s.IsStdoutTTY()
}

// Print writes one frame: v itself in JSON or YAML, else what text writes.
func (fr *Frames) Print(v any, text func(w io.Writer) error) error {
	fr.n++
	w := fr.s.Out
	switch fr.f {
	case JSON:
		return WriteJSON(w, v, false)
	case YAML:
		if err := WriteYAML(w, v); err != nil {
			return err
		}
		_, err := io.WriteString(w, "---\n")
		return err
	}
	switch {
	case fr.Screen():
		if _, err := io.WriteString(w, "\x1b[H\x1b[2J"); err != nil {
			return err
		}
	case fr.Gap && fr.n > 1:
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	return text(w)
}
