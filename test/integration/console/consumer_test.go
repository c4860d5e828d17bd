//go:build integration

package console_test

import (
	"bufio"
	"context"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/console"
	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

const ccTopic = "cc-mixed"

var (
	seedOnce sync.Once
	seedErr  error
	seeded   []*kgo.Record // as produced, with their offsets
)

// seedRecords writes the records every consumer case reads: keys, null
// keys and values, empty bytes, binary (not UTF-8) keys, values and header
// values, several headers, a null header value, non-ASCII text, on three
// partitions. Timestamps are an hour old (recent enough for retention).
func seedRecords(t *testing.T) []*kgo.Record {
	t.Helper()
	seedOnce.Do(func() {
		cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
		if err != nil {
			seedErr = err
			return
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if _, err := kadm.NewClient(cl).CreateTopic(ctx, 3, 1, nil, ccTopic); err != nil {
			seedErr = err
			return
		}
		ts := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
		recs := []*kgo.Record{
			{Partition: 0, Key: []byte("k1"), Value: []byte("v1"), Headers: []kgo.RecordHeader{{Key: "h1", Value: []byte("v1")}, {Key: "h2", Value: []byte("v2")}}},
			{Partition: 0, Key: nil, Value: []byte("no key")},
			{Partition: 1, Key: []byte("k3"), Value: nil, Headers: []kgo.RecordHeader{{Key: "hn", Value: nil}}},
			{Partition: 1, Key: []byte{0xff, 0x00, 'b'}, Value: []byte{0x80, 0x81, 'x'}, Headers: []kgo.RecordHeader{{Key: "hb", Value: []byte{0xfe, 0xff}}}},
			{Partition: 2, Key: []byte{}, Value: []byte{}, Headers: []kgo.RecordHeader{{Key: "", Value: []byte{}}}},
			{Partition: 2, Key: []byte("é€"), Value: []byte("ünïcødé\ttab"), Headers: []kgo.RecordHeader{{Key: "ключ", Value: []byte("значение")}}},
		}
		for i, r := range recs {
			r.Topic = ccTopic
			r.Timestamp = ts.Add(time.Duration(i) * time.Second)
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			seedErr = err
			return
		}
		seeded = recs
	})
	if seedErr != nil {
		t.Fatalf("seed: %v", seedErr)
	}
	return seeded
}

var logStamp = regexp.MustCompile(`(?m)^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] `)

// normStderr drops log timestamps and Java stack frames.
func normStderr(s string) string {
	s = logStamp.ReplaceAllString(s, "[T] ")
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "\tat ") || strings.HasPrefix(l, "\t... ") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// records splits output into records on the line separator and sorts
// them: partitions interleave in any order, records of one partition come
// in offset order within their own lines.
func records(out, sep string) []string {
	rs := strings.Split(out, sep)
	sort.Strings(rs)
	return rs
}

type ccRun struct {
	out, err string
	code     int
}

func runBoth(t *testing.T, args ...string) (kbox, apache ccRun) {
	t.Helper()
	return runBothTool(t, "kafka-console-consumer", args...)
}

// runBothTool runs kbox's and Apache's tool with args at the same time.
func runBothTool(t *testing.T, tool string, args ...string) (kbox, apache ccRun) {
	t.Helper()
	return runBothArgs(t, tool, args, args)
}

// runBothArgs runs kbox's tool with kargs and Apache's with aargs at the
// same time.
func runBothArgs(t *testing.T, tool string, kargs, aargs []string) (kbox, apache ccRun) {
	t.Helper()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		o, e, c, err := cluster.Apache(nil, tool, aargs...)
		if err != nil {
			t.Errorf("apache: %v", err)
		}
		apache = ccRun{o, e, c}
	}()
	r := testbed.Runner{Timeout: 2 * time.Minute}.Exec(t, link(tool), kargs...)
	kbox = ccRun{r.Stdout, r.Stderr, r.Code}
	wg.Wait()
	return kbox, apache
}

// TestConsoleConsumerPrintCombinations reads the same records with both
// consumers for each print.* / separator / null.literal combination.
func TestConsoleConsumerPrintCombinations(t *testing.T) {
	recs := seedRecords(t)
	all := []string{"print.timestamp=true", "print.key=true", "print.offset=true", "print.partition=true", "print.headers=true", "print.delivery=true", "print.epoch=true"}
	cases := []struct {
		name  string
		props []string
		sep   string // line separator used to split records
		args  []string
	}{
		{"default", nil, "\n", nil},
		{"all", all, "\n", nil},
		{"separators", append(append([]string{}, all...), "key.separator= | ", "headers.separator=;", "line.separator=<EOR>\n", "null.literal=NULL"), "<EOR>\n", nil},
		{"key-no-value", []string{"print.key=true", "print.value=false", "print.offset=TRUE", "null.literal="}, "\n", nil},
		{"headers-key", []string{"print.headers=true", "print.key=true", "print.timestamp=false", "print.partition=yes"}, "\n", nil},
		{"include", []string{"print.key=true", "print.partition=true"}, "\n", nil},
		{"logging-formatter", []string{"print.key=true"}, "\n", []string{"--formatter", "org.apache.kafka.tools.consumer.LoggingMessageFormatter"}},
		{"noop-formatter", nil, "\n", []string{"--formatter", "org.apache.kafka.tools.consumer.NoOpMessageFormatter"}},
	}
	sem := make(chan struct{}, 3)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sem <- struct{}{}
			defer func() { <-sem }()
			args := []string{"--bootstrap-server", cluster.Bootstrap, "--topic", ccTopic, "--from-beginning", "--max-messages", fmt.Sprint(len(recs)), "--timeout-ms", "60000"}
			if c.name == "include" {
				args[2], args[3] = "--include", "cc-mix.*"
			}
			for _, p := range c.props {
				args = append(args, "--formatter-property", p)
			}
			args = append(args, c.args...)
			k, a := runBoth(t, args...)
			if a.code != 0 || k.code != 0 {
				t.Fatalf("exit: kbox %d, apache %d\nkbox stderr:\n%s\napache stderr:\n%s", k.code, a.code, k.err, a.err)
			}
			if got, want := records(k.out, c.sep), records(a.out, c.sep); !reflect.DeepEqual(got, want) {
				t.Errorf("stdout records differ:\nkbox   %q\napache %q", got, want)
			}
			if got, want := normStderr(k.err), normStderr(a.err); got != want {
				t.Errorf("stderr differs:\nkbox   %q\napache %q", got, want)
			}
		})
	}
}

