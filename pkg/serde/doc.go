// Package serde reads and writes the records people actually have:
// Confluent-framed Avro, Protobuf and JSON Schema (magic byte 0, a 4-byte
// schema id, for Protobuf a message index, then the payload), with schemas
// from a Confluent-compatible Schema Registry, and plain JSON, text and
// bytes. It prints nothing; kbox consume, kbox produce and the dashboard
// build on it.
//
// Libraries, not hand-written codecs: franz-go's sr (registry API,
// framing), hamba/avro (Avro schemas and data), bufbuild/protocompile with
// protobuf's dynamicpb and protojson (Protobuf), santhosh-tekuri/jsonschema
// (JSON Schema validation).
//
// # Reading
//
//	reg, err := serde.Open(registryConn)     // *config.Registry from Loader.Registry
//	d := &serde.Decoder{Registry: reg, Subjects: true}
//	v := d.Decode(ctx, rec.Value, serde.Auto) // never fails
//	// v.Format, v.JSON (compact JSON), v.Text, v.SchemaID, v.Subject,
//	// v.Version, v.Message (Protobuf), v.Err (why it is shown raw)
//
// Auto: Confluent framing → the registry; else printable UTF-8 → text;
// else base64. A value that cannot be read as asked (schema not found,
// registry unreachable, wrong schema type, bad payload) comes back raw
// (printable UTF-8 as text, else base64) with Err saying why.
//
// # Writing
//
//	e, err := reg.Encoder(ctx, "orders-value", 0, "") // 0: latest; "" or a Protobuf message name
//	b, err := e.Encode(jsonValue)                      // framed bytes; *FieldError{Path, Msg} on a mismatch
//
// # The schema cache
//
// A Registry asks for each schema id once per run (and each subject
// version a reference names, and with Decoder.Subjects each id's subjects
// once more), however many records and goroutines use it; "not found"
// and other 4xx answers are kept for the run, a failure to reach the
// registry (or a 5xx) is asked again after Registry.RetryAfter.
//
// # JSON mapping
//
// Avro: records and maps are objects (record fields in schema order, map
// keys sorted), arrays are arrays; a union is null, its value for a
// ["null", T] union, else {"branch": value} as Avro's JSON encoding writes
// it (branch: the full name of a named type, else the type name, with the
// logical type: "long.timestamp-millis"); enums and strings are strings;
// bytes and fixed are base64; decimal is a string with the scale's digits
// ("12.50"); timestamp-millis/micros are RFC 3339 UTC strings, date is
// "2006-01-02", time-millis/micros are "15:04:05.000(000)",
// local-timestamp-* have no zone; NaN and infinities are the strings "NaN",
// "Infinity", "-Infinity". Encoding takes the same forms, plus bare union
// values (null, or the first branch the value fits) and numbers for the
// time types; a field the value lacks takes its default.
//
// Protobuf: the proto3 JSON mapping (protojson) with the .proto field
// names; 64-bit integers are strings, enums their names, well-known types
// their JSON forms. Imports are the schema's references (by import path);
// google/protobuf/*.proto need none.
//
// JSON Schema: the payload is the JSON itself. References are added under
// their names, resolved against the schema (and its $id); nothing is
// fetched from the network.
package serde
