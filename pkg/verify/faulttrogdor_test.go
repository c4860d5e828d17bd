package verify

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/trogdor"
	"github.com/kboxdev/kbox/pkg/trogdor/trogdortest"
)

func TestParseTrogdorFault(t *testing.T) {
	tf, at, err := parseTrogdorFault("ProcessStop:nodes=agent1,agent2:process=/tmp/a:b/n2/server.properties:duration=1500ms:at=5s")
	if err != nil {
		t.Fatal(err)
	}
	if tf.class != "ProcessStop" || strings.Join(tf.nodes, "|") != "agent1|agent2" || tf.process != "/tmp/a:b/n2/server.properties" ||
		tf.duration != 1500*time.Millisecond || at != 5*time.Second {
		t.Errorf("ProcessStop: %+v at %s", tf, at)
	}
	spec, err := tf.spec(42)
	if err != nil {
		t.Fatal(err)
	}
	if ps := spec.(*trogdor.ProcessStopSpec); ps.StartMs != 42 || ps.DurationMs != 1500 || ps.Class != trogdor.ProcessStopClass {
		t.Errorf("spec %+v", ps)
	}
	tf, at, err = parseTrogdorFault("org.apache.kafka.trogdor.fault.NetworkPartitionFaultSpec:partitions=agent1/agent2,agent3:duration=10s")
	if err != nil {
		t.Fatal(err)
	}
	if tf.class != "NetworkPartition" || len(tf.partitions) != 2 || strings.Join(tf.partitions[1], ",") != "agent2,agent3" || at != 0 {
		t.Errorf("NetworkPartition: %+v at %s", tf, at)
	}
	for _, c := range []struct{ in, want string }{
		{"", "no fault class"},
		{"DegradedNetwork:duration=1s", `unknown fault class "DegradedNetwork"`},
		{"ProcessStop:nodes=a:process=x", "duration=D is required"},
		{"ProcessStop:nodes=a:process=x:duration=0s", `the duration "0s" is not a positive duration`},
		{"ProcessStop:nodes=a:process=x:duration=soon", "not a positive duration"},
		{"ProcessStop:nodes=a:process=x:duration=1s:at=-1s", `the offset "-1s" is not a duration`},
		{"ProcessStop:process=x:duration=1s", "no nodes given"},
		{"ProcessStop:nodes=a:duration=1s", "process name is empty"},
		{"ProcessStop:nodes=a:process=x:duration=1s:partitions=a/b", `unknown field "partitions" for ProcessStop`},
		{"ProcessStop:nodes=a:nodes=b:process=x:duration=1s", "nodes given twice"},
		{"ProcessStop:agent1:duration=1s", `"agent1" is not KEY=VALUE`},
		{"NetworkPartition:duration=1s", "partitions=A,B/C,D is required"},
		{"NetworkPartition:partitions=a,b:duration=1s", "at least two groups"},
		{"NetworkPartition:partitions=a/a:duration=1s", "node a appears in more than one group"},
		{"NetworkPartition:partitions=a/b:process=x:duration=1s", `unknown field "process"`},
	} {
		_, _, err := parseTrogdorFault(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "--during-trogdor") {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

func trogRunner(t *testing.T) (*faultRunner, *trogdortest.Coordinator) {
	t.Helper()
	fc := trogdortest.New()
	t.Cleanup(fc.Close)
	cl, err := trogdor.New(fc.URL)
	if err != nil {
		t.Fatal(err)
	}
	fr := newFaultRunner(&syncBuf{})
	fr.trog = cl
	return fr, fc
}

// A Trogdor fault's window is its task's startedMs and doneMs as the
// coordinator reports them; the task is deleted afterwards; each ended
// fault reaches onEnd (R8 per fault).
func TestTrogdorFaultWindow(t *testing.T) {
	fr, fc := trogRunner(t)
	var ended []FaultInfo
	fr.onEnd = func(fi FaultInfo) { ended = append(ended, fi) }
	specs, err := ParseSchedule("", nil, "", []string{
		"ProcessStop:nodes=agent1:process=/tb/n2/server.properties:duration=300ms:at=100ms",
		"ProcessStop:nodes=agent2:process=/tb/n3/server.properties:duration=200ms",
	})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	fr.start(specs, t0, time.Time{})
	waitFaults(t, fr, 2)
	fr.wait(context.Background(), func() string { return "unused" })
	tasks := fc.Tasks()
	faults := fr.list()
	if len(tasks) != 2 || len(faults) != 2 || len(ended) != 2 {
		t.Fatalf("tasks %+v faults %+v ended %+v", tasks, faults, ended)
	}
	byName := map[string]FaultInfo{}
	for _, f := range faults {
		byName[f.Name] = f
	}
	for i, tk := range tasks {
		if !tk.Destroyed {
			t.Errorf("task %s not deleted", tk.ID)
		}
		var spec trogdor.ProcessStopSpec
		if err := json.Unmarshal(tk.Spec, &spec); err != nil || spec.Class != trogdor.ProcessStopClass || len(spec.NodeNames) != 1 {
			t.Errorf("spec %s: %v", tk.Spec, err)
		}
		name := "trogdor-ProcessStop"
		if i == 1 {
			name += "#2"
		}
		f, ok := byName[name]
		if !ok {
			t.Fatalf("no fault %s in %+v", name, faults)
		}
		if f.StartMs != tk.StartMs || f.EndMs != tk.StartMs+tk.Duration.Milliseconds() || f.DurationMs != tk.Duration.Milliseconds() ||
			f.ExitCode != 0 || f.Error != "" || !strings.Contains(f.Command, "task "+tk.ID) || !strings.HasPrefix(f.Command, "trogdor ProcessStop:") {
			t.Errorf("fault %+v of task %+v", f, tk)
		}
	}
	// The one at 100ms started no earlier than that.
	if first := tasks[1]; first.Duration != 300*time.Millisecond || first.StartMs < t0.Add(100*time.Millisecond).UnixMilli() {
		t.Errorf("the at=100ms task: %+v (t0 %d)", first, t0.UnixMilli())
	}
}

// A run that ends while the fault lasts stops the task (the agents undo
// it) and says why; a task error and a refused submission are the
// fault's error.
func TestTrogdorFaultStoppedAndFailed(t *testing.T) {
	fr, fc := trogRunner(t)
	specs, _ := ParseSchedule("", nil, "", []string{"NetworkPartition:partitions=agent1/agent2:duration=1h"})
	fr.start(specs, time.Now(), time.Time{})
	deadline := time.Now().Add(10 * time.Second)
	for len(fr.list()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fr.wait(ctx, func() string { return "killed: the run was interrupted" })
	tasks, faults := fc.Tasks(), fr.list()
	if len(tasks) != 1 || tasks[0].StoppedMs == 0 || !tasks[0].Destroyed || len(faults) != 1 {
		t.Fatalf("tasks %+v faults %+v", tasks, faults)
	}
	if f := faults[0]; f.EndMs != tasks[0].StoppedMs || f.ExitCode != 0 || f.Error != "killed: the run was interrupted (task stopped)" {
		t.Errorf("fault %+v", f)
	}

	// An interrupt stops it at once, before the run's wait.
	fr, fc = trogRunner(t)
	fr.start(specs, time.Now(), time.Time{})
	for len(fc.Tasks()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	fr.stopTrogdor("stopped: the run was interrupted")
	waitFaults(t, fr, 1)
	if tasks, f := fc.Tasks(), fr.list(); len(tasks) != 1 || tasks[0].StoppedMs == 0 || len(f) != 1 || f[0].Error != "stopped: the run was interrupted (task stopped)" {
		t.Errorf("interrupt: tasks %+v faults %+v", tasks, f)
	}
	fr.wait(context.Background(), func() string { return "" })

	fr, fc = trogRunner(t)
	fc.TaskError = "Unknown node names: agent9"
	specs, _ = ParseSchedule("", nil, "", []string{"ProcessStop:nodes=agent9:process=x:duration=50ms"})
	fr.start(specs, time.Now(), time.Time{})
	fr.wait(context.Background(), func() string { return "" })
	if f := fr.list(); len(f) != 1 || f[0].ExitCode != 1 || f[0].Error != "Unknown node names: agent9" || f[0].StartMs != fc.Tasks()[0].StartMs || f[0].EndMs != f[0].StartMs || f[0].DurationMs != 0 {
		t.Errorf("task error: %+v", f)
	}

	fr, fc = trogRunner(t)
	fc.CreateError = "Can't create task kbox: bad spec"
	fr.start(specs, time.Now(), time.Time{})
	fr.wait(context.Background(), func() string { return "" })
	if f := fr.list(); len(f) != 1 || f[0].ExitCode != -1 || !strings.Contains(f[0].Error, "HTTP 400: Can't create task kbox: bad spec") {
		t.Errorf("refused: %+v", f)
	}
}
