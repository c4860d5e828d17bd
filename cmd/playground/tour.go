package playground

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/output"
	pg "github.com/kboxdev/kbox/pkg/playground"
)

// Step is one command of the tour. A step runs only when every command it
// needs is available, so the tour grows as applets land.
type Step struct {
	Title string
	// Needs are applet names ("kafka-topics") or native command paths
	// ("verify check") that must be registered for the step to run.
	Needs []string
	// Args is the command line; Args[0] is an applet name or "kbox".
	// "$BOOTSTRAP" is replaced by the playground's address, "$TOURDIR/NAME"
	// by a file of the tour's directory (shown as NAME).
	Args []string
	// Stdout, when set, is a file name (in the tour's directory) that
	// receives the command's standard output, as "> FILE" would.
	Stdout string
	// Want are strings the output must contain; Reject strings it must not.
	Want   []string
	Reject []string
}

// Seeded topics: the tour's playground creates them so that the steps of
// the data tools do not depend on kafka-topics being available.
const (
	verifyTopic = "tour-verify"
	perfTopic   = "tour-perf"
)

// TourTimeout bounds one step.
var TourTimeout = 40 * time.Second

// Steps is the tour, in order.
func Steps() []Step {
	const b = "$BOOTSTRAP"
	topics := "kafka-topics"
	return []Step{
		{
			Title: "Describe the cluster",
			Needs: []string{"cluster describe"},
			Args:  []string{"kbox", "cluster", "describe", "--bootstrap-server", b},
			Want:  []string{"Cluster kbox-playground", "controller"},
		},
		{
			Title: "Create a topic with 3 partitions",
			Needs: []string{topics},
			Args:  []string{topics, "--bootstrap-server", b, "--create", "--topic", "tour-orders", "--partitions", "3", "--replication-factor", "3"},
			Want:  []string{"Created topic tour-orders."},
		},
		{
			Title: "Create a compacted topic",
			Needs: []string{topics},
			Args:  []string{topics, "--bootstrap-server", b, "--create", "--topic", "tour-accounts", "--partitions", "1", "--replication-factor", "1", "--config", "cleanup.policy=compact"},
			Want:  []string{"Created topic tour-accounts."},
		},
		{
			Title: "List the topics",
			Needs: []string{topics},
			Args:  []string{topics, "--bootstrap-server", b, "--list"},
			Want:  []string{"tour-accounts\n", "tour-orders\n", perfTopic + "\n", verifyTopic + "\n"},
		},
		{
			Title: "Describe a topic (Apache format)",
			Needs: []string{topics},
			Args:  []string{topics, "--bootstrap-server", b, "--describe", "--topic", "tour-orders"},
			Want:  []string{"Topic: tour-orders", "PartitionCount: 3", "ReplicationFactor: 3", "Partition: 2"},
		},
		{
			Title: "Describe a topic as a table (native output)",
			Needs: []string{topics},
			Args:  []string{topics, "--bootstrap-server", b, "--describe", "--topic", "tour-orders", "-o", "table"},
			Want:  []string{"tour-orders"},
		},
		{
			Title: "Add partitions (3 -> 6)",
			Needs: []string{topics},
			Args:  []string{topics, "--bootstrap-server", b, "--alter", "--topic", "tour-orders", "--partitions", "6"},
		},
		{
			Title: "Describe the altered topic",
			Needs: []string{topics},
			Args:  []string{topics, "--bootstrap-server", b, "--describe", "--topic", "tour-orders"},
			Want:  []string{"PartitionCount: 6", "Partition: 5"},
		},
		{
			Title: "Change a topic config",
			Needs: []string{"kafka-configs"},
			Args:  []string{"kafka-configs", "--bootstrap-server", b, "--alter", "--entity-type", "topics", "--entity-name", "tour-orders", "--add-config", "retention.ms=86400000"},
			Want:  []string{"Completed updating config for topic tour-orders."},
		},
		{
			Title: "Show topics with config overrides",
			Needs: []string{topics},
			Args:  []string{topics, "--bootstrap-server", b, "--describe", "--topics-with-overrides"},
			Want:  []string{"Topic: tour-accounts", "cleanup.policy=compact"},
		},
		{
			Title:  "Produce 1000 verifiable records (events to producer.log)",
			Needs:  []string{"kafka-verifiable-producer"},
			Args:   []string{"kafka-verifiable-producer", "--bootstrap-server", b, "--topic", verifyTopic, "--max-messages", "1000", "--acks", "-1"},
			Stdout: "producer.log",
			Want:   []string{`"name":"producer_send_success"`, `"name":"shutdown_complete"`, `"sent":1000,"acked":1000`},
		},
		{
			Title:  "Consume them with a verifiable consumer group (events to consumer.log)",
			Needs:  []string{"kafka-verifiable-consumer"},
			Args:   []string{"kafka-verifiable-consumer", "--bootstrap-server", b, "--topic", verifyTopic, "--group-id", "tour-group", "--max-messages", "1000", "--reset-policy", "earliest", "--verbose"},
			Stdout: "consumer.log",
			Want:   []string{`"name":"partitions_assigned"`, `"name":"records_consumed"`, `"name":"record_data"`, `"name":"offsets_committed"`, `"name":"shutdown_complete"`},
		},
		{
			Title:  "Check that nothing was lost, duplicated or reordered",
			Needs:  []string{"kafka-verifiable-producer", "kafka-verifiable-consumer", "verify check"},
			Args:   []string{"kbox", "verify", "check", "--producer-log", "$TOURDIR/producer.log", "--consumer-log", "$TOURDIR/consumer.log"},
			Want:   []string{"VALID: no acknowledged record was lost"},
			Reject: []string{"INVALID"},
		},
		{
			Title: "Producer perf test: 20000 records of 100 bytes",
			Needs: []string{"kafka-producer-perf-test"},
			Args:  []string{"kafka-producer-perf-test", "--bootstrap-server", b, "--topic", perfTopic, "--num-records", "20000", "--record-size", "100", "--throughput", "-1"},
			Want:  []string{"20000 records sent", "ms 99.9th."},
		},
		{
			Title: "Consumer perf test: read them back",
			Needs: []string{"kafka-consumer-perf-test"},
			Args:  []string{"kafka-consumer-perf-test", "--bootstrap-server", b, "--topic", perfTopic, "--num-records", "20000", "--timeout", "20000"},
			Want:  []string{"start.time, end.time, data.consumed.in.MB", ", 20000, "},
		},
		{
			Title: "Native load test: every record's latency in an HDR histogram",
			Needs: []string{"perf produce"},
			Args:  []string{"kbox", "perf", "produce", "--bootstrap-server", b, "--topic", perfTopic, "--records", "20000", "--record-size", "100"},
			Want:  []string{"latency p99.9 ms", "settings"},
		},
		{
			Title: "Log dirs (Apache format: two lines, then JSON)",
			Needs: []string{"kafka-log-dirs"},
			Args:  []string{"kafka-log-dirs", "--bootstrap-server", b, "--describe", "--topic-list", perfTopic + "," + verifyTopic},
			Want:  []string{"Querying brokers for log directories information\n", "Received log directory information from brokers 0,1,2\n", `{"brokers":[{"broker":0,"logDirs":[{"partitions":[`, `"partition":"` + perfTopic + `-0"`},
		},
		{
			Title: "How big is each topic? (native log-dirs report)",
			Needs: []string{"kafka-log-dirs"},
			Args:  []string{"kbox", "log-dirs", "--bootstrap-server", b, "--aggregate-into", "topic", "--topic-list", perfTopic + "," + verifyTopic, "-H"},
			Want:  []string{perfTopic, verifyTopic},
		},
		{
			Title: "Delete the topics created by the tour",
			Needs: []string{topics},
			Args:  []string{topics, "--bootstrap-server", b, "--delete", "--topic", "tour-orders,tour-accounts"},
		},
		{
			Title:  "List the topics again",
			Needs:  []string{topics},
			Args:   []string{topics, "--bootstrap-server", b, "--list"},
			Want:   []string{verifyTopic + "\n"},
			Reject: []string{"tour-orders", "tour-accounts"},
		},
	}
}

