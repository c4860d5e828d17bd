// Package logdirs describes the log directories of Kafka brokers: the
// Apache kafka-log-dirs view (byte-exact) and kbox's native disk report
// (usage per broker, dir, topic and partition, replica health).
package logdirs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ClusterBroker is a broker registered in the cluster.
type ClusterBroker struct {
	ID     int32
	Host   string
	Port   int32
	Fenced bool
}

// Replica is one partition replica in a log directory.
type Replica struct {
	Topic     string
	Partition int32
	Size      int64
	OffsetLag int64
	IsFuture  bool
}

// Dir is one log directory of a broker as the broker reported it.
type Dir struct {
	Path string
	// ErrCode is the Kafka error code of the directory (0: online;
	// 56 KAFKA_STORAGE_ERROR: offline).
	ErrCode int16
	// TotalBytes and UsableBytes describe the volume; -1 when the broker
	// does not report them (DescribeLogDirs < v4, Kafka < 3.3).
	TotalBytes  int64
	UsableBytes int64
	// Replicas in the broker's response order.
	Replicas []Replica
}

// BrokerDirs is the answer of one broker, dirs in response order.
type BrokerDirs struct {
	Broker int32
	Dirs   []Dir
}

// BrokerFailure is a broker that did not answer.
type BrokerFailure struct {
	Broker int32
	Err    error
}

// Query is the result of asking brokers for their log dirs.
type Query struct {
	// Answered in the order the brokers were asked.
	Answered []BrokerDirs
	// Failed brokers, in the order they were asked.
	Failed []BrokerFailure
}

// DescribeCluster lists the registered brokers in response order. With
// includeFenced, fenced brokers are listed too (Kafka 4.0+; older brokers
// list only unfenced ones).
func DescribeCluster(ctx context.Context, cl *kgo.Client, includeFenced bool) ([]ClusterBroker, error) {
	req := kmsg.NewPtrDescribeClusterRequest()
	req.IncludeFencedBrokers = includeFenced
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		if resp.ErrorMessage != nil && *resp.ErrorMessage != "" {
			return nil, fmt.Errorf("%w: %s", err, *resp.ErrorMessage)
		}
		return nil, err
	}
	out := make([]ClusterBroker, 0, len(resp.Brokers))
	for _, b := range resp.Brokers {
		out = append(out, ClusterBroker{ID: b.NodeID, Host: b.Host, Port: b.Port, Fenced: b.IsFenced})
	}
	return out, nil
}

// QueryOptions tune QueryBrokers.
type QueryOptions struct {
	// Timeout bounds each broker's request (0: 30s, Java's request.timeout.ms).
	Timeout time.Duration
	// NoRetry sends each request once (for brokers known to be down).
	NoRetry map[int32]bool
	// Partitions, when set, are the only partitions asked (topic →
	// partition ids); nil asks for every replica of every dir.
	Partitions map[string][]int32
}

// QueryBrokers sends DescribeLogDirs (all dirs, all partitions) to every
// broker concurrently and collects answers and failures.
func QueryBrokers(ctx context.Context, cl *kgo.Client, brokers []int32, o QueryOptions) *Query {
	to := o.Timeout
	if to <= 0 {
		to = 30 * time.Second
	}
	type res struct {
		dirs []Dir
		err  error
	}
	results := make([]res, len(brokers))
	var topics []kmsg.DescribeLogDirsRequestTopic // nil: all
	if o.Partitions != nil {
		topics = make([]kmsg.DescribeLogDirsRequestTopic, 0, len(o.Partitions))
		for t, ps := range o.Partitions {
			rt := kmsg.NewDescribeLogDirsRequestTopic()
			rt.Topic, rt.Partitions = t, ps
			topics = append(topics, rt)
		}
	}
	var wg sync.WaitGroup
	for i, id := range brokers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bctx, cancel := context.WithTimeout(ctx, to)
			defer cancel()
			req := kmsg.NewPtrDescribeLogDirsRequest()
			req.Topics = topics
			b := cl.Broker(int(id))
			var kr kmsg.Response
			var err error
			if o.NoRetry[id] {
				kr, err = b.Request(bctx, req)
			} else {
				kr, err = b.RetriableRequest(bctx, req)
			}
			if err != nil {
				if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
					err = fmt.Errorf("no answer within %s", to)
				}
				results[i].err = err
				return
			}
			resp := kr.(*kmsg.DescribeLogDirsResponse)
			if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
				results[i].err = err
				return
			}
			results[i].dirs = convertDirs(resp)
		}()
	}
	wg.Wait()
	q := &Query{}
	for i, id := range brokers {
		if results[i].err != nil {
			q.Failed = append(q.Failed, BrokerFailure{Broker: id, Err: results[i].err})
			continue
		}
		q.Answered = append(q.Answered, BrokerDirs{Broker: id, Dirs: results[i].dirs})
	}
	return q
}

func convertDirs(resp *kmsg.DescribeLogDirsResponse) []Dir {
	dirs := make([]Dir, 0, len(resp.Dirs))
	for _, d := range resp.Dirs {
		n := 0
		for _, t := range d.Topics {
			n += len(t.Partitions)
		}
		dir := Dir{Path: d.Dir, ErrCode: d.ErrorCode, TotalBytes: d.TotalBytes, UsableBytes: d.UsableBytes, Replicas: make([]Replica, 0, n)}
		if resp.Version < 4 {
			dir.TotalBytes, dir.UsableBytes = -1, -1
		}
		for _, t := range d.Topics {
			for _, p := range t.Partitions {
				dir.Replicas = append(dir.Replicas, Replica{Topic: t.Topic, Partition: p.Partition, Size: p.Size, OffsetLag: p.OffsetLag, IsFuture: p.IsFuture})
			}
		}
		dirs = append(dirs, dir)
	}
	return dirs
}
