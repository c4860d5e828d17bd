// Package golden compares test output with files under testdata/.
//
// UPDATE_GOLDEN=1 go test ./... rewrites the files instead of comparing.
package golden

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/pkg/output"
	"gopkg.in/yaml.v3"
)

// Update reports whether goldens are being rewritten (UPDATE_GOLDEN set).
func Update() bool { return os.Getenv("UPDATE_GOLDEN") != "" }

// Path is testdata/name.
func Path(name string) string { return filepath.Join("testdata", name) }

// Read returns the content of testdata/name.
func Read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(Path(name))
	if err != nil {
		t.Fatalf("read golden (run with UPDATE_GOLDEN=1 to create it): %v", err)
	}
	return b
}

// Check compares got with testdata/name, or writes it there under
// UPDATE_GOLDEN.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	if Update() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(Path(name), got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := Read(t, name)
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (UPDATE_GOLDEN=1 rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// Keys returns every object key of a JSON or YAML document, as sorted
// dotted paths (array elements share the path of their array: "a[].b").
func Keys(doc any) []string {
	set := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				set[p] = true
				walk(p, c)
			}
		case []any:
			for _, c := range x {
				walk(prefix+"[]", c)
			}
		}
	}
	walk("", doc)
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// SameKeys fails the test unless the JSON and the YAML document have the
// same object keys at the same places.
func SameKeys(t testing.TB, jsonDoc, yamlDoc []byte) {
	t.Helper()
	var j, y any
	if err := json.Unmarshal(jsonDoc, &j); err != nil {
		t.Fatalf("json: %v", err)
	}
	if err := yaml.Unmarshal(yamlDoc, &y); err != nil {
		t.Fatalf("yaml: %v", err)
	}
	if jk, yk := Keys(j), Keys(y); !reflect.DeepEqual(jk, yk) {
		t.Errorf("YAML keys differ from JSON keys\njson: %v\nyaml: %v", jk, yk)
	}
}

// DataMaps are JSON objects whose keys are data, not field names: Java
// property names, broker ids. Their keys are exempt from the snake_case rule.
var DataMaps = []string{"properties", "replica_size_bytes"}

var snake = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// SnakeKeys fails the test for any object key of the JSON document that is
// not snake_case (docs/json.md), except inside DataMaps.
func SnakeKeys(t testing.TB, jsonDoc []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(jsonDoc, &v); err != nil {
		t.Fatalf("json: %v", err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if !snake.MatchString(k) {
					t.Errorf("JSON field %q is not snake_case", k)
				}
				if isDataMap(k) {
					continue
				}
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(v)
}

func isDataMap(k string) bool {
	for _, d := range DataMaps {
		if k == d {
			return true
		}
	}
	return false
}

// JSON renders v as kbox prints it with -o json (indented, as on a
// terminal), applies the normalizers (for what varies between runs: ports,
// ids, timestamps), and compares it with testdata/name. It also checks the
// JSON contract: every field name snake_case, and -o yaml with the same keys.
func JSON(t testing.TB, name string, v any, normalize ...func(string) string) {
	t.Helper()
	var j, y bytes.Buffer
	if err := output.WriteJSON(&j, v, true); err != nil {
		t.Fatal(err)
	}
	if err := output.WriteYAML(&y, v); err != nil {
		t.Fatal(err)
	}
	SnakeKeys(t, j.Bytes())
	SameKeys(t, j.Bytes(), y.Bytes())
	s := j.String()
	for _, n := range normalize {
		s = n(s)
	}
	Check(t, name, []byte(s))
}

// Replace returns a normalizer that replaces every match of the regular
// expression re with repl (regexp.ReplaceAllString syntax).
func Replace(re, repl string) func(string) string {
	r := regexp.MustCompile(re)
	return func(s string) string { return r.ReplaceAllString(s, repl) }
}

// Output checks the -o json output of a whole command run like JSON does:
// jsonOut is what the command printed with -o json, yamlOut (if not empty)
// what it printed with -o yaml for the same result.
func Output(t testing.TB, name, jsonOut, yamlOut string, normalize ...func(string) string) {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(strings.TrimSpace(jsonOut)), "", "  "); err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", name, err, jsonOut)
	}
	b.WriteByte('\n')
	SnakeKeys(t, b.Bytes())
	if yamlOut != "" {
		SameKeys(t, b.Bytes(), []byte(yamlOut))
	}
	s := b.String()
	for _, n := range normalize {
		s = n(s)
	}
	Check(t, name, []byte(s))
}
