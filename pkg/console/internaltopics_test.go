package console

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// capturedRecords reads testdata/coordinator_records.jsonl: every record of
// a 4.4 test bed's __consumer_offsets (a classic group, a KIP-848 group,
// console-consumer groups, an admin commit and two deleted groups), as
// `kbox consume -o json` wrote them.
func capturedRecords(t *testing.T) map[int32][]*kgo.Record {
	t.Helper()
	f, err := os.Open("testdata/coordinator_records.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bytesOf := func(s *string, enc string) []byte {
		if s == nil {
			return nil
		}
		if enc == "base64" {
			b, err := base64.StdEncoding.DecodeString(*s)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		return []byte(*s)
	}
	out := map[int32][]*kgo.Record{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var j struct {
			Partition int32   `json:"partition"`
			Offset    int64   `json:"offset"`
			Key       *string `json:"key"`
			KeyEnc    string  `json:"key_encoding"`
			Value     *string `json:"value"`
			ValueEnc  string  `json:"value_encoding"`
		}
		if err := json.Unmarshal(sc.Bytes(), &j); err != nil {
			t.Fatal(err)
		}
		out[j.Partition] = append(out[j.Partition], &kgo.Record{Partition: j.Partition, Offset: j.Offset, Key: bytesOf(j.Key, j.KeyEnc), Value: bytesOf(j.Value, j.ValueEnc)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCoordinatorFormattersCaptured formats the captured records partition
// by partition and compares with what Apache 4.4's tool printed for the
// same partitions (testdata/coordinator_records.golden: "class partition
// output" lines).
func TestCoordinatorFormattersCaptured(t *testing.T) {
	recs := capturedRecords(t)
	golden, err := os.ReadFile("testdata/coordinator_records.golden")
	if err != nil {
		t.Fatal(err)
	}
	formatters := map[string]*CoordinatorFormatter{
		"OffsetsMessageFormatter":       NewOffsetsFormatter(),
		"GroupMetadataMessageFormatter": NewGroupMetadataFormatter(),
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSuffix(string(golden), "\n"), "\n") {
		fields := strings.SplitN(line, " ", 3)
		if len(fields) != 3 {
			t.Fatalf("bad golden line %q", line)
		}
		f := formatters[fields[0]]
		p, _ := strconv.Atoi(fields[1])
		if f == nil || len(recs[int32(p)]) == 0 {
			t.Fatalf("bad golden line %q", line)
		}
		var got []byte
		for _, r := range recs[int32(p)] {
			if got, err = f.Append(got, r); err != nil {
				t.Fatalf("%s partition %d offset %d: %v", fields[0], p, r.Offset, err)
			}
		}
		if string(got) != fields[2] {
			t.Errorf("%s partition %d:\n got %s\nwant %s", fields[0], p, got, fields[2])
		}
		n++
	}
	if n != 10 {
		t.Fatalf("%d golden cases, want 10", n)
	}
}

func key(typ int16, rest ...[]byte) []byte {
	b := []byte{byte(typ >> 8), byte(typ)}
	for _, r := range rest {
		b = append(b, r...)
	}
	return b
}

func str16(s string) []byte { return append([]byte{byte(len(s) >> 8), byte(len(s))}, s...) }

// TestCoordinatorFormatterVersions covers the value versions the 4.4
// broker no longer writes (encoded with kmsg), the skipped records and
// the errors.
func TestCoordinatorFormatterVersions(t *testing.T) {
	off := NewOffsetsFormatter()
	gm := NewGroupMetadataFormatter()
	ockey := key(1, str16("g"), str16("t"), []byte{0, 0, 0, 7})
	ocv := func(v int16) []byte {
		m := kmsg.OffsetCommitValue{Version: v, Offset: 42, LeaderEpoch: 3, Metadata: "m\x1f\"", CommitTimestamp: 1000, ExpireTimestamp: 2000}
		if v >= 4 {
			m.TopicID = [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
		}
		return m.AppendTo(nil)
	}
	p, l := "range", "m1"
	gmv := func(v int16) []byte {
		m := kmsg.GroupMetadataValue{Version: v, ProtocolType: "consumer", Generation: 5, Protocol: &p, Leader: &l, CurrentStateTimestamp: 77,
			Members: []kmsg.GroupMetadataValueMember{{MemberID: "m1", ClientID: "c", ClientHost: "/h", RebalanceTimeoutMillis: 9, SessionTimeoutMillis: 8, Subscription: []byte{0xff}, Assignment: []byte{}}}}
		return m.AppendTo(nil)
	}
	const kj = `{"key":{"type":1,"data":{"group":"g","topic":"t","partition":7}},"value":`
	const gk = `{"key":{"type":2,"data":{"group":"g"}},"value":`
	cases := []struct {
		name string
		f    *CoordinatorFormatter
		key  []byte
		val  []byte
		want string
		err  string
	}{
		{"offset v0", off, ockey, ocv(0), kj + `{"version":0,"data":{"offset":42,"metadata":"m\u001F\"","commitTimestamp":1000}}}`, ""},
		{"offset v1", off, ockey, ocv(1), kj + `{"version":1,"data":{"offset":42,"metadata":"m\u001F\"","commitTimestamp":1000,"expireTimestamp":2000}}}`, ""},
		{"offset v3", off, ockey, ocv(3), kj + `{"version":3,"data":{"offset":42,"leaderEpoch":3,"metadata":"m\u001F\"","commitTimestamp":1000}}}`, ""},
		{"offset v4", off, ockey, ocv(4), kj + `{"version":4,"data":{"offset":42,"leaderEpoch":3,"metadata":"m\u001F\"","commitTimestamp":1000,"topicId":"AQIDBAUGBwgJCgsMDQ4PEA"}}}`, ""},
		{"offset tombstone", off, ockey, nil, kj + `null}`, ""},
		{"legacy key", off, key(0, str16("g"), str16("t"), []byte{0, 0, 0, 7}), ocv(0), `{"key":{"type":0,"data":{"group":"g","topic":"t","partition":7}},"value":{"version":0,"data":{"offset":42,"metadata":"m\u001F\"","commitTimestamp":1000}}}`, ""},
		{"group v0", gm, key(2, str16("g")), gmv(0), gk + `{"version":0,"data":{"protocolType":"consumer","generation":5,"protocol":"range","leader":"m1","members":[{"memberId":"m1","clientId":"c","clientHost":"/h","sessionTimeout":8,"subscription":"/w==","assignment":""}]}}}`, ""},
		{"group v4", gm, key(2, str16("g")), gmv(4), gk + `{"version":4,"data":{"protocolType":"consumer","generation":5,"protocol":"range","leader":"m1","currentStateTimestamp":77,"members":[{"memberId":"m1","groupInstanceId":null,"clientId":"c","clientHost":"/h","rebalanceTimeout":9,"sessionTimeout":8,"subscription":"/w==","assignment":""}]}}}`, ""},
		{"group in offsets", off, key(2, str16("g")), gmv(3), "", ""},
		{"offset in group", gm, ockey, ocv(3), "", ""},
		{"null key", off, nil, ocv(3), "", ""},
		{"unknown type", off, key(99, str16("g")), []byte{0, 0}, "", ""},
		{"kip-848 type", off, key(3, str16("g")), []byte{0, 0, 1, 2}, "", ""},
		{"truncated key", off, key(1, str16("g")), ocv(3), "", "java.lang.RuntimeException: Could not read record at offset 9 due to: Could not read record with version 1 from key's buffer due to: null."},
		{"short key", off, []byte{1}, ocv(3), "", "java.lang.RuntimeException: Could not read record at offset 9 due to: Could not read version from key's buffer."},
		{"bad version", off, ockey, []byte{0, 5}, "", "java.lang.RuntimeException: Could not read record at offset 9 due to: Found an unknown record version 5 for 1 type"},
		{"bad version of hidden type", gm, ockey, []byte{0, 5}, "", "java.lang.RuntimeException: Could not read record at offset 9 due to: Found an unknown record version 5 for 1 type"},
		{"truncated", off, ockey, ocv(3)[:7], "", "java.lang.RuntimeException: Could not read record at offset 9 due to: Could not read record with version 3 from value's buffer due to: null."},
	}
	for _, c := range cases {
		got, err := c.f.Append([]byte("x"), &kgo.Record{Offset: 9, Key: c.key, Value: c.val})
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s: error %v, want %s", c.name, err, c.err)
			}
			continue
		}
		if err != nil || string(got) != "x"+c.want {
			t.Errorf("%s:\n got %s (%v)\nwant x%s", c.name, got, err, c.want)
		}
	}
}

func TestAppendJacksonString(t *testing.T) {
	got := string(appendJacksonString(nil, "a\"\\/\b\t\n\f\r\x00\x7f é\xff"))
	want := `"a\"\\/\b\t\n\f\r\u0000` + "\x7f é\uFFFD" + `"`
	if got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

// TestTransactionLogFormatter checks TransactionLogMessageFormatter on
// values encoded with kmsg: versions 0 and 1, tagged fields at and off
// their defaults, the state names, null partitions and a tombstone.
func TestTransactionLogFormatter(t *testing.T) {
	f := NewTransactionLogFormatter()
	k := key(0, str16("tx\"1"))
	val := func(v int16, state int8, topics []kmsg.TxnMetadataValueTopic, tagged bool) []byte {
		m := kmsg.NewTxnMetadataValue()
		m.Version = v
		m.ProducerID, m.ProducerEpoch, m.TimeoutMillis = 7, 2, 60000
		m.State = kmsg.TransactionState(state)
		m.Topics = topics
		m.LastUpdateTimestamp, m.StartTimestamp = 100, -1
		if tagged {
			m.PreviousProducerID, m.NextProducerID, m.NextProducerEpoch, m.ClientTransactionVersion = 6, 8, 3, 2
		}
		return m.AppendTo(nil)
	}
	topics := []kmsg.TxnMetadataValueTopic{{Topic: "a", Partitions: []int32{0, 2}}, {Topic: "b", Partitions: []int32{}}}
	const kj = `{"key":{"type":0,"data":{"transactionalId":"tx\"1"}},"value":`
	cases := []struct {
		name string
		val  []byte
		want string
	}{
		{"v0", val(0, 1, topics, false), kj + `{"version":0,"data":{"producerId":7,"producerEpoch":2,"transactionTimeoutMs":60000,"transactionStatus":"Ongoing","transactionPartitions":[{"topic":"a","partitionIds":[0,2]},{"topic":"b","partitionIds":[]}],"transactionLastUpdateTimestampMs":100,"transactionStartTimestampMs":-1}}}`},
		{"v1 defaults", val(1, 0, nil, false), kj + `{"version":1,"data":{"producerId":7,"producerEpoch":2,"transactionTimeoutMs":60000,"transactionStatus":"Empty","transactionPartitions":null,"transactionLastUpdateTimestampMs":100,"transactionStartTimestampMs":-1}}}`},
		{"v1 tagged", val(1, 7, topics[:1], true), kj + `{"version":1,"data":{"producerId":7,"previousProducerId":6,"nextProducerId":8,"producerEpoch":2,"nextProducerEpoch":3,"transactionTimeoutMs":60000,"transactionStatus":"PrepareEpochFence","transactionPartitions":[{"topic":"a","partitionIds":[0,2]}],"transactionLastUpdateTimestampMs":100,"transactionStartTimestampMs":-1,"clientTransactionVersion":2}}}`},
		{"unknown state", val(1, 9, nil, false), kj + `{"version":1,"data":{"producerId":7,"producerEpoch":2,"transactionTimeoutMs":60000,"transactionStatus":"9","transactionPartitions":null,"transactionLastUpdateTimestampMs":100,"transactionStartTimestampMs":-1}}}`},
		{"tombstone", nil, kj + `null}`},
	}
	for _, c := range cases {
		got, err := f.Append(nil, &kgo.Record{Key: k, Value: c.val})
		if err != nil || string(got) != c.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", c.name, got, err, c.want)
		}
	}
	if got, err := f.Append(nil, &kgo.Record{Key: key(1, str16("g")), Value: []byte{0, 0}}); err != nil || len(got) != 0 {
		t.Errorf("unknown record type: %q %v", got, err)
	}
	if _, err := f.Append(nil, &kgo.Record{Offset: 3, Key: k, Value: []byte{0, 2}}); err == nil || err.Error() != "java.lang.RuntimeException: Could not read record at offset 3 due to: Found an unknown record version 2 for 0 type" {
		t.Errorf("bad version: %v", err)
	}
}
