package verify

import (
	"context"
	"errors"
	"os"
	"sync/atomic"
	"time"

	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Consumer is the loop of Apache's VerifiableConsumer: one member of a
// group subscribed to Topic that polls, reports every poll to Sink and,
// unless AutoCommit, commits maxOffset+1 synchronously after each poll.
// The drop-in kafka-verifiable-consumer runs one; `kbox verify run` runs
// several. Build Client with ClientOpts.
type Consumer struct {
	Client *kgo.Client
	Topic  string
	Sink   Sink
	// MaxMessages to consume; < 0: until stopped. The last poll is cut
	// exactly.
	MaxMessages int64
	// MaxPollRecords per poll (max.poll.records; <= 0: all buffered).
	MaxPollRecords int
	// Verbose reports every record (record_data).
	Verbose bool
	// AutoCommit leaves committing to the client (enable.auto.commit;
	// Client must be built with it too): no offsets_committed events, as
	// Java's auto commits do not go through the tool's commit callback.
	// As Java's consumer does, the offsets of every record polled are
	// also committed synchronously before partitions are revoked and
	// before leaving the group.
	AutoCommit bool
	// CloseTimeout bounds leaving the group at the end.
	CloseTimeout time.Duration
	// Stop ends the loop when it delivers a signal or is closed.
	Stop <-chan os.Signal
	// Counters, when set, count the consumed records live.
	Counters *Counters
	// OnRebalance, when set, sees each assignment (EvAssigned) and
	// revocation or loss (EvRevoked) before its event.
	OnRebalance func(name string, tps []TP)
	// OnFetchError, when set, sees each fetch error (not the client's
	// own closing).
	OnFetchError func(topic string, partition int32, err error)
	// OnCorrupt, when set, gets the batch a partition is stuck on (a
	// batch whose CRC no longer matches, named by an integrity.Watcher):
	// true seeks past it, false ends the loop as the exception a poll
	// throws ends Java's (the drop-in). Unset, the consumer waits. With it
	// set, OnFetchError gets the errors of a partition the client cannot
	// read past only when its log reads cleanly (once per position).
	OnCorrupt func(*integrity.Corruption) bool
	// OnConsumed, when set, sees each poll's per-partition summaries
	// after its records_consumed event.
	OnConsumed func(sums []PartitionData)
	// OnAutoCommitError, when set, sees a failed synchronous auto commit
	// (before a revocation or at close) with the offsets it tried: Java
	// logs it and goes on.
	OnAutoCommitError func(offsets map[string]map[int32]kgo.EpochOffset, err error)

	// closing is set when Run starts leaving the group.
	closing atomic.Bool
	// watch follows the positions (with OnCorrupt).
	watch *integrity.Watcher
}

// ClientOpts are the options Client must be built with: rebalances held
// while a poll is processed, and the partitions_assigned and
// partitions_revoked events. Run subscribes to Topic itself, after
// startup_complete, as Apache does (a client built with the topic would
// start joining before it).
//
// The events are those Java's ConsumerRebalanceListener receives:
// onPartitionsAssigned on every assignment, even an empty one;
// onPartitionsRevoked on every rejoin under the eager protocol (range,
// roundrobin, sticky), even with nothing assigned, but under the
// cooperative protocol and the consumer protocol (KIP-848) only when
// there are partitions to revoke; on leaving, and on losing partitions
// (onPartitionsLost, which the tool does not override and so prints as a
// revocation), only when there are partitions.
func (c *Consumer) ClientOpts() []kgo.Opt {
	return []kgo.Opt{
		kgo.BlockRebalanceOnPoll(),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			c.rebalanced(EvAssigned, tpsOf(m))
		}),
		kgo.OnPartitionsRevoked(func(ctx context.Context, cl *kgo.Client, m map[string][]int32) {
			if c.AutoCommit {
				// ConsumerCoordinator.onJoinPrepare (and the KIP-848
				// consumer before a revocation) commits the consumed
				// positions synchronously first, bounded by the
				// rebalance timeout.
				d, _ := cl.OptValue(kgo.RebalanceTimeout).(time.Duration)
				c.autoCommitSync(ctx, cl, d)
			}
			tps := tpsOf(m)
			if len(tps) > 0 || (!c.closing.Load() && !incremental(cl)) {
				c.rebalanced(EvRevoked, tps)
			}
		}),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			if tps := tpsOf(m); len(tps) > 0 {
				c.rebalanced(EvRevoked, tps)
			}
		}),
	}
}

