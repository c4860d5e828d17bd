//go:build integration

// Package dumplog_test checks kafka-dump-log against Apache 4.4's
// DumpLogSegments on segment files a 1-broker test bed wrote: a data topic
// (keys, headers, one batch per record so that the indexes have entries),
// one topic per compression codec, transactions committed and aborted,
// a consumer group's offsets (__consumer_offsets), the transaction log
// (__transaction_state) and the KRaft metadata log (__cluster_metadata).
// The files are copied first (the broker keeps appending to its active
// segments), then every Apache case runs in one JVM and kbox on each; the
// output is compared byte for byte, stderr by its first line (Apache
// prints a stack trace after it).
package dumplog_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var (
	cluster *testbed.Cluster
	binDir  string
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "dumplog", Applets: []string{"kafka-dump-log"}, Brokers: 1, Ready: func(e testbed.Env) error {
		binDir, cluster = e.BinDir, e.Cluster
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		return seed(ctx)
	}}))
}

var codecs = map[string]kgo.CompressionCodec{"gzip": kgo.GzipCompression(), "snappy": kgo.SnappyCompression(), "lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression()}

func seed(ctx context.Context) error {
	seeds := kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...)
	cl, err := kgo.NewClient(seeds, kgo.UnknownTopicRetries(-1), kgo.ProducerLinger(0))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	topics := []string{"data"}
	for c := range codecs {
		topics = append(topics, "c-"+c)
	}
	if _, err := adm.CreateTopics(ctx, 1, 1, nil, topics...); err != nil {
		return err
	}
	// one batch per record: 120 batches of ~150 bytes, past the 4 KiB index interval
	for i := range 120 {
		r := &kgo.Record{Topic: "data", Key: fmt.Appendf(nil, "k%d", i), Value: []byte(strings.Repeat("v", 100) + fmt.Sprint(i)),
			Headers: []kgo.RecordHeader{{Key: "h1", Value: []byte("x")}, {Key: "trace", Value: nil}}}
		if i%3 == 0 {
			r.Key = nil
		}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			return err
		}
	}
	for c, codec := range codecs {
		pc, err := kgo.NewClient(seeds, kgo.ProducerBatchCompression(codec), kgo.ProducerLinger(50*time.Millisecond))
		if err != nil {
			return err
		}
		var recs []*kgo.Record
		for i := range 40 {
			recs = append(recs, &kgo.Record{Topic: "c-" + c, Value: fmt.Appendf(nil, "value %d %s", i, strings.Repeat(c, 5))})
		}
		err = pc.ProduceSync(ctx, recs...).FirstErr()
		pc.Close()
		if err != nil {
			return err
		}
	}
	if err := transactions(ctx, seeds); err != nil {
		return err
	}
	if err := group(ctx, seeds); err != nil {
		return err
	}
	if err := newGroups(ctx, cl); err != nil {
		return err
	}
	return stateFiles(ctx, cl, seeds)
}

// newGroups: Apache's console consumer in a KIP-848 consumer group and
// its share consumer in a share group (reading from the earliest offset)
// read five records of data each: the groups' records in
// __consumer_offsets (offsets committed on close), the share group's
// state in __share_group_state.
func newGroups(ctx context.Context, cl *kgo.Client) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceType(32), "dump-share" // a group
	c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	c.Name, c.Value = "share.auto.offset.reset", kmsg.StringPtr("earliest")
	res.Configs = append(res.Configs, c)
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	if err := kerr.ErrorForCode(resp.Resources[0].ErrorCode); err != nil {
		return fmt.Errorf("share group config: %w", err)
	}
	for _, tool := range [][]string{
		{"kafka-console-consumer", "--group", "dump-848", "--from-beginning", "--consumer-property", "group.protocol=consumer"},
		{"kafka-console-share-consumer", "--group", "dump-share"},
	} {
		args := append(tool[1:], "--bootstrap-server", cluster.Bootstrap, "--topic", "data", "--max-messages", "5", "--timeout-ms", "60000")
		if _, stderr, code, err := cluster.Apache(nil, tool[0], args...); err != nil || code != 0 || !strings.Contains(stderr, "Processed a total of 5 messages") {
			return fmt.Errorf("%s: exit %d, %v: %s", tool[0], code, err, stderr)
		}
	}
	return nil
}

