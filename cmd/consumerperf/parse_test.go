package consumerperf

import (
	"testing"
)

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
