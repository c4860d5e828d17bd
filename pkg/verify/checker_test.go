package verify

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// logOf builds a Log from encoded event lines (so the encoders and the
// decoder are exercised together), with a non-JSON line mixed in.
func logOf(t *testing.T, name string, lines ...[]byte) *Log {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("Option --producer.config has been deprecated\n")
	for _, l := range lines {
		b.Write(l)
	}
	b.WriteString("[2025-01-01 00:00:00,000] WARN something (org.apache.kafka)\n")
	l, err := ReadLog(name, &b)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func sp(s string) *string { return &s }

// clean builds a producer log acking values 0..n-1 on t-0 (offsets 0..n-1)
// and a consumer log that reads them in two polls with commits.
func clean(t *testing.T, n int) (prod, cons [][]byte) {
	prod = append(prod, StartupComplete(1))
	for i := 0; i < n; i++ {
		prod = append(prod, SendSuccess(2, nil, fmt.Sprint(i), "t", 0, int64(i)))
	}
	prod = append(prod, ShutdownComplete(3), ToolData(3, int64(n), int64(n), -1, 1000))
	tp := []TP{{"t", 0}}
	cons = append(cons, StartupComplete(1), PartitionsAssigned(2, tp))
	half := n / 2
	for _, r := range [][2]int{{0, half}, {half, n}} {
		for i := r[0]; i < r[1]; i++ {
			cons = append(cons, RecordData(5, nil, sp(fmt.Sprint(i)), "t", 0, int64(i)))
		}
		cons = append(cons, RecordsConsumed(5, int64(r[1]-r[0]), []PartitionData{{Topic: "t", Partition: 0, Count: int64(r[1] - r[0]), MinOffset: int64(r[0]), MaxOffset: int64(r[1] - 1)}}))
		cons = append(cons, OffsetsCommitted(6, []CommitData{{"t", 0, int64(r[1])}}, nil))
	}
	cons = append(cons, PartitionsRevoked(7, tp), ShutdownComplete(8))
	return prod, cons
}

// run checks the logs with the streaming checker, and fails unless the
// batch checker (the oracle) gives the same report.
func run(t *testing.T, prod, cons [][]byte, o Options) *Report {
	t.Helper()
	ps, cs := []*Log{logOf(t, "producer", prod...)}, []*Log{logOf(t, "consumer", cons...)}
	r := Check(ps, cs, o)
	sameAsBatch(t, r, ps, cs, o)
	return r
}

func TestCleanRunIsValid(t *testing.T) {
	prod, cons := clean(t, 10)
	r := run(t, prod, cons, Options{Idempotent: true})
	if !r.Valid || len(r.Anomalies) != 0 {
		var b bytes.Buffer
		_ = r.WriteText(&b)
		t.Fatalf("clean run invalid:\n%s", b.String())
	}
	if r.Stats.Acked != 10 || r.Stats.Consumed != 10 || r.Stats.UniqueConsumed != 10 {
		t.Errorf("stats %+v", r.Stats)
	}
}

// drop removes the i-th line matching pred.
func drop(lines [][]byte, pred func(string) bool) [][]byte {
	var out [][]byte
	done := false
	for _, l := range lines {
		if !done && pred(string(l)) {
			done = true
			continue
		}
		out = append(out, l)
	}
	return out
}

func has(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

// TestRules: every rule turns its anomaly into the expected verdict.
// Removing a rule from Check makes its case fail.
func TestRules(t *testing.T) {
	cases := []struct {
		name    string
		mutate  func(prod, cons [][]byte) ([][]byte, [][]byte)
		opts    Options
		typ     string
		invalid bool
	}{
		{"R1 lost", func(p, c [][]byte) ([][]byte, [][]byte) {
			return p, drop(c, has(`"value":"3"`))
		}, Options{}, AnLost, true},
		{"R1b lost in log", func(p, c [][]byte) ([][]byte, [][]byte) {
			return p, drop(c, has(`"value":"3"`))
		}, Options{Present: func([]Missing) (RereadResult, error) { return RereadResult{Present: map[Missing]bool{}}, nil }}, AnLostInLog, true},
		{"R1b lost in consumption", func(p, c [][]byte) ([][]byte, [][]byte) {
			return p, drop(c, has(`"value":"3"`))
		}, Options{Present: func(m []Missing) (RereadResult, error) {
			return RereadResult{Present: map[Missing]bool{m[0]: true}}, nil
		}}, AnLostInConsumption, true},
		{"R1b corrupt, not lost", func(p, c [][]byte) ([][]byte, [][]byte) {
			return p, drop(c, has(`"value":"3"`))
		}, Options{Present: func(m []Missing) (RereadResult, error) {
			return RereadResult{Present: map[Missing]bool{}, Corrupt: []Corrupt{{Topic: m[0].Topic, Partition: m[0].Partition, First: m[0].Offset, Last: m[0].Offset, Desc: "crc"}}}, nil
		}}, AnCorrupt, true},
		{"R2 duplicate warn", func(p, c [][]byte) ([][]byte, [][]byte) {
			// the same value produced twice, at two offsets, consumed twice
			p = append(p, SendSuccess(2, nil, "1", "t", 0, 10))
			c = append(c, RecordData(9, nil, sp("1"), "t", 0, 10))
			return p, c
		}, Options{AllowRedelivery: true}, AnDuplicate, false},
		{"R2 duplicate fail when idempotent", func(p, c [][]byte) ([][]byte, [][]byte) {
			p = append(p, SendSuccess(2, nil, "1", "t", 0, 10))
			c = append(c, RecordData(9, nil, sp("1"), "t", 0, 10))
			return p, c
		}, Options{Idempotent: true}, AnDuplicate, true},
		{"R2b duplicate offset", func(p, c [][]byte) ([][]byte, [][]byte) {
			return p, append(c, RecordData(9, nil, sp("2"), "t", 0, 2))
		}, Options{}, AnDuplicateOffset, true},
		{"R3 nonmonotonic send", func(p, c [][]byte) ([][]byte, [][]byte) {
			p[3], p[4] = p[4], p[3]
			return p, c
		}, Options{}, AnNonmonotonicSend, true},
		{"R3 poll skip", func(p, c [][]byte) ([][]byte, [][]byte) {
			// second poll claims to start at 6 instead of 5
			for i, l := range c {
				if strings.Contains(string(l), `"minOffset":5`) {
					c[i] = RecordsConsumed(5, 4, []PartitionData{{Topic: "t", Partition: 0, Count: 4, MinOffset: 6, MaxOffset: 9}})
				}
			}
			return p, c
		}, Options{}, AnPollSkip, true},
		{"R3 nonmonotonic poll", func(p, c [][]byte) ([][]byte, [][]byte) {
			for i, l := range c {
				if strings.Contains(string(l), `"minOffset":5`) {
					c[i] = RecordsConsumed(5, 6, []PartitionData{{Topic: "t", Partition: 0, Count: 6, MinOffset: 4, MaxOffset: 9}})
				}
			}
			return p, c
		}, Options{}, AnNonmonotonicPoll, true},
		{"R3 consumed behind group commit", func(p, c [][]byte) ([][]byte, [][]byte) {
			c2 := [][]byte{PartitionsAssigned(10, []TP{{"t", 0}}), RecordsConsumed(11, 2, []PartitionData{{Topic: "t", Partition: 0, Count: 2, MinOffset: 3, MaxOffset: 4}})}
			return p, append(c, c2...)
		}, Options{}, AnBehindCommit, true},
		{"R4 commit ahead of position", func(p, c [][]byte) ([][]byte, [][]byte) {
			for i, l := range c {
				if strings.Contains(string(l), `"offset":5}],"success"`) {
					c[i] = OffsetsCommitted(6, []CommitData{{"t", 0, 7}}, nil)
				}
			}
			return p, c
		}, Options{}, AnCommitAhead, true},
		{"R4 consume unassigned", func(p, c [][]byte) ([][]byte, [][]byte) {
			return p, drop(c, has(EvAssigned))
		}, Options{}, AnUnassignedConsume, true},
		{"R4 commit unassigned", func(p, c [][]byte) ([][]byte, [][]byte) {
			c = append(c[:len(c)-2], OffsetsCommitted(7, []CommitData{{"t", 1, 0}}, nil), c[len(c)-2], c[len(c)-1])
			return p, c
		}, Options{}, AnUnassignedCommit, true},
		{"R4 uncommitted at close", func(p, c [][]byte) ([][]byte, [][]byte) {
			c = drop(c, has(`"offset":10}],"success"`))
			return p, drop(c, has(EvRevoked))
		}, Options{}, AnUncommittedAtClose, false},
		{"R5 aborted read", func(p, c [][]byte) ([][]byte, [][]byte) {
			p = append(p, SendError(3, "t", nil, "99", "class org.apache.kafka.common.errors.RecordTooLargeException", sp("too large")))
			return p, append(c, RecordData(9, nil, sp("99"), "t", 0, 10))
		}, Options{}, AnAbortedRead, true},
		{"R5 indeterminate is info", func(p, c [][]byte) ([][]byte, [][]byte) {
			p = append(p, SendError(3, "t", nil, "99", "class org.apache.kafka.common.errors.TimeoutException", nil))
			return p, append(c, RecordData(9, nil, sp("99"), "t", 0, 10))
		}, Options{}, AnIndeterminateSeen, false},
		{"R6 inconsistent offsets", func(p, c [][]byte) ([][]byte, [][]byte) {
			for i, l := range c {
				if strings.Contains(string(l), `"value":"4"`) {
					c[i] = RecordData(5, nil, sp("four"), "t", 0, 4)
				}
			}
			return p, c
		}, Options{}, AnInconsistentOffset, true},
		{"R8 no acks", func(p, c [][]byte) ([][]byte, [][]byte) {
			return [][]byte{StartupComplete(1)}, c
		}, Options{}, AnNoAcks, true},
		{"R9 unseen", func(p, c [][]byte) ([][]byte, [][]byte) {
			return append(p, SendSuccess(4, nil, "10", "t", 0, 10)), c
		}, Options{}, AnUnseen, false},
		{"client data loss", func(p, c [][]byte) ([][]byte, [][]byte) { return p, c },
			Options{DataLoss: []string{"t-0: lost offsets 3-5"}}, AnClientDataLoss, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prod, cons := clean(t, 10)
			prod, cons = tc.mutate(prod, cons)
			r := run(t, prod, cons, tc.opts)
			if r.Count(tc.typ) == 0 {
				var b bytes.Buffer
				_ = r.WriteText(&b)
				t.Fatalf("no %s anomaly:\n%s", tc.typ, b.String())
			}
			if r.Valid == tc.invalid {
				t.Errorf("valid=%v, want %v (%v)", r.Valid, !tc.invalid, r.BadErrorTypes)
			}
		})
	}
}

// Without record_data (no --verbose) losses are still found by offset.
func TestOffsetOnlyMode(t *testing.T) {
	prod, cons := clean(t, 10)
	var c2 [][]byte
	for _, l := range cons {
		if !strings.Contains(string(l), EvRecordData) {
			c2 = append(c2, l)
		}
	}
	r := run(t, prod, c2, Options{})
	if !r.Valid || r.Stats.ValuesChecked {
		t.Fatalf("offset-only clean run: valid=%v %v", r.Valid, r.BadErrorTypes)
	}
	c2 = drop(c2, has(`"minOffset":5`))
	r = run(t, prod, c2, Options{})
	if r.Count(AnUnseen) != 5 {
		t.Errorf("want 5 unseen, got %+v", r.Anomalies)
	}
}

// TestCorruptIsNotLoss: a consumer that sought past a corrupt batch
// (offset 5, as kbox verify run's consumers do) and the acked record in it
// make one corrupt-batch anomaly: not a lost record, not a poll skip.
func TestCorruptIsNotLoss(t *testing.T) {
	prod, cons := clean(t, 10)
	var c2 [][]byte
	for _, l := range cons {
		s := string(l)
		switch {
		case strings.Contains(s, `"value":"5"`):
			continue
		case strings.Contains(s, `"minOffset":5`):
			l = RecordsConsumed(5, 4, []PartitionData{{Topic: "t", Partition: 0, Count: 4, MinOffset: 6, MaxOffset: 9}})
		}
		c2 = append(c2, l)
	}
	for _, corrupt := range []bool{false, true} {
		c := NewChecker(Options{})
		if corrupt {
			c.AddCorrupt(Corrupt{Topic: "t", Partition: 0, First: 5, Last: 5, Desc: "partition t-0: record batch at offset 5 (offsets 5-5) is corrupt: stored crc = 1, computed crc = 2"})
		}
		if err := FeedLogs(c, []*LogReader{mustReader(t, "p", prod)}, []*LogReader{mustReader(t, "c", c2)}); err != nil {
			t.Fatal(err)
		}
		r := c.Finish()
		if r.Valid {
			t.Errorf("corrupt %v: valid", corrupt)
		}
		lost, skip, bad := r.Count(AnLost), r.Count(AnPollSkip), r.Count(AnCorrupt)
		if corrupt && (lost != 0 || skip != 0 || bad != 1 || !strings.Contains(fmt.Sprint(r.Anomalies), "stored crc = 1, computed crc = 2: 1 acked record(s) in it not read")) {
			t.Errorf("corrupt: lost %d, poll-skip %d, corrupt-batch %d: %+v", lost, skip, bad, r.Anomalies)
		}
		if !corrupt && (lost != 1 || skip != 1 || bad != 0) {
			t.Errorf("not corrupt: lost %d, poll-skip %d, corrupt-batch %d", lost, skip, bad)
		}
	}
}

func mustReader(t *testing.T, name string, lines [][]byte) *LogReader {
	t.Helper()
	lr, err := NewLogReader(name, bytes.NewReader(bytes.Join(lines, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return lr
}

// A consumer whose commit failed resumes from the older commit and reads
// offsets again: with idempotent producers that is a redelivery (R2b, a
// warning after a failed commit), not a duplicate value in the log (R2,
// a failure). A leader kill that took the group coordinator with it made
// kbox verify run call such a run invalid.
func TestRedeliveryAfterFailedCommitIsNotDuplicate(t *testing.T) {
	prod, cons := clean(t, 10)
	cons = append(cons,
		OffsetsCommitted(8, []CommitData{{"t", 0, 3}}, sp("Commit cannot be completed")),
		RecordData(9, nil, sp("2"), "t", 0, 2))
	r := run(t, prod, cons, Options{Idempotent: true})
	var b bytes.Buffer
	_ = r.WriteText(&b)
	if !r.Valid {
		t.Fatalf("redelivery after a failed commit judged invalid:\n%s", b.String())
	}
	var dupOffset bool
	for _, a := range r.Anomalies {
		if a.Type == AnDuplicate {
			t.Errorf("a redelivered offset counted as a duplicate value:\n%s", b.String())
		}
		dupOffset = dupOffset || (a.Type == AnDuplicateOffset && a.Severity == Warn)
	}
	if !dupOffset {
		t.Errorf("no duplicate-offset warning:\n%s", b.String())
	}
	// Without the failed commit, the same redelivery stays a failure (R2b).
	prod, cons = clean(t, 10)
	cons = append(cons, RecordData(9, nil, sp("2"), "t", 0, 2))
	if r := run(t, prod, cons, Options{Idempotent: true}); r.Valid {
		t.Errorf("a redelivery without a failed commit judged valid")
	}
}
