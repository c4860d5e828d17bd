//go:build integration

package console_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The producer tests: the same input produced by Apache's
// kafka-console-producer and by kbox's, compared on the broker (keys,
// values, headers, partitions, order within a partition); errors, streams
// and exit codes; interop (kbox's records read by Apache's consumer,
// Apache's read by kbox's); `kbox produce -f json` and the round trip
// `kbox consume -o json | kbox produce -f json`.

const producerPartitions = 3

// prodTopic creates a topic with producerPartitions partitions.
func prodTopic(t *testing.T, name string) string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := kadm.NewClient(cl).CreateTopic(ctx, producerPartitions, 1, nil, name)
	if err != nil || res.Err != nil {
		t.Fatalf("create %s: %v %v", name, err, res.Err)
	}
	return name
}

// prodResult is one run of a producer.
type prodResult struct {
	stdout, stderr string
	code           int
}

// runKboxProducer runs kbox's kafka-console-producer link (or `kbox
// produce` when native) with stdin.
func runKboxProducer(t *testing.T, stdin []byte, native bool, args ...string) prodResult {
	t.Helper()
	path := link("kafka-console-producer")
	if native {
		path, args = env.Kbox, append([]string{"produce"}, args...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(os.Environ(), "KBOX_CONFIG="+filepath.Join(t.TempDir(), "none.yaml"))
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := prodResult{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("kbox %v: %v", args, err)
	}
	return r
}

func runApacheProducer(t *testing.T, stdin []byte, args ...string) prodResult {
	t.Helper()
	out, errs, code, err := cluster.Apache(bytes.NewReader(stdin), "kafka-console-producer", args...)
	if err != nil {
		t.Fatalf("apache %v: %v", args, err)
	}
	return prodResult{out, errs, code}
}

// readTopic reads n records of topic from the start (waiting up to a
// minute for them), sorted by partition and offset.
func readTopic(t *testing.T, topic string, n int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...),
		kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var recs []*kgo.Record
	for len(recs) < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: read %d of %d records", topic, len(recs), n)
		}
		fs.EachRecord(func(r *kgo.Record) { recs = append(recs, r) })
	}
	// Nothing more may arrive: one more short poll.
	short, cancel2 := context.WithTimeout(context.Background(), time.Second)
	defer cancel2()
	cl.PollFetches(short).EachRecord(func(r *kgo.Record) { recs = append(recs, r) })
	if len(recs) != n {
		t.Fatalf("%s: %d records, want %d", topic, len(recs), n)
	}
	sort.SliceStable(recs, func(i, j int) bool {
		if recs[i].Partition != recs[j].Partition {
			return recs[i].Partition < recs[j].Partition
		}
		return recs[i].Offset < recs[j].Offset
	})
	return recs
}

// describe renders a record's content (nil and empty told apart).
func describe(r *kgo.Record, withPartition bool) string {
	b := func(v []byte) string {
		if v == nil {
			return "null"
		}
		return fmt.Sprintf("%q", v)
	}
	var hs []string
	for _, h := range r.Headers {
		hs = append(hs, h.Key+"="+b(h.Value))
	}
	s := fmt.Sprintf("key=%s value=%s headers=[%s]", b(r.Key), b(r.Value), strings.Join(hs, ","))
	if withPartition {
		s = fmt.Sprintf("p%d %s", r.Partition, s)
	}
	return s
}

// sameRecords compares two topics' records: keyed records partition by
// partition in order (Kafka's default partitioner decides), records
// without a key as a multiset (the sticky partitioner picks at random).
func sameRecords(t *testing.T, apache, kbox []*kgo.Record) {
	t.Helper()
	split := func(recs []*kgo.Record) (keyed, unkeyed []string) {
		for _, r := range recs {
			if r.Key != nil {
				keyed = append(keyed, describe(r, true))
			} else {
				unkeyed = append(unkeyed, describe(r, false))
			}
		}
		sort.Strings(unkeyed)
		return
	}
	ak, au := split(apache)
	kk, ku := split(kbox)
	if !reflect.DeepEqual(ak, kk) {
		t.Errorf("keyed records differ\napache:\n%s\nkbox:\n%s", strings.Join(ak, "\n"), strings.Join(kk, "\n"))
	}
	if !reflect.DeepEqual(au, ku) {
		t.Errorf("records without a key differ\napache:\n%s\nkbox:\n%s", strings.Join(au, "\n"), strings.Join(ku, "\n"))
	}
}