// TestConsoleConsumerPartitionExact compares one partition's output byte
// for byte (order is fixed there), including the deprecated --property
// notice on stdout and a --timeout-ms ending (a logged TimeoutException,
// exit 0).
func TestConsoleConsumerPartitionExact(t *testing.T) {
	seedRecords(t)
	args := []string{"--bootstrap-server", cluster.Bootstrap, "--topic", ccTopic, "--partition", "1", "--offset", "earliest", "--max-messages", "2", "--timeout-ms", "60000",
		"--property", "print.timestamp=true", "--property", "print.key=true", "--property", "print.headers=true", "--property", "print.partition=true", "--property", "print.offset=true"}
	k, a := runBoth(t, args...)
	if k.code != a.code || k.out != a.out || normStderr(k.err) != normStderr(a.err) {
		t.Fatalf("differ:\nkbox   exit %d stdout %q stderr %q\napache exit %d stdout %q stderr %q", k.code, k.out, normStderr(k.err), a.code, a.out, normStderr(a.err))
	}
	if !strings.Contains(k.out, "Partition:1\tOffset:1") || !strings.Contains(k.err, "Processed a total of 2 messages") {
		t.Fatalf("unexpected output: %q %q", k.out, k.err)
	}
	// From an offset; and --timeout-ms at the end of a partition: a logged
	// TimeoutException, exit 0.
	for _, args := range [][]string{
		{"--bootstrap-server", cluster.Bootstrap, "--topic", ccTopic, "--partition", "2", "--offset", "1", "--max-messages", "1", "--timeout-ms", "60000", "--formatter-property", "print.offset=true"},
		{"--bootstrap-server", cluster.Bootstrap, "--topic", ccTopic, "--partition", "0", "--offset", "latest", "--timeout-ms", "2000"},
		// A deserializer that fails: skipped and logged, or the end (exit 1).
		{"--bootstrap-server", cluster.Bootstrap, "--topic", ccTopic, "--partition", "0", "--offset", "earliest", "--max-messages", "2", "--timeout-ms", "60000",
			"--value-deserializer", "org.apache.kafka.common.serialization.IntegerDeserializer", "--skip-message-on-error"},
		{"--bootstrap-server", cluster.Bootstrap, "--topic", ccTopic, "--partition", "0", "--offset", "earliest", "--max-messages", "2", "--timeout-ms", "60000",
			"--value-deserializer", "org.apache.kafka.common.serialization.IntegerDeserializer"},
	} {
		k, a = runBoth(t, args...)
		if k.code != a.code || k.out != a.out || normStderr(k.err) != normStderr(a.err) {
			t.Fatalf("%q differs:\nkbox   exit %d stdout %q stderr %q\napache exit %d stdout %q stderr %q", args, k.code, k.out, k.err, a.code, a.out, a.err)
		}
	}
}

