package perf

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

func TestConsumerJopt(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "bogus is not a recognized option"},
		{[]string{"--num-records"}, "Option num-records requires an argument"},
		// kafka-e2e-latency REQ --command-config -5: an optional String
		// argument does not take an option-like token.
		{[]string{"--timeout", "-x"}, "x is not a recognized option"},
		// kafka-topics --describe -xyz: a cluster of one-letter options.
		{[]string{"-xyz"}, "x is not a recognized option"},
	}
	for _, c := range cases {
		_, err := consumerParser.Parse(c.args)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: got %v want %s", c.args, err, c.want)
		}
	}
	// kafka-consumer-perf-test --bootstrap-server x --topic --num-records 5
	// says "Exactly one of the following arguments is required: [messages],
	// [num-records]": a required argument is the next token, whatever it is.
	s, err := consumerParser.Parse([]string{"--topic", "--num-records", "5"})
	if err != nil || s.Values("topic")[0] != "--num-records" || s.Has("num-records") {
		t.Fatalf("--topic --num-records: %v %v", s, err)
	}
	s, err = consumerParser.Parse([]string{"--topic", "x", "pos", "--timeout", "--num-records=5", "--topic", "y"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Value("topic"); err == nil || err.Error() != "Found multiple arguments for option topic, but you asked for only one" {
		t.Fatalf("got %v", err)
	}
	s, err = consumerParser.Parse([]string{"--num-records", "abc"})
	if err != nil {
		t.Fatal(err)
	}
	o, err := consumerOptions(s, "g")
	if err == nil || err.Error() != "Cannot parse argument 'abc' of option num-records" || o != nil {
		t.Fatalf("got %v", err)
	}
}
