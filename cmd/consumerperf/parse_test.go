package consumerperf

import (
	"testing"

	"github.com/kboxdev/kbox/pkg/jopt"
)

func TestConsumerJopt(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "bogus is not a recognized option"},
		{[]string{"--num-records"}, "Option num-records requires an argument"},
	}
	for _, c := range cases {
		_, err := jopt.Parse(c.args, consumerSpec)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: got %v want %s", c.args, err, c.want)
		}
	}
	s, err := jopt.Parse([]string{"--topic", "x", "pos", "--timeout", "--num-records=5", "--topic", "y"}, consumerSpec)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.One("topic"); err == nil || err.Error() != "Found multiple arguments for option topic, but you asked for only one" {
		t.Fatalf("got %v", err)
	}
	o, err := consumerOptions(&jopt.Set{Values: map[string][]string{"num-records": {"abc"}}, Has: map[string]bool{"num-records": true}}, "g")
	if err == nil || err.Error() != "Cannot parse argument 'abc' of option num-records" || o != nil {
		t.Fatalf("got %v", err)
	}
}
