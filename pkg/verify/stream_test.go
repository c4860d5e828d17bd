package verify

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// sameAsBatch fails unless r (the streaming checker's report on ps and
// cs) equals the batch checker's in JSON and text.
func sameAsBatch(t *testing.T, r *Report, ps, cs []*Log, o Options) {
	t.Helper()
	want := checkBatch(ps, cs, o)
	for _, pair := range [][2]*Report{{r, want}} {
		gj, _ := json.MarshalIndent(pair[0], "", " ")
		wj, _ := json.MarshalIndent(pair[1], "", " ")
		if !bytes.Equal(gj, wj) {
			t.Fatalf("streaming report differs from the batch checker's:\nstreaming: %s\nbatch: %s", gj, wj)
		}
		var gt, wt bytes.Buffer
		_ = pair[0].WriteText(&gt)
		_ = pair[1].WriteText(&wt)
		if gt.String() != wt.String() {
			t.Fatalf("text differs:\nstreaming:\n%s\nbatch:\n%s", gt.String(), wt.String())
		}
	}
}

// genLogs writes a run of nProd producers (values "P.i") over parts
// partitions of topic t, read by nCons consumers of one group that split
// the partitions, poll up to 37 records at a time and commit after every
// poll; the consumers' events are interleaved by time.
type genRun struct {
	prods [][]Event
	cons  [][]Event
}

type genAck struct {
	v    string
	part int32
	off  int64
	ts   int64
}

func genLogs(rng *rand.Rand, nProd, nCons, parts, perProd int) (genRun, [][]genAck) {
	var g genRun
	next := make([]int64, parts)
	byPart := make([][]genAck, parts)
	ts := int64(1000)
	for p := 0; p < nProd; p++ {
		evs := []Event{{Timestamp: ts, Name: EvStartupComplete}}
		sent := 0
		for sent < perProd {
			// a batch of up to 20 values to one partition
			part := int32(rng.Intn(parts))
			n := min(1+rng.Intn(20), perProd-sent)
			for j := 0; j < n; j++ {
				ts++
				v := fmt.Sprintf("%d.%d", p, sent)
				a := genAck{v, part, next[part], ts}
				next[part]++
				byPart[part] = append(byPart[part], a)
				evs = append(evs, Event{Timestamp: ts, Name: EvSendSuccess, Value: sp(v), Topic: "t", Partition: part, Offset: a.off})
				sent++
			}
		}
		evs = append(evs, Event{Timestamp: ts, Name: EvShutdownComplete})
		g.prods = append(g.prods, evs)
	}
	for c := 0; c < nCons; c++ {
		var mine []TP
		for part := c; part < parts; part += nCons {
			mine = append(mine, TP{"t", int32(part)})
		}
		var parts []PartitionData
		for _, tp := range mine {
			parts = append(parts, PartitionData{Topic: tp.Topic, Partition: tp.Partition})
		}
		evs := []Event{{Timestamp: 1000, Name: EvStartupComplete}, {Timestamp: 1001, Name: EvAssigned, Parts: parts}}
		cts := int64(2000 + c)
		for _, tp := range mine {
			recs := byPart[tp.Partition]
			for lo := 0; lo < len(recs); {
				hi := min(lo+1+rng.Intn(37), len(recs))
				cts += int64(nCons)
				for _, a := range recs[lo:hi] {
					evs = append(evs, Event{Timestamp: cts, Name: EvRecordData, Value: sp(a.v), Topic: "t", Partition: tp.Partition, Offset: a.off})
				}
				evs = append(evs, Event{Timestamp: cts, Name: EvRecordsConsumed, Count: int64(hi - lo),
					Parts: []PartitionData{{Topic: "t", Partition: tp.Partition, Count: int64(hi - lo), MinOffset: recs[lo].off, MaxOffset: recs[hi-1].off}}})
				evs = append(evs, Event{Timestamp: cts, Name: EvOffsetsCommitted, Success: bp(true), Offsets: []CommitData{{"t", tp.Partition, recs[hi-1].off + 1}}})
				lo = hi
			}
		}
		cts++
		evs = append(evs, Event{Timestamp: cts, Name: EvRevoked, Parts: parts}, Event{Timestamp: cts + 1, Name: EvShutdownComplete})
		g.cons = append(g.cons, evs)
	}
	return g, byPart
}

func bp(b bool) *bool { return &b }

