// Package fuzz_test holds Go native fuzz targets for kbox's input parsers
// that live outside pkg/config (whose properties and JAAS parsers are fuzzed
// there): the kafka-topics replica-assignment and --config key=value
// parsers, and the verify checker's event-log reader. The seed corpora are
// checked in under testdata/fuzz/<target>/. Run one with e.g.
//
//	go test ./test/fuzz -run '^$' -fuzz FuzzParseReplicaAssignment -fuzztime 30s
package fuzz_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/pkg/topics"
	"github.com/kboxdev/kbox/pkg/verify"
)

// oneLine fails when err spans several lines, except where it quotes the
// user's input verbatim (Apache's messages echo a bad name as given).
func oneLine(t *testing.T, err error, inputs ...string) {
	t.Helper()
	if err == nil {
		return
	}
	var frags []string
	for _, in := range inputs {
		frags = append(frags, in)
		for _, f := range strings.FieldsFunc(in, func(r rune) bool { return r == '=' || r == ',' || r == ':' }) {
			frags = append(frags, f, strings.TrimSpace(f))
		}
	}
	sort.Slice(frags, func(i, j int) bool { return len(frags[i]) > len(frags[j]) })
	msg := err.Error()
	for _, f := range frags {
		if f != "" {
			msg = strings.ReplaceAll(msg, f, "")
		}
	}
	if strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("multi-line error: %q", err.Error())
	}
}

func FuzzParseReplicaAssignment(f *testing.F) {
	for _, s := range []string{"0:1:2,1:2:0", "1", "", "0:0", "1:2,3", " 1 : 2 ", "a:b", "1,,2", "2147483648", "-1:-2", "1:2:3,4:5:6,7:8:9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := topics.ParseReplicaAssignment(s)
		oneLine(t, err, s)
		if err != nil {
			return
		}
		for i, p := range out {
			if len(p) != len(out[0]) {
				t.Fatalf("partition %d has %d replicas, partition 0 has %d", i, len(p), len(out[0]))
			}
			seen := map[int32]bool{}
			for _, b := range p {
				if seen[b] {
					t.Fatalf("duplicate broker %d in partition %d accepted", b, i)
				}
				seen[b] = true
			}
		}
	})
}

func FuzzParseConfigs(f *testing.F) {
	for _, s := range []string{"retention.ms=1000", "cleanup.policy=compact", "x", "=", "a=b=c", "min.insync.replicas=two", "segment.bytes=1", " retention.ms = 5 ", "unknown.config=1"} {
		f.Add(s, "max.message.bytes=1000")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		m, err := topics.ParseConfigs([]string{a, b})
		oneLine(t, err, a, b)
		if err != nil {
			return
		}
		for k, v := range m {
			if k != strings.TrimSpace(k) || v != strings.TrimSpace(v) {
				t.Fatalf("untrimmed config %q=%q", k, v)
			}
		}
	})
}

func FuzzReadLog(f *testing.F) {
	for _, s := range []string{
		`{"timestamp":1,"name":"startup_complete"}`,
		`{"timestamp":2,"name":"producer_send_success","key":null,"value":"1","topic":"t","partition":0,"offset":5}`,
		`{"timestamp":3,"name":"producer_send_error","key":null,"value":"2","topic":"t","exception":"class org.apache.kafka.common.errors.TimeoutException","message":"x"}`,
		`{"timestamp":4,"name":"records_consumed","count":1,"partitions":[{"topic":"t","partition":0,"count":1,"minOffset":5,"maxOffset":5}]}`,
		`{"timestamp":5,"name":"offsets_committed","offsets":[{"topic":"t","partition":0,"offset":6}],"success":true}`,
		"not json\n{",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := verify.ReadLog("fuzz.log", strings.NewReader(s))
		oneLine(t, err, s)
	})
}
