package console

import (
	"errors"
	"regexp"
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/kboxdev/kbox/pkg/serde"
)

// TestDecodedRecordJSONGolden pins `kbox consume -o json` with
// --key-format/--value-format: decoded values are JSON with their format,
// schema id, subject and version; raw ones carry the reason (docs/json.md).
func TestDecodedRecordJSONGolden(t *testing.T) {
	rec := Record{Topic: "orders", Partition: 0, Offset: 5, Timestamp: 1700000000000, TimestampType: CreateTime}
	cases := []Decoded{
		{ // Avro value, raw key
			Key:   Shown{Raw: []byte("k1")},
			Value: Shown{Decoded: true, Value: serde.Value{Format: serde.Avro, JSON: []byte(`{"id":1,"total":"12.50"}`), SchemaID: 7, Subject: "orders-value", Version: 2}},
		},
		{ // Protobuf value, string key
			Key:   Shown{Decoded: true, Value: serde.Value{Format: serde.String, Text: "k2"}},
			Value: Shown{Decoded: true, Value: serde.Value{Format: serde.Protobuf, JSON: []byte(`{"id":"2"}`), SchemaID: 8, Subject: "orders-value", Version: 3, Message: "shop.Order.Line"}},
		},
		{ // a schema the registry does not have: raw with the reason; null key
			Key:   Shown{Decoded: true, Value: serde.Value{Format: serde.Null}},
			Value: Shown{Decoded: true, Value: serde.Value{Format: serde.Bytes, Text: "AAAAA+cC", SchemaID: 999, Err: errors.New("schema 999: Schema not found (HTTP 404)")}},
		},
		{ // framed, subject unknown; plain JSON key
			Key:   Shown{Decoded: true, Value: serde.Value{Format: serde.JSON, JSON: []byte(`{"k":1}`)}},
			Value: Shown{Decoded: true, Value: serde.Value{Format: serde.JSONSchema, JSON: []byte(`[1,2]`), SchemaID: 9}},
		},
	}
	var out []byte
	for _, d := range cases {
		line := rec.AppendDecodedJSON(nil, &d)
		golden.SnakeKeys(t, line)
		out = append(append(out, line...), '\n')
	}
	golden.Check(t, "record-decoded.json.golden", out)
}

func TestMaskJSON(t *testing.T) {
	re := regexp.MustCompile(`(?i)^(password|card)$`)
	for in, want := range map[string]string{
		`{"user":"a","password":"x"}`:                                  `{"user":"a","password":"***"}`,
		` {"a":{"b":[{"Card":{"n":[1,2]},"c":true}],"password":null}}`: `{"a":{"b":[{"Card":"***","c":true}],"password":"***"}}`,
		`[{"password":[1,[2]]},{"x":1.50e3}]`:                          `[{"password":"***"},{"x":1.50e3}]`,
		`{"q":"\u003c\"é\n"}`:                                          "", // nothing masked
		`"password"`:                                                   "", // not an object or array
		`{"password":1} {}`:                                            "", // two values
		`{"password":`:                                                 "", // not JSON
		`{"passwords":1,"card":{}}`:                                    `{"passwords":1,"card":"***"}`,
	} {
		got, ok := MaskJSON([]byte(in), re)
		if ok != (want != "") || ok && string(got) != want {
			t.Errorf("%s: %q %v, want %q", in, got, ok, want)
		}
	}
}
