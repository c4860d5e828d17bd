package console

import (
	"encoding/json"
	"fmt"

	"github.com/kboxdev/kbox/pkg/serde"
)

// EncodeError is a record whose key or value does not match its schema
// (kbox produce --key-schema/--value-schema): the records before it were
// handed to the producer.
type EncodeError struct {
	// Record is the record's number in the input (1 is the first).
	Record int64
	// Side is "key" or "value".
	Side    string
	Encoder *serde.Encoder
	Err     error
}

func (e *EncodeError) Error() string {
	return fmt.Sprintf("record %d: the %s does not match subject %s version %d (schema %d): %v",
		e.Record, e.Side, e.Encoder.Subject, e.Encoder.Version, e.Encoder.Schema.ID, e.Err)
}

func (e *EncodeError) Unwrap() error { return e.Err }

// EncodingSource encodes each record's key and value, JSON text, with a
// registered schema (nil Key or Value: left as it is; a null key or value
// stays null). A record that does not match ends the source with an
// *EncodeError.
type EncodingSource struct {
	Source
	Key, Value *serde.Encoder
	n          int64
}

// Next returns the next record, encoded.
func (s *EncodingSource) Next() (Record, error) {
	r, err := s.Source.Next()
	if err != nil {
		return r, err
	}
	s.n++
	if s.Key != nil && r.Key != nil {
		b, err := s.Key.Encode(r.Key)
		if err != nil {
			return Record{}, &EncodeError{Record: s.n, Side: "key", Encoder: s.Key, Err: err}
		}
		r.Key = b
	}
	if s.Value != nil && r.Value != nil {
		b, err := s.Value.Encode(r.Value)
		if err != nil {
			return Record{}, &EncodeError{Record: s.n, Side: "value", Encoder: s.Value, Err: err}
		}
		r.Value = b
	}
	return r, nil
}

// decodeJSONRaw decodes a JSON record whose key (rawKey) or value
// (rawValue) is a JSON value to encode with a schema, kept as its JSON
// text (null: a null key or value), not a string of bytes.
func decodeJSONRaw(line []byte, rawKey, rawValue bool) (Record, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return Record{}, err
	}
	take := func(name string) ([]byte, error) {
		if _, ok := m[name+"_encoding"]; ok {
			return nil, fmt.Errorf("%s_encoding: the %s is JSON to encode with its schema", name, name)
		}
		v, ok := m[name]
		delete(m, name)
		// Fields kbox consume -o json adds to a decoded value.
		for _, x := range []string{"format", "schema_id", "subject", "schema_version", "message", "error"} {
			delete(m, name+"_"+x)
		}
		if !ok || string(v) == "null" {
			return nil, nil
		}
		return v, nil
	}
	var key, value []byte
	var err error
	if rawKey {
		if key, err = take("key"); err != nil {
			return Record{}, err
		}
	}
	if rawValue {
		if value, err = take("value"); err != nil {
			return Record{}, err
		}
	}
	rest, err := json.Marshal(m)
	if err != nil {
		return Record{}, err
	}
	r, err := DecodeJSON(rest)
	if err != nil {
		return r, err
	}
	if rawKey {
		r.Key = key
	}
	if rawValue {
		r.Value = value
	}
	return r, nil
}
