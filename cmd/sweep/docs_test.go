package sweep

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
)

// docsDir holds the methodology's experiments: for each results file
// NAME.json, the table (NAME.txt), the HTML report and the summary chart
// that kbox perf sweep merge renders from it.
const docsDir = "../../docs/perf-methodology"

// regenerate is the command that re-renders one experiment's files.
func regenerate(name string) string {
	p := "docs/perf-methodology/" + name
	return "kbox perf sweep merge " + p + ".json --report " + p + ".html --report " + p + ".png > " + p + ".txt"
}

var svgElem = regexp.MustCompile(`(?s)<svg.*?</svg>`)

// TestPerfMethodologyDocs re-renders every committed report of
// docs/perf-methodology/ from its results file with today's code and
// compares, so the docs cannot go stale. UPDATE_GOLDEN=1 rewrites them.
//
// The charts are compared byte for byte on amd64, where the docs are
// rendered: other architectures may fuse floating-point operations (FMA)
// and draw a pixel or a coordinate's last digit differently, so there the
// HTML is compared without its SVG charts and the PNG is not compared.
func TestPerfMethodologyDocs(t *testing.T) {
	jsons, err := filepath.Glob(filepath.Join(docsDir, "*.json"))
	if err != nil || len(jsons) == 0 {
		t.Fatalf("no results files in %s: %v", docsDir, err)
	}
	exact := runtime.GOARCH == "amd64"
	names := map[string]bool{}
	for _, j := range jsons {
		name := strings.TrimSuffix(filepath.Base(j), ".json")
		names[name] = true
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkDocsReport(t, j, name, exact)
		})
	}
	// Every committed report has its results file.
	for _, pat := range []string{"*.txt", "*.html", "*.png"} {
		files, _ := filepath.Glob(filepath.Join(docsDir, pat))
		for _, f := range files {
			base := filepath.Base(f)
			if name := strings.TrimSuffix(base, filepath.Ext(base)); !names[name] {
				t.Errorf("docs/perf-methodology/%s has no results file (%s.json) to render it from", base, name)
			}
		}
	}
}

// checkDocsReport renders one results file as make perf-docs does and
// compares with the committed table, HTML report and PNG chart.
func checkDocsReport(t *testing.T, j, name string, exact bool) {
	tmp := t.TempDir()
	out, errOut, err := runSweep(t, "merge", j, "--report", filepath.Join(tmp, name+".html"), "--report", filepath.Join(tmp, name+".png"))
	if err != nil {
		t.Fatalf("%s: %v\n%s", j, err, errOut)
	}
	for _, ext := range []string{".txt", ".html", ".png"} {
		file := name + ext
		got := []byte(out)
		if ext != ".txt" {
			if got, err = os.ReadFile(filepath.Join(tmp, file)); err != nil {
				t.Fatal(err)
			}
		}
		committed := filepath.Join(docsDir, file)
		if golden.Update() {
			if err := os.WriteFile(committed, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(committed)
		if err != nil {
			t.Errorf("docs/perf-methodology/%s: %v; render it with `%s` (or `make perf-docs`)", file, err, regenerate(name))
			continue
		}
		switch {
		case exact || ext == ".txt":
		case ext == ".html":
			got, want = svgElem.ReplaceAll(got, nil), svgElem.ReplaceAll(want, nil)
		default:
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("docs/perf-methodology/%s is stale: today's kbox renders it differently from %s.json; regenerate with `make perf-docs` (or `%s`) and commit the result", file, name, regenerate(name))
		}
	}
}
