package verify

import (
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
)

// kbox verify check -o json prints a Report: here with a lost record.
func TestReportJSONGolden(t *testing.T) {
	prod, cons := clean(t, 10)
	cons = drop(cons, has(`"value":"3"`))
	golden.JSON(t, "check.json.golden", run(t, prod, cons, Options{Idempotent: true}))
}

// kbox verify run -o json prints a RunReport: the verdict (with liveness
// around a --during fault) and the run's facts.
func TestRunReportJSONGolden(t *testing.T) {
	prod, cons := livenessLogs(25_000, 10, false)
	info := RunInfo{Topic: "kbox-verify", Group: "kbox-verify-group", Created: true, Messages: 20, Producers: 1, Consumers: 1,
		Idempotent: true, Acks: "all", Sent: 20, Acked: 20, Consumed: 20, CaughtUp: true, ProduceMs: 20000, DurationMs: 26000, AckedPerSec: 1,
		ProducerLogs: []string{"producer-0.log"}, ConsumerLogs: []string{"consumer-0.log"},
		During: &DuringInfo{Command: "sh -c 'exit 3'", ExitCode: 3, DurationMs: 10000, StartMs: fault.StartMs, EndMs: fault.EndMs}}
	r := NewRunReport([]*Log{logOf(t, "producer", prod...)}, []*Log{logOf(t, "consumer", cons...)}, Options{Fault: fault, MinAcks: 20}, info)
	golden.JSON(t, "run.json.golden", r)
	if !strings.Contains(dump(r.Report), AnDuringFailed) {
		t.Errorf("the failed --during command is not in the verdict:\n%s", dump(r.Report))
	}
}
