package serde

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Format says how to read a record's key or value.
type Format string

// The formats. Auto: Confluent framing → the registry, else printable
// UTF-8 text, else bytes. Avro, Protobuf and JSONSchema: Confluent framing with a
// schema of that type (anything else is shown raw with the reason). JSON:
// plain JSON. String: the bytes as text. Bytes: base64.
const (
	Auto       Format = "auto"
	Avro       Format = "avro"
	Protobuf   Format = "protobuf"
	JSONSchema Format = "json-schema"
	JSON       Format = "json"
	String     Format = "string"
	Bytes      Format = "bytes"
	// Null is the Format of a null key or value (no bytes at all).
	Null Format = "null"
)

// Formats are the values ParseFormat accepts, in the order to list them.
var Formats = []Format{Auto, Avro, Protobuf, JSONSchema, JSON, String, Bytes}

// ParseFormat reads a format name.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if strings.EqualFold(s, string(f)) {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q (use %s)", s, strings.Join(names, ", "))
}

// NeedsRegistry reports whether reading with f may ask a registry.
func (f Format) NeedsRegistry() bool {
	return f == Auto || f == Avro || f == Protobuf || f == JSONSchema
}

func (f Format) schemaType() (sr.SchemaType, bool) {
	switch f {
	case Avro:
		return sr.TypeAvro, true
	case Protobuf:
		return sr.TypeProtobuf, true
	case JSONSchema:
		return sr.TypeJSON, true
	}
	return 0, false
}

func formatOf(t sr.SchemaType) Format {
	switch t {
	case sr.TypeAvro:
		return Avro
	case sr.TypeProtobuf:
		return Protobuf
	}
	return JSONSchema
}

// Value is a decoded key or value.
type Value struct {
	// Format is how the bytes were read: avro, protobuf, json-schema,
	// json, string, bytes, or null for no bytes. A value that could not
	// be read as asked is string (valid UTF-8) or bytes, with Err set.
	Format Format
	// JSON is the value as compact JSON for avro, protobuf, json-schema
	// and json; nil otherwise.
	JSON json.RawMessage
	// Text is what to show and search: the JSON, the UTF-8 text, or the
	// base64 of the bytes.
	Text string
	// SchemaID is the id of the Confluent framing (0 when not framed).
	SchemaID int
	// Subject and Version are where the schema is registered (set only by
	// a Decoder with Subjects; the first one when there are several).
	Subject string
	Version int
	// Message is the Protobuf message's full name.
	Message string
	// Err says why the value is shown raw; nil when it was read as asked.
	Err error
}

// raw is data shown as it is, with the reason: as text when it is
// printable UTF-8, else base64.
func raw(data []byte, id int, err error) Value {
	v := Value{SchemaID: id, Err: err}
	if printable(data) {
		v.Format, v.Text = String, string(data)
	} else {
		v.Format, v.Text = Bytes, base64.StdEncoding.EncodeToString(data)
	}
	return v
}

// printable: valid UTF-8 without control characters other than tab,
// newline and carriage return.
func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return utf8.Valid(b)
}

// header is the Confluent wire format (magic byte 0, 4-byte schema id,
// then, for Protobuf, the message index).
var header sr.ConfluentHeader

// Framed reports whether data starts with a Confluent framing and its
// schema id.
func Framed(data []byte) (int, bool) {
	if len(data) < 5 || data[0] != 0 {
		return 0, false
	}
	id, _, err := header.DecodeID(data)
	if err != nil {
		return 0, false
	}
	return id, true
}

// Decoder reads record keys and values. It is safe for concurrent use.
type Decoder struct {
	// Registry fetches the schemas; nil: framed values are shown raw.
	Registry *Registry
	// Subjects looks up the subject and version of each schema id (one
	// more request per id and run) for Value.Subject and Value.Version.
	Subjects bool
}