// stateFiles: topic txn, whose segments roll after 500 ms, gets a
// committed and an aborted transaction (the abort writes its segment's
// transaction index), then a record every 100 ms until a segment rolls
// (the roll writes a producer state snapshot).
func stateFiles(ctx context.Context, cl *kgo.Client, seeds kgo.Opt) error {
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"segment.ms": kmsg.StringPtr("500")}, "txn"); err != nil {
		return err
	}
	tc, err := kgo.NewClient(seeds, kgo.TransactionalID("dump-tx-state"), kgo.ProducerLinger(0), kgo.DefaultProduceTopic("txn"))
	if err != nil {
		return err
	}
	defer tc.Close()
	for _, end := range []kgo.TransactionEndTry{kgo.TryCommit, kgo.TryAbort} {
		if err := tc.BeginTransaction(); err != nil {
			return err
		}
		if err := tc.ProduceSync(ctx, &kgo.Record{Value: []byte("a")}, &kgo.Record{Value: []byte("b")}).FirstErr(); err != nil {
			return err
		}
		if err := tc.EndTransaction(ctx, end); err != nil {
			return err
		}
	}
	dir := filepath.Join(cluster.Dir, "n1", "data", "txn-0")
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		snaps, _ := filepath.Glob(filepath.Join(dir, "*.snapshot"))
		idx, _ := filepath.Glob(filepath.Join(dir, "*.txnindex"))
		if len(snaps) > 0 && len(idx) > 0 {
			return nil
		}
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "txn", Value: []byte("roll")}).FirstErr(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no producer snapshot in %s: %w", dir, ctx.Err())
		case <-tick.C:
		}
	}
}

// transactions: one committed and one aborted transaction on data.
func transactions(ctx context.Context, seeds kgo.Opt) error {
	tc, err := kgo.NewClient(seeds, kgo.TransactionalID("dump-tx"), kgo.ProducerLinger(0))
	if err != nil {
		return err
	}
	defer tc.Close()
	for _, end := range []kgo.TransactionEndTry{kgo.TryCommit, kgo.TryAbort} {
		if err := tc.BeginTransaction(); err != nil {
			return err
		}
		if err := tc.ProduceSync(ctx, &kgo.Record{Topic: "data", Value: []byte("in a transaction")}).FirstErr(); err != nil {
			return err
		}
		if err := tc.EndTransaction(ctx, end); err != nil {
			return err
		}
	}
	return nil
}