// tourEnv isolates the tour's commands from the user's configuration: a
// profile or KBOX_* setting of theirs must not redirect or secure them.
func tourEnv(getenv func(string) string, configPath string) func(string) string {
	return func(k string) string {
		switch k {
		case "KBOX_CONFIG":
			return configPath
		case "KBOX_PROFILE", "KBOX_BOOTSTRAP_SERVERS", "KBOX_OUTPUT", "KBOX_CONNECT_TIMEOUT":
			return ""
		}
		return getenv(k)
	}
}

// syncWriter serializes writes of a step and of a timed-out step that is
// still running.
type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (s syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

type tourRunner struct {
	f       *cmdutil.Factory
	h       Host
	dir     string
	getenv  func(string) string
	applets map[string]bool
	native  map[string]bool
	mu      sync.Mutex
}

// available reports whether an applet or native command path is registered.
func (r *tourRunner) available(need string) bool {
	if !strings.Contains(need, " ") {
		return r.applets[need]
	}
	if v, ok := r.native[need]; ok {
		return v
	}
	// A native command exists when its help names it in the usage line.
	ios, _, out, _ := output.Test()
	args := append([]string{"kbox"}, strings.Fields(need)...)
	code := r.h.Main(append(args, "--help"), ios, r.getenv)
	// Cobra's usage line: "  [kbox ]verify check [flags]". A missing
	// subcommand shows its parent's help instead.
	usage := regexp.MustCompile(`(?m)^  (kbox )?` + regexp.QuoteMeta(need) + `( |$)`)
	ok := code == 0 && usage.MatchString(out.String())
	r.native[need] = ok
	return ok
}

func (r *tourRunner) runnable(s Step) bool {
	for _, n := range s.Needs {
		if !r.available(n) {
			return false
		}
	}
	return true
}

// quoteArg quotes an argument for display the way a POSIX shell needs it.
func quoteArg(a string) string {
	if a == "" {
		return "''"
	}
	if strings.ContainsAny(a, " \t\n'\"\\$`|&;<>()*?[]{}!#~") {
		return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return a
}

func commandLine(args []string, stdout string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = quoteArg(a)
	}
	line := strings.Join(q, " ")
	if stdout != "" {
		line += " > " + stdout
	}
	return line
}

// run runs one step and checks it.
func (r *tourRunner) run(ctx context.Context, n int, s Step, bootstrap string) error {
	out := r.f.IO.Out
	args := make([]string, len(s.Args))
	shown := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = strings.ReplaceAll(a, "$BOOTSTRAP", bootstrap)
		shown[i] = strings.ReplaceAll(args[i], "$TOURDIR/", "")
	}
	fmt.Fprintf(out, "\n== %d. %s\n$ %s\n", n, s.Title, commandLine(shown, s.Stdout))

	var captured bytes.Buffer
	mu := &sync.Mutex{}
	capture := syncWriter{mu, &captured}
	stdout := io.MultiWriter(syncWriter{&r.mu, out}, capture)
	var file *os.File
	if s.Stdout != "" {
		var err error
		file, err = os.Create(filepath.Join(r.dir, s.Stdout))
		if err != nil {
			return err
		}
		defer file.Close()
		stdout = io.MultiWriter(syncWriter{&r.mu, file}, capture)
	}
	ios := &output.IOStreams{
		In:     strings.NewReader(""),
		Out:    stdout,
		ErrOut: io.MultiWriter(syncWriter{&r.mu, r.f.IO.ErrOut}, capture),
	}
	// The command line shows the tour's files by their names; they live in
	// the tour's directory.
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "$TOURDIR", r.dir)
	}

	done := make(chan int, 1)
	go func() { done <- r.h.Main(args, ios, r.getenv) }()
	var code int
	select {
	case code = <-done:
	case <-ctx.Done():
		return fmt.Errorf("interrupted")
	case <-time.After(TourTimeout):
		return fmt.Errorf("did not finish within %s", TourTimeout)
	}
	mu.Lock()
	text := captured.String()
	mu.Unlock()
	if s.Stdout != "" {
		summarizeFile(out, s.Stdout, text)
	}
	if code != 0 {
		return fmt.Errorf("exited with status %d", code)
	}
	for _, w := range s.Want {
		if !strings.Contains(text, w) {
			return fmt.Errorf("the output does not show %q", strings.TrimSpace(w))
		}
	}
	for _, w := range s.Reject {
		if strings.Contains(text, w) {
			return fmt.Errorf("the output shows %q", strings.TrimSpace(w))
		}
	}
	return nil
}

