package verify

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// txnLogs: three transactions on t-0, written as a broker lays them out
// (each followed by its control marker): values 0-4 at offsets 0-4
// committed, 5-7 at 6-8 aborted, 8-9 at 10-11 committed; a read_committed
// consumer reads 0-4 then 8-9.
func txnLogs() (prod, cons [][]byte) {
	off := map[int]int64{}
	for i := 0; i < 10; i++ {
		switch {
		case i < 5:
			off[i] = int64(i)
		case i < 8:
			off[i] = int64(i + 1)
		default:
			off[i] = int64(i + 2)
		}
	}
	prod = append(prod, StartupComplete(1))
	txn := func(result string, vs ...int) {
		var values []string
		for _, v := range vs {
			prod = append(prod, SendSuccess(2, nil, fmt.Sprint(v), "t", 0, off[v]))
			values = append(values, fmt.Sprint(v))
		}
		prod = append(prod, TxnEnd(3, result, values, nil))
	}
	txn(TxnCommitted, 0, 1, 2, 3, 4)
	txn(TxnAborted, 5, 6, 7)
	txn(TxnCommitted, 8, 9)
	prod = append(prod, ShutdownComplete(4), ToolData(4, 10, 10, -1, 100))
	cons = append(cons, StartupComplete(1), PartitionsAssigned(2, []TP{{"t", 0}}))
	for _, b := range [][]int{{0, 1, 2, 3, 4}, {8, 9}} {
		for _, v := range b {
			cons = append(cons, RecordData(5, nil, sp(fmt.Sprint(v)), "t", 0, off[v]))
		}
		lo, hi := off[b[0]], off[b[len(b)-1]]
		cons = append(cons, RecordsConsumed(5, int64(len(b)), []PartitionData{{Topic: "t", Partition: 0, Count: int64(len(b)), MinOffset: lo, MaxOffset: hi}}),
			OffsetsCommitted(6, []CommitData{{"t", 0, hi + 1}}, nil))
	}
	cons = append(cons, PartitionsRevoked(7, []TP{{"t", 0}}), ShutdownComplete(8))
	return prod, cons
}

func severity(r *Report, typ string) Severity {
	for _, a := range r.Anomalies {
		if a.Type == typ {
			return a.Severity
		}
	}
	return ""
}

func dump(r *Report) string {
	var b bytes.Buffer
	_ = r.WriteText(&b)
	return b.String()
}

func TestR7CleanTransactionalRun(t *testing.T) {
	prod, cons := txnLogs()
	r := run(t, prod, cons, Options{})
	if !r.Valid || len(r.Anomalies) != 0 {
		t.Fatalf("clean transactional run:\n%s", dump(r))
	}
	if !r.Stats.Transactional || r.Stats.TxnCommitted != 7 || r.Stats.TxnAborted != 3 {
		t.Errorf("stats %+v", r.Stats)
	}
}

// TestR7Rules: each R7 violation produces its anomaly, as a failure.
func TestR7Rules(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(p, c [][]byte) ([][]byte, [][]byte)
		typ    string
		sev    Severity
	}{
		{"G1a aborted read", func(p, c [][]byte) ([][]byte, [][]byte) {
			i := len(c) - 6 // before the second poll's record_data lines
			c = append(c[:i], append([][]byte{RecordData(5, nil, sp("6"), "t", 0, 7)}, c[i:]...)...)
			return p, c
		}, AnAbortedRead, Fail},
		{"G1a failed transaction", func(p, c [][]byte) ([][]byte, [][]byte) {
			for i, l := range p {
				if strings.Contains(string(l), `"result":"aborted"`) {
					p[i] = TxnEnd(3, TxnFailed, []string{"5", "6", "7"}, sp("NOT_ENOUGH_REPLICAS"))
				}
			}
			return p, append(c, RecordData(9, nil, sp("5"), "t", 0, 6))
		}, AnAbortedRead, Fail},
		{"committed value lost", func(p, c [][]byte) ([][]byte, [][]byte) {
			return p, drop(c, has(`"value":"2"`))
		}, AnLost, Fail},
		{"output not in input", func(p, c [][]byte) ([][]byte, [][]byte) {
			return p, append(c, RecordData(9, nil, sp("x.1"), "t", 0, 13))
		}, AnNotProduced, Fail},
		{"duplicate fails without --idempotent", func(p, c [][]byte) ([][]byte, [][]byte) {
			// the same value committed at a second offset and read twice
			p = append(p, SendSuccess(2, nil, "9", "t", 0, 13), TxnEnd(3, TxnCommitted, []string{"9"}, nil))
			return p, append(c, RecordData(9, nil, sp("9"), "t", 0, 13))
		}, AnDuplicate, Fail},
		{"one partition order", func(p, c [][]byte) ([][]byte, [][]byte) {
			var i1, i2 int
			for i, l := range c {
				switch {
				case strings.Contains(string(l), `"value":"1"`):
					i1 = i
				case strings.Contains(string(l), `"value":"2"`):
					i2 = i
				}
			}
			c[i1], c[i2] = c[i2], c[i1]
			return p, c
		}, AnTxnReordered, Fail},
		{"unknown outcome seen is info", func(p, c [][]byte) ([][]byte, [][]byte) {
			for i, l := range p {
				if strings.Contains(string(l), `"result":"aborted"`) {
					p[i] = TxnEnd(3, TxnUnknown, []string{"5", "6", "7"}, sp("broken pipe"))
				}
			}
			return p, append(c, RecordData(9, nil, sp("5"), "t", 0, 6))
		}, AnIndeterminateSeen, Info},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prod, cons := txnLogs()
			prod, cons = tc.mutate(prod, cons)
			r := run(t, prod, cons, Options{})
			if got := severity(r, tc.typ); got != tc.sev {
				t.Fatalf("%s severity %q, want %q:\n%s", tc.typ, got, tc.sev, dump(r))
			}
			if r.Valid != (tc.sev != Fail) {
				t.Errorf("valid=%v (%v)", r.Valid, r.BadErrorTypes)
			}
		})
	}
}

