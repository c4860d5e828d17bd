// Package dist builds kbox's release files (make dist): static binaries per
// platform, tar.gz archives, .deb and .rpm packages (nfpm) and a
// checksums.txt. What a package installs besides the binary (man pages,
// completions) comes from the binary itself: `kbox gen-man` and
// `kbox gen-completions`, run on a binary for the build machine.
package dist

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb" // registers the deb packager
	"github.com/goreleaser/nfpm/v2/files"
	_ "github.com/goreleaser/nfpm/v2/rpm" // registers the rpm packager
)

// Module is kbox's module path (the linker stamps cmd/app.Version there).
const Module = "github.com/kboxdev/kbox"

// Target is one platform of a release.
type Target struct{ OS, Arch string }

func (t Target) String() string { return t.OS + "/" + t.Arch }

// Targets is every platform make dist builds.
var Targets = []Target{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}}

// ParseTarget reads "os/arch".
func ParseTarget(s string) (Target, error) {
	o, a, ok := strings.Cut(s, "/")
	if !ok || o == "" || a == "" {
		return Target{}, fmt.Errorf("target %q: want OS/ARCH, e.g. linux/amd64", s)
	}
	return Target{o, a}, nil
}

// Build compiles kbox for t into out, static and stamped like make build.
func Build(ctx context.Context, repo string, t Target, version, commit, out string) error {
	ldflags := fmt.Sprintf("-s -w -X %s/cmd/app.Version=%s -X %s/cmd/app.Commit=%s", Module, version, Module, commit)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", ldflags, "-o", out, "./cmd/kbox")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.OS, "GOARCH="+t.Arch)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", t, err, b)
	}
	return nil
}

// Docs is what GenDocs wrote: gzipped man pages and completion files.
type Docs struct {
	Dir        string   // Dir/man1/*.1.gz, Dir/completions/{bash,zsh,fish}/...
	ManPages   []string // file names in Dir/man1, sorted
	LinkNames  []string // the applet link names (kafka-topics, kafka-topics.sh, ...)
	ApacheMans []string // the applets' page names without .1.gz (kafka-topics, ...)
}

// GenDocs runs bin (a kbox that runs here) to write the man pages and the
// completions into dir, and gzips the man pages (no name, no time: the
// same input gives the same bytes). mtime dates the pages.
func GenDocs(ctx context.Context, bin, dir string, mtime time.Time) (*Docs, error) {
	raw := filepath.Join(dir, "man-src")
	env := append(os.Environ(), fmt.Sprintf("SOURCE_DATE_EPOCH=%d", mtime.Unix()))
	for _, args := range [][]string{{"gen-man", raw}, {"gen-completions", filepath.Join(dir, "completions")}} {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = env
		if b, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%s %s: %v\n%s", bin, args[0], err, b)
		}
	}
	links, err := exec.CommandContext(ctx, bin, "install-links", filepath.Join(dir, "links")).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s install-links: %v\n%s", bin, err, links)
	}
	d := &Docs{Dir: dir}
	ents, err := os.ReadDir(filepath.Join(dir, "links"))
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		d.LinkNames = append(d.LinkNames, e.Name())
		if !strings.HasSuffix(e.Name(), ".sh") {
			d.ApacheMans = append(d.ApacheMans, e.Name())
		}
	}
	if len(d.LinkNames) == 0 {
		return nil, fmt.Errorf("%s install-links made no links", bin)
	}
	pages, err := os.ReadDir(raw)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "man1"), 0o755); err != nil {
		return nil, err
	}
	for _, p := range pages {
		src, err := os.ReadFile(filepath.Join(raw, p.Name()))
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		if _, err := zw.Write(src); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		name := p.Name() + ".gz"
		if err := os.WriteFile(filepath.Join(dir, "man1", name), b.Bytes(), 0o644); err != nil {
			return nil, err
		}
		d.ManPages = append(d.ManPages, name)
	}
	sort.Strings(d.ManPages)
	for _, a := range d.ApacheMans {
		if !contains(d.ManPages, a+".1.gz") {
			return nil, fmt.Errorf("gen-man wrote no page for %s", a)
		}
	}
	return d, nil
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// Standard places of what a package installs.
const (
	BinDir      = "/usr/bin"
	ManDir      = "/usr/share/man/man1"
	BashCompDir = "/usr/share/bash-completion/completions"
	ZshCompDir  = "/usr/share/zsh/vendor-completions"
	FishCompDir = "/usr/share/fish/vendor_completions.d"
)

