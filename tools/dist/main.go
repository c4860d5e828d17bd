// Command dist builds kbox's release files into one folder (make dist):
// a static binary per platform in a tar.gz, .deb and .rpm packages of the
// linux binaries, and checksums.txt. Run it from the repository root.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/internal/dist"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "dist: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	version := flag.String("version", "dev", "version stamped into the binaries (make: git describe)")
	commit := flag.String("commit", "none", "commit stamped into the binaries")
	out := flag.String("out", "dist", "output folder (emptied first)")
	targets := flag.String("targets", "", "comma-separated OS/ARCH list (default: linux/amd64,linux/arm64,darwin/amd64,darwin/arm64)")
	formats := flag.String("formats", "tar.gz,deb,rpm", "what to make: tar.gz, deb, rpm (deb and rpm for linux targets)")
	flag.Parse()
	if flag.NArg() != 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	ts := dist.Targets
	if *targets != "" {
		ts = nil
		for _, s := range strings.Split(*targets, ",") {
			t, err := dist.ParseTarget(strings.TrimSpace(s))
			if err != nil {
				return err
			}
			ts = append(ts, t)
		}
	}
	want := map[string]bool{}
	for _, f := range strings.Split(*formats, ",") {
		switch f = strings.TrimSpace(f); f {
		case "tar.gz", "deb", "rpm":
			want[f] = true
		default:
			return fmt.Errorf("unknown format %q (tar.gz, deb, rpm)", f)
		}
	}
	// SOURCE_DATE_EPOCH (make dist: the commit's time) dates every file.
	mtime := time.Now().UTC().Truncate(time.Second)
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("SOURCE_DATE_EPOCH %q: %v", s, err)
		}
		mtime = time.Unix(n, 0).UTC()
	}
	ctx := context.Background()
	if err := os.RemoveAll(*out); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "kbox-dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	// The man pages and completions come from a binary that runs here.
	host := dist.Target{OS: runtime.GOOS, Arch: runtime.GOARCH}
	hostBin := filepath.Join(work, "host", "kbox")
	if err := dist.Build(ctx, ".", host, *version, *commit, hostBin); err != nil {
		return err
	}
	docs, err := dist.GenDocs(ctx, hostBin, filepath.Join(work, "docs"), mtime)
	if err != nil {
		return err
	}
	for _, t := range ts {
		bin := filepath.Join(work, t.OS+"-"+t.Arch, "kbox")
		if err := dist.Build(ctx, ".", t, *version, *commit, bin); err != nil {
			return err
		}
		var made []string
		if want["tar.gz"] {
			p, err := dist.Archive(t, bin, "README.md", docs, *version, mtime, *out)
			if err != nil {
				return err
			}
			made = append(made, p)
		}
		for _, f := range []string{"deb", "rpm"} {
			if !want[f] || t.OS != "linux" {
				continue
			}
			p, err := dist.Package(f, t, bin, docs, *version, mtime, *out)
			if err != nil {
				return err
			}
			made = append(made, p)
		}
		fmt.Printf("%s: %s\n", t, strings.Join(made, " "))
	}
	if err := dist.Checksums(*out); err != nil {
		return err
	}
	fmt.Printf("%s\n", filepath.Join(*out, "checksums.txt"))
	return nil
}
