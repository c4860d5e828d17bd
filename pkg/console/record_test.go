package console

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
)

func TestRecordJSONSchema(t *testing.T) {
	r := Record{Topic: "t", Partition: 0, Offset: 5, Timestamp: 1700000000000, TimestampType: CreateTime,
		Key: []byte("k"), Value: []byte("v"), Headers: []Header{{Key: "h", Value: []byte("x")}}}
	want := `{"topic":"t","partition":0,"offset":5,"timestamp":1700000000000,"timestamp_type":"CreateTime","key":"k","value":"v","headers":[{"key":"h","value":"x"}]}`
	if got := string(r.AppendJSON(nil)); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestRecordJSONNullsBinaryEscapes(t *testing.T) {
	r := Record{Topic: "a\"b", Partition: 3, Offset: 0, Timestamp: -1, TimestampType: NoTimestampType,
		Key: nil, Value: []byte{0xff, 0x00, 0x01}, Headers: []Header{{Key: "n", Value: nil}, {Key: "b", Value: []byte{0xc3}}, {Key: "e", Value: []byte{}}}}
	want := `{"topic":"a\"b","partition":3,"offset":0,"timestamp":-1,"timestamp_type":"NoTimestampType","key":null,"value":"/wAB","value_encoding":"base64","headers":[{"key":"n","value":null},{"key":"b","value":"ww==","value_encoding":"base64"},{"key":"e","value":""}]}`
	got := r.AppendJSON(nil)
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if !json.Valid(got) {
		t.Fatal("invalid JSON")
	}
	// Control characters and non-ASCII UTF-8 stay strings, escaped as JSON requires.
	r = Record{Value: []byte("é\n\t\r\\\x01\x1f€"), Key: []byte{}}
	got = r.AppendJSON(nil)
	var m map[string]any
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if m["value"] != "é\n\t\r\\\x01\x1f€" || m["key"] != "" || m["value_encoding"] != nil {
		t.Fatalf("decoded %v from %s", m, got)
	}
}

func TestRecordJSONRoundTrip(t *testing.T) {
	cases := []Record{
		{Topic: "t", Partition: 1, Offset: 9, Timestamp: 1, TimestampType: CreateTime, Key: []byte("k"), Value: []byte("v")},
		{Topic: "t", Partition: 0, Offset: 0, Timestamp: 2, TimestampType: LogAppendTime, Key: nil, Value: nil},
		{Topic: "t", Partition: 2, Offset: 3, Timestamp: 3, TimestampType: CreateTime, Key: []byte{0x80, 'a'}, Value: []byte{},
			Headers: []Header{{Key: "x", Value: nil}, {Key: "y", Value: []byte{0xfe}}, {Key: "", Value: []byte("z\"")}}},
	}
	for _, c := range cases {
		line := c.AppendJSON(nil)
		got, err := DecodeJSON(append(line, '\n'))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Fatalf("round trip of %s:\ngot  %#v\nwant %#v", line, got, c)
		}
		// encoding/json agrees with AppendJSON.
		viaStd, _ := json.Marshal(c)
		if !bytes.Equal(viaStd, line) {
			t.Fatalf("json.Marshal %s != AppendJSON %s", viaStd, line)
		}
	}
}

func TestRecordJSONDecodeDefaultsAndErrors(t *testing.T) {
	r, err := DecodeJSON([]byte(`{"value":"v","extra":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Partition != -1 || r.Offset != -1 || r.Timestamp != -1 || r.Key != nil || string(r.Value) != "v" || r.Headers != nil {
		t.Fatalf("defaults: %#v", r)
	}
	if kr := r.ToKgo(); !kr.Timestamp.IsZero() || kr.Partition != -1 {
		t.Fatalf("ToKgo: %#v", kr)
	}
	for _, bad := range []string{
		`{"value":"!!","value_encoding":"base64"}`,
		`{"key":"a","key_encoding":"hex"}`,
		`{"headers":[{"key":"h","value":"%","value_encoding":"base64"}]}`,
		`{"value":`,
		`{"partition":"x"}`,
	} {
		if _, err := DecodeJSON([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestRecordJSONGolden pins `kbox consume -o json` (one object per line;
// the input of `kbox produce -f json`): see docs/json.md.
func TestRecordJSONGolden(t *testing.T) {
	recs := []Record{
		{Topic: "orders", Partition: 0, Offset: 5, Timestamp: 1700000000000, TimestampType: CreateTime, Key: []byte("k"), Value: []byte("v"), Headers: []Header{{Key: "h", Value: []byte("x")}}},
		{Topic: "orders", Partition: 1, Offset: 0, Timestamp: 1700000000001, TimestampType: LogAppendTime, Key: nil, Value: nil, Headers: []Header{{Key: "n", Value: nil}}},
		{Topic: "orders", Partition: 2, Offset: 9, Timestamp: 1700000000002, TimestampType: CreateTime, Key: []byte{0xff, 0x01}, Value: []byte("é\n\"q\""), Headers: []Header{{Key: "bin", Value: []byte{0x80}}}},
	}
	var out []byte
	for _, r := range recs {
		line := r.AppendJSON(nil)
		golden.SnakeKeys(t, line)
		out = append(append(out, line...), '\n')
	}
	golden.Check(t, "record.json.golden", out)
}
