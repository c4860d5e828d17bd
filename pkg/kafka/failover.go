package kafka

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kboxdev/kbox/pkg/javaerr"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Java's producer and franz-go count a batch's tries differently, and with a
// small retries value (the verifiable producer runs with retries=0) the
// difference decides what a broker failure costs:
//
//   - Java sends a batch only to a node it is connected to. While a
//     partition's leader is down, its batches wait in the accumulator
//     (bounded by delivery.timeout.ms) until metadata names a new leader.
//     What fails is a batch that was sent and came back with an error or
//     with no answer: the batches in flight when the connection broke
//     (NetworkException, "Disconnected from node N"), or a batch answered
//     with a retriable error once its retries are used up
//     (NotLeaderOrFollowerException, NotEnoughReplicasException, ...).
//   - franz-go also counts a failed dial, or a partition that metadata
//     cannot place, as a try. With retries=0 every batch drained to a dead
//     leader fails, and a failed batch fails everything buffered for its
//     partition (franz-go keeps a partition's sends gapless): every send
//     fails until the dead broker is back.
//
// failover gives such a producer Java's behaviour without changing
// franz-go. franz-go retries without limit (bounded by delivery.timeout.ms),
// so dials and metadata gaps never fail a batch, and failover fails the
// batches Java would fail by cancelling their records' context:
//
//   - Each record's Context is set, when franz-go assigns it a partition, to
//     that partition's context (one per partition, shared by its records).
//     franz-go fails a partition's first batch when its first record's
//     context is done, and reports the context's error; SendError turns it
//     into the cause.
//   - A produce request written to a broker whose connection broke before
//     the answer had its batches in flight: the contexts of the partitions
//     on that broker are cancelled with a *NetworkError.
//   - Every connection is tapped to read produce responses: a partition
//     answered with a retriable error more than retries times in a row has
//     its context cancelled with that error. Errors franz-go does not retry
//     it fails itself, as Java does.
//
// A cancelled context is replaced at once, so records sent afterwards are
// not affected (franz-go does fail the records buffered in that partition at
// that moment along with the batch, which Java would keep). franz-go fails
// those records with the first record's context.Canceled while their own
// context is the fresh one, so the fresh context carries the cause of the
// one it replaced, for SendError.
type failover struct {
	base    func(ctx context.Context, network, host string) (net.Conn, error)
	retries int
	cl      atomic.Pointer[kgo.Client]
	closed  context.Context
	close   context.CancelFunc
	// root is the parent of every record context: an authentication
	// failure cancels it, so every send fails with it, as in Java.
	root     context.Context
	rootFail context.CancelCauseFunc

	mu    sync.Mutex
	parts atomic.Pointer[map[tp]*partCtx] // copy on write: read once per record
	ids   atomic.Pointer[map[[16]byte]string]
	known map[string]bool // topics whose ids were asked for
}

type tp struct {
	topic     string
	partition int32
}

type partCtx struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	node   atomic.Int32
	errs   atomic.Int32 // retriable error answers in a row
}

// NetworkError is the cause of a send that failed because its request was
// in flight when the connection to the broker broke: Java's
// org.apache.kafka.common.errors.NetworkException.
type NetworkError struct{ Node int32 }

func (e *NetworkError) Error() string { return fmt.Sprintf("Disconnected from node %d", e.Node) }

// JavaException names the Java exception class and message.
func (e *NetworkError) JavaException() (class, msg string) {
	return javaerr.Class(kerr.NetworkException.Code), e.Error()
}

// SendError returns the error a failed record's promise should report:
// when failover made franz-go fail the record, the cause (a *NetworkError or
// the broker's error) rather than context.Canceled.
func SendError(r *kgo.Record, err error) error {
	if err == nil || r == nil || r.Context == nil || !errors.Is(err, context.Canceled) {
		return err
	}
	if c := context.Cause(r.Context); c != nil && !errors.Is(c, context.Canceled) {
		return c
	}
	if r.Context.Err() == nil {
		// failed with the batch ahead of it, whose context was the one
		// this record's replaced
		if c, ok := r.Context.Value(replacedKey{}).(error); ok {
			return c
		}
	}
	return err
}

