package output

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

type sample struct {
	Name    string            `json:"name"`
	Count   int               `json:"count"`
	Nested  map[string]string `json:"nested,omitempty"`
	Numbers []float64         `json:"numbers"`
	Flag    bool              `json:"is_flag"`
}

func TestYAMLFollowsJSONSchema(t *testing.T) {
	var b strings.Builder
	v := sample{Name: "a: b", Count: 3, Nested: map[string]string{"z": "1", "a": "true"}, Numbers: []float64{1.5, 2}, Flag: true}
	if err := WriteYAML(&b, v); err != nil {
		t.Fatal(err)
	}
	want := "name: 'a: b'\ncount: 3\nnested:\n  a: \"true\"\n  z: \"1\"\nnumbers:\n  - 1.5\n  - 2\nis_flag: true\n"
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestTablePlainWhenPiped(t *testing.T) {
	ios, _, out, _ := Test()
	if err := WriteTable(ios, []string{"A", "LONGER"}, [][]string{{"x", "y"}, {"wide-cell", "z"}}); err != nil {
		t.Fatal(err)
	}
	want := "A          LONGER\nx          y\nwide-cell  z\n"
	if out.String() != want {
		t.Fatalf("got %q want %q", out.String(), want)
	}
}

func TestParseFormat(t *testing.T) {
	if f, err := ParseFormat("JSON", JSON, YAML); err != nil || f != JSON {
		t.Fatal(f, err)
	}
	if _, err := ParseFormat("xml", JSON, YAML); err == nil || !strings.Contains(err.Error(), "json, yaml") {
		t.Fatal(err)
	}
}

type csvOwn struct{}

func (csvOwn) Header() []string       { return []string{"H"} }
func (csvOwn) Rows() [][]string       { return [][]string{{"human 1 KiB"}} }
func (csvOwn) CSVRecords() [][]string { return [][]string{{"bytes"}, {"1024"}} }

type tabOnly struct{}

func (tabOnly) Header() []string { return []string{"A", "B"} }
func (tabOnly) Rows() [][]string { return [][]string{{"x,y", `say "hi"`}} }

func TestPrintCSV(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{csvOwn{}, "bytes\n1024\n"},
		{tabOnly{}, "A,B\n\"x,y\",\"say \"\"hi\"\"\"\n"},
		{Records{{"a"}, {"1"}}, "a\n1\n"},
	} {
		ios, _, out, _ := Test()
		if err := Print(ios, CSV, c.v); err != nil {
			t.Fatal(err)
		}
		if out.String() != c.want {
			t.Errorf("%T: got %q want %q", c.v, out.String(), c.want)
		}
	}
	ios, _, _, _ := Test()
	if err := Print(ios, CSV, sample{}); err == nil {
		t.Error("a result without a table form printed as CSV")
	}
}

func TestFrames(t *testing.T) {
	text := func(s string) func(w io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s+"\n"); return err }
	}
	run := func(f Format, tty, gap bool) string {
		ios, _, out, _ := Test()
		ios.SetStdoutTTY(tty)
		fr := NewFrames(ios, f)
		fr.Gap = gap
		for i := 1; i <= 2; i++ {
			if err := fr.Print(sample{Name: "n", Count: i}, text(fmt.Sprintf("frame %d", i))); err != nil {
				t.Fatal(err)
			}
		}
		return out.String()
	}
	for _, c := range []struct {
		f        Format
		tty, gap bool
		want     string
	}{
		{JSON, true, true, `{"name":"n","count":1,"numbers":null,"is_flag":false}` + "\n" + `{"name":"n","count":2,"numbers":null,"is_flag":false}` + "\n"},
		{YAML, false, false, "name: n\ncount: 1\nnumbers: null\nis_flag: false\n---\nname: n\ncount: 2\nnumbers: null\nis_flag: false\n---\n"},
		{Table, true, true, "\x1b[H\x1b[2Jframe 1\n\x1b[H\x1b[2Jframe 2\n"},
		{Table, false, true, "frame 1\n\nframe 2\n"},
		{Wide, false, false, "frame 1\nframe 2\n"},
	} {
		if got := run(c.f, c.tty, c.gap); got != c.want {
			t.Errorf("%s tty=%v gap=%v: got %q want %q", c.f, c.tty, c.gap, got, c.want)
		}
	}
}
