package output

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"gopkg.in/yaml.v3"
)

// Format is an output format.
type Format string

// The formats kbox knows. Apache is the byte-exact text of the Apache tool
// and is the default under an Apache applet name.
const (
	Apache Format = "apache"
	Table  Format = "table"
	Wide   Format = "wide"
	JSON   Format = "json"
	YAML   Format = "yaml"
	CSV    Format = "csv"
)

// Known reports whether f is one of kbox's formats.
func Known(f Format) bool {
	switch f {
	case Apache, Table, Wide, JSON, YAML, CSV:
		return true
	}
	return false
}

// ParseFormat validates a user-supplied format name against the allowed set.
func ParseFormat(s string, allowed ...Format) (Format, error) {
	f := Format(strings.ToLower(strings.TrimSpace(s)))
	for _, a := range allowed {
		if f == a {
			return f, nil
		}
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	return "", fmt.Errorf("unknown output format %q (allowed: %s)", s, strings.Join(names, ", "))
}

// Tabular is implemented by results that can print as a table.
type Tabular interface {
	Header() []string
	Rows() [][]string
}

// WideTabular is implemented by results that have a wide table form.
type WideTabular interface {
	WideHeader() []string
	WideRows() [][]string
}

// ApacheWriter is implemented by results that print in the Apache tool's exact format.
type ApacheWriter interface {
	WriteApache(w io.Writer) error
}

// CSVTabular is implemented by results with a CSV form of their own (for
// example raw numbers where the table shows human units): the header
// record first, then the rows.
type CSVTabular interface {
	CSVRecords() [][]string
}

// Records is a ready CSV form: the header record, then the rows.
type Records [][]string

// CSVRecords implements CSVTabular.
func (r Records) CSVRecords() [][]string { return r }

// Print writes v in format f to s.Out.
func Print(s *IOStreams, f Format, v any) error {
	switch f {
	case CSV:
		var recs [][]string
		switch t := v.(type) {
		case CSVTabular:
			recs = t.CSVRecords()
		case Tabular:
			recs = append([][]string{t.Header()}, t.Rows()...)
		default:
			return fmt.Errorf("this result has no CSV form")
		}
		w := csv.NewWriter(s.Out)
		_ = w.WriteAll(recs)
		return w.Error()
	case JSON:
		return WriteJSON(s.Out, v, s.IsStdoutTTY())
	case YAML:
		return WriteYAML(s.Out, v)
	case Table:
		t, ok := v.(Tabular)
		if !ok {
			return fmt.Errorf("this result has no table form")
		}
		return WriteTable(s, t.Header(), t.Rows())
	case Wide:
		if t, ok := v.(WideTabular); ok {
			return WriteTable(s, t.WideHeader(), t.WideRows())
		}
		if t, ok := v.(Tabular); ok {
			return WriteTable(s, t.Header(), t.Rows())
		}
		return fmt.Errorf("this result has no table form")
	case Apache:
		a, ok := v.(ApacheWriter)
		if !ok {
			return fmt.Errorf("this result has no Apache form")
		}
		return a.WriteApache(s.Out)
	}
	return fmt.Errorf("unsupported output format %q", f)
}

// WriteJSON writes v as JSON; indented when pretty. HTML characters are not
// escaped, so the output reads like Jackson's.
func WriteJSON(w io.Writer, v any, pretty bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(v)
}

// WriteYAML writes v as YAML with two-space indentation. The value goes
// through its JSON form first, so YAML has the same field names and order as
// JSON for every result type (one schema, two syntaxes).
func WriteYAML(w io.Writer, v any) error {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, v, false); err != nil {
		return err
	}
	var node yaml.Node
	if err := yaml.Unmarshal(buf.Bytes(), &node); err != nil {
		return err
	}
	clearStyle(&node)
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&node); err != nil {
		return err
	}
	return enc.Close()
}

// clearStyle drops the flow style and quoting that parsing JSON leaves on
// the nodes, so the output is block-style YAML.
func clearStyle(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode {
		if n.Tag == "!!str" {
			n.Style = 0
		}
	} else {
		n.Style = 0
	}
	for _, c := range n.Content {
		clearStyle(c)
	}
}

// WriteTable renders rows. On a terminal it draws a light box table; when
// piped it prints plain columns separated by two spaces, easy to cut and awk.
func WriteTable(s *IOStreams, header []string, rows [][]string) error {
	tw := table.NewWriter()
	hr := make(table.Row, len(header))
	for i, h := range header {
		hr[i] = h
	}
	tw.AppendHeader(hr)
	for _, r := range rows {
		rr := make(table.Row, len(r))
		for i, c := range r {
			rr[i] = c
		}
		tw.AppendRow(rr)
	}
	if s.IsStdoutTTY() {
		tw.SetStyle(table.StyleLight)
	} else {
		st := table.StyleDefault
		st.Options = table.Options{SeparateColumns: true}
		st.Box.MiddleVertical = " "
		st.Box.PaddingLeft = ""
		st.Box.PaddingRight = " "
		st.Format.Header = 0 // keep header case as given
		tw.SetStyle(st)
	}
	out := tw.Render()
	if !s.IsStdoutTTY() {
		// Drop trailing spaces on each line for clean plain output.
		lines := strings.Split(out, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(l, " ")
		}
		out = strings.Join(lines, "\n")
	}
	_, err := io.WriteString(s.Out, out+"\n")
	return err
}
