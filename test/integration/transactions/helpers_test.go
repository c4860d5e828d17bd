//go:build integration

package transactions_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// helperEnv makes the test binary a transactional producer (see
// runHelper): it begins a transaction, writes to the topic, prints
// "ready" and waits to be killed, leaving the transaction open.
const helperEnv = "KBOX_TX_TEST_PRODUCER"

// runHelper is the producer process: KBOX_TX_TEST_PRODUCER holds
// "bootstrap,transactional id,topic".
func runHelper(spec string) int {
	f := strings.Split(spec, ";")
	cl, err := kgo.NewClient(kgo.SeedBrokers(f[0]), kgo.TransactionalID(f[1]), kgo.TransactionTimeout(10*time.Minute),
		kgo.DefaultProduceTopic(f[2]), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := cl.BeginTransaction(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i := 0; i < 3; i++ {
		if err := cl.ProduceSync(ctx, &kgo.Record{Partition: 0, Value: []byte(fmt.Sprintf("in-txn-%d", i))}).FirstErr(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	fmt.Println("ready")
	select {} // SIGKILL ends it, the transaction still open
}

// startHangingProducer runs the helper and waits for its "ready"; the
// returned function SIGKILLs it.
func startHangingProducer(t *testing.T, txnID, topic string) (kill func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+cluster.Bootstrap+";"+txnID+";"+topic)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill = func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	}
	ready := make(chan bool, 1)
	go func() {
		s := bufio.NewScanner(out)
		ready <- s.Scan() && s.Text() == "ready"
	}()
	select {
	case ok := <-ready:
		if !ok {
			kill()
			t.Fatalf("the transactional producer failed: %s", stderr.String())
		}
	case <-time.After(90 * time.Second):
		kill()
		t.Fatalf("the transactional producer did not get ready: %s", stderr.String())
	}
	return kill
}

// openUntracked leaves a transaction open on topic's partition 0 that no
// coordinator knows of for that partition: a producer id and epoch from
// InitProducerId for txnID, and a transactional batch written with Produce
// v9 (no AddPartitionsToTxn; the brokers' partition verification is off).
// This is the hanging transaction Apache's find-hanging is for.
func openUntracked(txnID, topic string) (pid int64, epoch int16, err error) {
	v := kversion.Stable()
	v.SetMaxKeyVersion(0, 9) // Produce v9: the broker adds no partition to the transaction
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.Bootstrap), kgo.MaxVersions(v))
	if err != nil {
		return 0, 0, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	init := kmsg.NewPtrInitProducerIDRequest()
	init.TransactionalID = kmsg.StringPtr(txnID)
	init.TransactionTimeoutMillis = 60000
	init.ProducerID, init.ProducerEpoch = -1, -1
	ir, err := init.RequestWith(ctx, cl)
	if err != nil {
		return 0, 0, err
	}
	if ir.ErrorCode != 0 {
		return 0, 0, fmt.Errorf("InitProducerId: error code %d", ir.ErrorCode)
	}
	pid, epoch = ir.ProducerID, ir.ProducerEpoch
	now := time.Now().UnixMilli()
	rec := []byte{0}                   // attributes
	rec = binary.AppendVarint(rec, 0)  // timestamp delta
	rec = binary.AppendVarint(rec, 0)  // offset delta
	rec = binary.AppendVarint(rec, -1) // no key
	val := []byte("untracked")         //
	rec = binary.AppendVarint(rec, int64(len(val)))
	rec = append(rec, val...)
	rec = binary.AppendVarint(rec, 0) // no headers
	records := binary.AppendVarint(nil, int64(len(rec)))
	records = append(records, rec...)
	b := kmsg.RecordBatch{PartitionLeaderEpoch: -1, Magic: 2, Attributes: 0x10, FirstTimestamp: now, MaxTimestamp: now,
		ProducerID: pid, ProducerEpoch: epoch, NumRecords: 1, Records: records}
	raw := b.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[8:], uint32(len(raw)-12))
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	req := kmsg.NewPtrProduceRequest()
	req.TransactionID = kmsg.StringPtr(txnID)
	req.Acks, req.TimeoutMillis = -1, 30000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Records = raw
	rt.Partitions = []kmsg.ProduceRequestTopicPartition{rp}
	req.Topics = []kmsg.ProduceRequestTopic{rt}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return 0, 0, err
	}
	if c := resp.Topics[0].Partitions[0].ErrorCode; c != 0 {
		return 0, 0, fmt.Errorf("Produce: error code %d", c)
	}
	return pid, epoch, nil
}
