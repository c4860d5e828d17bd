package kafka

import (
	"context"
	"encoding/binary"
	"errors"
	"math/rand"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func frame(body []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// The frame reader finds every frame's header and, when asked, the whole
// frame, however the stream is cut.
func TestFrameReader(t *testing.T) {
	var stream []byte
	var want [][]byte
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 50; i++ {
		body := make([]byte, rng.Intn(40))
		rng.Read(body)
		if len(body) >= 4 {
			body[0] = byte(i % 2) // odd frames are kept whole
		}
		f := frame(body)
		stream = append(stream, f...)
		if len(f) >= 8 {
			want = append(want, f)
		}
	}
	for cut := 1; cut <= 17; cut++ {
		var fr frameReader
		var heads, wholes [][]byte
		for off := 0; off < len(stream); off += cut {
			fr.feed(stream[off:min(off+cut, len(stream))], 8, func(f []byte, complete bool) bool {
				if complete {
					wholes = append(wholes, append([]byte(nil), f...))
					return false
				}
				heads = append(heads, append([]byte(nil), f...))
				return f[4] == 1
			})
		}
		if len(heads) != len(want) {
			t.Fatalf("cut %d: %d headers, want %d", cut, len(heads), len(want))
		}
		w := 0
		for i, h := range heads {
			if string(h) != string(want[i][:8]) {
				t.Fatalf("cut %d: header %d = %x, want %x", cut, i, h, want[i][:8])
			}
			if want[i][4] == 1 {
				if w >= len(wholes) || string(wholes[w]) != string(want[i]) {
					t.Fatalf("cut %d: whole frame %d wrong", cut, i)
				}
				w++
			}
		}
		if w != len(wholes) {
			t.Fatalf("cut %d: %d whole frames, want %d", cut, len(wholes), w)
		}
	}
}

// produceExchange writes a produce request header and reads back a
// response answering partition 0 of topic "t" with code.
func produceExchange(t *testing.T, f *failover, version int16, corr int32, code int16) {
	t.Helper()
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	c := &tapConn{Conn: client, f: f, pending: map[int32]request{}}

	req := binary.BigEndian.AppendUint16(nil, 0) // api key: produce
	req = binary.BigEndian.AppendUint16(req, uint16(version))
	req = binary.BigEndian.AppendUint32(req, uint32(corr))
	req = append(req, 0xff, 0xff) // null client id
	go func() {
		buf := make([]byte, 64)
		_, _ = server.Read(buf)
		resp := kmsg.NewPtrProduceResponse()
		resp.Version = version
		rt := kmsg.NewProduceResponseTopic()
		rt.Topic = "t"
		rp := kmsg.NewProduceResponseTopicPartition()
		rp.ErrorCode = code
		rt.Partitions = append(rt.Partitions, rp)
		resp.Topics = append(resp.Topics, rt)
		body := binary.BigEndian.AppendUint32(nil, uint32(corr))
		if resp.IsFlexible() {
			body = append(body, 0) // no header tags
		}
		body = resp.AppendTo(body)
		out := frame(body)
		// deliver in two pieces
		_, _ = server.Write(out[:5])
		_, _ = server.Write(out[5:])
	}()
	if _, err := c.Write(frame(req)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1024)
	got := 0
	for got < 5 {
		n, err := c.Read(buf[got:])
		if err != nil {
			t.Fatal(err)
		}
		got += n
	}
	size := int(binary.BigEndian.Uint32(buf))
	for got < 4+size {
		n, err := c.Read(buf[got:])
		if err != nil {
			t.Fatal(err)
		}
		got += n
	}
}

// With retries=N, the N+1th retriable error answer in a row fails the
// partition's records with that error; a success resets the count; errors
// franz-go does not retry are left to franz-go.
func TestFailoverResponseErrors(t *testing.T) {
	for _, version := range []int16{7, 9, 11} {
		f := newFailover(time.Second, nil, 1)
		p := f.part(tp{"t", 0})
		produceExchange(t, f, version, 1, kerr.NotEnoughReplicas.Code)
		if p.ctx.Err() != nil {
			t.Fatalf("v%d: first retriable error with retries=1 failed the batch", version)
		}
		produceExchange(t, f, version, 2, 0)
		produceExchange(t, f, version, 3, kerr.NotEnoughReplicas.Code)
		if p.ctx.Err() != nil {
			t.Fatalf("v%d: a success did not reset the error count", version)
		}
		produceExchange(t, f, version, 4, kerr.NotEnoughReplicas.Code)
		if !errors.Is(context.Cause(p.ctx), kerr.NotEnoughReplicas) {
			t.Fatalf("v%d: second error in a row: cause %v", version, context.Cause(p.ctx))
		}
		q := f.part(tp{"t", 0})
		if q == p || q.ctx.Err() != nil {
			t.Fatalf("v%d: the partition has no fresh context", version)
		}
		produceExchange(t, f, version, 5, kerr.InvalidRecord.Code)
		if q.ctx.Err() != nil {
			t.Fatalf("v%d: a non-retriable error was handled by failover", version)
		}
		f.close()
	}
}

// A produce request in flight on a broken connection fails the partitions
// led by that broker with NetworkError, and only those.
func TestFailoverInFlight(t *testing.T) {
	f := newFailover(time.Second, nil, 0)
	defer f.close()
	rec := func(p int32, node int32) *kgo.Record {
		r := &kgo.Record{Topic: "t", Partition: p, Context: context.Background()}
		f.OnProduceRecordBuffered(r)
		f.OnProduceRecordPartitioned(r, node)
		return r
	}
	r1, r2 := rec(0, 1), rec(1, 2)
	f.OnBrokerE2E(kgo.BrokerMetadata{NodeID: 1}, 0, kgo.BrokerE2E{BytesWritten: 10, ReadErr: errors.New("EOF")})
	if r2.Context.Err() != nil {
		t.Fatal("a partition on another broker failed")
	}
	err := SendError(r1, r1.Context.Err())
	var ne *NetworkError
	if !errors.As(err, &ne) || ne.Node != 1 || err.Error() != "Disconnected from node 1" {
		t.Fatalf("send error %v", err)
	}
	// franz-go fails the records buffered behind the failed batch with the
	// first record's context.Canceled; a record that already had the fresh
	// context reports the same cause, not a bare cancellation
	behind := rec(0, 1)
	if behind.Context.Err() != nil {
		t.Fatal("the partition has no fresh context")
	}
	if err := SendError(behind, r1.Context.Err()); !errors.As(err, &ne) || ne.Node != 1 {
		t.Fatalf("send error of a record behind the failed batch: %v", err)
	}
	// once the client closes, a cancellation is the close's
	f2 := newFailover(time.Second, nil, 0)
	c := &kgo.Record{Topic: "t", Partition: 0, Context: context.Background()}
	f2.OnProduceRecordBuffered(c)
	f2.OnProduceRecordPartitioned(c, 1)
	f2.OnBrokerE2E(kgo.BrokerMetadata{NodeID: 1}, 0, kgo.BrokerE2E{BytesWritten: 10, ReadErr: errors.New("EOF")})
	c = &kgo.Record{Topic: "t", Partition: 0, Context: context.Background()}
	f2.OnProduceRecordBuffered(c)
	f2.OnProduceRecordPartitioned(c, 1)
	f2.close()
	if err := SendError(c, c.Context.Err()); !errors.Is(err, context.Canceled) {
		t.Fatalf("send error after close: %v", err)
	}
	// a request that was never written is not in flight
	r2 = rec(1, 2)
	f.OnBrokerE2E(kgo.BrokerMetadata{NodeID: 2}, 0, kgo.BrokerE2E{WriteErr: errors.New("dial"), ReadErr: errors.New("dial")})
	if r2.Context.Err() != nil {
		t.Fatal("a request that was never written failed its batches")
	}
	// a caller's own cancelable context is left alone
	own, cancel := context.WithCancel(context.Background())
	defer cancel()
	r3 := &kgo.Record{Topic: "t", Partition: 0, Context: own}
	f.OnProduceRecordBuffered(r3)
	f.OnProduceRecordPartitioned(r3, 1)
	if r3.Context != own {
		t.Fatal("the caller's context was replaced")
	}
}

// Only producers that count retries as Java does get failover; they retry
// without franz-go's limit.
func TestJavaRetriesSelection(t *testing.T) {
	zero, many := 0, 2147483647
	cases := []struct {
		s    Settings
		want bool
	}{
		{Settings{Role: Producer, Acks: "1", Retries: &zero}, true},
		{Settings{Role: Producer, Acks: "all", Retries: &zero}, true},
		{Settings{Role: Producer, Acks: "0", Retries: &zero}, false},
		{Settings{Role: Producer, Acks: "all", Retries: &zero, Idempotent: true}, false},
		{Settings{Role: Producer, Acks: "1", Retries: &many}, false},
		{Settings{Role: Producer, Acks: "1"}, false},
		{Settings{Role: Consumer, Retries: &zero}, false},
	}
	for i, c := range cases {
		if got := c.s.javaRetries(); got != c.want {
			t.Errorf("case %d: javaRetries %v, want %v", i, got, c.want)
		}
	}
}

// A failed SASL login fails every send, partitioned or not, with its error.
func TestFailoverAuthentication(t *testing.T) {
	f := newFailover(time.Second, nil, 0)
	defer f.close()
	waiting := &kgo.Record{Topic: "new", Context: context.Background()}
	f.OnProduceRecordBuffered(waiting)
	placed := &kgo.Record{Topic: "t", Partition: 0, Context: context.Background()}
	f.OnProduceRecordBuffered(placed)
	f.OnProduceRecordPartitioned(placed, 1)

	resp := kmsg.NewPtrSASLAuthenticateResponse()
	resp.Version = 2
	resp.ErrorCode = kerr.SaslAuthenticationFailed.Code
	msg := "Authentication failed: Invalid username or password"
	resp.ErrorMessage = &msg
	f.saslResponse(append([]byte{0}, resp.AppendTo(nil)...), 2)
	for _, r := range []*kgo.Record{waiting, placed} {
		err := SendError(r, r.Context.Err())
		if !errors.Is(err, kerr.SaslAuthenticationFailed) {
			t.Fatalf("send error %v", err)
		}
	}
}
