package status

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// Each listed broker is probed on its own connection: one that answers,
// one whose port refuses connections, one that accepts and never
// answers (a hung process), all within the probe timeout.
func TestProbeBrokers(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			conn, err := silent.Accept()
			if err != nil {
				return
			}
			defer conn.Close()
		}
	}()
	listed := map[int32]*listedBroker{
		1: {addr: c.ListenAddrs()[0]},
		2: {addr: closedAddr(t)},
		3: {addr: silent.Addr().String()},
		4: {}, // no address: not probed
	}
	start := time.Now()
	got := probeBrokers(context.Background(), cl, listed, 300*time.Millisecond)
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("probes took %s with a 300ms timeout", el)
	}
	if len(got) != 2 || got[2] != "connection refused" || got[3] != "no answer within 300ms" {
		t.Fatalf("unreachable = %q, want 2: connection refused, 3: no answer within 300ms", got)
	}
	if r := downReason(true, false, got[2]); r != "unreachable (connection refused)" {
		t.Fatalf("down reason %q", r)
	}
	if downReason(true, true, "") != reasonFenced || downReason(false, false, "") != reasonUnregistered || downReason(true, false, "") != "" {
		t.Fatal("down reasons of a fenced, an unregistered and an up broker")
	}
}

// A broker the cluster still lists (metadata, unfenced) but whose
// connections fail is down, with the reason, and the cluster unhealthy:
// the window between a SIGKILL and the controller fencing the broker.
func TestCheckListedBrokerUnreachable(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Node 2 refuses every request from now on (kfake then closes the
	// connection), yet metadata keeps listing it.
	c.Control(func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if c.CurrentNode() == 2 {
			return nil, errors.New("node 2 is down"), true
		}
		return nil, nil, false
	})
	got := Check(ctx, "kf", cl, Options{ProbeTimeout: 2 * time.Second})
	if got.Healthy || got.BrokersUp != 2 || got.BrokersExpected != 3 {
		t.Fatalf("healthy=%v brokers %d/%d problems %q", got.Healthy, got.BrokersUp, got.BrokersExpected, got.Problems)
	}
	b := got.Brokers[2]
	if b.ID != 2 || b.Up || b.Fenced || b.Reachable == nil || *b.Reachable || b.DownReason == nil || !strings.HasPrefix(*b.DownReason, "unreachable (") {
		t.Fatalf("broker 2: %+v", b)
	}
	t.Logf("problems %q", got.Problems)
	if !strings.Contains(strings.Join(got.Problems, "\n"), "broker 2 unreachable (") {
		t.Fatalf("problems %q name no unreachable broker 2", got.Problems)
	}
	for _, b := range got.Brokers[:2] {
		if !b.Up || b.Reachable == nil || !*b.Reachable || b.DownReason != nil || b.Address == nil {
			t.Fatalf("broker %d: %+v", b.ID, b)
		}
	}
}
