package producerperf

import (
	"bytes"
	"strings"
	"testing"
)

func TestProducerArgErrors(t *testing.T) {
	base := []string{"--topic", "t", "--num-records", "5", "--throughput", "1"}
	cases := []struct {
		args []string
		want string
	}{
		{append(base[:6:6], "--record-size", "1"), "At least one of --bootstrap-server, --command-property, --producer-props, --producer.config or --command-config must be specified."},
		{[]string{"--topic", "t", "--num-records", "0", "--throughput", "1", "--record-size", "1", "--bootstrap-server", "x"}, "--num-records should be greater than zero."},
		{[]string{"--topic", "t", "--num-records", "1", "--throughput", "abc", "--record-size", "1", "--bootstrap-server", "x"}, `argument --throughput: could not convert 'abc' to Double (For input string: "abc")`},
		{append(base[:6:6], "--record-size", "1", "--producer-props"), "argument --producer-props: expected 1 argument(s)"},
		{append(base[:6:6], "--record-size", "1", "--bootstrap-server", "x", "--key-distribution", "range"), "--record-key-range is required when --key-distribution is 'range' or 'random'."},
		{append(base[:6:6], "--record-size", "1", "--bootstrap-server", "x", "--record-key-range", "3"), "--key-distribution must be 'range' or 'random' when --record-key-range is specified."},
		{append(base[:6:6], "--record-size", "1", "--bootstrap-server", "x", "--warmup-records", "5"), "The value for --warmup-records must be strictly fewer than the number of records in the test, --num-records."},
		{append(base[:6:6], "--record-size", "1", "--payload-monotonic", "--bootstrap-server", "x"), "argument --payload-monotonic: not allowed with argument --record-size"},
		{append(base[:6:6], "--record-size", "1", "--command-property", "a=b", "--producer-props", "c=d"), "--command-property and --producer-props cannot be specified together."},
	}
	for _, c := range cases {
		_, _, err := parseProducerArgs(c.args, &bytes.Buffer{}, func(string) string { return "" })
		if err == nil || err.Error() != c.want {
			t.Errorf("%v:\n got %v\nwant %s", c.args, err, c.want)
		}
	}
}

func TestProducerArgsOK(t *testing.T) {
	var out bytes.Buffer
	pa, _, err := parseProducerArgs([]string{"--top", "t", "--num-rec", "10", "--throughput", "2.5", "--record-size", "100",
		"--producer-props", "acks=1", "linger.ms=7", "--key-distribution", "random", "--record-key-range", "4"}, &out, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if pa.cfg.Topic != "t" || pa.cfg.NumRecords != 10 || pa.cfg.Throughput != 2.5 || pa.cfg.KeyRange != 4 {
		t.Fatalf("%+v", pa.cfg)
	}
	if v, _ := pa.props.Get("linger.ms"); v != "7" {
		t.Fatalf("linger.ms=%q", v)
	}
	if !strings.Contains(out.String(), "Option --producer-props has been deprecated") {
		t.Fatalf("no deprecation line: %q", out.String())
	}
}
