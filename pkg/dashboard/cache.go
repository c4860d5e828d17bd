package dashboard

import (
	"context"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/logdirs"
	"github.com/kboxdev/kbox/pkg/topics"
)

// clusterData is what the topic pages, the topic list and the log-dir
// page read at most once per rate interval, whatever the partition count
// and however many pages and refreshes ask: the log dirs of every broker
// (shared by all of them) and each topic's offsets. A page then costs one
// Metadata request (and its configs): no request per partition or page.
type clusterData struct {
	ctx     context.Context // the server's: a read outlives the request that started it
	ttl     time.Duration
	timeout time.Duration

	logDirs cached[*logDirData]

	mu      sync.Mutex
	offsets map[string]*cached[*topics.Offsets]
}

func newClusterData(ctx context.Context, ttl, timeout time.Duration) *clusterData {
	return &clusterData{ctx: ctx, ttl: ttl, timeout: timeout, offsets: map[string]*cached[*topics.Offsets]{}}
}

// logDirData is one read of every broker's log dirs (pkg/logdirs Read),
// with the replica sizes indexed by partition when first needed.
type logDirData struct {
	in        *logdirs.Input
	sizesOnce sync.Once
	sizes     logdirs.Sizes
}

func (d *logDirData) Sizes() logdirs.Sizes {
	d.sizesOnce.Do(func() { d.sizes = d.in.Query.Sizes(nil) })
	return d.sizes
}

// readLogDirs is every live broker's log dirs, with their addresses, read
// at most once per interval.
func (cd *clusterData) readLogDirs(ctx context.Context, cl *kafka.Client) (*logDirData, error) {
	return cd.logDirs.get(ctx, cd.ttl, func() (*logDirData, error) {
		lctx, cancel := context.WithTimeout(cd.ctx, cd.timeout)
		defer cancel()
		in, err := logdirs.Read(lctx, cl.Client, logdirs.ReadOptions{Query: logdirs.QueryOptions{Timeout: 10 * time.Second}})
		if err != nil {
			return nil, err
		}
		return &logDirData{in: in}, nil
	})
}

// readOffsets is a topic's log start and end offsets, read at most once
// per interval.
func (cd *clusterData) readOffsets(ctx context.Context, cl *kafka.Client, topic string) (*topics.Offsets, error) {
	cd.mu.Lock()
	c, ok := cd.offsets[topic]
	if !ok {
		// Forget the topics nobody asked about for a while.
		for t, o := range cd.offsets {
			if o.idle(2 * cd.ttl) {
				delete(cd.offsets, t)
			}
		}
		c = &cached[*topics.Offsets]{}
		cd.offsets[topic] = c
	}
	cd.mu.Unlock()
	return c.get(ctx, cd.ttl, func() (*topics.Offsets, error) {
		lctx, cancel := context.WithTimeout(cd.ctx, cd.timeout)
		defer cancel()
		return (&topics.Service{Client: cl.Client, Admin: cl.Admin()}).ListOffsets(lctx, []string{topic})
	})
}

// cached is a value read at most once per ttl: the first request after
// it expired starts one read, which every request meanwhile waits for.
// The read runs on its own (a request that gives up does not cancel it
// for the others); a failed read is not kept, the next request reads
// again.
type cached[T any] struct {
	mu  sync.Mutex
	cur *reading[T]
}

type reading[T any] struct {
	done chan struct{}
	at   time.Time // when the read ended
	val  T
	err  error
}

func (r *reading[T]) ended() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

func (c *cached[T]) get(ctx context.Context, ttl time.Duration, read func() (T, error)) (T, error) {
	c.mu.Lock()
	r := c.cur
	if r == nil || (r.ended() && (r.err != nil || time.Since(r.at) >= ttl)) {
		r = &reading[T]{done: make(chan struct{})}
		c.cur = r
		go func() {
			defer close(r.done)
			r.val, r.err = read()
			r.at = time.Now()
		}()
	}
	c.mu.Unlock()
	select {
	case <-r.done:
		return r.val, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// idle reports whether the value's last read ended more than d ago.
func (c *cached[T]) idle(d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur == nil || (c.cur.ended() && time.Since(c.cur.at) > d)
}