// replacedKey is the context value key of the cause of the partition
// context a fresh one replaced.
type replacedKey struct{}

func newFailover(dialTimeout time.Duration, tc *tls.Config, retries int) *failover {
	d := &net.Dialer{Timeout: dialTimeout}
	f := &failover{base: d.DialContext, retries: retries, known: map[string]bool{}}
	if tc != nil {
		f.base = func(ctx context.Context, network, host string) (net.Conn, error) {
			c := tc.Clone()
			if c.ServerName == "" {
				if h, _, err := net.SplitHostPort(host); err == nil {
					c.ServerName = h
				}
			}
			return (&tls.Dialer{NetDialer: d, Config: c}).DialContext(ctx, network, host)
		}
	}
	f.closed, f.close = context.WithCancel(context.Background())
	f.root, f.rootFail = context.WithCancelCause(f.closed)
	parts := map[tp]*partCtx{}
	f.parts.Store(&parts)
	ids := map[[16]byte]string{}
	f.ids.Store(&ids)
	return f
}

func (f *failover) opts() []kgo.Opt {
	return []kgo.Opt{kgo.Dialer(f.dial), kgo.WithHooks(f)}
}

// OnNewClient keeps the client (topic ids are asked for through it).
func (f *failover) OnNewClient(cl *kgo.Client) { f.cl.Store(cl) }

// OnClientClosed ends every record context.
func (f *failover) OnClientClosed(*kgo.Client) { f.close() }

// OnProduceRecordBuffered gives a record the client's root context until
// it has a partition (a record for a topic whose metadata is not loaded yet
// waits unpartitioned), unless the caller gave it a cancelable context of
// its own. franz-go calls it before it buffers the record.
func (f *failover) OnProduceRecordBuffered(r *kgo.Record) {
	if r.Context == nil || r.Context.Done() == nil {
		r.Context = f.root
	}
}

// OnProduceRecordPartitioned gives the record its partition's context,
// unless the caller gave it a cancelable context of its own. franz-go calls
// it with the partition's buffer locked.
func (f *failover) OnProduceRecordPartitioned(r *kgo.Record, node int32) {
	if r.Context != f.root {
		return
	}
	p := f.part(tp{r.Topic, r.Partition})
	if p.node.Load() != node {
		p.node.Store(node)
	}
	r.Context = p.ctx
}

func (f *failover) part(k tp) *partCtx {
	if p := (*f.parts.Load())[k]; p != nil {
		return p
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if p := (*f.parts.Load())[k]; p != nil {
		return p
	}
	if !f.known[k.topic] {
		f.known[k.topic] = true
		go f.learnID(k.topic)
	}
	return f.renewLocked(k, -1, nil)
}

// renewLocked installs a fresh context for k; replaced is the cause of the
// cancelled context it replaces (nil: none).
func (f *failover) renewLocked(k tp, node int32, replaced error) *partCtx {
	parent := f.root
	if replaced != nil {
		parent = context.WithValue(parent, replacedKey{}, replaced)
	}
	ctx, cancel := context.WithCancelCause(parent)
	p := &partCtx{ctx: ctx, cancel: cancel}
	p.node.Store(node)
	old := *f.parts.Load()
	next := make(map[tp]*partCtx, len(old)+1)
	for key, v := range old {
		next[key] = v
	}
	next[k] = p
	f.parts.Store(&next)
	return p
}

// fail cancels the contexts of the partitions match selects with cause,
// and gives them fresh ones.
func (f *failover) fail(match func(tp, *partCtx) bool, cause error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, p := range *f.parts.Load() {
		if match(k, p) {
			p.cancel(cause)
			f.renewLocked(k, p.node.Load(), cause)
		}
	}
}

// OnBrokerE2E sees every request's write and read: a produce request that
// was written and got no answer because the connection broke had its
// batches in flight. They fail with NetworkError, as in Java.
func (f *failover) OnBrokerE2E(meta kgo.BrokerMetadata, key int16, e kgo.BrokerE2E) {
	if key != 0 || e.WriteErr != nil || e.ReadErr == nil || f.closed.Err() != nil {
		return
	}
	node := meta.NodeID
	f.fail(func(_ tp, p *partCtx) bool { return p.node.Load() == node }, &NetworkError{Node: node})
}

// answered handles one partition's answer in a produce response.
func (f *failover) answered(topic string, partition int32, code int16) {
	p := (*f.parts.Load())[tp{topic, partition}]
	if p == nil {
		return
	}
	if code == 0 {
		p.errs.Store(0)
		return
	}
	err := kerr.ErrorForCode(code)
	if !kerr.IsRetriable(err) || int(p.errs.Add(1)) <= f.retries {
		return
	}
	p.errs.Store(0)
	f.fail(func(_ tp, q *partCtx) bool { return q == p }, err)
}

// learnID asks for a topic's id: produce v13 names topics by id.
func (f *failover) learnID(topic string) {
	cl := f.cl.Load()
	if cl == nil {
		return
	}
	ctx, cancel := context.WithTimeout(f.closed, 30*time.Second)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return
	}
	for _, rt := range resp.Topics {
		if rt.Topic == nil || rt.TopicID == ([16]byte{}) {
			continue
		}
		f.mu.Lock()
		old := *f.ids.Load()
		next := make(map[[16]byte]string, len(old)+1)
		for k, v := range old {
			next[k] = v
		}
		next[rt.TopicID] = *rt.Topic
		f.ids.Store(&next)
		f.mu.Unlock()
	}
}

