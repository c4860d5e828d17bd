package perf_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/perf/distrib"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// The manifest decodes strictly (no unknown field) into Kubernetes'
// batch/v1 Job type: an Indexed Job of N pods, no retries, the image, the
// worker command, and the run in $KBOX_PERF_JOB whose share i is what
// kbox perf distributed gives agent i.
func TestK8sJobManifest(t *testing.T) {
	code, out, errOut := kboxIn(t, "", "perf", "k8s-job", "produce", "--image", "registry.example/kbox:1.2", "--pods", "4",
		"--job-name", "perf1", "--namespace", "load", "--bootstrap-server", "k1:9092,k2:9092", "--topic", "perf", "--records", "1001",
		"--throughput", "400", "--key-cardinality", "8", "--record-size", "200", "--producers", "2", "--start-at", "2030-01-02T03:04:05Z",
		"-X", "linger.ms=5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(out), &job); err != nil {
		t.Fatalf("not a batch/v1 Job: %v\n%s", err, out)
	}
	s := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Name != "perf1" || job.Namespace != "load" {
		t.Errorf("type/meta %+v %+v", job.TypeMeta, job.ObjectMeta)
	}
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil || *s.Completions != 4 ||
		s.Parallelism == nil || *s.Parallelism != 4 || s.BackoffLimit == nil || *s.BackoffLimit != 0 {
		t.Errorf("job spec %+v", s)
	}
	ps := s.Template.Spec
	if ps.RestartPolicy != corev1.RestartPolicyNever || len(ps.Containers) != 1 {
		t.Fatalf("pod spec %+v", ps)
	}
	c := ps.Containers[0]
	if c.Image != "registry.example/kbox:1.2" || strings.Join(c.Command, " ") != "kbox perf worker --k8s-job" || len(c.Env) != 1 || c.Env[0].Name != distrib.JobEnv {
		t.Fatalf("container %+v", c)
	}
	var j distrib.JobWorkload
	dec := json.NewDecoder(strings.NewReader(c.Env[0].Value))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		t.Fatal(err)
	}
	w := j.Workload
	if j.Name != "perf1" || j.Pods != 4 || j.PerAgent || w.Kind != "produce" || w.Records != 1001 || w.Rate != 400 || w.Bootstrap != "k1:9092,k2:9092" ||
		w.Properties["linger.ms"] != "5" || w.StartMs != time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC).UnixMilli() || w.Clients != 2 || w.RecordSize != 200 {
		t.Fatalf("job workload %+v", j)
	}
	shares := distrib.SplitWorkload(w, []string{"perf1-0", "perf1-1", "perf1-2", "perf1-3"}, false)
	for i := 0; i < 4; i++ {
		task, err := distrib.JobTask(c.Env[0].Value, string(rune('0'+i)))
		if err != nil {
			t.Fatal(err)
		}
		g := task.Workload
		if g.Records != []int64{251, 250, 250, 250}[i] || g.Rate != 100 || g.KeyFirst != int64(2*i) || g.KeyCardinality != 2 || !sameWorkload(g, shares[i]) {
			t.Errorf("pod %d share %+v", i, g)
		}
	}

	// -o json is the same object.
	code, out, _ = kboxIn(t, "", "perf", "k8s-job", "e2e", "--image", "i", "--pods", "2", "--bootstrap-server", "k:9092", "--topic", "lat", "-o", "json")
	if code != 0 {
		t.Fatalf("json: exit %d", code)
	}
	dec = json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	job = batchv1.Job{}
	if err := dec.Decode(&job); err != nil || *job.Spec.Completions != 2 || !strings.HasPrefix(job.Name, "kbox-perf-e2e-") {
		t.Fatalf("json manifest: %v %+v", err, job.ObjectMeta)
	}
}

func sameWorkload(a, b distrib.AgentWorkload) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// Bad flags and a pod outside an Indexed Job: one line, exit 2 (flags)
// or 1 (the worker).
func TestK8sJobErrors(t *testing.T) {
	base := []string{"perf", "k8s-job", "produce", "--bootstrap-server", "k:9092", "--topic", "t", "--records", "10"}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{nil, "--image is required"},
		{[]string{"--image", "i", "--pods", "0"}, "--pods must be between 1 and 10000"},
		{[]string{"--image", "i", "--job-name", "Perf_1"}, `job name "Perf_1": want lower-case letters`},
		{[]string{"--image", "i", "--job-name", strings.Repeat("a", 62)}, "at most 63 characters"},
		{[]string{"--image", "i", "--namespace", "a.b"}, `namespace "a.b" is not a DNS label`},
		{[]string{"--image", "i", "--start-at", "tomorrow"}, `--start-at "tomorrow": want an RFC 3339 time`},
		{[]string{"--image", "i", "--coordinator", "http://x:1"}, "unknown flag: --coordinator"},
		{[]string{"--image", "i", "-o", "table"}, "table"},
	} {
		code, out, errOut := kboxIn(t, "", append(append([]string{}, base...), c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.msg) || strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errOut, c.msg)
		}
	}
	code, out, errOut := kboxIn(t, "", "perf", "worker", "--k8s-job")
	if code != 1 || !strings.Contains(out, `"error":"$KBOX_PERF_JOB is not set`) || !strings.Contains(errOut, "KBOX_PERF_JOB is not set") {
		t.Errorf("worker outside a job: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = kboxIn(t, "", "perf", "k8s-job", "merge", "/nonexistent/pod-0.log")
	if code != 1 || !strings.Contains(errOut, "no such file") {
		t.Errorf("merge of a missing log: exit %d, %q", code, errOut)
	}
}
