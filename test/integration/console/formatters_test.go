//go:build integration

package console_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// groupPartitions reads an internal topic up to ends and returns the
// partition holding each of the ids (the key of every coordinator record
// is an int16 type and the group or transactional id as an int16-length
// string).
func groupPartitions(t *testing.T, topic string, ends kadm.ListedOffsets, groups map[string]string) map[string]int32 {
	t.Helper()
	start := map[string]map[int32]kgo.Offset{topic: {}}
	left := 0
	for p, e := range ends[topic] {
		if e.Offset > 0 {
			start[topic][p] = kgo.NewOffset().AtStart()
			left += int(e.Offset)
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...), kgo.ConsumePartitions(start))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := map[string]int32{}
	for left > 0 {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("reading %s: %v", topic, err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset < ends[topic][r.Partition].Offset {
				left--
			}
			if len(r.Key) < 4 {
				return
			}
			n := int(r.Key[2])<<8 | int(r.Key[3])
			if len(r.Key) >= 4+n {
				if _, ok := groups[string(r.Key[4:4+n])]; ok {
					out[string(r.Key[4:4+n])] = r.Partition
				}
			}
		})
	}
	return out
}

// TestConsoleConsumerInternalFormatters writes group coordinator records
// (a classic group, a KIP-848 group, an admin commit with odd metadata and
// its deletion's tombstones), then reads their __consumer_offsets
// partitions with both consumers and each internal-topic formatter.
func TestConsoleConsumerInternalFormatters(t *testing.T) {
	const topic = "fmt-src"
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := adm.CreateTopic(ctx, 2, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	var recs []*kgo.Record
	for i := 0; i < 4; i++ {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 2), Value: []byte(fmt.Sprint("v", i))})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}

	// Groups whose coordinator records are compared. Real consumers join
	// and commit with each protocol.
	groups := map[string]string{"fmt-classic": "classic", "fmt-kip848": "consumer"}
	for g, proto := range groups {
		_, stderr, code, err := cluster.Apache(nil, "kafka-console-consumer", "--bootstrap-server", cluster.Bootstrap,
			"--topic", topic, "--group", g, "--from-beginning", "--max-messages", "4", "--consumer-property", "group.protocol="+proto)
		if err != nil || code != 0 {
			t.Fatalf("apache consumer in %s: %v exit %d: %s", g, err, code, stderr)
		}
	}
	// An admin commit with metadata Jackson must escape, then its group
	// deleted: offset and group tombstones.
	const adminGroup = "fmt-admin"
	var offs kadm.Offsets
	offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: 1, LeaderEpoch: -1, Metadata: "q\"b\\s/n\nt\tc\x01ü€"})
	offs.Add(kadm.Offset{Topic: topic, Partition: 1, At: 2, LeaderEpoch: 0, Metadata: ""})
	if err := adm.CommitAllOffsets(ctx, adminGroup, offs); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.DeleteGroup(ctx, adminGroup); err != nil {
		t.Fatal(err)
	}
	groups[adminGroup] = "admin"

	ends, err := adm.ListEndOffsets(ctx, "__consumer_offsets")
	if err != nil {
		t.Fatal(err)
	}
	parts := groupPartitions(t, "__consumer_offsets", ends, groups)
	seen := map[int32]bool{}
	for g := range groups {
		p, ok := parts[g]
		if !ok {
			t.Fatalf("no record of group %s in __consumer_offsets", g)
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		end, ok := ends.Lookup("__consumer_offsets", p)
		if !ok || end.Offset <= 0 {
			t.Fatalf("no records in __consumer_offsets partition %d for %s: %v", p, g, end)
		}
		for _, class := range []string{"OffsetsMessageFormatter", "GroupMetadataMessageFormatter"} {
			// Exactly the records written so far: later reads cannot add
			// records below this end.
			args := []string{"--bootstrap-server", cluster.Bootstrap, "--topic", "__consumer_offsets",
				"--partition", fmt.Sprint(p), "--offset", "earliest", "--max-messages", fmt.Sprint(end.Offset),
				"--formatter", "org.apache.kafka.tools.consumer." + class}
			kbox, apache := runBoth(t, args...)
			if kbox.code != apache.code || kbox.code != 0 {
				t.Errorf("%s partition %d: exit kbox %d apache %d\nkbox stderr: %s\napache stderr: %s", class, p, kbox.code, apache.code, kbox.err, apache.err)
			}
			if kbox.out != apache.out {
				t.Errorf("%s partition %d: stdout differs\nkbox:   %q\napache: %q", class, p, kbox.out, apache.out)
			}
			want := fmt.Sprintf("Processed a total of %d messages", end.Offset)
			if !strings.Contains(kbox.err, want) || !strings.Contains(apache.err, want) {
				t.Errorf("%s partition %d: want %q on both stderrs\nkbox: %s\napache: %s", class, p, want, kbox.err, apache.err)
			}
			// The output is not empty: each group has records of each kind
			// shown, except the KIP-848 group under GroupMetadata.
			if p == parts[adminGroup] && class == "OffsetsMessageFormatter" {
				for _, w := range []string{`"metadata":"q\"b\\s/n\nt\tc\u0001ü€"`, `"data":{"group":"fmt-admin","topic":"fmt-src","partition":0}},"value":null}`} {
					if !strings.Contains(apache.out, w) {
						t.Errorf("Apache's output lacks %s: %s", w, apache.out)
					}
				}
			}
			if apache.out == "" && !(class == "GroupMetadataMessageFormatter" && groups[g] == "consumer") {
				t.Errorf("%s partition %d (%s): Apache printed nothing", class, p, g)
			}
		}
	}
	for g, proto := range groups {
		t.Logf("group %s (%s) in partition %d", g, proto, parts[g])
	}
}

