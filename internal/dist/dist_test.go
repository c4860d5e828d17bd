package dist

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPackageVersion(t *testing.T) {
	for in, want := range map[string][2]string{
		"v1.2.3":               {"1.2.3", ""},
		"1.2.3-rc.1":           {"1.2.3", "rc.1"},
		"ed2639e-dirty":        {"0.0.0", "git.ed2639e.dirty"},
		"v1.2.3-4-gabcdef0":    {"1.2.3", "4.gabcdef0"},
		"dev":                  {"0.0.0", "git.dev"},
		"v1.2.3-4-gabc-dirty":  {"1.2.3", "4.gabc.dirty"},
		"weird version/string": {"0.0.0", "git.weird.version.string"},
	} {
		v, pre := PackageVersion(in)
		if v != want[0] || pre != want[1] {
			t.Errorf("PackageVersion(%q) = %q, %q; want %q, %q", in, v, pre, want[0], want[1])
		}
	}
}

func TestParseTarget(t *testing.T) {
	if got, err := ParseTarget("linux/arm64"); err != nil || got != (Target{"linux", "arm64"}) {
		t.Errorf("%v %v", got, err)
	}
	for _, bad := range []string{"linux", "/amd64", "linux/"} {
		if _, err := ParseTarget(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// fakeDocs lays out what GenDocs would, without a binary.
func fakeDocs(t *testing.T) *Docs {
	dir := t.TempDir()
	d := &Docs{Dir: dir, ManPages: []string{"kafka-topics.1.gz", "kbox.1.gz"}, LinkNames: []string{"kafka-topics", "kafka-topics.sh"}, ApacheMans: []string{"kafka-topics"}}
	for _, p := range []string{"man1/kafka-topics.1.gz", "man1/kbox.1.gz", "completions/bash/kbox", "completions/zsh/_kbox", "completions/fish/kbox.fish"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func TestArchiveAndChecksums(t *testing.T) {
	d := fakeDocs(t)
	out := t.TempDir()
	bin := filepath.Join(t.TempDir(), "kbox")
	if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	readme := filepath.Join(t.TempDir(), "README.md")
	if err := os.WriteFile(readme, []byte("readme"), 0o644); err != nil {
		t.Fatal(err)
	}
	mtime := time.Unix(1700000000, 0)
	p, err := Archive(Target{"darwin", "arm64"}, bin, readme, d, "v1.0.0", mtime, out)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(p) != "kbox_1.0.0_darwin_arm64.tar.gz" {
		t.Errorf("archive name %s", p)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	got := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.Equal(mtime) {
			t.Errorf("%s: mtime %v", h.Name, h.ModTime)
		}
		switch h.Typeflag {
		case tar.TypeSymlink:
			got[h.Name] = "-> " + h.Linkname
		case tar.TypeReg:
			b, _ := io.ReadAll(tr)
			got[h.Name] = string(b)
		}
	}
	top := "kbox_1.0.0_darwin_arm64/"
	for name, want := range map[string]string{
		"kbox": "binary", "README.md": "readme", "kafka-topics": "-> kbox", "kafka-topics.sh": "-> kbox",
		"share/man/man1/kafka-topics.1.gz": "man1/kafka-topics.1.gz", "share/man/man1/kafka-topics.sh.1.gz": "-> kafka-topics.1.gz",
		"share/bash-completion/completions/kbox": "completions/bash/kbox", "share/bash-completion/completions/kafka-topics.sh": "-> kbox",
		"share/zsh/vendor-completions/_kbox": "completions/zsh/_kbox", "share/fish/vendor_completions.d/kbox.fish": "completions/fish/kbox.fish",
	} {
		if got[top+name] != want {
			t.Errorf("%s: %q, want %q", name, got[top+name], want)
		}
	}
	if len(got) != 12 { // 10 above, kbox.1.gz, bash completion for kafka-topics

		t.Errorf("%d entries: %v", len(got), got)
	}

	if err := Checksums(out); err != nil {
		t.Fatal(err)
	}
	sums, _ := os.ReadFile(filepath.Join(out, "checksums.txt"))
	b, _ := os.ReadFile(p)
	h := sha256.Sum256(b)
	if string(sums) != hex.EncodeToString(h[:])+"  kbox_1.0.0_darwin_arm64.tar.gz\n" {
		t.Errorf("checksums.txt: %q", sums)
	}
	if _, err := Package("deb", Target{"darwin", "arm64"}, bin, d, "v1", mtime, out); err == nil || !strings.Contains(err.Error(), "linux") {
		t.Errorf("deb for darwin: %v", err)
	}
}
