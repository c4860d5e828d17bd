package app

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
)

// Every flag the documentation names (docs/*.md, README.md) is one the
// command it is named with lists in its --help: in a command line (a code
// block line or a code span such as `kbox perf e2e --records 150`) the
// command of that line; alone (`--records`), one of the commands its
// paragraph, table row or section heading names, or any command when they
// name none. Flags of other programs (testbed.sh, kubectl, make) are not
// kbox's to check.
func TestDocumentedFlagsExist(t *testing.T) {
	commandPaths = loadCommandPaths()
	idx := newCommandIndex(t)
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "..", "README.md"))
	checked := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(file)
		for _, u := range docUses(string(b)) {
			checked++
			if !idx.has(u, t) {
				where := "any command"
				if len(u.cmds) > 0 {
					where = strings.Join(u.cmds, " or ")
				}
				t.Errorf("%s:%d: %s is not in the --help of %s", name, u.line, u.flag, where)
			}
		}
	}
	if checked < 200 {
		t.Errorf("only %d flag uses found in the docs: the parser misses them", checked)
	}
}

// placeholders are flag-shaped words the docs use for no particular flag.
var placeholders = map[string]bool{
	"--opt": true, // compat-topics.md: jopt-simple's `--opt value` and `--opt=value` forms
}

// layerFlags are the layer's, taken by every command and drop-in:
// --profile (and --config, -o before the command name), --help.
var layerFlags = map[string]bool{"--profile": true, "--config": true, "--output": true, "--help": true}

// flagUse is one flag the docs name, with the commands it may belong to
// (none: any command).
type flagUse struct {
	flag string
	cmds []string
	line int
}

var (
	spanRE = regexp.MustCompile("`([^`]+)`")
	flagRE = regexp.MustCompile(`^--[a-zA-Z0-9][a-zA-Z0-9.-]*`)
	// a heading, a list item or a blank line starts a new paragraph
	breakRE = regexp.MustCompile(`^\s*(#|[-*] |\d+\. |$)`)
	// commands named in running text: an Apache name, or kbox and the
	// words after it
	nameRE     = regexp.MustCompile(`(^|[^a-z0-9/-])(kafka-[a-z0-9-]+[a-z0-9](\.sh)?|kbox( [a-z][a-z0-9-]*((\\?\|)[a-z][a-z0-9-]*)*)*)`)
	sentenceRE = regexp.MustCompile(`[.!?;:]\s+`)
)

// commandsIn returns the commands a text names anywhere ("kbox" alone is
// the program, not a command).
func commandsIn(text string) []string {
	var out []string
	for _, m := range nameRE.FindAllStringSubmatch(text, -1) {
		// `kbox configs get|set|unset`: each alternative.
		words := strings.Fields(m[2])
		last := strings.Split(strings.ReplaceAll(words[len(words)-1], `\|`, "|"), "|")
		for _, alt := range last {
			name := strings.Join(append(words[:len(words)-1:len(words)-1], alt), " ")
			if c := commandOf(name); c != "" && c != "kbox" {
				out = append(out, c)
			}
		}
	}
	return out
}

