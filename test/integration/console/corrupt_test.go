//go:build integration

package console_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The corrupt topics, each of 3,000 records in batches of about 500, with
// one byte changed on disk (broker stopped cleanly, the byte flipped in
// the segment, broker started again) in the batch holding offset 2000:
//   - crcTopic: a value byte: the batch's CRC no longer matches, its
//     records still parse;
//   - recTopic: the first record's length: the CRC no longer matches and
//     Java's parser refuses the record;
//   - baseTopic: the base offset, +32, which the CRC does not cover: the
//     broker and both clients read on without a word, 32 offsets short;
//   - verifyTopic: kafka-verifiable-producer's records, a value byte.
const (
	crcTopic    = "corrupt-crc"
	recTopic    = "corrupt-record"
	baseTopic   = "corrupt-base"
	verifyTopic = "corrupt-verify"
)

// corrupted is the batch each topic had changed, as it is on disk now.
type corrupted struct {
	base, last             int64
	storedCRC, computedCRC uint32
}

var (
	corruptOnce sync.Once
	corruptErr  error
	corruptBy   map[string]corrupted
	producerLog string // kafka-verifiable-producer's events on verifyTopic
)

func segment(topic string) string {
	return filepath.Join(cluster.Dir, "n1", "data", topic+"-0", "00000000000000000000.log")
}

// editBatch changes, in topic's segment, the batch holding offset.
func editBatch(topic string, offset int64, edit func(raw []byte)) error {
	path := segment(topic)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for _, b := range integrity.Batches(data) {
		if b.Base <= offset && offset <= b.Last {
			edit(b.Raw) // a slice of data
			return os.WriteFile(path, data, 0o644)
		}
	}
	return fmt.Errorf("%s: no batch holds offset %d", path, offset)
}

// batchAt reads the batch holding offset as the segment has it now.
func batchAt(topic string, offset int64) (corrupted, error) {
	data, err := os.ReadFile(segment(topic))
	if err != nil {
		return corrupted{}, err
	}
	for _, b := range integrity.Batches(data) {
		if b.Base <= offset && offset <= b.Last {
			return corrupted{b.Base, b.Last, b.StoredCRC, b.ComputedCRC}, nil
		}
	}
	return corrupted{}, fmt.Errorf("%s: no batch holds offset %d", topic, offset)
}

// corruptTopics writes the topics, stops the broker, changes one byte of
// each and starts the broker again, once for the package.
func corruptTopics(t *testing.T) map[string]corrupted {
	t.Helper()
	corruptOnce.Do(func() { corruptErr = makeCorruptTopics(t) })
	if corruptErr != nil {
		t.Fatalf("corrupt topics: %v", corruptErr)
	}
	return corruptBy
}

