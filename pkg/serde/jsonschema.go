package serde

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// jsonSchemaBase is where the registered schema and its references live
// for the compiler; nothing is ever fetched from it.
const jsonSchemaBase = "mem://registry/"

var jsonSchemaPrinter = message.NewPrinter(language.English)

type jsonSchemaCodec struct {
	schema *jsonschema.Schema
}

// parseJSONSchema compiles a JSON schema; files are the referenced schemas
// by their reference names (what the schema's $ref says, relative to the
// schema or to its $id).
func parseJSONSchema(text string, files map[string]string) (*jsonSchemaCodec, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	main := jsonSchemaBase + "schema.json"
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("JSON schema: %w", err)
	}
	if err := c.AddResource(main, doc); err != nil {
		return nil, fmt.Errorf("JSON schema: %w", err)
	}
	bases := []string{main}
	if m, ok := doc.(map[string]any); ok {
		if id, ok := m["$id"].(string); ok && id != "" {
			bases = append(bases, id)
		}
	}
	for name, content := range files {
		rdoc, err := jsonschema.UnmarshalJSON(strings.NewReader(content))
		if err != nil {
			return nil, fmt.Errorf("referenced JSON schema %q: %w", name, err)
		}
		for _, b := range bases {
			base, err := url.Parse(b)
			if err != nil {
				continue
			}
			ref, err := url.Parse(name)
			if err != nil {
				return nil, fmt.Errorf("reference name %q: %w", name, err)
			}
			// One name may resolve to the same URL from two bases.
			_ = c.AddResource(base.ResolveReference(ref).String(), rdoc)
		}
	}
	s, err := c.Compile(main)
	if err != nil {
		return nil, fmt.Errorf("JSON schema: %s", strings.ReplaceAll(err.Error(), main, "the schema"))
	}
	return &jsonSchemaCodec{schema: s}, nil
}

// noLoader refuses to fetch any schema: every reference comes from the
// registry.
type noLoader struct{}

func (noLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("%s is not among the schema's references", u)
}

// decode checks the payload is JSON and returns it compacted. (Confluent's
// JSON Schema serializer writes plain JSON after the framing.)
func (c *jsonSchemaCodec) decode(b []byte) ([]byte, error) {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return nil, fmt.Errorf("JSON Schema payload is not JSON: %w", err)
	}
	return out.Bytes(), nil
}

// encode validates a JSON value against the schema.
func (c *jsonSchemaCodec) encode(js []byte) ([]byte, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return nil, &FieldError{Path: "$", Msg: "not JSON: " + err.Error()}
	}
	if err := c.schema.Validate(v); err != nil {
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			return nil, validationFieldError(ve)
		}
		return nil, &FieldError{Path: "$", Msg: err.Error()}
	}
	var out bytes.Buffer
	if err := json.Compact(&out, js); err != nil {
		return nil, &FieldError{Path: "$", Msg: err.Error()}
	}
	return out.Bytes(), nil
}

// validationFieldError picks the deepest first cause: the field that
// failed, not the schema keyword that collected the failures.
func validationFieldError(ve *jsonschema.ValidationError) *FieldError {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	path := "$"
	for _, tok := range ve.InstanceLocation {
		if _, err := strconv.Atoi(tok); err == nil {
			path += "[" + tok + "]"
		} else {
			path = childPath(path, tok)
		}
	}
	return &FieldError{Path: path, Msg: ve.ErrorKind.LocalizedString(jsonSchemaPrinter)}
}