func (g genRun) logs() (ps, cs []*Log) {
	for i, evs := range g.prods {
		ps = append(ps, &Log{Name: fmt.Sprintf("producer-%d", i), Events: evs})
	}
	for i, evs := range g.cons {
		cs = append(cs, &Log{Name: fmt.Sprintf("consumer-%d", i), Events: evs})
	}
	return ps, cs
}

// doctor applies one fault to the generated logs.
var doctors = map[string]func(rng *rand.Rand, g *genRun){
	"lost": func(rng *rand.Rand, g *genRun) { // record_data lines dropped
		for k := 0; k < 1+rng.Intn(30); k++ {
			c := g.cons[rng.Intn(len(g.cons))]
			i := rng.Intn(len(c))
			if c[i].Name == EvRecordData {
				g.cons[indexOf(g.cons, c)] = append(c[:i:i], c[i+1:]...)
			}
		}
	},
	"lost-poll": func(rng *rand.Rand, g *genRun) { // a whole poll missing: skip, lost
		ci := rng.Intn(len(g.cons))
		c := g.cons[ci]
		for k := 0; k < 3; k++ {
			i := rng.Intn(len(c))
			for i < len(c) && c[i].Name != EvRecordsConsumed {
				i++
			}
			if i == len(c) {
				continue
			}
			j := i
			for j > 0 && c[j-1].Name == EvRecordData {
				j--
			}
			c = append(c[:j:j], c[i+2:]...)
		}
		g.cons[ci] = c
	},
	"duplicated": func(rng *rand.Rand, g *genRun) { // a poll delivered again
		ci := rng.Intn(len(g.cons))
		c := g.cons[ci]
		i := rng.Intn(len(c))
		for i < len(c) && c[i].Name != EvRecordsConsumed {
			i++
		}
		if i == len(c) {
			return
		}
		j := i
		for j > 0 && c[j-1].Name == EvRecordData {
			j--
		}
		again := append([]Event(nil), c[j:i+1]...)
		g.cons[ci] = append(c[:i+1:i+1], append(again, c[i+1:]...)...)
	},
	"reordered": func(rng *rand.Rand, g *genRun) { // two polls swapped
		ci := rng.Intn(len(g.cons))
		c := g.cons[ci]
		var polls []int
		for i, e := range c {
			if e.Name == EvRecordsConsumed {
				polls = append(polls, i)
			}
		}
		if len(polls) < 3 {
			return
		}
		a := rng.Intn(len(polls) - 1)
		i1, i2 := polls[a], polls[a+1]
		c[i1].Parts, c[i2].Parts = c[i2].Parts, c[i1].Parts
	},
	"reordered-values": func(rng *rand.Rand, g *genRun) { // record_data values swapped
		c := g.cons[rng.Intn(len(g.cons))]
		for k := 0; k < 5; k++ {
			i, j := rng.Intn(len(c)), rng.Intn(len(c))
			if c[i].Name == EvRecordData && c[j].Name == EvRecordData {
				c[i].Value, c[j].Value = c[j].Value, c[i].Value
			}
		}
	},
	"committed-beyond": func(rng *rand.Rand, g *genRun) { // commits past the position
		c := g.cons[rng.Intn(len(g.cons))]
		for k := 0; k < 4; k++ {
			i := rng.Intn(len(c))
			if c[i].Name == EvOffsetsCommitted {
				o := append([]CommitData(nil), c[i].Offsets...)
				o[0].Offset += int64(1 + rng.Intn(50))
				c[i].Offsets = o
			}
		}
	},
	"send-order": func(rng *rand.Rand, g *genRun) { // producer acks swapped
		p := g.prods[rng.Intn(len(g.prods))]
		for k := 0; k < 3; k++ {
			i := 1 + rng.Intn(len(p)-3)
			p[i], p[i+1] = p[i+1], p[i]
		}
	},
	"failed-send-consumed": func(rng *rand.Rand, g *genRun) {
		p := g.prods[0]
		for k := 0; k < 5; k++ {
			i := 1 + rng.Intn(len(p)-2)
			if p[i].Name == EvSendSuccess {
				exc := "class org.apache.kafka.common.errors.TimeoutException"
				if k%2 == 0 {
					exc = "class org.apache.kafka.common.errors.RecordTooLargeException"
				}
				p[i] = Event{Timestamp: p[i].Timestamp, Name: EvSendError, Value: p[i].Value, Topic: "t", Exception: exc}
			}
		}
	},
	"inconsistent": func(rng *rand.Rand, g *genRun) {
		p := g.prods[len(g.prods)-1]
		i := 1 + rng.Intn(len(p)-2)
		e := p[i]
		e.Value = sp("x" + *e.Value)
		g.prods[len(g.prods)-1] = append(p, e)
	},
	"commit-failed": func(rng *rand.Rand, g *genRun) {
		c := g.cons[rng.Intn(len(g.cons))]
		for i := range c {
			if c[i].Name == EvOffsetsCommitted && rng.Intn(10) == 0 {
				c[i].Success, c[i].Error = bp(false), sp("REBALANCE_IN_PROGRESS")
			}
		}
	},
	"no-verbose": func(rng *rand.Rand, g *genRun) {
		c := g.cons[0]
		var out []Event
		for _, e := range c {
			if e.Name != EvRecordData {
				out = append(out, e)
			}
		}
		g.cons[0] = out
	},
	"unseen-tail": func(rng *rand.Rand, g *genRun) {
		for ci, c := range g.cons {
			n := len(c) - 2 - rng.Intn(40)
			if n > 2 {
				g.cons[ci] = append(c[:n:n], c[len(c)-2:]...)
			}
		}
	},
}

