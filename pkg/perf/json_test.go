package perf_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/perftest"
)

// perf produce|consume|end-to-end|merge -o json print a Result.
func TestResultJSONGolden(t *testing.T) {
	r := perftest.Sample(t)
	golden.JSON(t, "result.json.golden", r, perftest.Histogram)
	m, err := perf.Merge([]*perf.Result{r, perftest.Sample(t)})
	if err != nil {
		t.Fatal(err)
	}
	golden.JSON(t, "result-merged.json.golden", m, perftest.Histogram)

	// What perf writes, perf merge reads back; the name before
	// target_records_per_sec is still read.
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(r); err != nil {
		t.Fatal(err)
	}
	written := b.String()
	back, err := perf.ReadResult(&b)
	if err != nil || back.TargetRate != 500 || back.Histogram != r.Histogram || back.Latency != r.Latency {
		t.Fatalf("read back: %v %+v", err, back)
	}
	old := strings.Replace(written, `"target_records_per_sec"`, `"target_rate"`, 1)
	if back, err = perf.ReadResult(strings.NewReader(old)); err != nil || back.TargetRate != 500 {
		t.Fatalf("old name: %v %+v", err, back)
	}
}
