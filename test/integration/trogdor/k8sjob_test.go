//go:build integration

package trogdor_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/perf/distrib"
	"github.com/kboxdev/kbox/test/integration/testbed"
)

// TestK8sJobPods: the pods of a kbox perf k8s-job manifest, run here as
// processes with the manifest's environment and their JOB_COMPLETION_INDEX
// (there is no Kubernetes on the test machine), produce their shares from
// a shared start; k8s-job merge of their logs counts what the brokers hold.
func TestK8sJobPods(t *testing.T) {
	createTopic(t, "k8s")
	r := testbed.Runner{Timeout: time.Minute}.Exec(t, kboxBin, "perf", "k8s-job", "produce", "--image", "kbox:test", "--pods", "3",
		"--job-name", "k8s", "--bootstrap-server", cluster.Bootstrap, "--topic", "k8s", "--records", "20002", "--throughput", "6000",
		"--record-size", "100", "--start-delay", "3s", "-o", "json")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	var job struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Command []string `json:"command"`
						Env     []struct{ Name, Value string }
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &job); err != nil || len(job.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%v in %s", err, r.Stdout)
	}
	c := job.Spec.Template.Spec.Containers[0]
	dir := t.TempDir()
	var logs []string
	var cmds []*exec.Cmd
	for i := 0; i < 3; i++ {
		log := filepath.Join(dir, "k8s-"+strconv.Itoa(i)+".log")
		fh, err := os.Create(log)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		cmd := exec.Command(kboxBin, c.Command[1:]...)
		cmd.Env = append(os.Environ(), c.Env[0].Name+"="+c.Env[0].Value, distrib.IndexEnv+"="+strconv.Itoa(i))
		cmd.Stdout = fh
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, logs = append(cmds, cmd), append(logs, log)
	}
	for i, cmd := range cmds {
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("pod %d: %v", i, err)
			}
		case <-time.After(2 * time.Minute):
			_ = cmd.Process.Kill()
			t.Fatalf("pod %d did not finish", i)
		}
	}
	m := testbed.Runner{Timeout: time.Minute}.Exec(t, kboxBin, append([]string{"perf", "k8s-job", "merge", "-o", "json"}, logs...)...)
	if m.Code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", m.Code, m.Stdout, m.Stderr)
	}
	d := decode(t, m.Stdout)
	if d.Agents != 3 || d.FailedAgents != 0 || d.Merged == nil || d.Merged.Records != 20002 || d.Merged.MergedFrom != 3 {
		t.Fatalf("merged %+v", d)
	}
	if got := topicRecords(t, "k8s"); got != 20002 {
		t.Fatalf("topic holds %d, want 20002", got)
	}
	for i, a := range d.PerAgent {
		if want := distrib.Split(20002, i, 3); a.Agent != "k8s-"+strconv.Itoa(i) || a.Result == nil || a.Result.Records != want {
			t.Errorf("pod %d: %+v, want %d records", i, a, want)
		}
	}
}