func indexOf(cs [][]Event, c []Event) int {
	for i := range cs {
		if len(cs[i]) > 0 && len(c) > 0 && &cs[i][0] == &c[0] {
			return i
		}
	}
	return 0
}

// TestStreamingEqualsBatchDoctored: on generated logs, clean and doctored
// (lost, duplicated, reordered, committed beyond consumed, ...), the
// streaming checker's report equals the batch checker's.
func TestStreamingEqualsBatchDoctored(t *testing.T) {
	names := []string{"clean"}
	for n := range doctors {
		names = append(names, n)
	}
	flagged := map[string]bool{}
	for _, name := range names {
		for seed := int64(1); seed <= 12; seed++ {
			rng := rand.New(rand.NewSource(seed))
			g, _ := genLogs(rng, 1+rng.Intn(3), 1+rng.Intn(3), 1+rng.Intn(5), 50+rng.Intn(400))
			if d := doctors[name]; d != nil {
				d(rng, &g)
			}
			ps, cs := g.logs()
			for _, o := range []Options{{}, {Idempotent: true, Examples: 3}, {AllowRedelivery: true, Present: presentOdd}} {
				r := Check(ps, cs, o)
				sameAsBatch(t, r, ps, cs, o)
				if !r.Valid || len(r.Anomalies) > 0 {
					flagged[name] = true
				}
				if name == "clean" && (!r.Valid || len(r.Anomalies) > 0) {
					t.Fatalf("clean seed %d: %s", seed, dump(r))
				}
			}
		}
	}
	for n := range doctors {
		if !flagged[n] {
			t.Errorf("doctored %q was never flagged", n)
		}
	}
}

// presentOdd: the re-read finds the missing records at odd offsets.
func presentOdd(m []Missing) (RereadResult, error) {
	out := map[Missing]bool{}
	for _, x := range m {
		out[x] = x.Offset%2 == 1
	}
	return RereadResult{Present: out}, nil
}

// TestStreamingEqualsBatchTransactional: transactional logs with aborted
// and unknown transactions, doctored.
func TestStreamingEqualsBatchTransactional(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewSource(seed))
		g, byPart := genLogs(rng, 1+rng.Intn(2), 1, 1+rng.Intn(2), 100+rng.Intn(200))
		// every 10 acks of a producer form a transaction
		results := []string{TxnCommitted, TxnCommitted, TxnCommitted, TxnAborted, TxnFailed, TxnUnknown}
		for pi, p := range g.prods {
			var out []Event
			var vals []string
			for _, e := range p {
				out = append(out, e)
				if e.Name == EvSendSuccess {
					vals = append(vals, *e.Value)
					if len(vals) == 10 {
						out = append(out, Event{Timestamp: e.Timestamp, Name: EvTxnEnd, Result: results[rng.Intn(len(results))], Values: vals})
						vals = nil
					}
				}
			}
			g.prods[pi] = out
		}
		_ = byPart
		if seed%2 == 0 {
			doctors["reordered-values"](rng, &g)
		}
		if seed%3 == 0 {
			doctors["lost"](rng, &g)
		}
		ps, cs := g.logs()
		for _, o := range []Options{{}, {Transactional: true, Examples: 4}} {
			sameAsBatch(t, Check(ps, cs, o), ps, cs, o)
		}
	}
}