func makeCorruptTopics(t *testing.T) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...), kgo.ProducerLinger(50*time.Millisecond), kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for _, topic := range []string{crcTopic, recTopic, baseTopic, verifyTopic} {
		if _, err := adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
			return err
		}
	}
	for _, topic := range []string{crcTopic, recTopic, baseTopic} {
		for b := 0; b < 6; b++ {
			recs := make([]*kgo.Record, 500)
			for i := range recs {
				recs[i] = &kgo.Record{Topic: topic, Value: fmt.Appendf(nil, "record-%d-%06d", b, i)}
			}
			if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
				return err
			}
		}
	}
	r := testbed.Runner{Timeout: 2 * time.Minute}.Exec(t, link("kafka-verifiable-producer"), "--bootstrap-server", cluster.Bootstrap, "--topic", verifyTopic, "--max-messages", "3000")
	if r.Code != 0 {
		return fmt.Errorf("kafka-verifiable-producer: %s", r)
	}
	producerLog = filepath.Join(env.Dir, "producer.log")
	if err := os.WriteFile(producerLog, []byte(r.Stdout), 0o644); err != nil {
		return err
	}
	if err := cluster.StopBroker(1, false); err != nil {
		return err
	}
	// One bit of the last record's value (the batch ends with its value
	// and a one-byte header count).
	flipValue := func(raw []byte) { raw[len(raw)-2] ^= 0x01 }
	edits := []struct {
		topic string
		edit  func([]byte)
	}{
		{crcTopic, flipValue},
		{verifyTopic, flipValue},
		// The first record's length varint (record bodies here are
		// 19-22 bytes: one byte, zigzag-encoded): two bytes more.
		{recTopic, func(raw []byte) { raw[61] += 4 }},
		{baseTopic, func(raw []byte) {
			base := int64(0)
			for _, c := range raw[:8] {
				base = base<<8 | int64(c)
			}
			base += 32
			for i := 7; i >= 0; i-- {
				raw[i] = byte(base)
				base >>= 8
			}
		}},
	}
	for _, e := range edits {
		if err := editBatch(e.topic, 2000, e.edit); err != nil {
			return err
		}
	}
	corruptBy = map[string]corrupted{}
	for _, topic := range []string{crcTopic, recTopic, baseTopic, verifyTopic} {
		at := int64(2000)
		if topic == baseTopic {
			at = 2032
		}
		if corruptBy[topic], err = batchAt(topic, at); err != nil {
			return err
		}
	}
	return cluster.StartBroker(1)
}

func lineCount(s string) int { return strings.Count(s, "\n") }

// TestCorruptBatchConsoleConsumer: on a batch whose CRC no longer matches,
// kbox's kafka-console-consumer prints what Apache's prints: the records
// before the batch, then the KafkaException with the batch's offset and
// both CRCs, and exits as Apache does (0). kbox printed the records, then
// a TimeoutException.
func TestCorruptBatchConsoleConsumer(t *testing.T) {
	t.Parallel() // after the package's other tests: the broker restarts once
	c := corruptTopics(t)[crcTopic]
	cause := fmt.Sprintf("Record batch for partition %s-0 at offset %d is invalid, cause: Record is corrupt (stored crc = %d, computed crc = %d)", crcTopic, c.base, c.storedCRC, c.computedCRC)
	for _, args := range [][]string{
		{"--from-beginning"},
		{"--partition", "0", "--offset", strconv.FormatInt(c.base+10, 10)},
	} {
		args = append([]string{"--bootstrap-server", cluster.Bootstrap, "--topic", crcTopic, "--timeout-ms", "60000"}, args...)
		kbox, apache := runBoth(t, args...)
		if kbox.out != apache.out || normStderr(kbox.err) != normStderr(apache.err) || kbox.code != apache.code {
			t.Errorf("%q differs from Apache's:\nkbox   (exit %d, %d lines): %s\napache (exit %d, %d lines): %s", args, kbox.code, lineCount(kbox.out), kbox.err, apache.code, lineCount(apache.out), apache.err)
		}
		if !strings.Contains(kbox.err, "Caused by: org.apache.kafka.common.KafkaException: "+cause) {
			t.Errorf("%q: stderr %q, want the cause %q", args, kbox.err, cause)
		}
	}
}

// TestCorruptBatchConsume: kbox consume names the partition, the batch's
// offset and both CRCs and exits 1 (it hung, or ended as if all was read);
// --skip-corrupt reads on past the batch with a warning.
func TestCorruptBatchConsume(t *testing.T) {
	t.Parallel() // after the package's other tests: the broker restarts once
	c := corruptTopics(t)[crcTopic]
	run := func(args ...string) testbed.Result {
		return testbed.Runner{Timeout: 2 * time.Minute}.Exec(t, env.Kbox, append([]string{"consume", "--bootstrap-server", cluster.Bootstrap, "--topic", crcTopic, "-f", `%o\n`, "-e"}, args...)...)
	}
	desc := fmt.Sprintf("partition %s-0: record batch at offset %d (offsets %d-%d) is corrupt: stored crc = %d, computed crc = %d", crcTopic, c.base, c.base, c.last, c.storedCRC, c.computedCRC)
	for _, args := range [][]string{{"--start", "earliest"}, {"--group", "corrupt-g", "--from-beginning"}} {
		r := run(args...)
		if r.Code != 1 || lineCount(r.Stdout) != int(c.base) || !strings.Contains(r.Stderr, "kbox: error: "+desc) {
			t.Errorf("%q: %d lines, want %d, and the error %q:\n%s", args, lineCount(r.Stdout), c.base, desc, r)
		}
	}
	r := run("--start", "earliest", "--skip-corrupt")
	if r.Code != 0 || lineCount(r.Stdout) != 3000-int(c.last-c.base+1) || !strings.Contains(r.Stderr, "kbox: warning: "+desc+": skipped") {
		t.Errorf("--skip-corrupt: %d lines:\n%s", lineCount(r.Stdout), r)
	}
}