// dial dials host and taps the connection for produce responses.
func (f *failover) dial(ctx context.Context, network, host string) (net.Conn, error) {
	c, err := f.base(ctx, network, host)
	if err != nil {
		return nil, err
	}
	return &tapConn{Conn: c, f: f, pending: map[int32]request{}}, nil
}

// tapConn reads the Kafka frames that pass through a connection: the
// headers of requests written (to know which answers are produce
// responses, and their versions) and the produce responses read, which it
// decodes before franz-go sees them.
type tapConn struct {
	net.Conn
	f *failover

	mu      sync.Mutex
	pending map[int32]request // correlation id -> produce or SASL request

	w frameReader // requests
	r frameReader // responses
}

// request is what a tapped connection remembers of a request it wrote.
type request struct{ key, version int16 }

const saslAuthenticateKey = 36

// frameReader follows size-prefixed frames in a byte stream, keeping a
// frame's first bytes (or all of it, when asked) and skipping the rest.
type frameReader struct {
	head    []byte // size prefix and kept bytes of the current frame
	sized   bool   // the size prefix is complete
	rest    int    // bytes of the frame not yet seen
	decided bool   // the first bytes were seen: keep or skip
	keep    bool
}

func (c *tapConn) Write(b []byte) (int, error) {
	c.w.feed(b, 12, func(frame []byte, complete bool) bool {
		// request header: size, api key, api version, correlation id
		if len(frame) < 12 {
			return false
		}
		if key := int16(binary.BigEndian.Uint16(frame[4:])); key == 0 || key == saslAuthenticateKey {
			c.mu.Lock()
			c.pending[int32(binary.BigEndian.Uint32(frame[8:]))] = request{key, int16(binary.BigEndian.Uint16(frame[6:]))}
			c.mu.Unlock()
		}
		return false
	})
	return c.Conn.Write(b)
}

func (c *tapConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.r.feed(b[:n], 8, func(frame []byte, complete bool) bool {
			corr := int32(binary.BigEndian.Uint32(frame[4:]))
			c.mu.Lock()
			req, ok := c.pending[corr]
			if complete {
				delete(c.pending, corr)
			}
			c.mu.Unlock()
			if !ok {
				return false
			}
			if complete {
				if req.key == saslAuthenticateKey {
					c.f.saslResponse(frame[8:], req.version)
				} else {
					c.f.response(frame[8:], req.version)
				}
			}
			return true // keep the whole response
		})
	}
	return n, err
}