// summarizeFile shows what went to a file: its size and first and last lines.
func summarizeFile(w io.Writer, name, text string) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	fmt.Fprintf(w, "(%d lines written to %s", len(lines), name)
	switch {
	case len(lines) == 0:
		fmt.Fprintln(w, ")")
		return
	case len(lines) <= 4:
		fmt.Fprintln(w, ":)")
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
		return
	}
	fmt.Fprintln(w, "; first 2 and last 2:)")
	fmt.Fprintf(w, "%s\n%s\n...\n%s\n%s\n", lines[0], lines[1], lines[len(lines)-2], lines[len(lines)-1])
}

// runTour starts a playground and runs the landed steps of the tour.
func runTour(ctx context.Context, f *cmdutil.Factory, h Host, o options) error {
	start := time.Now()
	po, err := o.playgroundOptions()
	if err != nil {
		return err
	}
	if po.SASL || po.TLS || po.DataDir != "" {
		return cmdutil.FlagErrorf("--tour runs on a fresh, plaintext, in-memory playground; drop --sasl, --tls and --data-dir")
	}
	seeded := map[string]bool{}
	for _, t := range po.Topics {
		seeded[t.Name] = true
	}
	for _, name := range []string{verifyTopic, perfTopic} {
		if !seeded[name] {
			po.Topics = append(po.Topics, pg.Topic{Name: name, Partitions: 3})
		}
	}
	dir, err := os.MkdirTemp("", "kbox-tour-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := pg.Start(po)
	if err != nil {
		return err
	}
	defer p.Close()

	writeBanner(f.IO.Out, p, po)
	fmt.Fprintf(f.IO.Out, "\nThe tour runs each kbox command as you would type it (the applets also run\nunder their Apache names, e.g. kafka-topics.sh) and checks what it shows.\n")

	r := &tourRunner{
		f:       f,
		h:       h,
		dir:     dir,
		getenv:  tourEnv(f.Getenv, filepath.Join(dir, "config.yaml")),
		applets: map[string]bool{},
		native:  map[string]bool{},
	}
	if h.Applets != nil {
		for _, a := range h.Applets() {
			r.applets[a] = true
		}
	}
	n := 0
	for _, s := range Steps() {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !r.runnable(s) {
			continue
		}
		n++
		if err := r.run(ctx, n, s, p.Addrs()[0]); err != nil {
			return fmt.Errorf("tour step %d (%s) failed: %v", n, s.Title, err)
		}
	}
	plural := "s"
	if n == 1 {
		plural = ""
	}
	fmt.Fprintf(f.IO.Out, "\nTour complete: %d step%s passed in %.1fs. Start your own playground with: kbox playground\n", n, plural, time.Since(start).Seconds())
	return nil
}