// TestCorruptBatchConsumerPerf: kafka-consumer-perf-test does not check
// CRCs (Java forces check.crcs=false): Apache's reads the batch whose
// value changed and stops with Java's InvalidRecordException at the record
// whose length changed; kbox's drop-in does both the same way (it timed
// out on the second). kbox perf consume names the corrupt batch.
func TestCorruptBatchConsumerPerf(t *testing.T) {
	t.Parallel() // after the package's other tests: the broker restarts once
	cs := corruptTopics(t)
	for _, topic := range []string{crcTopic, recTopic} {
		args := []string{"--bootstrap-server", cluster.Bootstrap, "--topic", topic, "--num-records", "3000", "--timeout", "60000", "--hide-header"}
		k, apache := runBothTool(t, "kafka-consumer-perf-test", args...)
		// The summary's 5th field is the record count.
		count := func(out string) string {
			if f := strings.Split(out, ", "); len(f) > 4 {
				return f[4]
			}
			return out
		}
		if k.code != apache.code || normStderr(k.err) != normStderr(apache.err) || count(k.out) != count(apache.out) {
			t.Errorf("%s differs from Apache's:\nkbox (exit %d):\n%s\n%s\napache (exit %d):\n%s\n%s", topic, k.code, k.out, k.err, apache.code, apache.out, apache.err)
		}
		if topic == recTopic && (k.code != 1 || !strings.Contains(k.err, "Caused by: org.apache.kafka.common.InvalidRecordException: Invalid record size: expected to read ")) {
			t.Errorf("%s: exit %d, %s", topic, k.code, k.err)
		}
	}
	c := cs[crcTopic]
	r := testbed.Runner{Timeout: 2 * time.Minute}.Exec(t, env.Kbox, "perf", "consume", "--bootstrap-server", cluster.Bootstrap, "--topic", crcTopic, "--records", "3000", "--timeout", "60s")
	want := fmt.Sprintf("kbox: error: partition %s-0: record batch at offset %d (offsets %d-%d) is corrupt: stored crc = %d, computed crc = %d", crcTopic, c.base, c.base, c.last, c.storedCRC, c.computedCRC)
	if r.Code != 1 || !strings.Contains(r.Stderr, want) {
		t.Errorf("kbox perf consume: want %q:\n%s", want, r)
	}
}

