package verify

import (
	"context"
	"errors"
	"os"
	"time"

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
	// AutoCommit leaves committing to the client (enable.auto.commit):
	// no offsets_committed events.
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
	// OnConsumed, when set, sees each poll's per-partition summaries
	// after its records_consumed event.
	OnConsumed func(sums []PartitionData)
}

// ClientOpts are the options Client must be built with: rebalances held
// while a poll is processed, and the partitions_assigned and
// partitions_revoked events. Run subscribes to Topic itself, after
// startup_complete, as Apache does (a client built with the topic would
// start joining before it).
func (c *Consumer) ClientOpts() []kgo.Opt {
	cb := func(name string) func(context.Context, *kgo.Client, map[string][]int32) {
		return func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			tps := tpsOf(m)
			if c.OnRebalance != nil {
				c.OnRebalance(name, tps)
			}
			parts := make([]PartitionData, len(tps))
			for i, tp := range tps {
				parts[i] = PartitionData{Topic: tp.Topic, Partition: tp.Partition}
			}
			c.Sink.AddLine(Event{Timestamp: nowMs(), Name: name, Parts: parts}, nil)
		}
	}
	return []kgo.Opt{
		kgo.BlockRebalanceOnPoll(),
		kgo.OnPartitionsAssigned(cb(EvAssigned)),
		kgo.OnPartitionsRevoked(cb(EvRevoked)),
		kgo.OnPartitionsLost(cb(EvRevoked)),
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
			if c.OnFetchError != nil {
				c.OnFetchError(fe.Topic, fe.Partition, fe.Err)
			}
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

// commitSync commits offsets and reports commits as offsets_committed,
// with the Java exception message of a failure.
func (c *Consumer) commitSync(offsets map[string]map[int32]kgo.EpochOffset, commits []CommitData) {
	var errMsg *string
	setErr := func(err error) {
		if errMsg == nil {
			m := commitErrorMessage(err)
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

// commitErrorMessage is the message of the exception Java's commitSync
// throws for err: CommitFailedException's after a rebalance, else the
// broker error's description.
func commitErrorMessage(err error) string {
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
