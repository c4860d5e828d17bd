package jopt

import (
	"reflect"
	"strings"
	"testing"
)

// The expectations come from the real tools of Kafka 4.4.0 (jopt-simple
// 5.0.4), run without a cluster through
//
//	test/integration/testbed.sh apache TOOL ARGS
//
// with the first stderr line recorded. The commands are quoted next to
// each case; "REQ" stands for the tool's other required options, and a
// later validation error of the tool shows whether a token was consumed.

// topicsSpecs is a part of TopicCommand's parser (plus kbox's -o/--output).
var topicsSpecs = New(
	Spec{Name: "bootstrap-server", Arg: RequiredArg},
	Spec{Name: "list"}, Spec{Name: "describe"}, Spec{Name: "create"},
	Spec{Name: "topic", Arg: RequiredArg},
	Spec{Name: "partitions", Arg: RequiredArg, Type: Integer},
	Spec{Name: "output", Short: "o", Arg: RequiredArg},
	Spec{Name: "human-readable", Short: "H"},
)

// e2eSpecs is a part of EndToEndLatency's parser (optional arguments).
var e2eSpecs = New(
	Spec{Name: "num-records", Arg: RequiredArg, Type: Integer},
	Spec{Name: "producer-acks", Arg: RequiredArg},
	Spec{Name: "record-header-size", Arg: OptionalArg, Type: Integer},
	Spec{Name: "timeout", Arg: OptionalArg, Type: Long},
	Spec{Name: "command-config", Arg: OptionalArg},
)