// TestCorruptBaseOffset: a batch whose base offset changed (+32; the CRC
// does not cover it) makes Apache's consumer and the broker skip 32
// offsets without a word; kbox consume warns that the offsets jump where
// the log has no batch, and exits 1.
func TestCorruptBaseOffset(t *testing.T) {
	t.Parallel() // after the package's other tests: the broker restarts once
	c := corruptTopics(t)[baseTopic]
	before := c.base - 32 // the batch's real first offset
	o, _, code, err := cluster.Apache(nil, "kafka-console-consumer", "--bootstrap-server", cluster.Bootstrap, "--topic", baseTopic, "--partition", "0", "--offset", "earliest",
		"--max-messages", "2968", "--timeout-ms", "60000", "--formatter-property", "print.offset=true")
	offset := func(n int64) string { return fmt.Sprintf("Offset:%d\t", n) }
	if err != nil || code != 0 || lineCount(o) != 2968 || !strings.Contains(o, offset(before-1)) || strings.Contains(o, offset(before)) || !strings.Contains(o, offset(c.base)) {
		t.Errorf("apache did not skip offsets %d-%d: exit %d, %d lines, %v", before, c.base-1, code, lineCount(o), err)
	}
	r := testbed.Runner{Timeout: 2 * time.Minute}.Exec(t, env.Kbox, "consume", "--bootstrap-server", cluster.Bootstrap, "--topic", baseTopic, "-f", `%o\n`, "--start", "earliest", "-e")
	want := fmt.Sprintf("kbox: warning: partition %s-0: offsets jump from %d to %d (32 skipped): no batch in the log holds offsets %d-%d", baseTopic, before-1, c.base, before, c.base-1)
	if r.Code != 1 || lineCount(r.Stdout) != 2968 || !strings.Contains(r.Stderr, want) || !strings.Contains(r.Stderr, "kbox: error: 1 offset anomaly") {
		t.Errorf("want %q:\n%s", want, r)
	}
}

// TestCorruptBatchVerify: kbox's kafka-verifiable-consumer ends on the
// corrupt batch as Apache's does (the same ERROR and cause, leaving the
// group, shutdown_complete), and kbox verify check reports the batch as
// corrupt-batch, its acked records not as lost (the re-read failed, and
// the check said VALID).
func TestCorruptBatchVerify(t *testing.T) {
	t.Parallel() // after the package's other tests: the broker restarts once
	c := corruptTopics(t)[verifyTopic]
	args := func(group string) []string {
		return []string{"--bootstrap-server", cluster.Bootstrap, "--topic", verifyTopic, "--group-id", group, "--max-messages", "3000", "--verbose"}
	}
	// Each in its own group.
	k, apache := runBothArgs(t, "kafka-verifiable-consumer", args("corrupt-kbox"), args("corrupt-apache"))
	// The tail of the event stream, and the last commit: the batch's offset.
	tail := func(out string) string {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var names []string
		last := ""
		for _, l := range lines {
			if i := strings.Index(l, `"name":"`); i >= 0 {
				name := l[i+8:]
				names = append(names, name[:strings.Index(name, `"`)])
			}
			if strings.Contains(l, `"offsets_committed"`) {
				last = l[strings.Index(l, `"offset":`):]
			}
		}
		if len(names) > 3 {
			names = names[len(names)-3:]
		}
		return strings.Join(names, ",") + " " + last
	}
	if k.code != apache.code || normStderr(k.err) != normStderr(apache.err) || tail(k.out) != tail(apache.out) {
		t.Errorf("differs from Apache's:\nkbox: exit %d, %s\n%s\napache: exit %d, %s\n%s", k.code, tail(k.out), k.err, apache.code, tail(apache.out), apache.err)
	}
	consumerLog := filepath.Join(t.TempDir(), "consumer.log")
	if err := os.WriteFile(consumerLog, []byte(k.out), 0o644); err != nil {
		t.Fatal(err)
	}
	r := testbed.Runner{Timeout: 2 * time.Minute}.Exec(t, env.Kbox, "verify", "check", "--producer-log", producerLog, "--consumer-log", consumerLog, "--bootstrap-server", cluster.Bootstrap)
	want := fmt.Sprintf("partition %s-0: record batch at offset %d (offsets %d-%d) is corrupt: stored crc = %d, computed crc = %d: %d acked record(s) in it not read", verifyTopic, c.base, c.base, c.last, c.storedCRC, c.computedCRC, c.last-c.base+1)
	if r.Code != 3 || !strings.Contains(r.Stdout, "FAIL corrupt-batch: 1\n  "+want) || strings.Contains(r.Stdout, "lost") {
		t.Errorf("verify check: want %q:\n%s", want, r)
	}
}
