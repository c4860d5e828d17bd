package verify

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/twmb/franz-go/pkg/kfake"
)

func harnessRequest(t *testing.T, c *kfake.Cluster) HarnessRequest {
	t.Helper()
	conn := &config.Connection{Bootstrap: c.ListenAddrs(), Props: config.NewProperties(), ConnectTimeout: 10 * time.Second}
	return HarnessRequest{
		Topic: "harness", Group: "harness-group", CreateTopic: true, Partitions: 3, ReplicationFactor: 1,
		Messages: 2000, Producers: 2, Consumers: 2, Throughput: -1, Idempotent: true, TxnSize: 100,
		MinAcks: -1, Acks: "-1", Timeout: time.Minute, Examples: 10, WindowFormat: output.Table,
		NewClient: func(role kafka.Role, o kafka.Options) (*kafka.Client, error) {
			return kafka.NewClient(conn, role, o)
		},
	}
}

func harnessAdmin(t *testing.T, req HarnessRequest) *kafka.Client {
	t.Helper()
	adm, err := req.NewClient(kafka.Admin, kafka.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(adm.Close)
	if err := adm.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	return adm
}

// TestHarnessRunKfake drives the verify run use case without the command
// layer: 2 producers and 2 consumers on kfake, a fault command while in
// flight, the verdict valid with every record acked and consumed.
func TestHarnessRunKfake(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := harnessRequest(t, c)
	stderr := &syncBuf{}
	req.Stderr = stderr
	sched, err := ParseSchedule("echo fault", nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Schedule = sched
	h, err := NewHarness(req)
	if err != nil {
		t.Fatal(err)
	}
	var plog0, plog1 bytes.Buffer
	rep, err := h.Run(context.Background(), harnessAdmin(t, req), HarnessLogs{Producers: []io.Writer{&plog0, &plog1}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Valid || rep.Run.Acked != 2000 || rep.Run.Consumed < 2000 || !rep.Run.CaughtUp || rep.Run.Interrupted {
		t.Fatalf("report %+v", rep.Run)
	}
	if rep.Run.During == nil || rep.Run.During.Command != "echo fault" || rep.Run.During.ExitCode != 0 {
		t.Fatalf("during %+v", rep.Run.During)
	}
	if !rep.Run.Idempotent || rep.Run.Topic != "harness" || !rep.Run.Created {
		t.Fatalf("run info %+v", rep.Run)
	}
	if !strings.Contains(plog1.String(), `"name":"producer_send_success"`) {
		t.Fatalf("producer log: %.300s", plog1.String())
	}
	// The topic exists now: a second run without CreateTopic starts its
	// group at the end (the first run's values do not count).
	req.CreateTopic, req.Group, req.Schedule = false, "harness-group-2", nil
	h, err = NewHarness(req)
	if err != nil {
		t.Fatal(err)
	}
	rep, err = h.Run(context.Background(), harnessAdmin(t, req), HarnessLogs{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Valid || rep.Run.Acked != 2000 || rep.Run.Consumed != 2000 {
		t.Fatalf("second run %+v", rep.Run)
	}
}

// TestHarnessInterruptKfake: an interrupt during an endless run stops
// producing, drains and returns the verdict marked interrupted.
func TestHarnessInterruptKfake(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := harnessRequest(t, c)
	req.Messages, req.Duration, req.Throughput = 0, time.Hour, 500
	stderr := &syncBuf{}
	req.Stderr = stderr
	sigs := make(chan os.Signal, 2)
	req.Interrupts = func() (<-chan os.Signal, func()) { return sigs, func() {} }
	started := make(chan *Run, 1)
	req.Progress = func(run *Run, _ time.Time) func() { started <- run; return func() {} }
	h, err := NewHarness(req)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		run := <-started
		for run.Progress().Acked < 100 {
			time.Sleep(10 * time.Millisecond)
		}
		sigs <- syscall.SIGINT
	}()
	rep, err := h.Run(context.Background(), harnessAdmin(t, req), HarnessLogs{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Run.Interrupted || rep.Run.Acked < 100 || !rep.Valid {
		t.Fatalf("report valid=%v %+v", rep.Valid, rep.Run)
	}
	if !strings.Contains(stderr.String(), "kbox verify run: interrupted: stopping producers") {
		t.Fatalf("stderr %q", stderr.String())
	}
}
