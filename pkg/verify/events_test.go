package verify

import (
	"math"
	"testing"

	"github.com/kboxdev/kbox/pkg/javafmt"
)

// Golden lines: Apache's field order, Jackson number formats and escaping.
func TestEventGoldens(t *testing.T) {
	k := "k/<&>"
	cases := []struct{ got, want string }{
		{string(StartupComplete(1700000000000)), `{"timestamp":1700000000000,"name":"startup_complete"}` + "\n"},
		{string(SendSuccess(1, nil, "0", "t", 0, 5)), `{"timestamp":1,"name":"producer_send_success","key":null,"value":"0","offset":5,"topic":"t","partition":0}` + "\n"},
		{string(SendSuccess(1, &k, "a\"b\\c\n\t\x01é\u2028", "t", 2, 5)), `{"timestamp":1,"name":"producer_send_success","key":"k/<&>","value":"a\"b\\c\n\t\u0001é` + "\u2028" + `","offset":5,"topic":"t","partition":2}` + "\n"},
		{string(SendError(1, "t", nil, "0", "class org.apache.kafka.common.errors.TimeoutException", nil)), `{"timestamp":1,"name":"producer_send_error","topic":"t","key":null,"value":"0","exception":"class org.apache.kafka.common.errors.TimeoutException","message":null}` + "\n"},
		{string(ToolData(1, 10, 10, -1, 100)), `{"timestamp":1,"name":"tool_data","sent":10,"acked":10,"target_throughput":-1,"avg_throughput":100.0}` + "\n"},
		{string(ToolData(1, 0, 0, 5, math.NaN())), `{"timestamp":1,"name":"tool_data","sent":0,"acked":0,"target_throughput":5,"avg_throughput":"NaN"}` + "\n"},
		{string(PartitionsRevoked(1, []TP{{"t", 0}, {"t", 1}})), `{"timestamp":1,"name":"partitions_revoked","partitions":[{"topic":"t","partition":0},{"topic":"t","partition":1}]}` + "\n"},
		{string(PartitionsAssigned(1, nil)), `{"timestamp":1,"name":"partitions_assigned","partitions":[]}` + "\n"},
		{string(RecordsConsumed(1, 3, []PartitionData{{Topic: "t", Partition: 0, Count: 3, MinOffset: 0, MaxOffset: 2}})), `{"timestamp":1,"name":"records_consumed","count":3,"partitions":[{"topic":"t","partition":0,"count":3,"minOffset":0,"maxOffset":2}]}` + "\n"},
		{string(RecordData(1, nil, sp("v"), "t", 1, 9)), `{"timestamp":1,"name":"record_data","key":null,"value":"v","topic":"t","partition":1,"offset":9}` + "\n"},
		{string(OffsetsCommitted(1, []CommitData{{"t", 0, 3}}, nil)), `{"timestamp":1,"name":"offsets_committed","offsets":[{"topic":"t","partition":0,"offset":3}],"success":true}` + "\n"},
		{string(OffsetsCommitted(1, []CommitData{{"t", 0, 3}}, sp("Commit cannot be completed"))), `{"timestamp":1,"name":"offsets_committed","offsets":[{"topic":"t","partition":0,"offset":3}],"error":"Commit cannot be completed","success":false}` + "\n"},
		{string(ShutdownRequested(1)), `{"timestamp":1,"name":"shutdown_requested"}` + "\n"},
		{string(appendJSONString(nil, "bad\xffutf8")), `"bad` + "\ufffd" + `utf8"`},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got  %s\nwant %s", c.got, c.want)
		}
	}
}

func TestJavaDouble(t *testing.T) {
	for v, want := range map[float64]string{100: "100.0", 0.5: "0.5", 1234.5678: "1234.5678", 1e7: "1.0E7", 1.2e7: "1.2E7", 0.0001: "1.0E-4", 0: "0.0", 9999999.5: "9999999.5", math.Inf(1): "Infinity", 333.3333333333333: "333.3333333333333"} {
		if got := javafmt.DoubleToString(v); got != want {
			t.Errorf("%v: %s, want %s", v, got, want)
		}
	}
}