func TestParseErrors(t *testing.T) {
	cases := []struct {
		p    *Parser
		args []string
		want string
	}{
		// kafka-topics --bootstrap-server 127.0.0.1:1 --foo
		{topicsSpecs, []string{"--bootstrap-server", "x", "--foo"}, "foo is not a recognized option"},
		// kafka-topics --lis (no abbreviations)
		{topicsSpecs, []string{"--lis"}, "lis is not a recognized option"},
		// kafka-topics --describe -xyz
		{topicsSpecs, []string{"--describe", "-xyz"}, "x is not a recognized option"},
		// kafka-topics --describe -5
		{topicsSpecs, []string{"--describe", "-5"}, "5 is not a recognized option"},
		// kafka-topics --describe --=x
		{topicsSpecs, []string{"--describe", "--=x"}, " is not a recognized option"},
		// kafka-topics --describe --topic
		{topicsSpecs, []string{"--describe", "--topic"}, "Option topic requires an argument"},
		// kafka-e2e-latency REQ --record-header-size -x: not taken, then parsed
		{e2eSpecs, []string{"--record-header-size", "-x"}, "x is not a recognized option"},
		// kafka-e2e-latency REQ --record-header-size -2.5
		{e2eSpecs, []string{"--record-header-size", "-2.5"}, "2 is not a recognized option"},
		// kafka-e2e-latency REQ --command-config -x / -5 (String: not taken)
		{e2eSpecs, []string{"--command-config", "-x"}, "x is not a recognized option"},
		{e2eSpecs, []string{"--command-config", "-5"}, "5 is not a recognized option"},
		// jopt names an option by all its names, short ones first, and
		// parses -Hx as a cluster; checked with jopt-simple-5.0.4.jar and
		// acceptsAll(asList("output", "o")).withRequiredArg(),
		// acceptsAll(asList("human-readable", "H")).
		{topicsSpecs, []string{"--output"}, "Option o/output requires an argument"},
		{topicsSpecs, []string{"-o"}, "Option o/output requires an argument"},
		{topicsSpecs, []string{"-Hx"}, "x is not a recognized option"},
	}
	for _, c := range cases {
		_, err := c.p.Parse(c.args)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v, want %q", c.args, err, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	type vals map[string][]string
	cases := []struct {
		p    *Parser
		args []string
		has  []string // options given
		want vals     // their values
		non  []string
	}{
		// kafka-topics --topic --list: "Command must include exactly one
		// action", so --list was topic's argument.
		{topicsSpecs, []string{"--topic", "--list"}, []string{"topic"}, vals{"topic": {"--list"}}, nil},
		// kafka-topics --topic -- --list: "--bootstrap-server must be
		// specified", so "--" was the argument and --list an option.
		{topicsSpecs, []string{"--topic", "--", "--list"}, []string{"topic", "list"}, vals{"topic": {"--"}}, nil},
		// kafka-topics --list=x: accepted ("--bootstrap-server must be specified").
		{topicsSpecs, []string{"--list=x"}, []string{"list"}, vals{}, nil},
		// kafka-topics --describe -topic x --create / -list=x --create:
		// "Command must include exactly one action", single-dash long names.
		{topicsSpecs, []string{"--describe", "-topic", "x", "--create"}, []string{"describe", "topic", "create"}, vals{"topic": {"x"}}, nil},
		{topicsSpecs, []string{"-list=x"}, []string{"list"}, vals{}, nil},
		// kafka-topics --describe -: "-" is a non-option argument.
		{topicsSpecs, []string{"--describe", "-", "stray"}, []string{"describe"}, vals{}, []string{"-", "stray"}},
		// kafka-topics --describe --topic=a=b --create
		{topicsSpecs, []string{"--topic=a=b", "--topic="}, []string{"topic"}, vals{"topic": {"a=b", ""}}, nil},
		{topicsSpecs, []string{"--", "--bogus"}, nil, vals{}, []string{"--bogus"}},
		// Short options: attached, =, cluster, separate (-Hojson and -Ho yaml
		// checked with jopt-simple-5.0.4.jar, as --o=json).
		{topicsSpecs, []string{"--o=json"}, []string{"output"}, vals{"output": {"json"}}, nil},
		{topicsSpecs, []string{"-ojson"}, []string{"output"}, vals{"output": {"json"}}, nil},
		{topicsSpecs, []string{"-o=json"}, []string{"output"}, vals{"output": {"json"}}, nil},
		{topicsSpecs, []string{"-Ho", "yaml"}, []string{"output", "human-readable"}, vals{"output": {"yaml"}}, nil},
		{topicsSpecs, []string{"-Hojson"}, []string{"output", "human-readable"}, vals{"output": {"json"}}, nil},
		// kafka-e2e-latency REQ --record-header-size abc --num-headers -1:
		// the num-headers check runs, so abc was not taken (not an Integer).
		{e2eSpecs, []string{"--record-header-size", "abc"}, []string{"record-header-size"}, vals{}, []string{"abc"}},
		// ... --record-header-size " 7" / 2147483648: not Integers either
		// (the tool went on to connect).
		{e2eSpecs, []string{"--record-header-size", " 7"}, []string{"record-header-size"}, vals{}, []string{" 7"}},
		{e2eSpecs, []string{"--record-header-size", "2147483648"}, []string{"record-header-size"}, vals{}, []string{"2147483648"}},
		// ... --record-header-size +7|-7|٣|"" --record-header-size 3: "Found
		// multiple arguments", so each was taken.
		{e2eSpecs, []string{"--record-header-size", "-7"}, []string{"record-header-size"}, vals{"record-header-size": {"-7"}}, nil},
		{e2eSpecs, []string{"--record-header-size", "+7"}, []string{"record-header-size"}, vals{"record-header-size": {"+7"}}, nil},
		{e2eSpecs, []string{"--record-header-size", "٣"}, []string{"record-header-size"}, vals{"record-header-size": {"٣"}}, nil},
		{e2eSpecs, []string{"--record-header-size", ""}, []string{"record-header-size"}, vals{"record-header-size": {""}}, nil},
		{e2eSpecs, []string{"--timeout", "-5"}, []string{"timeout"}, vals{"timeout": {"-5"}}, nil},
		// ... --record-header-size=abc: attached, "Cannot parse argument".
		{e2eSpecs, []string{"--record-header-size=abc"}, []string{"record-header-size"}, vals{"record-header-size": {"abc"}}, nil},
		// ... --command-config - --producer-acks 2: the acks check runs, so
		// "-" was taken; --command-config -- / --producer-acks: not taken.
		{e2eSpecs, []string{"--command-config", "-"}, []string{"command-config"}, vals{"command-config": {"-"}}, nil},
		{e2eSpecs, []string{"--command-config", "--", "--producer-acks", "2"}, []string{"command-config"}, vals{}, []string{"--producer-acks", "2"}},
		{e2eSpecs, []string{"--command-config", "--producer-acks", "2"}, []string{"command-config", "producer-acks"}, vals{"producer-acks": {"2"}}, nil},
		{e2eSpecs, []string{"--producer-acks", "2", "--command-config"}, []string{"command-config", "producer-acks"}, vals{"producer-acks": {"2"}}, nil},
	}
	for _, c := range cases {
		s, err := c.p.Parse(c.args)
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		for _, sp := range c.p.Specs() {
			want := false
			for _, h := range c.has {
				want = want || h == sp.Name
			}
			if s.Has(sp.Name) != want {
				t.Errorf("%q: Has(%s) = %v", c.args, sp.Name, !want)
			}
			if got := s.Values(sp.Name); !reflect.DeepEqual(got, c.want[sp.Name]) {
				t.Errorf("%q: Values(%s) = %q, want %q", c.args, sp.Name, got, c.want[sp.Name])
			}
		}
		if !reflect.DeepEqual(s.NonOptions, c.non) {
			t.Errorf("%q: non-options %q, want %q", c.args, s.NonOptions, c.non)
		}
	}
}

func TestValues(t *testing.T) {
	cases := []struct {
		args []string
		name string
		v    int64
		ok   bool
		err  string
	}{
		// kafka-e2e-latency REQ --num-records=abc --num-records=1
		{[]string{"--num-records=abc", "--num-records=1"}, "num-records", 0, false, "Cannot parse argument 'abc' of option num-records"},
		// kafka-e2e-latency REQ --num-records 0 --num-records=1
		{[]string{"--num-records", "0", "--num-records=1"}, "num-records", 0, false, "Found multiple arguments for option num-records, but you asked for only one"},
		// kafka-e2e-latency REQ --num-records= / --record-header-size ""
		{[]string{"--num-records="}, "num-records", 0, false, "Cannot parse argument '' of option num-records"},
		// kafka-e2e-latency REQ --num-records=٠ / =-٠ / =00: "must be a
		// positive integer", so each converted to 0.
		{[]string{"--num-records=٠"}, "num-records", 0, true, ""},
		{[]string{"--num-records=+12"}, "num-records", 12, true, ""},
		{[]string{"--num-records=2147483648"}, "num-records", 0, false, "Cannot parse argument '2147483648' of option num-records"},
		{[]string{"--timeout", "2147483648"}, "timeout", 2147483648, true, ""},
		{[]string{"--timeout"}, "timeout", 0, false, ""},
		{nil, "num-records", 0, false, ""},
	}
	for _, c := range cases {
		s, err := e2eSpecs.Parse(c.args)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		v, ok, err := s.Int(c.name)
		if got := errString(err); got != c.err || v != c.v || ok != c.ok {
			t.Errorf("%q: Int(%s) = %d, %v, %q; want %d, %v, %q", c.args, c.name, v, ok, got, c.v, c.ok, c.err)
		}
	}
	// kafka-e2e-latency REQ --bootstrap-server y (given twice)
	s, _ := topicsSpecs.Parse([]string{"--topic", "a", "--topic", "b", "--bootstrap-server", "x"})
	if _, _, err := s.Value("topic"); errString(err) != "Found multiple arguments for option topic, but you asked for only one" {
		t.Errorf("Value(topic): %v", err)
	}
	if v, ok, err := s.Value("bootstrap-server"); v != "x" || !ok || err != nil {
		t.Errorf("Value(bootstrap-server) = %q %v %v", v, ok, err)
	}
	if _, ok, err := s.Value("output"); ok || err != nil {
		t.Errorf("Value(output) = %v %v", ok, err)
	}
	// jopt-simple-5.0.4.jar, acceptsAll(asList("top", "t")) of Integer:
	// parse("-t", "1", "--top", "2") and parse("-t", "x"), then valueOf.
	p := New(Spec{Name: "top", Short: "t", Arg: RequiredArg, Type: Integer})
	s, _ = p.Parse([]string{"-t", "1", "--top", "2"})
	if _, _, err := s.Int("top"); errString(err) != "Found multiple arguments for option t/top, but you asked for only one" {
		t.Errorf("Int(top): %v", err)
	}
	s, _ = p.Parse([]string{"-t", "x"})
	if _, _, err := s.Int("top"); errString(err) != "Cannot parse argument 'x' of option t/top" {
		t.Errorf("Int(top): %v", err)
	}
}

func TestErrorToken(t *testing.T) {
	for args, want := range map[string]string{"--bogus=1": "--bogus", "-xyz": "-xyz", "--topic": "--topic"} {
		_, err := topicsSpecs.Parse(strings.Fields(args))
		if e, ok := err.(*Error); !ok || e.Token != want {
			t.Errorf("%s: %#v, want token %q", args, err, want)
		}
	}
}

func TestPadLines(t *testing.T) {
	got := PadLines("Option  Description\n------  -----------   \n--x     y\n", 12)
	want := "Option  Description\n------  -----------\n--x     y   \n"
	if got != want {
		t.Errorf("got %q want %q", got, want)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Detected is OptionSet.specs(): every detected option in command-line order,
// repeats included (kafka-configs pairs --entity-name/--entity-default with
// --entity-type by it).
func TestOrder(t *testing.T) {
	p := New(Spec{Name: "entity-type", Arg: RequiredArg}, Spec{Name: "entity-name", Arg: RequiredArg}, Spec{Name: "entity-default"}, Spec{Name: "x"}, Spec{Name: "y"})
	s, err := p.Parse([]string{"--entity-type", "users", "--entity-default", "--entity-type", "clients", "--entity-name", "c", "-xy", "--entity-default"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"entity-type", "entity-default", "entity-type", "entity-name", "x", "y", "entity-default"}
	if strings.Join(s.Detected, ",") != strings.Join(want, ",") {
		t.Fatalf("order %v, want %v", s.Detected, want)
	}
}