// feed follows the frames in b. When a frame's first need bytes (size
// prefix included) are known, on is called with them (complete false); if
// it returns true the frame is kept, and on is called again with the whole
// frame (complete true).
func (fr *frameReader) feed(b []byte, need int, on func(frame []byte, complete bool) bool) {
	for len(b) > 0 {
		if !fr.sized {
			k := min(4-len(fr.head), len(b))
			fr.head = append(fr.head, b[:k]...)
			b = b[k:]
			if len(fr.head) == 4 {
				fr.sized, fr.rest = true, int(binary.BigEndian.Uint32(fr.head))
			}
		} else {
			k := min(fr.rest, len(b))
			switch {
			case !fr.decided:
				k = min(k, need-len(fr.head))
				fr.head = append(fr.head, b[:k]...)
			case fr.keep:
				fr.head = append(fr.head, b[:k]...)
			}
			fr.rest -= k
			b = b[k:]
			if !fr.decided && (len(fr.head) >= need || fr.rest == 0) {
				fr.decided = true
				fr.keep = len(fr.head) >= need && on(fr.head, false)
			}
		}
		if fr.sized && fr.decided && fr.rest == 0 {
			if fr.keep {
				on(fr.head, true)
			}
			*fr = frameReader{head: fr.head[:0]}
		} else if fr.sized && fr.rest == 0 && !fr.decided {
			*fr = frameReader{head: fr.head[:0]}
		}
	}
}

// response decodes a produce response body (after the correlation id).
func (f *failover) response(body []byte, version int16) {
	resp := kmsg.NewPtrProduceResponse()
	resp.Version = version
	if resp.IsFlexible() { // the response header's tagged fields
		n, ok := skipTags(body)
		if !ok {
			return
		}
		body = body[n:]
	}
	if resp.ReadFrom(body) != nil {
		return
	}
	ids := *f.ids.Load()
	for _, t := range resp.Topics {
		name := t.Topic
		if name == "" {
			name = ids[t.TopicID]
		}
		for _, p := range t.Partitions {
			f.answered(name, p.Partition, p.ErrorCode)
		}
	}
}

// saslResponse reads a SaslAuthenticate response: a failed login fails
// every send of the client with its error (Java's producer fails each send
// with SaslAuthenticationException and never authenticates afterwards).
func (f *failover) saslResponse(body []byte, version int16) {
	resp := kmsg.NewPtrSASLAuthenticateResponse()
	resp.Version = version
	if resp.IsFlexible() {
		n, ok := skipTags(body)
		if !ok {
			return
		}
		body = body[n:]
	}
	if resp.ReadFrom(body) != nil || resp.ErrorCode == 0 {
		return
	}
	ae := &AuthError{Err: kerr.ErrorForCode(resp.ErrorCode)}
	if resp.ErrorMessage != nil {
		ae.Message = *resp.ErrorMessage
	}
	f.rootFail(ae)
}

// AuthError is a failed SASL login, reported to every send of the client:
// Java's org.apache.kafka.common.errors.SaslAuthenticationException with
// the broker's message.
type AuthError struct {
	Err     error // the broker's error code
	Message string
}

func (e *AuthError) Error() string {
	if e.Message == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + ": " + e.Message
}

func (e *AuthError) Unwrap() error { return e.Err }

// JavaException names the Java exception class and message.
func (e *AuthError) JavaException() (class, msg string) {
	msg = e.Message
	if msg == "" {
		msg = e.Err.Error()
	}
	return javaerr.Class(kerr.SaslAuthenticationFailed.Code), msg
}

// skipTags returns the length of a tagged-field section.
func skipTags(b []byte) (int, bool) {
	num, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, false
	}
	off := n
	for i := uint64(0); i < num; i++ {
		if _, n = binary.Uvarint(b[off:]); n <= 0 {
			return 0, false
		}
		off += n
		size, n := binary.Uvarint(b[off:])
		if n <= 0 || off+n+int(size) > len(b) {
			return 0, false
		}
		off += n + int(size)
	}
	return off, true
}