// rebalanced reports an assignment or revocation to OnRebalance and as
// its event.
func (c *Consumer) rebalanced(name string, tps []TP) {
	if c.OnRebalance != nil {
		c.OnRebalance(name, tps)
	}
	if name == EvRevoked && c.watch != nil {
		gone := map[string][]int32{}
		for _, tp := range tps {
			gone[tp.Topic] = append(gone[tp.Topic], tp.Partition)
		}
		c.watch.Forget(gone)
	}
	parts := make([]PartitionData, len(tps))
	for i, tp := range tps {
		parts[i] = PartitionData{Topic: tp.Topic, Partition: tp.Partition}
	}
	c.Sink.AddLine(Event{Timestamp: nowMs(), Name: name, Parts: parts}, nil)
}

// incremental tells whether cl's group revokes partitions incrementally:
// the consumer protocol (the broker assigns), or the classic protocol with
// only cooperative assignors (Java picks the protocol every assignor
// supports, so one eager assignor makes the group eager).
func incremental(cl *kgo.Client) bool {
	if ss, _ := cl.OptValue(kgo.ServerSideBalancer).(bool); ss {
		return true
	}
	bs, _ := cl.OptValue(kgo.Balancers).([]kgo.GroupBalancer)
	for _, b := range bs {
		if !b.IsCooperative() {
			return false
		}
	}
	return len(bs) > 0
}

// autoCommitSync is Java's maybeAutoCommitOffsetsSync: a synchronous
// commit of the position after every polled record (franz-go's
// uncommitted offsets, the last poll included), bounded by d; a failure
// goes to OnAutoCommitError and is otherwise ignored.
func (c *Consumer) autoCommitSync(ctx context.Context, cl *kgo.Client, d time.Duration) {
	offsets := cl.UncommittedOffsets()
	if len(offsets) == 0 {
		return
	}
	if d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	var failed error
	cl.CommitOffsetsSync(ctx, offsets, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		if err != nil {
			failed = err
			return
		}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				if e := kerr.ErrorForCode(p.ErrorCode); e != nil && failed == nil {
					failed = e
				}
			}
		}
	})
	if failed != nil && c.OnAutoCommitError != nil {
		c.OnAutoCommitError(offsets, failed)
	}
}

// Run is VerifiableConsumer.run and its shutdown hook: startup_complete,
// the subscription to Topic, polls until MaxMessages or Stop, leaving the group, closing the client,
// shutdown_complete. The 4.x hook's shutdown_requested comes when Stop
// fires, or after shutdown_complete when the consumer finished by itself
// (the hook runs at exit then). It returns the signal that stopped the
// consumer (nil if none, or if Stop was closed).
func (c *Consumer) Run() os.Signal {
	c.Sink.AddLine(Event{Timestamp: nowMs(), Name: EvStartupComplete}, nil)
	if c.OnCorrupt != nil {
		c.watch = integrity.NewWatcher(c.Client) // before any rebalance
	}
	c.Client.AddConsumeTopics(c.Topic)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sig os.Signal
	stopped := false
	sigDone := make(chan struct{})
	go func() {
		defer close(sigDone)
		select {
		case s := <-c.Stop:
			sig, stopped = s, true
			c.Sink.AddLine(Event{Timestamp: nowMs(), Name: EvShutdownRequested}, nil)
			cancel()
		case <-ctx.Done():
		}
	}()
	var consumed int64
	finished := func() bool { return c.MaxMessages >= 0 && consumed >= c.MaxMessages }
	cl := c.Client
	for !finished() && ctx.Err() == nil {
		fs := cl.PollRecords(ctx, c.MaxPollRecords)
		for _, fe := range fs.Errors() {
			if errors.Is(fe.Err, context.Canceled) || errors.Is(fe.Err, kgo.ErrClientClosed) {
				continue
			}
			if c.OnFetchError != nil && (c.watch == nil || !integrity.Unreadable(fe)) {
				c.OnFetchError(fe.Topic, fe.Partition, fe.Err)
			}
		}
		if c.watch != nil && !c.corrupt(ctx, fs) {
			break
		}
		total := int64(fs.NumRecords())
		if total == 0 {
			cl.AllowRebalance()
			continue
		}
		var sums []PartitionData
		var commits []CommitData
		offsets := map[string]map[int32]kgo.EpochOffset{}
		fs.EachPartition(func(ft kgo.FetchTopicPartition) {
			recs := ft.Records
			if finished() || len(recs) == 0 {
				return
			}
			if c.MaxMessages >= 0 && consumed+int64(len(recs)) > c.MaxMessages {
				recs = recs[:c.MaxMessages-consumed]
			}
			if len(recs) == 0 {
				return
			}
			first, last := recs[0], recs[len(recs)-1]
			if c.watch != nil {
				c.watch.See(last)
			}
			sums = append(sums, PartitionData{Topic: ft.Topic, Partition: ft.Partition, Count: int64(len(recs)), MinOffset: first.Offset, MaxOffset: last.Offset})
			commits = append(commits, CommitData{Topic: ft.Topic, Partition: ft.Partition, Offset: last.Offset + 1})
			if offsets[ft.Topic] == nil {
				offsets[ft.Topic] = map[int32]kgo.EpochOffset{}
			}
			offsets[ft.Topic][ft.Partition] = kgo.EpochOffset{Epoch: last.LeaderEpoch, Offset: last.Offset + 1}
			if c.Verbose {
				for _, r := range recs {
					var k *string
					if r.Key != nil {
						ks := string(r.Key)
						k = &ks
					}
					v := string(r.Value)
					c.Sink.AddLine(Event{Timestamp: nowMs(), Name: EvRecordData, Key: k, Value: &v, Topic: r.Topic, Partition: r.Partition, Offset: r.Offset}, nil)
				}
			}
			consumed += int64(len(recs))
		})
		c.Sink.AddLine(Event{Timestamp: nowMs(), Name: EvRecordsConsumed, Count: total, Parts: sums}, nil)
		if c.Counters != nil {
			c.Counters.Consumed.Add(total)
		}
		if c.OnConsumed != nil {
			c.OnConsumed(sums)
		}
		if !c.AutoCommit && len(commits) > 0 {
			c.commitSync(offsets, commits)
		}
		cl.AllowRebalance()
	}
	cl.AllowRebalance()
	closeCtx, cc := context.WithTimeout(context.Background(), c.CloseTimeout)
	c.closing.Store(true)
	if c.AutoCommit {
		// KafkaConsumer.close commits the consumed positions before
		// leaving the group (and before onPartitionsRevoked).
		c.autoCommitSync(closeCtx, cl, 0)
	}
	_ = cl.LeaveGroupContext(closeCtx)
	cc()
	cl.Close()
	cancel()
	<-sigDone
	c.Sink.AddLine(Event{Timestamp: nowMs(), Name: EvShutdownComplete}, nil)
	if !stopped {
		// Apache's shutdown hook runs at JVM exit after a normal finish
		// too, and prints its event after shutdown_complete.
		c.Sink.AddLine(Event{Timestamp: nowMs(), Name: EvShutdownRequested}, nil)
	}
	return sig
}

