package groups

import (
	"reflect"
	"testing"
)

func TestParseTopicArg(t *testing.T) {
	cases := []struct {
		arg   string
		topic string
		ps    []int32
		err   string
	}{
		{arg: "orders", topic: "orders"},
		{arg: "orders:0,2", topic: "orders", ps: []int32{0, 2}},
		{arg: "orders:+1", topic: "orders", ps: []int32{1}},
		{arg: "orders:", err: "Invalid topic arg 'orders:', expected topic name and partitions"},
		{arg: "a:b:c", err: "Invalid topic arg 'a:b:c', expected topic name and partitions"},
		{arg: "orders:x", err: "Invalid partition 'x' specified in topic arg 'orders:x''"},
		{arg: "orders:1,,2", err: "Invalid partition '' specified in topic arg 'orders:1,,2''"},
		{arg: "orders:99999999999", err: "Invalid partition '99999999999' specified in topic arg 'orders:99999999999''"},
	}
	for _, c := range cases {
		topic, ps, err := ParseTopicArg(c.arg)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: err %v, want %q", c.arg, err, c.err)
			}
			continue
		}
		if err != nil || topic != c.topic || !reflect.DeepEqual(ps, c.ps) {
			t.Errorf("%q: got %q %v %v", c.arg, topic, ps, err)
		}
	}
}

func TestStateNames(t *testing.T) {
	if got := javaStateName("preparingrebalance"); got != "PreparingRebalance" {
		t.Errorf("got %q", got)
	}
	if got := typeName("consumer"); got != TypeConsumer {
		t.Errorf("got %q", got)
	}
}
