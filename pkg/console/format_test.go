package console

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func rec() *kgo.Record {
	return &kgo.Record{Topic: "t", Partition: 2, Offset: 7, Timestamp: time.UnixMilli(1700000000123),
		Key: []byte("k"), Value: []byte("v"), Headers: []kgo.RecordHeader{{Key: "a", Value: []byte("1")}, {Key: "b", Value: nil}}}
}

func TestDefaultFormatter(t *testing.T) {
	all := map[string]string{"print.timestamp": "true", "print.key": "true", "print.offset": "true", "print.partition": "true",
		"print.headers": "true", "print.delivery": "true", "print.epoch": "true"}
	cases := []struct {
		props map[string]string
		r     *kgo.Record
		want  string
	}{
		{nil, rec(), "v\n"},
		{all, rec(), "CreateTime:1700000000123\tPartition:2\tOffset:7\tDelivery:NOT_PRESENT\tEpoch:NOT_PRESENT\ta:1,b:null\tk\tv\n"},
		{map[string]string{"print.key": "true", "print.value": "false", "null.literal": "N"}, &kgo.Record{}, "N\n"},
		{map[string]string{"print.key": "true", "print.value": "false", "line.separator": "|"}, rec(), "k|"},
		{map[string]string{"print.headers": " TRUE ", "headers.separator": ";", "key.separator": "--"}, rec(), "a:1;b:null--v\n"},
		{map[string]string{"print.headers": "true", "print.key": "yes"}, &kgo.Record{Value: []byte{0xff}}, "NO_HEADERS\t\xff\n"},
		{map[string]string{"print.timestamp": "true", "print.value": "false"}, rec(), "CreateTime:1700000000123\n"},
		{map[string]string{"print.offset": "true", "print.value": "false", "print.key": "false"}, rec(), "Offset:7\n"},
		{map[string]string{"value.deserializer": "org.apache.kafka.common.serialization.IntegerDeserializer"}, &kgo.Record{Value: []byte{0, 0, 1, 0}}, "256\n"},
		{map[string]string{"value.deserializer": "org.apache.kafka.common.serialization.StringDeserializer"}, &kgo.Record{Value: []byte{'a', 0xff, 'b'}}, "a\uFFFDb\n"},
	}
	for _, c := range cases {
		f, warns := NewDefaultFormatter(c.props)
		if len(warns) > 0 {
			t.Fatal(warns)
		}
		got, err := f.Append(nil, c.r)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("%v:\ngot  %q\nwant %q", c.props, got, c.want)
		}
	}
	f, _ := NewDefaultFormatter(map[string]string{"key.deserializer": "org.apache.kafka.common.serialization.LongDeserializer", "print.key": "true"})
	if _, err := f.Append(nil, rec()); err == nil || !strings.Contains(err.Error(), "Size of data received by LongDeserializer is not 8") {
		t.Errorf("LongDeserializer on 1 byte: %v", err)
	}
	if _, warns := NewDefaultFormatter(map[string]string{"key.deserializer": "no.Such"}); len(warns) != 1 {
		t.Errorf("unknown deserializer: %v", warns)
	}
}

func TestFormatString(t *testing.T) {
	r := rec()
	r.Attrs = kgo.RecordAttrs{}
	cases := map[string]string{
		`%t %p %o %k %v %h`: "t 2 7 k v a=1,b=",
		`%s|%S|%K|%V|%T|%Y`: "v|1|1|1|1700000000123|CreateTime",
		`100%% \t\n\r\\\0x`: "100% \t\n\r\\\x00x",
		`plain`:             "plain",
		`%k%v`:              "kv",
	}
	for in, want := range cases {
		f, err := CompileFormat(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		got, _ := f.Append(nil, r)
		if string(got) != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
	null := &kgo.Record{}
	f, _ := CompileFormat(`[%k][%v][%K][%V]`)
	if got, _ := f.Append(nil, null); string(got) != "[][][-1][-1]" {
		t.Errorf("nulls: %q", got)
	}
	for _, bad := range []string{`%z`, `%`, `\`, `\q`} {
		if _, err := CompileFormat(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseStartAndTime(t *testing.T) {
	now := time.UnixMilli(1_000_000_000)
	for in, want := range map[string]int64{"15m": 1_000_000_000 - 900_000, "1d": 1_000_000_000 - 86_400_000, "1d1h": 1_000_000_000 - 90_000_000, "12345": 12345, "1970-01-01T00:00:01Z": 1000} {
		got, err := ParseTime(in, now)
		if err != nil || got != want {
			t.Errorf("ParseTime(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"yesterday", "-5m", ""} {
		if _, err := ParseTime(bad, now); err == nil {
			t.Errorf("ParseTime(%q): no error", bad)
		}
	}
	for in, want := range map[string]Start{"earliest": {Kind: StartEarliest}, "LATEST": {Kind: StartLatest}, "5": {Kind: StartOffset, Value: 5}, "-3": {Kind: StartFromEnd, Value: 3}, "@12": {Kind: StartTimestamp, Value: 12}} {
		got, err := ParseStart(in)
		if err != nil || got != want {
			t.Errorf("ParseStart(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	_, per, err := ParseStarts("0=-1, 3=earliest")
	if err != nil || len(per) != 2 || per[0] != (Start{Kind: StartFromEnd, Value: 1}) || per[3].Kind != StartEarliest {
		t.Errorf("ParseStarts: %v %v", per, err)
	}
	for _, bad := range []string{"x", "a=1", "0=x", "-1=5"} {
		if _, _, err := ParseStarts(bad); err == nil {
			t.Errorf("ParseStarts(%q): no error", bad)
		}
	}
}