// TestConsoleConsumerErrors compares validation errors: stdout, stderr
// (stack frames dropped) and exit status.
func TestConsoleConsumerErrors(t *testing.T) {
	bs := cluster.Bootstrap
	cases := [][]string{
		{},
		{"--help"},
		{"--bootstrap-server", bs},
		{"--bootstrap-server", bs, "--topic", "a", "--include", "b"},
		{"--topic", "a"},
		{"--bootstrap-server", bs, "--include", "x", "--partition", "0"},
		{"--bootstrap-server", bs, "--topic", "a", "--partition", "0", "--offset", "1", "--from-beginning"},
		{"--bootstrap-server", bs, "--topic", "a", "--offset", "1"},
		{"--bootstrap-server", bs, "--topic", "a", "--partition", "0", "--offset", "-1"},
		{"--bootstrap-server", bs, "--topic", "a", "--partition", "0", "--group", "g"},
		{"--bootstrap-server", bs, "--topic", "a", "--from-beginning", "--consumer-property", "auto.offset.reset=latest"},
		{"--bootstrap-server", bs, "--topic", "a", "--formatter", "kafka.tools.DefaultMessageFormatter"},
		{"--bootstrap-server", bs, "--topic", "a", "--bogus"},
		{"--bootstrap-server", bs, "--topic", "a", "--timeout-ms", "x"},
		{"--bootstrap-server", bs, "--topic", "a", "--property", "print.key=true", "--formatter-property", "print.value=false"},
		{"--version"},
	}
	// Apache's cases in one JVM (a JVM start costs seconds), kbox's three
	// at a time.
	as, err := cluster.ApacheBatch("kafka-console-consumer", cases)
	if err != nil {
		t.Fatal(err)
	}
	sem := make(chan struct{}, 3)
	for i, args := range cases {
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			t.Parallel()
			sem <- struct{}{}
			defer func() { <-sem }()
			r := testbed.Runner{Timeout: 2 * time.Minute}.Exec(t, link("kafka-console-consumer"), args...)
			k, a := ccRun{r.Stdout, r.Stderr, r.Code}, ccRun{as[i].Stdout, as[i].Stderr, as[i].Code}
			// A Java "Exception in thread" has a stack trace; kbox prints its
			// first line.
			if k.code != a.code || k.out != a.out || firstLines(normStderr(k.err)) != firstLines(normStderr(a.err)) {
				t.Errorf("differ for %q:\nkbox   exit %d stdout %q stderr %q\napache exit %d stdout %q stderr %q", args, k.code, k.out, k.err, a.code, a.out, a.err)
			}
		})
	}
}

