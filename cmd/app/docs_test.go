package app

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/cmd/cmdutil"
)

// gen-man writes a page per Apache applet (Apache name) and per native
// command of the tree, none for hidden commands; an applet's page carries
// the option table the applet prints.
func TestGenMan(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, nil, "kbox", "gen-man", dir)
	if code != 0 || !strings.HasPrefix(out, "wrote ") {
		t.Fatalf("gen-man: %d %q %q", code, out, errOut)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, e := range ents {
		have[e.Name()] = true
	}
	want := []string{"kbox.1", "kbox-version.1", "kbox-completion-bash.1", "kbox-perf-produce.1", "kbox-profile-list.1"}
	for _, a := range Applets() {
		want = append(want, a.Name+".1", "kbox-"+a.Alias+".1")
	}
	for _, w := range want {
		if !have[w] {
			t.Errorf("no %s in %v", w, sortedKeys(have))
		}
	}
	for _, hidden := range []string{"kbox-gen-man.1", "kbox-gen-completions.1", "kbox-help.1"} {
		if have[hidden] {
			t.Errorf("%s written", hidden)
		}
	}
	for _, a := range Applets() {
		for page, invoked := range map[string]string{a.Name + ".1": a.Name, "kbox-" + a.Alias + ".1": "kbox " + a.Alias} {
			b, err := os.ReadFile(filepath.Join(dir, page))
			if err != nil {
				t.Fatal(err)
			}
			s := string(b)
			// The applet's own usage, as it prints it, in a literal block.
			help := appletHelp(a, invoked)
			firstOption := ""
			for _, l := range strings.Split(help, "\n") {
				if f := strings.Fields(l); len(f) > 0 && len(f[0]) > 2 && strings.HasPrefix(f[0], "--") && f[0][2] != '-' {
					firstOption = l
					break
				}
			}
			if firstOption == "" && len(a.ApacheCommands) > 0 { // argparse4j subcommands: the usage line
				firstOption = strings.SplitN(help, "\n", 2)[0]
			}
			if firstOption == "" || !strings.Contains(s, strings.TrimRight(firstOption, " ")) {
				t.Errorf("%s: option line %q of its usage not in the page", page, firstOption)
			}
			if !strings.Contains(s, ".TH \""+strings.ToUpper(strings.TrimSuffix(page, ".1"))+"\" \"1\"") ||
				!strings.Contains(s, "Apache Kafka "+cmdutil.ApacheVersion) || strings.Contains(s, "help for ") {
				t.Errorf("%s: header, Apache section or cobra's -h line wrong:\n%.600s", page, s)
			}
		}
	}
	// kbox's extensions are listed where the applet lists them: under kbox.
	b, _ := os.ReadFile(filepath.Join(dir, "kbox-topics.1"))
	a, _ := os.ReadFile(filepath.Join(dir, "kafka-topics.1"))
	if !strings.Contains(string(b), "kbox extensions") || strings.Contains(string(a), "kbox extensions") {
		t.Errorf("kbox extensions: in kbox-topics.1 %v, in kafka-topics.1 %v", strings.Contains(string(b), "kbox extensions"), strings.Contains(string(a), "kbox extensions"))
	}
	// Hidden commands stay out of the applet list.
	_, _, errOut = run(t, nil, "kbox", "nope")
	if strings.Contains(errOut, "gen-man") {
		t.Errorf("gen-man listed: %s", errOut)
	}
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestGenCompletionsRegisterLinks(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := run(t, nil, "kbox", "gen-completions", dir); code != 0 {
		t.Fatalf("gen-completions: %d %s", code, errOut)
	}
	names := "kbox " + strings.Join(LinkNames(), " ")
	for file, want := range map[string][]string{
		"bash/kbox":      {"complete -o default -F __start_kbox " + names + "\n"},
		"zsh/_kbox":      {"#compdef " + names + "\n", "compdef _kbox " + names + "\n"},
		"fish/kbox.fish": {"complete -c kbox "},
	} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s: no %q", file, w)
			}
		}
	}
}

// A link answers a shell's __complete request as "kbox APPLET".
func TestLinkCompletes(t *testing.T) {
	for _, argv := range [][]string{
		{"/usr/bin/kafka-topics", "__complete", "--desc"},
		{"kafka-topics.sh", "__completeNoDesc", "--desc"},
		{"kbox", "__complete", "topics", "--desc"},
	} {
		code, out, errOut := run(t, nil, argv...)
		if code != 0 || !strings.HasPrefix(out, "--describe\n") {
			t.Errorf("%v: %d %q %q", argv, code, out, errOut)
		}
	}
	// An ordinary run of the link is still the applet.
	if code, _, errOut := run(t, nil, "kafka-topics", "--version"); code != 0 || errOut != "" {
		t.Errorf("kafka-topics --version: %d %q", code, errOut)
	}
}