// TestConsoleConsumerTransactionLogFormatter writes a committed and an
// aborted transaction and reads the transactional id's __transaction_state
// partition with both consumers and TransactionLogMessageFormatter.
func TestConsoleConsumerTransactionLogFormatter(t *testing.T) {
	const topic, txid = "fmt-txn", "fmt-tx\"1"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...), kgo.TransactionalID(txid), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 2, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	for _, commit := range []kgo.TransactionEndTry{kgo.TryCommit, kgo.TryAbort} {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("a")}, &kgo.Record{Value: []byte("b"), Partition: 1}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := cl.EndTransaction(ctx, commit); err != nil {
			t.Fatal(err)
		}
	}
	const state = "__transaction_state"
	// The end of a transaction is written to the log before the client
	// hears of it; the complete state follows: wait for it.
	var ends kadm.ListedOffsets
	var parts map[string]int32
	deadline := time.Now().Add(time.Minute)
	for {
		if ends, err = adm.ListEndOffsets(ctx, state); err != nil {
			t.Fatal(err)
		}
		parts = groupPartitions(t, state, ends, map[string]string{txid: ""})
		if e, ok := ends.Lookup(state, parts[txid]); ok && e.Offset >= 7 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	p, ok := parts[txid]
	if !ok {
		t.Fatalf("no record of %s in %s", txid, state)
	}
	end, _ := ends.Lookup(state, p)
	args := []string{"--bootstrap-server", cluster.Bootstrap, "--topic", state, "--partition", fmt.Sprint(p), "--offset", "earliest",
		"--max-messages", fmt.Sprint(end.Offset), "--formatter", "org.apache.kafka.tools.consumer.TransactionLogMessageFormatter"}
	kbox, apache := runBoth(t, args...)
	if kbox.code != 0 || apache.code != 0 {
		t.Errorf("exit kbox %d apache %d\nkbox stderr: %s\napache stderr: %s", kbox.code, apache.code, kbox.err, apache.err)
	}
	if kbox.out != apache.out {
		t.Errorf("stdout differs\nkbox:   %q\napache: %q", kbox.out, apache.out)
	}
	for _, w := range []string{`"transactionStatus":"CompleteCommit"`, `"transactionStatus":"CompleteAbort"`, `{"transactionalId":"fmt-tx\"1"}`} {
		if !strings.Contains(apache.out, w) {
			t.Errorf("Apache's output lacks %s: %s", w, apache.out)
		}
	}
}

// TestConsoleConsumerFormatterErrors reads records that are not
// coordinator records with OffsetsMessageFormatter: an unknown record type
// is skipped, a truncated key fails the run (or is skipped with
// --skip-message-on-error) with Apache's message.
func TestConsoleConsumerFormatterErrors(t *testing.T) {
	const topic = "fmt-bad"
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Key: []byte("ab"), Value: []byte("cd")}, &kgo.Record{Key: []byte{0, 1, 0, 1, 'g'}, Value: []byte{0, 5}}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	const msg = "java.lang.RuntimeException: Could not read record at offset 1 due to: Could not read record with version 1 from key's buffer due to: null."
	for _, c := range []struct {
		skip bool
		code int
		log  string
	}{
		{false, 1, "ERROR Unknown error when running consumer:  (org.apache.kafka.tools.consumer.ConsoleConsumer)\n" + msg},
		{true, 0, "ERROR Error processing message, skipping this message:  (org.apache.kafka.tools.consumer.ConsoleConsumer)\n" + msg},
	} {
		args := []string{"--bootstrap-server", cluster.Bootstrap, "--topic", topic, "--from-beginning", "--max-messages", "2",
			"--formatter", "org.apache.kafka.tools.consumer.OffsetsMessageFormatter"}
		if c.skip {
			args = append(args, "--skip-message-on-error")
		}
		kbox, apache := runBoth(t, args...)
		if kbox.code != c.code || apache.code != c.code {
			t.Errorf("skip=%v: exit kbox %d apache %d, want %d", c.skip, kbox.code, apache.code, c.code)
		}
		if kbox.out != "" || apache.out != "" {
			t.Errorf("skip=%v: stdout kbox %q apache %q, want nothing", c.skip, kbox.out, apache.out)
		}
		for who, e := range map[string]string{"kbox": kbox.err, "apache": apache.err} {
			if e := normStderr(e); !strings.Contains(e, c.log) || !strings.Contains(e, "Processed a total of 2 messages") {
				t.Errorf("skip=%v: %s stderr lacks %q: %s", c.skip, who, c.log, e)
			}
		}
	}
}