// docUses finds the flags a markdown text names, with their commands.
func docUses(text string) []flagUse {
	var out []flagUse
	lines := strings.Split(text, "\n")
	// block checks a paragraph, list item, heading or table row: a code
	// span that runs a command is checked against it; a flag alone
	// against the commands its sentence (a table row: its first two cells)
	// names, or any command when it names none.
	block := func(text string, line int, row bool) {
		masked := spanRE.ReplaceAllStringFunc(text, func(m string) string { return strings.Repeat("x", len(m)) })
		bounds := sentenceRE.FindAllStringIndex(masked, -1)
		sentence := func(at int) string {
			start, end := 0, len(text)
			for _, b := range bounds {
				if b[1] <= at {
					start = b[1]
				} else if b[0] >= at {
					end = b[0]
					break
				}
			}
			return text[start:end]
		}
		var rowCmds []string
		if row {
			// cells split at unescaped pipes (`get\|set` is one cell)
			cells := strings.Split(strings.Trim(strings.ReplaceAll(strings.TrimSpace(text), `\|`, "\x00"), "|"), "|")
			for i := range cells {
				cells[i] = strings.ReplaceAll(cells[i], "\x00", `\|`)
			}
			for _, c := range cells[:min(2, len(cells))] {
				rowCmds = append(rowCmds, commandsIn(c)...)
			}
		}
		for _, m := range spanRE.FindAllStringSubmatchIndex(text, -1) {
			uses := commandLineUses(text[m[2]:m[3]], line)
			for _, u := range uses {
				if u.cmds == nil { // a flag alone
					if row {
						u.cmds = rowCmds
					} else {
						u.cmds = commandsIn(sentence(m[0]))
					}
				}
				out = append(out, u)
			}
		}
	}
	var para []string
	paraLine := 0
	flush := func() {
		if len(para) > 0 {
			block(strings.Join(para, " "), paraLine, false)
		}
		para = nil
	}
	inFence := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "```") {
			flush()
			inFence = !inFence
			continue
		}
		if inFence {
			start := i + 1
			for strings.HasSuffix(strings.TrimSpace(l), `\`) && i+1 < len(lines) {
				i++
				l = strings.TrimSuffix(strings.TrimSpace(l), `\`) + " " + lines[i]
			}
			for _, u := range commandLineUses(l, start) {
				if len(u.cmds) > 0 {
					out = append(out, u)
				}
			}
			continue
		}
		switch {
		case strings.HasPrefix(trimmed, "#"):
			flush()
			htext := strings.TrimSpace(strings.TrimLeft(trimmed, "#"))
			// A heading may be a command line itself.
			if c := commandOf(htext); c != "" {
				for _, u := range commandLineUses(htext, i+1) {
					if len(u.cmds) > 0 {
						out = append(out, u)
					}
				}
			}
			block(htext, i+1, false)
		case strings.HasPrefix(trimmed, "|"):
			flush()
			block(trimmed, i+1, true)
		default:
			if breakRE.MatchString(l) {
				flush()
			}
			if trimmed != "" {
				if len(para) == 0 {
					paraLine = i + 1
				}
				para = append(para, trimmed)
			}
		}
	}
	flush()
	return out
}

// isAny reports whether cmds means "any command": none, or kbox itself.
func isAny(cmds []string) bool {
	for _, c := range cmds {
		if c == "kbox" {
			return true
		}
	}
	return len(cmds) == 0
}

var (
	singleQuoted = regexp.MustCompile(`'[^']*'`)
	doubleQuoted = regexp.MustCompile(`"[^"]*"`)
)

// external programs whose flags are not kbox's.
var external = regexp.MustCompile(`^(\S*/)?(testbed\.sh|kubectl|make|go|java|mvn|jq|curl|sudo|apt|rpm|tar|eval|git|kcat|docker|ssh)$`)

// commandLineUses splits a shell line into simple commands and returns the
// flags of each; cmds is the command ("kbox perf e2e", "kafka-topics") when
// the line runs kbox, empty when it runs another program, nil when the words
// name no program (flags alone).
func commandLineUses(line string, lineNo int) []flagUse {
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	// A quoted argument is one word; "$(...)" runs what it holds.
	line = singleQuoted.ReplaceAllString(line, "ARG")
	line = doubleQuoted.ReplaceAllStringFunc(line, func(q string) string {
		if strings.Contains(q, "$(") {
			return q[1 : len(q)-1]
		}
		return "ARG"
	})
	var out []flagUse
	for _, part := range regexp.MustCompile(`\||;|&&|\$\(|\(|\)`).Split(line, -1) {
		words := strings.Fields(part)
		for len(words) > 0 && (strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") || words[0] == "time" || words[0] == "exec") {
			words = words[1:]
		}
		if len(words) == 0 {
			continue
		}
		var cmds []string
		switch c := commandOf(strings.Join(words, " ")); {
		case c != "":
			cmds = []string{c}
		case strings.HasPrefix(words[0], "-"):
			cmds = nil
		default:
			cmds = []string{} // another program
		}
		for _, w := range words {
			if m := flagRE.FindString(w); m != "" && !placeholders[m] {
				m = strings.TrimRight(m, ".")
				if cmds != nil && len(cmds) == 0 {
					continue
				}
				out = append(out, flagUse{flag: m, cmds: cmds, line: lineNo})
			}
		}
	}
	return out
}