// keyedLines is n "key<i>\tvalue<i>" lines: enough distinct keys to use
// every partition.
func keyedLines(n int, format string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i, i)
	}
	return b.String()
}

// TestProducerDifferential produces the same input with both tools, one
// parse option set per case, and compares what the broker holds.
func TestProducerDifferential(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		input   string
		records int
	}{
		{"plain", []string{"--sync"},
			"plain line\n\nspaces  and\ttabs\r\ncr only\rinvalid \xff\xfe utf-8 \xe2\x82\nlast without newline", 6},
		{"key", []string{"--reader-property", "parse.key=true", "--compression-codec", "lz4", "--request-required-acks", "1"},
			keyedLines(30, "key%d\tvalue%d\n") + "\tempty key\nk\t\nk2\tv\twith tab\n", 33},
		{"headers", []string{"--property", "parse.key=true", "--property", "parse.headers=true", "--batch-size", "100", "--timeout", "5"},
			keyedLines(20, "h1:a%d,h2:\tkey%d\tvalue\n") + "h:x:y,h:dup\tk\tv\n:empty-key\tk\tv\n", 22},
		{"custom separators and null marker", []string{"--reader-property", "parse.key=true", "--reader-property", "parse.headers=true",
			"--reader-property", "key.separator=::", "--reader-property", "headers.delimiter=|", "--reader-property", "headers.separator=[;#]",
			"--reader-property", "headers.key.separator==", "--reader-property", "null.marker=NULL", "--compression-codec"},
			"a=1;b=2#c=NULL|k1::v1\nNULL|k2::NULL\nx=y|NULL::v3\nh=|k4::v4::more\n", 4},
		{"ignore errors", []string{"--reader-property", "parse.key=true", "--reader-property", "parse.headers=true", "--reader-property", "ignore.error=true"},
			"no separators at all\nh:1,noval\tk\tv\nh:1\tonly value\n", 3},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			at, kt := prodTopic(t, fmt.Sprintf("prod-diff-%d-apache", i)), prodTopic(t, fmt.Sprintf("prod-diff-%d-kbox", i))
			ar := runApacheProducer(t, []byte(tc.input), append([]string{"--bootstrap-server", cluster.Bootstrap, "--topic", at}, tc.args...)...)
			kr := runKboxProducer(t, []byte(tc.input), false, append([]string{"--bootstrap-server", cluster.Bootstrap, "--topic", kt}, tc.args...)...)
			if ar.code != 0 || kr.code != 0 || ar.stdout != kr.stdout || kr.stderr != "" {
				t.Fatalf("apache: exit %d stdout %q stderr %q\nkbox: exit %d stdout %q stderr %q", ar.code, ar.stdout, ar.stderr, kr.code, kr.stdout, kr.stderr)
			}
			sameRecords(t, readTopic(t, at, tc.records), readTopic(t, kt, tc.records))
			if tc.name == "headers" {
				// Interop: kbox's console consumer prints what Apache's
				// producer wrote as the lines that went in.
				printedByKboxConsumer(t, at, tc.input, tc.records)
			}
		})
	}
}

