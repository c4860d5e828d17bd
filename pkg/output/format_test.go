package output

import (
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