// commandOf is the kbox command a span or line runs: "kbox" and the
// words after it, an Apache name (with or without .sh, a path), or a
// native name written without "kbox" (`groups reset --save-plan`); "" when
// it runs another program or names none.
func commandOf(s string) string {
	words := strings.Fields(s)
	if len(words) == 0 {
		return ""
	}
	first := filepath.Base(words[0])
	if external.MatchString(words[0]) {
		return ""
	}
	if n := trimName(first); strings.HasPrefix(n, "kafka-") {
		if _, ok := lookupApplet(n); ok {
			return n
		}
		return ""
	}
	path := []string{"kbox"}
	if first == "kbox" {
		words = words[1:]
	}
	for _, w := range words {
		if strings.HasPrefix(w, "-") {
			break
		}
		path = append(path, w)
	}
	// Without "kbox", only a native command of two words or more
	// (`groups reset`, `verify run`): one word is as likely prose.
	least := 1
	if first != "kbox" {
		least = 2
	}
	for n := len(path); n > least; n-- {
		if commandPaths[strings.Join(path[:n], " ")] {
			return strings.Join(path[:n], " ")
		}
	}
	if first == "kbox" {
		return "kbox"
	}
	return ""
}

// commandPaths are the command lines kbox knows: "kbox" and its native
// commands and groups, "kbox ALIAS" and "kbox ALIAS SUB" of the drop-ins,
// the Apache names.
var commandPaths map[string]bool

func loadCommandPaths() map[string]bool {
	m := map[string]bool{"kbox": true}
	ios, _, _, _ := output.Test()
	f := cmdutil.NewFactory(ios, func(string) string { return "" }, Version)
	var add func(prefix string, c *cobra.Command)
	add = func(prefix string, c *cobra.Command) {
		for _, s := range c.Commands() {
			p := prefix + " " + s.Name()
			m[p] = true
			add(p, s)
		}
	}
	add("kbox", newRoot(f, ""))
	for _, a := range Applets() {
		m[a.Name] = true
		m["kbox "+a.Alias] = true
		if a.Native != nil {
			add("kbox "+a.Alias, a.Native(f))
		}
	}
	return m
}

// commandIndex holds the flags each command's --help lists.
type commandIndex struct {
	flags map[string]map[string]bool
	all   map[string]bool
}

var helpFlagRE = regexp.MustCompile(`--[a-zA-Z0-9][a-zA-Z0-9.-]*[a-zA-Z0-9]`)

func newCommandIndex(t *testing.T) *commandIndex {
	idx := &commandIndex{flags: map[string]map[string]bool{}, all: map[string]bool{}}
	paths := make([]string, 0, len(commandPaths))
	for p := range commandPaths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		var help string
		if a, ok := lookupApplet(p); ok && p == a.Name {
			// A drop-in takes its Apache options and, under either
			// name, kbox's extensions (kbox ALIAS --help lists them).
			help = appletHelp(a, a.Name) + appletHelp(a, "kbox "+a.Alias) + subcommandsHelp(a, a.Name)
		} else if a, ok := lookupApplet(strings.TrimPrefix(p, "kbox ")); ok && p == "kbox "+a.Alias {
			help = appletHelp(a, "kbox "+a.Alias) + subcommandsHelp(a, "kbox "+a.Alias)
		} else {
			args := append(strings.Fields(p), "--help")
			ios, _, out, errOut := output.Test()
			Main(args, ios, func(string) string { return "" })
			help = out.String() + errOut.String()
		}
		set := map[string]bool{}
		for _, fl := range helpFlagRE.FindAllString(help, -1) {
			set[fl] = true
			idx.all[fl] = true
		}
		idx.flags[p] = set
	}
	if len(idx.flags["kafka-topics"]) < 10 || len(idx.flags["kbox perf produce"]) < 10 {
		t.Fatalf("help texts not read: kafka-topics %v, kbox perf produce %v", idx.flags["kafka-topics"], idx.flags["kbox perf produce"])
	}
	return idx
}

