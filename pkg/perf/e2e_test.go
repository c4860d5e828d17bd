package perf

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Values of `new java.util.Random(0).nextInt(26)` x12, from jshell (Java 17).
func TestJavaRandomMatchesJava(t *testing.T) {
	want := []int32{18, 18, 23, 21, 13, 9, 7, 15, 3, 16, 3, 23}
	r := NewJavaRandom(0)
	for i, w := range want {
		if g := r.Intn(26); g != w {
			t.Fatalf("draw %d: got %d want %d", i, g, w)
		}
	}
	// power-of-two bound path: new Random(0).nextInt(16) is 11 in Java
	// ((16 * next(31)) >> 31 of the first draw, whose next(31) is 1569741360).
	if g := NewJavaRandom(0).Intn(16); g != 11 {
		t.Fatalf("nextInt(16): got %d want 11", g)
	}
}

func TestE2ERecordDrawOrder(t *testing.T) {
	cfg := &E2EConfig{Topic: "t", KeySize: 2, RecordSize: 3, NumHeaders: 2, HeaderKeySize: 1, HeaderValueSize: -1}
	r := e2eRecord(NewJavaRandom(0), cfg)
	// draws: key 18 (S), value 18 (S), header keys 23 (X), 21 (V); null values draw nothing
	if string(r.Key) != "SS" || string(r.Value) != "SSS" || len(r.Headers) != 2 ||
		r.Headers[0].Key != "X" || r.Headers[1].Key != "V" || r.Headers[0].Value != nil {
		t.Fatalf("record: key %q value %q headers %+v", r.Key, r.Value, r.Headers)
	}
	// a zero-size key is empty but not null, and still consumes a draw
	r = e2eRecord(NewJavaRandom(0), &E2EConfig{RecordSize: 1})
	if r.Key == nil || len(r.Key) != 0 || string(r.Value) != "S" {
		t.Fatalf("zero key: key %#v value %q", r.Key, r.Value)
	}
}

func TestE2EValidateMessages(t *testing.T) {
	sent := &kgo.Record{Key: []byte("K"), Value: []byte("AAA"), Headers: []kgo.RecordHeader{{Key: "h", Value: []byte{65}}}}
	ok := &kgo.Record{Key: []byte("K"), Value: []byte("AAA"), Headers: []kgo.RecordHeader{{Key: "h", Value: []byte{65}}}}
	cases := []struct {
		got  []*kgo.Record
		want string
	}{
		{nil, "poll() timed out before finding a result (timeout:[60000ms])"},
		{[]*kgo.Record{{Key: []byte("K"), Value: []byte("BBB")}}, "The message value read [BBB] did not match the message value sent [AAA]"},
		{[]*kgo.Record{{Value: []byte("AAA")}}, "Expected message key but received null"},
		{[]*kgo.Record{{Key: []byte("Q"), Value: []byte("AAA")}}, "The message key read [Q] did not match the message key sent [K]"},
		{[]*kgo.Record{{Key: []byte("K"), Value: []byte("AAA")}}, "Expected message headers but received none"},
		{[]*kgo.Record{{Key: []byte("K"), Value: []byte("AAA"), Headers: []kgo.RecordHeader{{Key: "h", Value: []byte{66, 200}}}}},
			"The message header read [h:[66, -56]] did not match the message header sent [h:[65]]"},
		{[]*kgo.Record{{Key: []byte("K"), Value: []byte("AAA"), Headers: []kgo.RecordHeader{{Key: "h", Value: []byte{65}}, {Key: "x"}}}},
			"Header count mismatch between sent and received messages"},
		{[]*kgo.Record{ok, ok}, "Only one result was expected during this test. We found [2]"},
		{[]*kgo.Record{ok}, ""},
	}
	for i, c := range cases {
		if g := e2eValidate(sent, c.got, E2EPollTimeout); g != c.want {
			t.Errorf("case %d:\n got %q\nwant %q", i, g, c.want)
		}
	}
	nullHdr := &kgo.Record{Key: []byte{}, Value: []byte{}, Headers: []kgo.RecordHeader{{Key: "h"}}}
	if g := e2eValidate(nullHdr, []*kgo.Record{{Key: []byte{}, Value: []byte{}, Headers: []kgo.RecordHeader{{Key: "h", Value: []byte{}}}}}, time.Second); g != "The message header read [h:[]] did not match the message header sent [h:null]" {
		t.Errorf("null header: %q", g)
	}
}

func TestE2EProgressLine(t *testing.T) {
	cases := map[time.Duration]string{
		26187541 * time.Nanosecond:  "26.187541",
		1482152 * time.Nanosecond:   "1.4821520000000001", // seen from the real tool: two divisions by 1000.0
		3 * time.Millisecond:        "3.0",
		500 * time.Nanosecond:       "5.0E-4",
		12345678 * time.Millisecond: "1.2345678E7",
	}
	for d, want := range cases {
		if g := E2EProgressLine(1000, d); g != "1000\t"+want {
			t.Errorf("%v: got %q want %q", d, g, "1000\t"+want)
		}
	}
}

func TestWriteApacheE2ESummary(t *testing.T) {
	var b bytes.Buffer
	// 10 records: 1..10 ms plus a little; index (int)(10*0.5)=5 -> 6 ms,
	// (int)(9.9)=9 -> 10 ms, (int)(9.99)=9 -> 10 ms
	var ns []int64
	for i := 10; i >= 1; i-- {
		ns = append(ns, int64(i)*1_000_000+123_456)
	}
	if err := WriteApacheE2ESummary(&b, ns); err != nil {
		t.Fatal(err)
	}
	want := "Avg latency: 5.6235 ms\nPercentiles: 50th = 6, 99th = 10, 99.9th = 10\n"
	if b.String() != want {
		t.Fatalf("got %q want %q", b.String(), want)
	}
	// HALF_UP on the shortest representation: 0.00005 ms avg -> 0.0001
	b.Reset()
	_ = WriteApacheE2ESummary(&b, []int64{50})
	if !strings.HasPrefix(b.String(), "Avg latency: 0.0001 ms\nPercentiles: 50th = 0,") {
		t.Fatalf("rounding: %q", b.String())
	}
	if err := WriteApacheE2ESummary(&b, nil); err == nil {
		t.Fatal("empty run must fail")
	}
}