// firstLines keeps the lines up to a Java "Caused by:".
func firstLines(s string) string {
	if i := strings.Index(s, "\nCaused by:"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimRight(s, "\n")
}

func kboxConsume(t *testing.T, args ...string) testbed.Result {
	t.Helper()
	r := testbed.Runner{Timeout: time.Minute}.Exec(t, env.Kbox, append([]string{"consume", "--bootstrap-server", cluster.Bootstrap, "--topic", ccTopic}, args...)...)
	if r.Code != 0 {
		t.Fatalf("kbox consume %q: %s", args, r)
	}
	return r
}

// TestConsumeJSON reads every record back as JSON: the shared schema
// decodes to exactly what was produced.
func TestConsumeJSON(t *testing.T) {
	recs := seedRecords(t)
	r := kboxConsume(t, "-o", "json", "--start", "earliest", "--exit-at-end")
	got := map[string]console.Record{}
	sc := bufio.NewScanner(strings.NewReader(r.Stdout))
	for sc.Scan() {
		rec, err := console.DecodeJSON(sc.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		got[fmt.Sprintf("%d/%d", rec.Partition, rec.Offset)] = rec
	}
	if len(got) != len(recs) {
		t.Fatalf("got %d records, want %d:\n%s", len(got), len(recs), r.Stdout)
	}
	for _, p := range recs {
		want := console.FromKgo(p)
		want.TimestampType = console.CreateTime
		g := got[fmt.Sprintf("%d/%d", p.Partition, p.Offset)]
		if !reflect.DeepEqual(g, want) {
			t.Errorf("record %d/%d:\ngot  %#v\nwant %#v", p.Partition, p.Offset, g, want)
		}
	}
	if strings.Contains(r.Stderr, "Processed a total") {
		t.Errorf("native output printed Apache's count line: %q", r.Stderr)
	}
}

// TestConsumeNative covers the format string, --grep, start points and
// the stop conditions.
func TestConsumeNative(t *testing.T) {
	recs := seedRecords(t)
	lines := func(s string) []string {
		l := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		sort.Strings(l)
		return l
	}
	// Format string over everything, stopping at the end.
	r := kboxConsume(t, "-f", `%t|%p|%o|%k|%K|%V|%h|%T\n`, "--start", "earliest", "-e", "--grep", "^(k1|k3|no key)$")
	want := []string{
		fmt.Sprintf("%s|0|0|k1|2|2|h1=v1,h2=v2|%d", ccTopic, recs[0].Timestamp.UnixMilli()),
		fmt.Sprintf("%s|0|1||-1|6||%d", ccTopic, recs[1].Timestamp.UnixMilli()),
		fmt.Sprintf("%s|1|0|k3|2|-1|hn=|%d", ccTopic, recs[2].Timestamp.UnixMilli()),
	}
	sort.Strings(want)
	if got := lines(r.Stdout); !reflect.DeepEqual(got, want) {
		t.Errorf("format/grep:\ngot  %q\nwant %q", got, want)
	}
	// -1 from the end of each partition: the last record of each.
	r = kboxConsume(t, "-f", `%p:%o\n`, "--start", "-1", "--exit-at-end")
	if got := lines(r.Stdout); !reflect.DeepEqual(got, []string{"0:1", "1:1", "2:1"}) {
		t.Errorf("--start -1: %q", got)
	}
	// Per partition.
	r = kboxConsume(t, "-f", `%p:%o\n`, "--start", "0=1,2=earliest", "--exit-at-end")
	if got := lines(r.Stdout); !reflect.DeepEqual(got, []string{"0:1", "2:0", "2:1"}) {
		t.Errorf("per-partition --start: %q", got)
	}
	// --since: the records are an hour old; 30 minutes ago is after all of them.
	r = kboxConsume(t, "-f", `%p:%o\n`, "--since", "30m", "--exit-at-end")
	if r.Stdout != "" {
		t.Errorf("--since 30m: %q", r.Stdout)
	}
	since := recs[3].Timestamp.Format(time.RFC3339Nano)
	r = kboxConsume(t, "-f", `%p:%o\n`, "--since", since, "--exit-at-end")
	if got := lines(r.Stdout); !reflect.DeepEqual(got, []string{"1:1", "2:0", "2:1"}) {
		t.Errorf("--since %s: %q", since, got)
	}
	// -n stops after N.
	r = kboxConsume(t, "-f", `%v\n`, "--start", "earliest", "--partition", "0", "-n", "1")
	if r.Stdout != "v1\n" {
		t.Errorf("-n 1: %q", r.Stdout)
	}
	// Bad native input: one line, exit 2, before connecting.
	for _, bad := range [][]string{{"-f", "%z"}, {"--start", "sometime"}, {"--since", "yesterday"}, {"--grep", "("}, {"-o", "yaml"}} {
		res := testbed.Runner{Timeout: time.Minute}.Exec(t, env.Kbox, append([]string{"consume", "--bootstrap-server", "127.0.0.1:1", "--topic", "x"}, bad...)...)
		if res.Code != 2 || !strings.HasPrefix(res.Stderr, "kbox: error: ") || strings.Count(res.Stderr, "\n") != 1 {
			t.Errorf("%q: %s", bad, res)
		}
	}
}

// TestConsoleConsumerGroupCommits checks --group: the group commits what
// was printed and no more (Java resets the unconsumed offsets before
// closing), so a second run in the group reads the rest.
func TestConsoleConsumerGroupCommits(t *testing.T) {
	recs := seedRecords(t)
	args := []string{"--bootstrap-server", cluster.Bootstrap, "--topic", ccTopic, "--group", "cc-group", "--from-beginning", "--max-messages", "4"}
	r := testbed.Runner{Timeout: 2 * time.Minute}.Exec(t, link("kafka-console-consumer"), args...)
	if r.Code != 0 || !strings.Contains(r.Stderr, "Processed a total of 4 messages") {
		t.Fatalf("first run: %s", r)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	offs, err := kadm.NewClient(cl).FetchOffsets(ctx, "cc-group")
	if err != nil {
		t.Fatal(err)
	}
	var committed int64
	offs.Each(func(o kadm.OffsetResponse) { committed += o.At })
	if committed != 4 {
		t.Fatalf("committed offsets add up to %d, want 4: %v", committed, offs)
	}
	// Partitions without a commit start at the reset point.
	args = []string{"--bootstrap-server", cluster.Bootstrap, "--topic", ccTopic, "--group", "cc-group", "--consumer-property", "auto.offset.reset=earliest", "--max-messages", fmt.Sprint(len(recs) - 4), "--timeout-ms", "60000"}
	r = testbed.Runner{Timeout: 2 * time.Minute}.Exec(t, link("kafka-console-consumer"), args...)
	if r.Code != 0 || !strings.Contains(r.Stderr, "Processed a total of 2 messages") {
		t.Fatalf("second run should read the 2 records the first did not print: %s", r)
	}
}