// TestStreamingEqualsBatchFaults: R8 with fault windows at several places.
func TestStreamingEqualsBatchFaults(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	g, _ := genLogs(rng, 2, 2, 3, 300)
	ps, cs := g.logs()
	for _, w := range []FaultWindow{{1000, 1100}, {1200, 1400}, {1500, 1590}, {1590, 1700}, {100, 200}} {
		for _, o := range []Options{{Fault: &w, MinAcks: 100}, {Fault: &w, MinAcks: 1000, LivenessWindow: 50_000_000}} {
			sameAsBatch(t, Check(ps, cs, o), ps, cs, o)
		}
	}
	// several windows, each judged on its own
	o := Options{Faults: []FaultWindow{{1000, 1100}, {1300, 1598}}, LivenessWindow: 3 * time.Millisecond}
	r := Check(ps, cs, o)
	if len(r.Faults) != 2 || r.Faults[0].AcksAfterFault != 3 || r.Faults[1].AcksAfterFault != 2 || r.Count(AnNoProgress) != 1 || r.Count(AnLivenessUnjudged) != 1 {
		t.Fatalf("faults %+v:\n%s", r.Faults, dump(r))
	}
	if !strings.Contains(dump(r), "after the fault ended (at 1100)") {
		t.Errorf("second fault not named:\n%s", dump(r))
	}
}

// encodeLog renders a log as the tools' JSON lines, gzip-compressed when
// gz, with non-JSON lines mixed in.
func encodeLog(t *testing.T, l *Log, gz bool) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("log4j: WARN no appenders\n")
	for i := range l.Events {
		b.Write(EncodeEvent(&l.Events[i]))
	}
	if !gz {
		return b.Bytes()
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	_, _ = w.Write(b.Bytes())
	_ = w.Close()
	return z.Bytes()
}

// TestFeedLogsEqualsCheck: streaming the encoded logs (plain and gzip)
// gives the report Check gives on the logs in memory.
func TestFeedLogsEqualsCheck(t *testing.T) {
	names := []string{"clean", "lost", "duplicated", "committed-beyond", "reordered", "commit-failed", "no-verbose"}
	for _, name := range names {
		for seed := int64(1); seed <= 6; seed++ {
			rng := rand.New(rand.NewSource(seed))
			g, _ := genLogs(rng, 1+rng.Intn(3), 1+rng.Intn(3), 1+rng.Intn(5), 50+rng.Intn(400))
			if d := doctors[name]; d != nil {
				d(rng, &g)
			}
			ps, cs := g.logs()
			o := Options{Examples: 5}
			want := Check(ps, cs, o)
			var prs, crs []*LogReader
			for i, l := range ps {
				lr, err := NewLogReader(l.Name, bytes.NewReader(encodeLog(t, l, i%2 == 0)))
				if err != nil {
					t.Fatal(err)
				}
				prs = append(prs, lr)
			}
			for i, l := range cs {
				lr, err := NewLogReader(l.Name, bytes.NewReader(encodeLog(t, l, i%2 == 1)))
				if err != nil {
					t.Fatal(err)
				}
				crs = append(crs, lr)
			}
			c := NewChecker(o)
			if err := FeedLogs(c, prs, crs); err != nil {
				t.Fatal(err)
			}
			got := c.Finish()
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(want)
			if !bytes.Equal(gj, wj) {
				t.Fatalf("%s seed %d: streamed\n%s\nin memory\n%s", name, seed, gj, wj)
			}
		}
	}
	// a truncated gzip stream is an error, not a verdict
	l := &Log{Name: "p", Events: []Event{{Timestamp: 1, Name: EvStartupComplete}}}
	z := encodeLog(t, l, true)
	lr, err := NewLogReader("p.gz", bytes.NewReader(z[:len(z)-6]))
	if err == nil {
		err = FeedLogs(NewChecker(Options{}), []*LogReader{lr}, nil)
	}
	if err == nil || !strings.Contains(err.Error(), "p.gz") {
		t.Fatalf("truncated gzip: %v", err)
	}
}