// printedByKboxConsumer reads topic with kbox's kafka-console-consumer
// (keys and headers printed) and compares the lines with input's, as a
// multiset (partitions interleave).
func printedByKboxConsumer(t *testing.T, topic, input string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, link("kafka-console-consumer"), "--bootstrap-server", cluster.Bootstrap, "--topic", topic,
		"--from-beginning", "--max-messages", fmt.Sprint(n), "--timeout-ms", "60000",
		"--formatter-property", "print.key=true", "--formatter-property", "print.headers=true")
	cmd.Env = append(os.Environ(), "KBOX_CONFIG="+filepath.Join(t.TempDir(), "none.yaml"))
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kbox consumer: %v\n%s", err, errb.String())
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	want := strings.Split(strings.TrimSuffix(input, "\n"), "\n")
	sort.Strings(got)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("kbox consumer printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestProducerParseError: a bad line ends both tools the same way (first
// line of the stack trace, exit 1), after the lines before it were sent.
func TestProducerParseError(t *testing.T) {
	in := []byte("h1:v1\tk\tv\n\tk2\tv2\nh3:v3\tk3\tv3\n")
	args := []string{"--property", "parse.headers=true", "--property", "parse.key=true"}
	at, kt := prodTopic(t, "prod-err-apache"), prodTopic(t, "prod-err-kbox")
	ar := runApacheProducer(t, in, append([]string{"--bootstrap-server", cluster.Bootstrap, "--topic", at}, args...)...)
	kr := runKboxProducer(t, in, false, append([]string{"--bootstrap-server", cluster.Bootstrap, "--topic", kt}, args...)...)
	first := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
	want := "org.apache.kafka.common.KafkaException: No header key separator found in pair '' on line number 2"
	if ar.code != 1 || kr.code != 1 || first(ar.stderr) != want || kr.stderr != want+"\n" || ar.stdout != kr.stdout {
		t.Fatalf("apache: exit %d stdout %q stderr %.300q\nkbox: exit %d stdout %q stderr %q", ar.code, ar.stdout, ar.stderr, kr.code, kr.stdout, kr.stderr)
	}
	sameRecords(t, readTopic(t, at, 1), readTopic(t, kt, 1))
}

// TestProducerReadByApacheConsumer: what kbox produced, Apache's console
// consumer prints as the lines that went in.
func TestProducerReadByApacheConsumer(t *testing.T) {
	topic := prodTopic(t, "prod-interop")
	in := "h1:a,h2:b\tk1\tv1\nh:x\tk2\tv2\nh:y\tk1\tv3\n"
	kr := runKboxProducer(t, []byte(in), true, "--bootstrap-server", cluster.Bootstrap, "--topic", topic,
		"--reader-property", "parse.key=true", "--reader-property", "parse.headers=true")
	if kr.code != 0 {
		t.Fatalf("kbox produce: %+v", kr)
	}
	out, errs, code, err := cluster.Apache(nil, "kafka-console-consumer", "--bootstrap-server", cluster.Bootstrap, "--topic", topic,
		"--from-beginning", "--max-messages", "3", "--formatter-property", "print.key=true", "--formatter-property", "print.headers=true")
	if err != nil || code != 0 {
		t.Fatalf("apache consumer: exit %d %v\n%s", code, err, errs)
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := strings.Split(strings.TrimSuffix(in, "\n"), "\n")
	sort.Strings(got) // partitions interleave; within one key the order holds (checked below)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("apache consumer printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if i1, i3 := strings.Index(out, "\tv1\n"), strings.Index(out, "\tv3\n"); i1 < 0 || i3 < i1 {
		t.Errorf("records of key k1 out of order:\n%s", out)
	}
}

// TestProduceJSON: `kbox produce -f json` writes what the JSON says (keys,
// values, headers, nulls, base64 bytes, partitions, timestamps), and
// `kbox consume -o json | kbox produce -f json` copies the topic exactly.
func TestProduceJSON(t *testing.T) {
	src, dst := prodTopic(t, "prod-json-src"), prodTopic(t, "prod-json-copy")
	bin := []byte{0xff, 0x00, 0xfe}
	in := strings.Join([]string{
		`{"topic":"ignored","partition":2,"timestamp":1700000000000,"key":"k","value":"v","headers":[{"key":"h","value":"x"},{"key":"n","value":null}]}`,
		`{"partition":1,"key":null,"value":null}`,
		``,
		`{"partition":0,"timestamp":1700000000123,"key":"` + base64.StdEncoding.EncodeToString(bin) + `","key_encoding":"base64","value":"","headers":[{"key":"b","value":"` + base64.StdEncoding.EncodeToString(bin) + `","value_encoding":"base64"}]}`,
		`{"key":"hashed","value":"by key"}`,
	}, "\n")
	kr := runKboxProducer(t, []byte(in), true, "--bootstrap-server", cluster.Bootstrap, "--topic", src, "-f", "json")
	if kr.code != 0 || kr.stdout != "" || kr.stderr != "" {
		t.Fatalf("kbox produce -f json: %+v", kr)
	}
	recs := readTopic(t, src, 4)
	got := make([]string, len(recs))
	for i, r := range recs {
		got[i] = describe(r, true)
	}
	hashed := kgo.StickyKeyPartitioner(nil).ForTopic("").Partition(&kgo.Record{Key: []byte("hashed")}, producerPartitions)
	want := []string{
		`p0 key="\xff\x00\xfe" value="" headers=[b="\xff\x00\xfe"]`,
		`p1 key=null value=null headers=[]`,
		`p2 key="k" value="v" headers=[h="x",n=null]`,
		fmt.Sprintf(`p%d key="hashed" value="by key" headers=[]`, hashed),
	}
	sort.Strings(want)
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("records\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, r := range recs {
		ms := r.Timestamp.UnixMilli()
		if string(r.Key) == "k" && ms != 1700000000000 || bytes.Equal(r.Key, bin) && ms != 1700000000123 {
			t.Errorf("%s: timestamp %d not kept", describe(r, true), ms)
		}
	}

	// The copy: `kbox consume -o json | kbox produce -f json` into a
	// second topic.
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, env.Kbox, "consume", "--bootstrap-server", cluster.Bootstrap, "--topic", src, "--start", "earliest", "-e", "-o", "json")
	cmd.Env = append(os.Environ(), "KBOX_CONFIG="+filepath.Join(t.TempDir(), "none.yaml"))
	var cerr bytes.Buffer
	cmd.Stderr = &cerr
	lines, err := cmd.Output()
	if err != nil || bytes.Count(lines, []byte("\n")) != len(recs) {
		t.Fatalf("kbox consume -o json: %v\n%s\n%s", err, lines, cerr.String())
	}
	kr = runKboxProducer(t, lines, true, "--bootstrap-server", cluster.Bootstrap, "--topic", dst, "-f", "json")
	if kr.code != 0 {
		t.Fatalf("kbox produce -f json (copy): %+v", kr)
	}
	copied := readTopic(t, dst, len(recs))
	for i := range recs {
		if a, b := describe(recs[i], true), describe(copied[i], true); a != b || !recs[i].Timestamp.Equal(copied[i].Timestamp) {
			t.Errorf("copy %d: %s @%d, want %s @%d", i, b, copied[i].Timestamp.UnixMilli(), a, recs[i].Timestamp.UnixMilli())
		}
	}
}

