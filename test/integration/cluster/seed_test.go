//go:build integration

package cluster_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// seed creates a topic and groups of three types: two classic groups with
// no protocol (committed offsets only, one with a name wider than the
// table's 20 columns), a consumer group (ConsumerGroupHeartbeat) and a
// share group (ShareGroupHeartbeat).
func seed() error {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bed.Bootstrap, ",")...))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 3, 3, nil, "orders"); err != nil {
		return fmt.Errorf("create orders: %w", err)
	}
	for _, g := range []string{"simple", "a-classic-group-with-a-rather-long-name"} {
		var o kadm.Offsets
		o.Add(kadm.Offset{Topic: "orders", Partition: 0, At: 0, LeaderEpoch: -1})
		// The group's coordinator may not know the new topic yet
		// (UNKNOWN_TOPIC_OR_PARTITION, retriable): retry as a client would.
		if err := retry(ctx, func() error { return adm.CommitAllOffsets(ctx, g, o) }); err != nil {
			return fmt.Errorf("commit %s: %w", g, err)
		}
	}
	if err := heartbeat(ctx, cl, "next-gen", func() kmsg.Request {
		r := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		r.Group, r.MemberID, r.RebalanceTimeoutMillis = "next-gen", memberID(), 30000
		r.SubscribedTopicNames = []string{"orders"}
		r.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{} // a join names an empty assignment
		return r
	}); err != nil {
		return err
	}
	return heartbeat(ctx, cl, "sharing", func() kmsg.Request {
		r := kmsg.NewPtrShareGroupHeartbeatRequest()
		r.GroupID, r.MemberID = "sharing", memberID()
		r.SubscribedTopicNames = []string{"orders"}
		return r
	})
}

// heartbeat sends a group's coordinator one heartbeat that joins a new
// member (creating the group), retrying while the coordinator loads.
func heartbeat(ctx context.Context, cl *kgo.Client, group string, req func() kmsg.Request) error {
	if err := retry(ctx, func() error { return heartbeatOnce(ctx, cl, group, req()) }); err != nil {
		return fmt.Errorf("%s: %w", group, err)
	}
	return nil
}

// retry calls f until it succeeds, fails with an error that is not
// retriable, or ctx ends.
func retry(ctx context.Context, f func() error) error {
	for {
		err := f()
		if err == nil || ctx.Err() != nil {
			return err
		}
		if !kerr.IsRetriable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func heartbeatOnce(ctx context.Context, cl *kgo.Client, group string, req kmsg.Request) error {
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.CoordinatorKeys = []string{group}
	fr, err := fc.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	if len(fr.Coordinators) != 1 {
		return kerr.CoordinatorNotAvailable
	}
	c := fr.Coordinators[0]
	if err := kerr.ErrorForCode(c.ErrorCode); err != nil {
		return err
	}
	resp, err := cl.Broker(int(c.NodeID)).Request(ctx, req)
	if err != nil {
		return err
	}
	switch r := resp.(type) {
	case *kmsg.ConsumerGroupHeartbeatResponse:
		return kerr.ErrorForCode(r.ErrorCode)
	case *kmsg.ShareGroupHeartbeatResponse:
		return kerr.ErrorForCode(r.ErrorCode)
	}
	return fmt.Errorf("unexpected response %T", resp)
}

func memberID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// controllers is the bed's controller listeners, from node 1's
// controller.quorum.voters (id@host:port,...).
func controllers() (string, error) {
	f, err := os.Open(filepath.Join(bed.Dir, "n1", "server.properties"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "controller.quorum.voters=")
		if !ok {
			continue
		}
		var out []string
		for _, voter := range strings.Split(v, ",") {
			_, addr, _ := strings.Cut(voter, "@")
			out = append(out, addr)
		}
		return strings.Join(out, ","), nil
	}
	return "", fmt.Errorf("no controller.quorum.voters in n1/server.properties")
}
