//go:build integration

package trogdor_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/verify"
	"github.com/kboxdev/kbox/test/integration/testbed"
)

// brokerPID reads node id's PID from the test bed's state dir.
func brokerPID(t *testing.T, id int) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(cluster.Dir, fmt.Sprintf("n%d", id), "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// procState is the state letter of /proc/PID/stat (T: stopped).
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "?"
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return "?"
}

// TestVerifyRunTrogdorProcessStop: kbox verify run with a Trogdor
// ProcessStop fault submitted through the coordinator. Trogdor's agent
// SIGSTOPs every JVM on its machine whose jcmd line contains the process
// name; on this one loopback machine every broker (also those of other
// test beds) is a candidate, so the name is broker 2's own config path in
// this test bed's state dir, which is in broker 2's command line only.
// Broker 2 is stopped (seen in /proc) while brokers 1 and 3 never are;
// the report carries the fault with the task's window and, with
// acks=all, idempotence and min.insync.replicas=2, is valid.
func TestVerifyRunTrogdorProcessStop(t *testing.T) {
	pids := map[int]int{1: brokerPID(t, 1), 2: brokerPID(t, 2), 3: brokerPID(t, 3)}
	// Whatever happens, broker 2 runs on after the test.
	t.Cleanup(func() { _ = syscall.Kill(pids[2], syscall.SIGCONT) })
	var mu sync.Mutex
	stoppedSeen := map[int]int{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			for id, pid := range pids {
				if procState(pid) == "T" {
					mu.Lock()
					stoppedSeen[id]++
					mu.Unlock()
				}
			}
		}
	}()
	process := filepath.Join(cluster.Dir, "n2", "server.properties")
	fault := "ProcessStop:nodes=" + trog.Agents[0] + ":process=" + process + ":at=1s:duration=4s"
	r := testbed.Runner{Timeout: 3 * time.Minute}.Exec(t, kboxBin, "verify", "run", "--bootstrap-server", cluster.Bootstrap,
		"--topic", "trogdor-stop", "--create-topic", "--partitions", "3", "--replication-factor", "3", "--config", "min.insync.replicas=2",
		"--messages", "12000", "--throughput", "1000", "--idempotent", "--coordinator", trog.Coordinator,
		"--during-trogdor", fault, "--progress", "none", "-o", "json")
	close(done)
	wg.Wait()
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	var rep struct {
		Valid    bool             `json:"valid"`
		Run      verify.RunInfo   `json:"run"`
		Liveness *verify.Liveness `json:"liveness"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("%v in %s", err, r.Stdout)
	}
	if !rep.Valid || rep.Run.Acked != 12000 || !rep.Run.CaughtUp || len(rep.Run.Faults) != 1 {
		t.Fatalf("report %s", r.Stdout)
	}
	f := rep.Run.Faults[0]
	if f.Name != "trogdor-ProcessStop" || f.ExitCode != 0 || f.Error != "" || !strings.Contains(f.Command, process) ||
		f.DurationMs < 4000 || f.DurationMs > 15000 || f.EndMs-f.StartMs != f.DurationMs {
		t.Errorf("fault %+v", f)
	}
	// R8 was judged on the coordinator's window.
	if lv := rep.Liveness; lv == nil || lv.FaultStartMs != f.StartMs || lv.FaultEndMs != f.EndMs || !lv.Judged || lv.AcksAfterFault <= 5 {
		t.Errorf("R8 %+v for fault %+v", rep.Liveness, f)
	}
	mu.Lock()
	defer mu.Unlock()
	// Stopped for a good part of 4 s (jcmd on a loaded machine delays
	// both signals), and only broker 2.
	if stoppedSeen[2] < 10 || stoppedSeen[1] != 0 || stoppedSeen[3] != 0 {
		t.Errorf("samples in state T per broker: %v (want broker 2 only)", stoppedSeen)
	}
	if s := procState(pids[2]); s == "T" {
		t.Errorf("broker 2 still stopped after the run")
	}
	// The task is gone from the coordinator.
	for id := range coordinatorTasks(t) {
		if strings.HasPrefix(id, "kbox-verify-") {
			t.Errorf("task %s left on the coordinator", id)
		}
	}
}

// TestVerifyRunTrogdorInterrupt: Ctrl-C while a 2-minute ProcessStop
// holds broker 3 stops the task at once: broker 3 runs again, the run
// ends with its verdict marked interrupted, the fault's window ends at
// the stop with the reason, and the task is deleted.
func TestVerifyRunTrogdorInterrupt(t *testing.T) {
	pid := brokerPID(t, 3)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	fault := "ProcessStop:nodes=" + trog.Agents[1] + ":process=" + filepath.Join(cluster.Dir, "n3", "server.properties") + ":at=1s:duration=2m"
	cmd, out, errb := start(t, "verify", "run", "--bootstrap-server", cluster.Bootstrap, "--topic", "trogdor-int", "--create-topic",
		"--partitions", "3", "--replication-factor", "3", "--messages", "100000", "--throughput", "1000", "--idempotent",
		"--coordinator", trog.Coordinator, "--during-trogdor", fault, "--progress", "none", "-o", "json")
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	deadline := time.Now().Add(90 * time.Second)
	for procState(pid) != "T" {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("broker 3 never stopped\n%s", errb)
		}
		time.Sleep(100 * time.Millisecond)
	}
	stoppedAt := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// SIGCONT comes from the agent once the task is stopped.
	for procState(pid) == "T" {
		if time.Since(stoppedAt) > 60*time.Second {
			t.Fatalf("broker 3 still stopped 60s after the interrupt")
		}
		time.Sleep(100 * time.Millisecond)
	}
	select {
	case <-waited:
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("verify run did not end after the interrupt\n%s", errb)
	}
	var rep struct {
		Run verify.RunInfo `json:"run"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v in %s\n%s", err, out, errb)
	}
	if !rep.Run.Interrupted || len(rep.Run.Faults) != 1 {
		t.Fatalf("report %s", out)
	}
	f := rep.Run.Faults[0]
	if f.Error != "stopped: the run was interrupted (task stopped)" || f.EndMs == 0 || f.DurationMs >= 60000 {
		t.Errorf("fault %+v", f)
	}
	for id := range coordinatorTasks(t) {
		if strings.HasPrefix(id, "kbox-verify-") {
			t.Errorf("task %s left on the coordinator", id)
		}
	}
}