// group: a consumer group reads data and commits (group metadata and
// offset commits in __consumer_offsets).
func group(ctx context.Context, seeds kgo.Opt) error {
	gc, err := kgo.NewClient(seeds, kgo.ConsumerGroup("dump-group"), kgo.ConsumeTopics("data"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
	if err != nil {
		return err
	}
	defer gc.Close()
	got := 0
	for got < 10 {
		fs := gc.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return err
		}
		got += fs.NumRecords()
	}
	return gc.CommitUncommittedOffsets(ctx)
}

// snapshot copies the segment files of the partitions named to dir and
// returns the copies' directories by partition name.
func snapshot(t *testing.T, dir string, parts ...string) map[string]string {
	t.Helper()
	data := filepath.Join(cluster.Dir, "n1", "data")
	out := map[string]string{}
	for _, p := range parts {
		src := filepath.Join(data, p)
		dst := filepath.Join(dir, p)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, ext := range []string{".log", ".index", ".timeindex"} {
			copyFile(t, filepath.Join(src, "00000000000000000000"+ext), filepath.Join(dst, "00000000000000000000"+ext))
		}
		out[p] = dst
	}
	return out
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// nonEmpty is the first partition of an internal topic whose log holds data.
func nonEmpty(t *testing.T, topic string) string {
	t.Helper()
	return nonEmptyAll(t, topic)[0]
}

// nonEmptyAll is every partition of an internal topic whose log holds data.
func nonEmptyAll(t *testing.T, topic string) []string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(cluster.Dir, "n1", "data", topic+"-*"))
	var out []string
	for _, d := range dirs {
		if st, err := os.Stat(filepath.Join(d, "00000000000000000000.log")); err == nil && st.Size() > 0 {
			out = append(out, filepath.Base(d))
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s partition holds data", topic)
	}
	return out
}

// stateCopies copies txn-0's producer state snapshots and transaction
// index to dir: their paths, comma-separated.
func stateCopies(t *testing.T, dir string) string {
	t.Helper()
	src := filepath.Join(cluster.Dir, "n1", "data", "txn-0")
	files, _ := filepath.Glob(filepath.Join(src, "*.snapshot"))
	idx, _ := filepath.Glob(filepath.Join(src, "*.txnindex"))
	files = append(files, idx...)
	var out []string
	for _, f := range files {
		to := filepath.Join(dir, filepath.Base(f))
		copyFile(t, f, to)
		out = append(out, to)
	}
	return strings.Join(out, ",")
}

func TestDifferential(t *testing.T) {
	offsets, txns := nonEmpty(t, "__consumer_offsets"), nonEmpty(t, "__transaction_state")
	allOffsets, shareState := nonEmptyAll(t, "__consumer_offsets"), nonEmptyAll(t, "__share_group_state")
	parts := []string{"data-0", "c-gzip-0", "c-snappy-0", "c-lz4-0", "c-zstd-0", offsets, txns, "__cluster_metadata-0"}
	tmp := t.TempDir()
	d := snapshot(t, tmp, append(append(parts, allOffsets...), shareState...)...)
	seg := func(p, ext string) string { return filepath.Join(d[p], "00000000000000000000"+ext) }
	segs := func(ps []string) string {
		var fs []string
		for _, p := range ps {
			fs = append(fs, seg(p, ".log"))
		}
		return strings.Join(fs, ",")
	}
	var cases [][]string
	for _, p := range parts[:5] {
		cases = append(cases, []string{"--files", seg(p, ".log")}, []string{"--files", seg(p, ".log"), "--print-data-log"})
	}
	cases = append(cases,
		[]string{"--files", seg("data-0", ".log"), "--deep-iteration", "--skip-record-metadata"},
		[]string{"--files", seg("data-0", ".log"), "--print-data-log", "--skip-record-metadata"},
		[]string{"--files", seg("data-0", ".log"), "--max-bytes", "5000", "--print-data-log"},
		[]string{"--files", seg("data-0", ".index") + "," + seg("data-0", ".timeindex")},
		[]string{"--files", seg("data-0", ".index") + "," + seg("data-0", ".timeindex"), "--verify-index-only"},
		[]string{"--files", seg("data-0", ".index"), "--index-sanity-check"},
		[]string{"--files", seg("data-0", ".timeindex"), "--index-sanity-check"},
		[]string{"--files", seg("data-0", ".index"), "--max-message-size", "100"},
		[]string{"--files", seg(offsets, ".log"), "--offsets-decoder"},
		[]string{"--files", seg(offsets, ".log"), "--offsets-decoder", "--skip-record-metadata"},
		[]string{"--files", seg(txns, ".log"), "--transaction-log-decoder"},
		[]string{"--files", segs(allOffsets), "--offsets-decoder"},
		[]string{"--files", segs(shareState), "--share-group-state-decoder"},
		[]string{"--files", stateCopies(t, tmp)},
		[]string{"--files", seg("__cluster_metadata-0", ".log"), "--cluster-metadata-decoder"},
		[]string{"--files", seg("__cluster_metadata-0", ".log"), "--deep-iteration"},
		[]string{"--files", seg("__cluster_metadata-0", ".index") + "," + seg("__cluster_metadata-0", ".timeindex")},
		[]string{"--files", seg("data-0", ".log") + "," + seg("c-zstd-0", ".log"), "--key-decoder-class", "org.apache.kafka.tools.api.StringDecoder", "--value-decoder-class"},
		[]string{"--files", seg("data-0", ".log"), "--value-decoder-class", "org.apache.kafka.tools.api.IntegerDecoder"},
		[]string{"--files", filepath.Join(d["data-0"], "nope.log")},
		[]string{"--files", filepath.Join(d["data-0"], "x.txt")},
		[]string{"--files", seg("data-0", ".log"), "--bogus"},
		[]string{"--deep-iteration"},
	)
	want, err := cluster.ApacheBatch("kafka-dump-log", cases)
	if err != nil {
		t.Fatal(err)
	}
	// the bed wrote what the cases are meant to cover
	var all strings.Builder
	for _, w := range want {
		all.WriteString(w.Stdout)
	}
	for _, s := range []string{"endTxnMarker: COMMIT", "endTxnMarker: ABORT", "compresscodec: snappy", "compresscodec: zstd", "headerKeys: [h1,trace]",
		`key: {"type":"2"`, `key: {"type":"1"`, `"assignment":{"assignedPartitions"`, `"transactionStatus":"CompleteAbort"`,
		`"type":"PARTITION_RECORD"`, "LeaderChange: ", "\noffset: ", "timestamp: ",
		`key: {"type":"5","data":{"groupId":"dump-848"`, `key: {"type":"8","data":{"groupId":"dump-848"`, `key: {"type":"1","data":{"group":"dump-848"`,
		`key: {"type":"10","data":{"groupId":"dump-share"`, `key: {"type":"15","data":{"groupId":"dump-share"`,
		`key: {"type":"0","data":{"groupId":"dump-share"`, `"stateBatches":[{`,
		"currentTxnFirstOffset: ", "firstSequence: ", "\nversion: 0 producerId: "} {
		if !strings.Contains(all.String(), s) {
			t.Errorf("no case printed %q", s)
		}
	}
	link := filepath.Join(binDir, "kafka-dump-log")
	for i, args := range cases {
		got := testbed.Runner{Config: filepath.Join(binDir, "no-config.yaml"), Timeout: 60 * time.Second}.Exec(t, link, args...)
		w := want[i]
		first := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
		if got.Stdout != w.Stdout || got.Code != w.Code || first(got.Stderr) != first(w.Stderr) {
			t.Errorf("case %d %v:\nexit %d, Apache %d\nstderr %q\nApache %q\n%s", i, args, got.Code, w.Code, first(got.Stderr), first(w.Stderr), cmdtest.FirstDiff(w.Stdout, got.Stdout))
		}
	}
}