// corrupt hands each corrupt batch the poll shows a partition stuck on to
// OnCorrupt, and seeks past it when it says so; false ends the loop. The
// error of a partition whose log reads cleanly goes to OnFetchError.
func (c *Consumer) corrupt(ctx context.Context, fs kgo.Fetches) bool {
	corrupt, unconfirmed := c.watch.Check(ctx, fs)
	for _, fe := range unconfirmed {
		if c.OnFetchError != nil {
			c.OnFetchError(fe.Topic, fe.Partition, fe.Err)
		}
	}
	for _, corr := range corrupt {
		if !c.OnCorrupt(corr) {
			return false
		}
		c.watch.Skip(c.Client, corr)
	}
	return true
}

// commitSync commits offsets and reports commits as offsets_committed,
// with the Java exception message of a failure.
func (c *Consumer) commitSync(offsets map[string]map[int32]kgo.EpochOffset, commits []CommitData) {
	var errMsg *string
	setErr := func(err error) {
		if errMsg == nil {
			m := CommitErrorMessage(err)
			errMsg = &m
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c.Client.CommitOffsetsSync(ctx, offsets, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		if err != nil {
			setErr(err)
			return
		}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				if e := kerr.ErrorForCode(p.ErrorCode); e != nil {
					setErr(e)
				}
			}
		}
	})
	ok := errMsg == nil
	c.Sink.AddLine(Event{Timestamp: nowMs(), Name: EvOffsetsCommitted, Offsets: commits, Error: errMsg, Success: &ok}, nil)
}

// CommitErrorMessage is the message of the exception Java's commitSync
// throws for err: CommitFailedException's after a rebalance, else the
// broker error's description.
func CommitErrorMessage(err error) string {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		switch ke {
		case kerr.RebalanceInProgress, kerr.IllegalGeneration, kerr.UnknownMemberID:
			return "Commit cannot be completed since the group has already rebalanced and assigned the partitions to another member. This means that the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time message processing. You can address this either by increasing max.poll.interval.ms or by reducing the maximum size of batches returned in poll() with max.poll.records."
		}
		return ke.Description
	}
	return err.Error()
}
