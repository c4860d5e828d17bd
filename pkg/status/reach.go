package status

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/logdirs"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DefaultProbeTimeout bounds each broker's reachability probe: a dial and
// one ApiVersions answer on loopback or a LAN take milliseconds.
const DefaultProbeTimeout = 3 * time.Second

// Reasons a broker is down (Broker.DownReason).
const (
	reasonFenced       = "fenced by the controller"
	reasonUnregistered = "not registered with the controller"
)

// listedBroker is a broker the cluster lists: in metadata (live) or
// registered with the controller (DescribeCluster, fenced ones too).
type listedBroker struct {
	addr   string
	fenced bool
}

// listBrokers is every broker the cluster lists, with its address:
// metadata's brokers, and the registered ones DescribeCluster adds
// (fenced brokers leave metadata; Kafka 4.0+ still lists them there).
func listBrokers(ctx context.Context, cl *kgo.Client, md kadm.Metadata) map[int32]*listedBroker {
	out := map[int32]*listedBroker{}
	for _, b := range md.Brokers {
		out[b.NodeID] = &listedBroker{addr: net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))}
	}
	if reg, err := logdirs.DescribeCluster(ctx, cl, true); err == nil {
		for _, b := range reg {
			lb, ok := out[b.ID]
			if !ok {
				lb = &listedBroker{addr: net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))}
				out[b.ID] = lb
			}
			lb.fenced = lb.fenced || b.Fenced
		}
	}
	return out
}

// probeTimeout is timeout (0: DefaultProbeTimeout), and at most half of
// what is left of ctx, so that a check still finishes in time.
func probeTimeout(ctx context.Context, timeout time.Duration) time.Duration {
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl)/2)
	}
	return timeout
}

// probeBrokers asks every listed broker for its API versions over a new
// connection of its own (the client's dialer: TLS included; ApiVersions
// needs no SASL authentication), concurrently, each within timeout. The
// result maps the brokers that did not answer to the reason ("connection
// refused"). A broker the cluster still lists after it was killed (until
// the controller fences it) is seen at once: its address refuses the
// connection.
func probeBrokers(ctx context.Context, cl *kgo.Client, listed map[int32]*listedBroker, timeout time.Duration) map[int32]string {
	dial := (&net.Dialer{}).DialContext
	if fn, ok := cl.OptValue(kgo.Dialer).(func(context.Context, string, string) (net.Conn, error)); ok && fn != nil {
		dial = fn
	}
	timeout = probeTimeout(ctx, timeout)
	var mu sync.Mutex
	out := map[int32]string{}
	var wg sync.WaitGroup
	for id, b := range listed {
		if b.addr == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := probe(ctx, dial, b.addr, timeout); err != nil {
				mu.Lock()
				out[id] = probeReason(err, timeout)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}

// probe connects to addr with dial and sends one ApiVersions request; it
// returns nil when the broker answered within timeout.
func probe(ctx context.Context, dial func(context.Context, string, string) (net.Conn, error), addr string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := dial(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	const correlationID = 1
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 0 // every broker answers v0 (an error answer is an answer too)
	msg := kmsg.NewRequestFormatter(kmsg.FormatterClientID("kbox-probe")).AppendRequest(nil, req, correlationID)
	if _, err := conn.Write(msg); err != nil {
		return ctxErr(ctx, err)
	}
	var head [8]byte // response size, correlation id
	if _, err := io.ReadFull(conn, head[:]); err != nil {
		return ctxErr(ctx, err)
	}
	if int32(binary.BigEndian.Uint32(head[4:])) != correlationID {
		return fmt.Errorf("unexpected answer from %s", addr)
	}
	return nil
}

// ctxErr is the context's error when it ended the probe (a closed
// connection then reads as "use of closed network connection").
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// probeReason is a probe's error in a few words: "connection refused",
// "no answer within 3s", "connection closed".
func probeReason(err error, timeout time.Duration) string {
	var se *os.SyscallError
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return "no answer within " + output.Duration(timeout)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	case errors.As(err, &se):
		return se.Err.Error()
	}
	return oneLine(err.Error())
}

// brokerProblem is the reason line of a broker that is down.
func brokerProblem(id int32, reason string) string {
	return fmt.Sprintf("broker %d %s", id, reason)
}

// downReason is why a broker is not up, "" when it is: listed is
// whether the cluster lists it (with an address), unreachable the
// probe's failure ("" when it answered).
func downReason(listed, fenced bool, unreachable string) string {
	switch {
	case !listed:
		return reasonUnregistered
	case unreachable != "":
		return "unreachable (" + unreachable + ")"
	case fenced:
		return reasonFenced
	}
	return ""
}
