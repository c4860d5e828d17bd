//go:build integration

// Package dist_test builds kbox's .deb for this machine's architecture from
// the binary under test (as make dist does), extracts it into a temporary
// root (dpkg-deb -x, nothing installed), and uses what it installs: the
// binary and its links, the man pages, and bash completion of topic names
// against a playground cluster started by the extracted kbox.
package dist_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/internal/dist"
	"github.com/kboxdev/kbox/test/integration/testbed"
)

func TestDebInstallsAWorkingKbox(t *testing.T) {
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("dpkg-deb not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	bin, err := testbed.Binary(tmp)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, bin, "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("kbox version -o json: %v", err)
	}
	var built struct {
		Version, Commit string
		FranzGo         string `json:"franz_go_version"`
		Apache          string `json:"apache_kafka_version"`
	}
	if err := json.Unmarshal(out, &built); err != nil {
		t.Fatalf("kbox version -o json: %v\n%s", err, out)
	}

	// Build the package as make dist does, for this architecture only.
	docs, err := dist.GenDocs(ctx, bin, filepath.Join(tmp, "docs"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	deb, err := dist.Package("deb", dist.Target{OS: "linux", Arch: runtime.GOARCH}, bin, docs, built.Version, time.Now(), tmp)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(tmp, "root")
	if b, err := exec.CommandContext(ctx, "dpkg-deb", "-x", deb, root).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -x: %v\n%s", err, b)
	}
	if b, err := exec.CommandContext(ctx, "dpkg-deb", "-f", deb, "Package", "Architecture").CombinedOutput(); err != nil ||
		string(b) != "Package: kbox\nArchitecture: "+runtime.GOARCH+"\n" {
		t.Errorf("dpkg-deb -f: %v %q", err, b)
	}
	usrBin := filepath.Join(root, "usr", "bin")

	// Every applet link, with and without .sh, next to kbox.
	want := []string{"kbox"}
	for _, l := range docs.LinkNames {
		want = append(want, l)
		if target, err := os.Readlink(filepath.Join(usrBin, l)); err != nil || target != "kbox" {
			t.Errorf("/usr/bin/%s: link to %q (%v), want kbox", l, target, err)
		}
	}
	if len(docs.LinkNames) < 14 || !contains(docs.LinkNames, "kafka-topics.sh") {
		t.Errorf("link names %v", docs.LinkNames)
	}
	ents, _ := os.ReadDir(usrBin)
	var have []string
	for _, e := range ents {
		have = append(have, e.Name())
	}
	sort.Strings(want)
	if strings.Join(have, " ") != strings.Join(want, " ") {
		t.Errorf("/usr/bin: %v\nwant %v", have, want)
	}

	// The extracted binary runs, under its links too.
	run := func(env []string, name string, args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.CommandContext(ctx, filepath.Join(usrBin, name), args...)
		cmd.Env = append(os.Environ(), env...)
		var so, se strings.Builder
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return so.String(), se.String(), code
	}
	for _, name := range []string{"kafka-topics", "kafka-topics.sh"} {
		if so, se, code := run(nil, name, "--version"); code != 0 || so != cmdutil.ApacheVersion+"\n" || se != "" {
			t.Errorf("%s --version: %d %q %q", name, code, so, se)
		}
	}
	if so, se, code := run(nil, "kbox", "version"); code != 0 || so != "kbox "+built.Version+" (commit "+built.Commit+")\n" || se != "" {
		t.Errorf("kbox version: %d %q %q", code, so, se)
	}
	// franz_go_version is read from the binary's build information: it is
	// the franz-go of go.mod.
	gomod, err := os.ReadFile(filepath.Join("..", "..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*github\.com/twmb/franz-go (v\S+)`).FindSubmatch(gomod)
	if m == nil || built.FranzGo != string(m[1]) || built.Apache != cmdutil.ApacheVersion {
		t.Errorf("kbox version -o json: franz_go_version %q apache_kafka_version %q; go.mod has %q", built.FranzGo, built.Apache, m)
	}

	// Man pages: one per applet (Apache name, .sh linked), per native
	// command, gzipped, and they render.
	manDir := filepath.Join(root, "usr", "share", "man", "man1")
	for _, page := range []string{"kafka-topics.1.gz", "kafka-topics.sh.1.gz", "kafka-producer-perf-test.1.gz", "kbox.1.gz", "kbox-topics.1.gz", "kbox-perf-produce.1.gz", "kbox-version.1.gz"} {
		text := renderMan(t, ctx, filepath.Join(manDir, page))
		title := strings.ToUpper(strings.TrimSuffix(strings.TrimSuffix(page, ".1.gz"), ".sh")) + "(1)"
		if !strings.HasPrefix(strings.TrimSpace(text), title) || !strings.Contains(text, "NAME") {
			t.Errorf("%s: rendered page does not start with %s:\n%.400s", page, title, text)
		}
		if strings.HasPrefix(page, "kafka-topics") && (!strings.Contains(text, "--bootstrap-server <String: server to") || !strings.Contains(text, "Apache Kafka "+cmdutil.ApacheVersion)) {
			t.Errorf("%s: no Apache option table:\n%s", page, text)
		}
	}
	for _, a := range docs.ApacheMans {
		if _, err := os.Stat(filepath.Join(manDir, a+".1.gz")); err != nil {
			t.Errorf("no man page for %s: %v", a, err)
		}
	}
	share := filepath.Join(root, "usr", "share")
	for _, p := range []string{"bash-completion/completions/kbox", "zsh/vendor-completions/_kbox", "fish/vendor_completions.d/kbox.fish"} {
		if st, err := os.Stat(filepath.Join(share, p)); err != nil || st.Size() == 0 {
			t.Errorf("/usr/share/%s: %v", p, err)
		}
	}
	for _, l := range docs.LinkNames {
		if target, err := os.Readlink(filepath.Join(share, "bash-completion", "completions", l)); err != nil || target != "kbox" {
			t.Errorf("bash completion for %s: %q %v", l, target, err)
		}
	}

	// bash completion needs the bash-completion package, like a shell does.
	if _, err := os.Stat("/usr/share/bash-completion/bash_completion"); err != nil {
		t.Fatalf("bash-completion is not installed (test/integration/deps.sh installs it): %v", err)
	}

	// A playground cluster, started by the extracted kbox, writes its
	// profile (the current one) into a config file of this test.
	env := []string{"KBOX_CONFIG=" + filepath.Join(tmp, "config.yaml"), "PATH=" + usrBin + ":" + os.Getenv("PATH")}
	startPlayground(t, ctx, filepath.Join(usrBin, "kbox"), env, "--brokers", "1", "--topic", "pkg-orders:3", "--topic", "pkg-audit")

	// bash completion as a shell does it: bash-completion sources the file
	// named like the command, then calls the function registered for the
	// command with COMP_WORDS/COMP_CWORD set.
	complete := func(words ...string) []string {
		t.Helper()
		line := strings.Join(words, " ")
		// (no set -e: cobra's functions end on a read that returns 1 at EOF)
		script := `. /usr/share/bash-completion/bash_completion
. "$COMPFILE"
# compopt works only inside a completion the shell started; as a function
# it is skipped by the script (it checks for the builtin).
compopt() { :; }
COMP_WORDS=(` + quoteAll(words) + `)
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE=` + shellQuote(line) + `
COMP_POINT=${#COMP_LINE}
fn=$(complete -p "${COMP_WORDS[0]}" | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
[ -n "$fn" ] || { echo "no completion registered for ${COMP_WORDS[0]}" >&2; exit 3; }
"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
`
		cmd := exec.CommandContext(ctx, "bash", "--norc", "--noprofile", "-c", script)
		cmd.Env = append(append(os.Environ(), env...), "COMPFILE="+filepath.Join(share, "bash-completion", "completions", words[0]))
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("completing %q: %v\n%s", line, err, b)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				got = append(got, l)
			}
		}
		sort.Strings(got)
		return got
	}
	check := func(got []string, want ...string) {
		t.Helper()
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("completions %q, want %q", got, want)
		}
	}
	check(complete("kbox", "topics", "--describe", "--topic", ""), "pkg-audit", "pkg-orders")
	check(complete("kbox", "topics", "--describe", "--topic", "pkg-o"), "pkg-orders")
	// Through a link name (bash-completion loads the file named like it).
	check(complete("kafka-topics", "--describe", "--topic", ""), "pkg-audit", "pkg-orders")
	check(complete("kafka-topics.sh", "--describe", "--to"), "--topic", "--topic-id", "--topics-with-overrides")
	check(complete("kbox", "vers"), "version")
}