// entry is one file of a package or archive: a regular file copied from
// src, or a symlink to target.
type entry struct {
	dst, src, target string
	mode             os.FileMode
}

// layout is what kbox installs, under root ("/usr/bin/kbox", ...): the
// binary and every applet link (relative, as install-links makes them),
// the man pages (kafka-X.sh.1.gz linked to kafka-X.1.gz), bash completion
// for kbox and each link name (links to kbox's), zsh and fish completion.
func layout(bin string, d *Docs) []entry {
	es := []entry{{dst: path.Join(BinDir, "kbox"), src: bin, mode: 0o755}}
	for _, l := range d.LinkNames {
		es = append(es, entry{dst: path.Join(BinDir, l), target: "kbox"})
	}
	for _, p := range d.ManPages {
		es = append(es, entry{dst: path.Join(ManDir, p), src: filepath.Join(d.Dir, "man1", p), mode: 0o644})
	}
	for _, a := range d.ApacheMans {
		es = append(es, entry{dst: path.Join(ManDir, a+".sh.1.gz"), target: a + ".1.gz"})
	}
	comp := filepath.Join(d.Dir, "completions")
	es = append(es,
		entry{dst: path.Join(BashCompDir, "kbox"), src: filepath.Join(comp, "bash", "kbox"), mode: 0o644},
		entry{dst: path.Join(ZshCompDir, "_kbox"), src: filepath.Join(comp, "zsh", "_kbox"), mode: 0o644},
		entry{dst: path.Join(FishCompDir, "kbox.fish"), src: filepath.Join(comp, "fish", "kbox.fish"), mode: 0o644})
	for _, l := range d.LinkNames {
		es = append(es, entry{dst: path.Join(BashCompDir, l), target: "kbox"})
	}
	return es
}

// PackageVersion is the version a .deb or .rpm carries: VERSION without a
// leading v when it is a release (1.2.3, 1.2.3-rc1 → 1.2.3~rc1; a git
// description past a tag, 1.2.3-4-gabc, also becomes a pre-release of
// 1.2.3, 1.2.3~4.gabc); otherwise 0.0.0 with
// the git description as a pre-release (0.0.0~git.ed2639e.dirty), which
// sorts before any release.
func PackageVersion(v string) (version, prerelease string) {
	v = strings.TrimPrefix(v, "v")
	if m := regexp.MustCompile(`^(\d+\.\d+\.\d+)(?:-([0-9A-Za-z.-]+))?$`).FindStringSubmatch(v); m != nil {
		return m[1], strings.ReplaceAll(m[2], "-", ".") // rpm allows no "-" in a version
	}
	return "0.0.0", "git." + regexp.MustCompile(`[^0-9A-Za-z]+`).ReplaceAllString(v, ".")
}

