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
	"sort"
	"testing"

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