// renderMan renders a page with man -l (MANPAGER=cat), or groff when man
// is not installed; a warning on stderr is a failure.
func renderMan(t *testing.T, ctx context.Context, page string) string {
	t.Helper()
	var cmd *exec.Cmd
	if _, err := exec.LookPath("man"); err == nil {
		cmd = exec.CommandContext(ctx, "man", "-l", page)
		cmd.Env = append(os.Environ(), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=100", "MAN_KEEP_FORMATTING=0", "LANG=C.UTF-8")
	} else if _, err := exec.LookPath("groff"); err == nil {
		cmd = exec.CommandContext(ctx, "sh", "-c", `gzip -dc "$1" | groff -man -Tascii -P-cbou`, "sh", page)
	} else {
		t.Fatal("neither man nor groff is installed (test/integration/deps.sh installs man-db)")
	}
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil || se.Len() > 0 {
		t.Errorf("rendering %s: %v\n%s", page, err, se.String())
	}
	// man formats bold and underline by overstriking (X\bX, _\bX).
	return regexp.MustCompile(".\b").ReplaceAllString(so.String(), "")
}

// startPlayground runs `kbox playground ARGS` until the test ends and
// returns once it serves (its "Serving until" line).
func startPlayground(t *testing.T, ctx context.Context, kbox string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command(kbox, append([]string{"playground"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		var seen strings.Builder
		for sc.Scan() {
			seen.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), "Serving until") {
				ready <- seen.String()
			}
		}
		close(ready)
		done <- cmd.Wait()
	}()
	select {
	case s, ok := <-ready:
		if !ok {
			t.Fatalf("playground exited before serving: %s", stderr.String())
		}
		if !strings.Contains(s, "pkg-orders") {
			t.Fatalf("playground banner: %s", s)
		}
	case <-ctx.Done():
		t.Fatalf("playground not serving in time: %s", stderr.String())
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func quoteAll(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}