// Package writes the .deb or .rpm (format "deb" or "rpm") of a linux
// binary into outDir and returns its path.
func Package(format string, t Target, bin string, d *Docs, version string, mtime time.Time, outDir string) (string, error) {
	if t.OS != "linux" {
		return "", fmt.Errorf("%s packages are for linux, not %s", format, t)
	}
	pv, pre := PackageVersion(version)
	info := &nfpm.Info{
		Name: "kbox", Arch: t.Arch, Platform: "linux",
		Version: pv, Prerelease: pre, VersionSchema: "none", Release: "1",
		Section: "utils", Priority: "optional",
		Maintainer:  "kbox developers",
		Description: "Kafka admin, diagnostic, verification and load-test tools in one binary\nkbox replaces Apache Kafka's admin and diagnostic scripts (kafka-topics,\nkafka-log-dirs, the perf and verifiable tools) with one static binary:\ndrop-ins that print Apache's output exactly, and native commands.",
		Homepage:    "https://" + Module,
		MTime:       mtime,
	}
	for _, e := range layout(bin, d) {
		c := &files.Content{Destination: e.dst}
		if e.target != "" {
			c.Type, c.Source = files.TypeSymlink, e.target
			c.FileInfo = &files.ContentFileInfo{Mode: 0o777, MTime: mtime}
		} else {
			c.Source = e.src
			c.FileInfo = &files.ContentFileInfo{Mode: e.mode, MTime: mtime}
		}
		info.Contents = append(info.Contents, c)
	}
	info = nfpm.WithDefaults(info)
	if err := nfpm.PrepareForPackager(info, format); err != nil {
		return "", fmt.Errorf("%s: %v", format, err)
	}
	p, err := nfpm.Get(format)
	if err != nil {
		return "", err
	}
	out := filepath.Join(outDir, p.ConventionalFileName(info))
	f, err := os.Create(out)
	if err != nil {
		return "", err
	}
	if err := p.Package(info, f); err != nil {
		f.Close()
		return "", fmt.Errorf("%s %s: %v", format, t, err)
	}
	return out, f.Close()
}

// ArchiveName is the archive of a release for t.
func ArchiveName(version string, t Target) string {
	return fmt.Sprintf("kbox_%s_%s_%s.tar.gz", strings.TrimPrefix(version, "v"), t.OS, t.Arch)
}

// Archive writes the tar.gz of t into outDir: one folder holding kbox, its
// applet links, README.md, and share/ with the man pages and completions
// in the same places as under /usr.
func Archive(t Target, bin, readme string, d *Docs, version string, mtime time.Time, outDir string) (string, error) {
	out := filepath.Join(outDir, ArchiveName(version, t))
	f, err := os.Create(out)
	if err != nil {
		return "", err
	}
	defer f.Close()
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	top := strings.TrimSuffix(filepath.Base(out), ".tar.gz")
	es := []entry{{dst: "/README.md", src: readme, mode: 0o644}}
	for _, e := range layout(bin, d) {
		// /usr/bin/kbox → kbox, /usr/share/... → share/...
		e.dst = strings.TrimPrefix(strings.TrimPrefix(e.dst, BinDir), "/usr")
		es = append(es, e)
	}
	dirs := map[string]bool{}
	for _, e := range es {
		name := path.Join(top, e.dst)
		for dir := path.Dir(name); dir != "." && !dirs[dir]; dir = path.Dir(dir) {
			dirs[dir] = true
		}
	}
	var dl []string
	for dir := range dirs {
		dl = append(dl, dir)
	}
	sort.Strings(dl) // parents first
	for _, dir := range dl {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755, ModTime: mtime}); err != nil {
			return "", err
		}
	}
	for _, e := range es {
		name := path.Join(top, e.dst)
		if e.target != "" {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: e.target, Mode: 0o777, ModTime: mtime}); err != nil {
				return "", err
			}
			continue
		}
		b, err := os.ReadFile(e.src)
		if err != nil {
			return "", err
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: int64(e.mode), Size: int64(len(b)), ModTime: mtime}); err != nil {
			return "", err
		}
		if _, err := tw.Write(b); err != nil {
			return "", err
		}
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return out, f.Close()
}

// Checksums writes dir/checksums.txt: "SHA256  NAME" for every other file
// in dir, sorted by name (sha256sum -c reads it).
func Checksums(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, e := range ents {
		if !e.Type().IsRegular() || e.Name() == "checksums.txt" {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), e.Name())
	}
	return os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(b.String()), fs.FileMode(0o644))
}
