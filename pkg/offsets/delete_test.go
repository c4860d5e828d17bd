package offsets

import (
	"bytes"
	"testing"

	"github.com/kboxdev/kbox/pkg/reassign"
)

// Messages as DeleteRecordsCommand 4.4 prints them (captured with
// testbed.sh apache-batch).
func TestParseDeleteJSON(t *testing.T) {
	for in, want := range map[string]string{
		`not json`:                        "The input string is not a valid JSON",
		`[1]`:                             "Expected JSON object, received [1]",
		`{}`:                              "Missing partitions field",
		`{"version":2,"partitions":[]}`:   "Not supported version field value 2",
		`{"version":"1","partitions":[]}`: `Expected ` + "`Integer`" + ` value, received "1"`,
		`{"partitions":{"a":1}}`:          `Expected JSON array, received {"a":1}`,
		`{"partitions":[{"topic":"logs","partition":1}]}`:                   "No such field exists: `offset`",
		`{"partitions":[{"partition":1,"offset":1}]}`:                       "No such field exists: `topic`",
		`{"partitions":[{"topic":"logs","partition":"1","offset":2}]}`:      "Expected `Integer` value, received \"1\"",
		`{"partitions":[{"topic":"logs","partition":1.5,"offset":2}]}`:      "Expected `Integer` value, received 1.5",
		`{"partitions":[{"topic":1,"partition":1,"offset":2}]}`:             "Expected `String` value, received 1",
		`{"partitions":[{"topic":"t","partition":1,"offset":"x"}]}`:         "Expected `Long` value, received \"x\"",
		`{"partitions":[{"topic":"t","partition":99999999999,"offset":1}]}`: "Expected `Integer` value, received 99999999999",
		`{"partitions":[5]}`: "Expected JSON object, received 5",
		`{"partitions":[{"topic":"logs","partition":1,"offset":2},{"topic":"orders","partition":3,"offset":1},{"topic":"logs","partition":1,"offset":3},{"topic":"orders","partition":3,"offset":1},{"topic":"orders","partition":10,"offset":0},{"topic":"orders","partition":10,"offset":0}]}`: "Offset json file contains duplicate topic partitions: orders-10,orders-3,logs-1",
	} {
		_, err := ParseDeleteJSON([]byte(in))
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", in, err, want)
		}
	}
	es, err := ParseDeleteJSON([]byte(`{"partitions":[{"topic":"logs","partition":1,"offset":5},{"topic":"orders","partition":3,"offset":-1}],"version":1} trailing`))
	if err != nil || len(es) != 2 || es[0] != (DeleteEntry{reassign.TP{Topic: "logs", Partition: 1}, 5}) || es[1].Offset != -1 {
		t.Errorf("valid file: %+v %v", es, err)
	}
	if es, err := ParseDeleteJSON([]byte(`{"partitions":[]}`)); err != nil || len(es) != 0 {
		t.Errorf("empty list: %v %v", es, err)
	}
}

func TestWriteDeleteResults(t *testing.T) {
	var b bytes.Buffer
	err := WriteDeleteResults(&b, []DeleteResult{{TP: reassign.TP{Topic: "logs", Partition: 1}, LowWatermark: 5}, {TP: reassign.TP{Topic: "x", Partition: 0}, Err: "E"}})
	if want := "partition: logs-1\tlow_watermark: 5\npartition: x-0\terror: E\n"; err != nil || b.String() != want {
		t.Errorf("%q", b.String())
	}
}