// livenessLogs: 10 acks at 5 s, the fault from 10 s to 20 s, then acks
// (or errors) at afterMs, on t-0; the consumer reads every acked offset.
func livenessLogs(afterMs int64, after int, errs bool) (prod, cons [][]byte) {
	prod = append(prod, StartupComplete(1000))
	cons = append(cons, StartupComplete(1000), PartitionsAssigned(1000, []TP{{"t", 0}}))
	off := int64(0)
	ack := func(ts int64, n int) {
		lo := off
		for i := 0; i < n; i++ {
			v := fmt.Sprint(off)
			prod = append(prod, SendSuccess(ts, nil, v, "t", 0, off))
			cons = append(cons, RecordData(ts+1, nil, sp(v), "t", 0, off))
			off++
		}
		cons = append(cons, RecordsConsumed(ts+1, int64(n), []PartitionData{{Topic: "t", Partition: 0, Count: int64(n), MinOffset: lo, MaxOffset: off - 1}}),
			OffsetsCommitted(ts+2, []CommitData{{"t", 0, off}}, nil))
	}
	ack(5000, 10)
	if errs {
		for i := 0; i < after; i++ {
			prod = append(prod, SendError(afterMs, "t", nil, fmt.Sprint("e", i), "class org.apache.kafka.common.errors.TimeoutException", sp("timeout")))
		}
	} else if after > 0 {
		ack(afterMs, after)
	}
	prod = append(prod, ShutdownComplete(afterMs+1))
	cons = append(cons, ShutdownComplete(afterMs+5))
	return prod, cons
}

var fault = &FaultWindow{StartMs: 10_000, EndMs: 20_000}

func TestR8LivenessPasses(t *testing.T) {
	prod, cons := livenessLogs(25_000, 10, false)
	r := run(t, prod, cons, Options{Fault: fault, MinAcks: 20})
	if !r.Valid || len(r.Anomalies) != 0 || r.Liveness == nil || !r.Liveness.Judged || r.Liveness.AcksAfterFault != 10 {
		t.Fatalf("liveness %+v:\n%s", r.Liveness, dump(r))
	}
}

// TestR8Rules: each R8 sub-rule fails its run.
func TestR8Rules(t *testing.T) {
	cases := []struct {
		name string
		logs func() ([][]byte, [][]byte)
		o    Options
		typ  string
		sev  Severity
	}{
		{"acks only after the 30 s window", func() ([][]byte, [][]byte) { return livenessLogs(51_000, 10, false) },
			Options{Fault: fault}, AnNoProgress, Fail},
		{"only errors after the fault", func() ([][]byte, [][]byte) { return livenessLogs(25_000, 10, true) },
			Options{Fault: fault}, AnNoProgress, Fail},
		{"custom window", func() ([][]byte, [][]byte) { return livenessLogs(25_000, 10, false) },
			Options{Fault: fault, LivenessWindow: 2 * time.Second}, AnNoProgress, Fail},
		{"nothing sent after the fault is not judged", func() ([][]byte, [][]byte) { return livenessLogs(25_000, 0, false) },
			Options{Fault: fault}, AnLivenessUnjudged, Info},
		{"too few acks", func() ([][]byte, [][]byte) { return livenessLogs(25_000, 10, false) },
			Options{Fault: fault, MinAcks: 21}, AnTooFewAcks, Fail},
		{"consumer not caught up", func() ([][]byte, [][]byte) {
			p, c := livenessLogs(25_000, 10, false)
			c = drop(c, has(`"minOffset":10`))
			return p, c
		}, Options{Fault: fault}, AnNotCaughtUp, Fail},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, c := tc.logs()
			r := run(t, p, c, tc.o)
			if got := severity(r, tc.typ); got != tc.sev {
				t.Fatalf("%s severity %q, want %q:\n%s", tc.typ, got, tc.sev, dump(r))
			}
			if r.Valid != (tc.sev != Fail) {
				t.Errorf("valid=%v (%v)", r.Valid, r.BadErrorTypes)
			}
		})
	}
	// Without a fault window R8 does not apply.
	p, c := livenessLogs(51_000, 10, false)
	if r := run(t, p, c, Options{MinAcks: 1000}); !r.Valid || r.Liveness != nil {
		t.Errorf("no fault: %s", dump(r))
	}
}

func TestTxnEndEncoding(t *testing.T) {
	got := string(TxnEnd(7, TxnFailed, []string{"0.1", "a\"b"}, sp("x")))
	want := `{"timestamp":7,"name":"transaction_end","result":"failed","values":["0.1","a\"b"],"error":"x"}` + "\n"
	if got != want {
		t.Errorf("got %s want %s", got, want)
	}
	l, _ := ReadLog("p", strings.NewReader(got))
	if e := l.Events[0]; e.Result != TxnFailed || len(e.Values) != 2 || e.Values[1] != `a"b` {
		t.Errorf("decoded %+v", e)
	}
}