// TestProduceNative: files in order, one partition for all, a rate cap,
// and a bad JSON line named with its file and line.
func TestProduceNative(t *testing.T) {
	topic := prodTopic(t, "prod-native")
	dir := t.TempDir()
	f1, f2 := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	if err := os.WriteFile(f1, []byte(keyedLines(20, "k%d\tv%d\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f2, []byte(keyedLines(20, "k%d\tw%d\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	kr := runKboxProducer(t, nil, true, "--bootstrap-server", cluster.Bootstrap, "--topic", topic, "--file", f1, "--file", f2,
		"--reader-property", "parse.key=true", "-p", "2", "--rate", "20")
	took := time.Since(start)
	if kr.code != 0 {
		t.Fatalf("kbox produce: %+v", kr)
	}
	// 40 records at 20/s: the throttler holds the average to 20/s.
	if took < 1500*time.Millisecond {
		t.Errorf("40 records at --rate 20 took %s", took)
	}
	recs := readTopic(t, topic, 40)
	for i, r := range recs {
		wantVal := fmt.Sprintf("v%d", i)
		if i >= 20 {
			wantVal = fmt.Sprintf("w%d", i-20)
		}
		if r.Partition != 2 || string(r.Value) != wantVal || string(r.Key) != fmt.Sprintf("k%d", i%20) {
			t.Fatalf("record %d: %s, want p2 value %s", i, describe(r, true), wantVal)
		}
	}

	// Failed sends: logged as ErrorLoggingCallback does; exit 0 under the
	// Apache name (as Java), 1 from kbox produce.
	args := []string{"--bootstrap-server", cluster.Bootstrap, "--topic", topic, "-p", "7"}
	ar := runKboxProducer(t, []byte("x\ny\n"), false, args...)
	nr := runKboxProducer(t, []byte("x\ny\n"), true, args...)
	logLine := "ERROR Error when sending message to topic " + topic + " with key: null, value: 1 bytes with error: (org.apache.kafka.clients.producer.internals.ErrorLoggingCallback)"
	if ar.code != 0 || strings.Count(ar.stderr, logLine) != 2 || nr.code != 1 || !strings.HasSuffix(nr.stderr, "kbox: error: 2 of 2 records failed\n") {
		t.Errorf("failed sends:\napache name: %+v\nkbox produce: %+v", ar, nr)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\"value\":\"ok\"}\n{not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	kr = runKboxProducer(t, nil, true, "--bootstrap-server", cluster.Bootstrap, "--topic", topic, "-f", "json", "--file", bad)
	if kr.code != 1 || !strings.HasPrefix(kr.stderr, "kbox: error: "+bad+": line 2: invalid JSON record") || strings.Count(kr.stderr, "\n") != 1 {
		t.Errorf("bad JSON: %+v", kr)
	}
}
