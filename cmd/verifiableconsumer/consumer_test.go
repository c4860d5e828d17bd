package verifiableconsumer

import (
	"testing"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/twmb/franz-go/pkg/kgo"
)

func TestJavaOffsets(t *testing.T) {
	got := javaOffsets(map[string]map[int32]kgo.EpochOffset{
		"t": {10: {Epoch: -1, Offset: 5}, 2: {Epoch: 3, Offset: 7}},
		"a": {0: {Epoch: 0, Offset: 0}},
	})
	want := "{a-0=OffsetAndMetadata{offset=0, leaderEpoch=0, metadata=''}, t-2=OffsetAndMetadata{offset=7, leaderEpoch=3, metadata=''}, t-10=OffsetAndMetadata{offset=5, leaderEpoch=null, metadata=''}}"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := javaOffsets(nil); got != "{}" {
		t.Errorf("empty: %s", got)
	}
}

// TestUnsupported: ConsumerConfig's refusals, in Java's order (measured
// against the 4.4 tool on the test bed).
func TestUnsupported(t *testing.T) {
	props := func(kv ...string) *config.Properties {
		p := config.NewProperties()
		for i := 0; i < len(kv); i += 2 {
			p.Set(kv[i], kv[i+1])
		}
		return p
	}
	cases := []struct {
		p        *config.Properties
		protocol string
		want     string
	}{
		{props("session.timeout.ms", "1", "heartbeat.interval.ms", "1", "partition.assignment.strategy", "x"), "CONSUMER",
			"partition.assignment.strategy, heartbeat.interval.ms, session.timeout.ms cannot be set when group.protocol=CONSUMER"},
		{props("session.timeout.ms", "1"), "CONSUMER", "session.timeout.ms cannot be set when group.protocol=CONSUMER"},
		{props("session.timeout.ms", "1", "heartbeat.interval.ms", "1", "partition.assignment.strategy", "x"), "CLASSIC", ""},
		{props("group.remote.assignor", "uniform"), "CLASSIC", "group.remote.assignor cannot be set when group.protocol=CLASSIC"},
		{props("group.remote.assignor", "uniform"), "CONSUMER", ""},
	}
	for _, c := range cases {
		if got := unsupported(c.p, c.protocol); got != c.want {
			t.Errorf("%v %s: %q, want %q", c.p.Map(), c.protocol, got, c.want)
		}
	}
}