// subcommandsHelp is what a drop-in whose Apache tool has subcommands
// (kafka-cluster, kafka-metadata-quorum) prints for each SUB --help: their
// options are the tool's too.
func subcommandsHelp(a cmdutil.Applet, invoked string) string {
	var b strings.Builder
	for _, sub := range a.ApacheCommands {
		b.WriteString(appletOutput(a, invoked, []string{sub, "--help"}))
	}
	return b.String()
}

// has reports whether u's flag is in the --help of one of its commands (of
// any command when it names none).
func (idx *commandIndex) has(u flagUse, t *testing.T) bool {
	if layerFlags[u.flag] {
		return true
	}
	if isAny(u.cmds) {
		return idx.all[u.flag]
	}
	for _, c := range u.cmds {
		if _, ok := idx.flags[c]; !ok {
			t.Errorf("command %q: not in the index", c)
			continue
		}
		// A group (kbox perf sweep) or a drop-in's native name (kbox
		// configs) takes the flags of its subcommands.
		for p, set := range idx.flags {
			if (p == c || strings.HasPrefix(p, c+" ")) && set[u.flag] {
				return true
			}
		}
	}
	return false
}

// The reader of the docs associates each flag with the command it is
// named with, and the index refuses the flags a command does not have.
func TestDocUsesAssociation(t *testing.T) {
	commandPaths = loadCommandPaths()
	idx := newCommandIndex(t)
	md := "# kbox ui: a dashboard\n\n" +
		"| `kbox log-dirs` (every `--view`) | `--health` |\n" +
		"| `kafka-configs` | `kbox configs get\\|set` | `--allow-unknown` |\n\n" +
		"Run `kbox perf produce --records 5 --nosuch`, then `groups reset --save-plan`.\n" +
		"A `kbox perf worker` runs `--worker-command`. The `--opt value` form;\n" +
		"`--listen` alone.\n\n" +
		"```sh\n" +
		"kbox perf e2e --records 10 --header 'a b' \\\n    --bogus 1   # --comment\n" +
		"kubectl wait --for=condition=complete\n" +
		"BS=$(test/integration/testbed.sh up --brokers 3)\n" +
		"```\n"
	type want struct {
		flag, cmds string
		ok         bool
	}
	wants := []want{
		{"--view", "kbox log-dirs", false},
		{"--health", "kbox log-dirs", true},
		{"--allow-unknown", "kafka-configs kbox configs get kbox configs set", true},
		{"--records", "kbox perf produce", true},
		{"--nosuch", "kbox perf produce", false},
		{"--save-plan", "kbox groups reset", true},
		{"--worker-command", "kbox perf worker", false},
		{"--listen", "", true},
		{"--records", "kbox perf e2e", true},
		{"--header", "kbox perf e2e", false},
		{"--bogus", "kbox perf e2e", false},
	}
	got := docUses(md)
	if len(got) != len(wants) {
		t.Fatalf("%d uses, want %d: %+v", len(got), len(wants), got)
	}
	for i, u := range got {
		w := wants[i]
		if u.flag != w.flag || strings.Join(u.cmds, " ") != w.cmds || idx.has(u, t) != w.ok {
			t.Errorf("use %d: %s with %q (in help: %v), want %s with %q (%v)", i, u.flag, u.cmds, idx.has(u, t), w.flag, w.cmds, w.ok)
		}
	}
}