// Decode reads data as f says. It never fails: a value it cannot read as
// asked comes back raw with Err set.
func (d *Decoder) Decode(ctx context.Context, data []byte, f Format) Value {
	if data == nil {
		return Value{Format: Null}
	}
	switch f {
	case String:
		return Value{Format: String, Text: string(data)}
	case Bytes:
		return Value{Format: Bytes, Text: base64.StdEncoding.EncodeToString(data)}
	case JSON:
		js, err := (&jsonSchemaCodec{}).decode(data)
		if err != nil {
			return raw(data, 0, fmt.Errorf("not JSON: %w", errors.Unwrap(err)))
		}
		return Value{Format: JSON, JSON: js, Text: string(js)}
	}
	id, framed := Framed(data)
	if !framed {
		if f == Auto {
			return raw(data, 0, nil)
		}
		return raw(data, 0, fmt.Errorf("not Confluent-framed (no magic byte 0 and schema id), so not %s", f))
	}
	if d.Registry == nil {
		return raw(data, id, fmt.Errorf("framed with schema id %d, but no schema registry is configured", id))
	}
	s, err := d.Registry.SchemaByID(ctx, id)
	if err != nil {
		return raw(data, id, err)
	}
	if want, ok := f.schemaType(); ok && want != s.Type {
		return raw(data, id, fmt.Errorf("schema %d is %s, not %s", id, s.Type, strings.ToUpper(string(f))))
	}
	v := Value{Format: formatOf(s.Type), SchemaID: id}
	_, payload, _ := header.DecodeID(data)
	var js []byte
	switch {
	case s.avro != nil:
		js, err = s.avro.decode(payload)
	case s.proto != nil:
		var index []int
		index, payload, err = header.DecodeIndex(payload, 64)
		if err != nil {
			err = fmt.Errorf("protobuf message index: %w", err)
			break
		}
		js, v.Message, err = s.proto.decode(payload, index)
	case s.json != nil:
		js, err = s.json.decode(payload)
	}
	if err != nil {
		return raw(data, id, fmt.Errorf("schema %d: %w", id, err))
	}
	v.JSON, v.Text = js, string(js)
	if d.Subjects {
		if svs, err := d.Registry.SubjectsOf(ctx, id); err == nil && len(svs) > 0 {
			v.Subject, v.Version = svs[0].Subject, svs[0].Version
		}
	}
	return v
}

// Encoder turns JSON values into Confluent-framed bytes with the schema of
// one subject version. It is safe for concurrent use.
type Encoder struct {
	Subject string
	Version int
	Schema  *Schema
	// Message is the Protobuf message encoded (its full name).
	Message string

	index []int
	md    protoreflect.MessageDescriptor
	// prefix is the framing: magic byte, schema id, message index.
	prefix []byte
}

// ParseSubjectVersion reads SUBJECT[:VERSION] (VERSION a number or
// "latest"); version 0 means the latest.
func ParseSubjectVersion(s string) (subject string, version int, err error) {
	subject = s
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		tail := s[i+1:]
		if tail == "latest" {
			return s[:i], 0, nil
		}
		if n, err := strconv.Atoi(tail); err == nil {
			if n <= 0 {
				return "", 0, fmt.Errorf("%q: the version must be a positive number or latest", s)
			}
			subject, version = s[:i], n
		}
	}
	if subject == "" {
		return "", 0, fmt.Errorf("%q: no subject", s)
	}
	return subject, version, nil
}

// Encoder looks up subject's version (0: the latest, at this moment) and
// returns an encoder with its schema. message picks the Protobuf message
// (full name or relative to the package; "": the first one) and must be
// "" for the other types.
func (r *Registry) Encoder(ctx context.Context, subject string, version int, message string) (*Encoder, error) {
	v := version
	if v == 0 {
		v = -1
	}
	ss, err := r.SubjectVersion(ctx, subject, v)
	if err != nil {
		return nil, err
	}
	s, err := r.SchemaByID(ctx, ss.ID)
	if err != nil {
		return nil, err
	}
	e := &Encoder{Subject: subject, Version: ss.Version, Schema: s}
	if s.proto != nil {
		e.index, e.md, err = s.proto.indexOf(message)
		if err != nil {
			return nil, fmt.Errorf("subject %s version %d: %w", subject, ss.Version, err)
		}
		e.Message = string(e.md.FullName())
	} else if message != "" {
		return nil, fmt.Errorf("subject %s version %d is %s: a message name is for Protobuf schemas only", subject, ss.Version, s.Type)
	}
	e.prefix, err = header.AppendEncode(nil, s.ID, e.index)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Encode validates a JSON value against the schema and returns the framed
// record bytes. A value that does not match is a *FieldError.
func (e *Encoder) Encode(js []byte) ([]byte, error) {
	var payload []byte
	var err error
	switch {
	case e.Schema.avro != nil:
		payload, err = e.Schema.avro.encode(js)
	case e.Schema.proto != nil:
		payload, err = e.Schema.proto.encode(js, e.md)
	case e.Schema.json != nil:
		payload, err = e.Schema.json.encode(js)
	}
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(e.prefix)+len(payload))
	return append(append(out, e.prefix...), payload...), nil
}
