package serde

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// protoMainFile is the name the registered schema compiles under; its
// references compile under their own names (the paths it imports).
const protoMainFile = "kbox-registered-schema.proto"

// protoCodec is one registered .proto file, compiled with its imports.
type protoCodec struct {
	file     protoreflect.FileDescriptor
	resolver linker.Resolver
	marshal  protojson.MarshalOptions
}

// parseProtobuf compiles text; files are the referenced schemas by import
// path. The well-known types (google/protobuf/*.proto) need no reference.
func parseProtobuf(ctx context.Context, text string, files map[string]string) (*protoCodec, error) {
	srcs := make(map[string]string, len(files)+1)
	for k, v := range files {
		srcs[k] = v
	}
	srcs[protoMainFile] = text
	comp := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			Accessor: protocompile.SourceAccessorFromMap(srcs),
		}),
	}
	res, err := comp.Compile(ctx, protoMainFile)
	if err != nil {
		return nil, fmt.Errorf("protobuf schema: %s", strings.TrimPrefix(err.Error(), protoMainFile+":"))
	}
	f := res[0]
	if f.Messages().Len() == 0 {
		return nil, fmt.Errorf("protobuf schema: no message")
	}
	r := linker.ResolverFromFile(f)
	return &protoCodec{file: f, resolver: r, marshal: protojson.MarshalOptions{UseProtoNames: true, Resolver: r}}, nil
}

// message finds the message a Confluent message index names: the first
// number picks a top-level message, each next one a message nested in it.
func (c *protoCodec) message(index []int) (protoreflect.MessageDescriptor, error) {
	if len(index) == 0 {
		index = []int{0}
	}
	msgs := c.file.Messages()
	var md protoreflect.MessageDescriptor
	for depth, i := range index {
		if i < 0 || i >= msgs.Len() {
			return nil, fmt.Errorf("message index %v: no message %d at depth %d (the schema has %d there)", index, i, depth, msgs.Len())
		}
		md = msgs.Get(i)
		msgs = md.Messages()
	}
	return md, nil
}

// indexOf is the message index of the message named name (full name, or
// the name relative to the file's package); "" is the first message.
func (c *protoCodec) indexOf(name string) ([]int, protoreflect.MessageDescriptor, error) {
	if name == "" {
		return []int{0}, c.file.Messages().Get(0), nil
	}
	full := protoreflect.FullName(name)
	if pkg := c.file.Package(); pkg != "" && !strings.HasPrefix(name, string(pkg)+".") {
		full = pkg + "." + full
	}
	var find func(msgs protoreflect.MessageDescriptors, path []int) ([]int, protoreflect.MessageDescriptor)
	find = func(msgs protoreflect.MessageDescriptors, path []int) ([]int, protoreflect.MessageDescriptor) {
		for i := 0; i < msgs.Len(); i++ {
			md := msgs.Get(i)
			p := append(append([]int(nil), path...), i)
			if md.FullName() == full || md.FullName() == protoreflect.FullName(name) {
				return p, md
			}
			if ip, imd := find(md.Messages(), p); imd != nil {
				return ip, imd
			}
		}
		return nil, nil
	}
	if p, md := find(c.file.Messages(), nil); md != nil {
		return p, md, nil
	}
	var names []string
	for i := 0; i < c.file.Messages().Len(); i++ {
		names = append(names, string(c.file.Messages().Get(i).FullName()))
	}
	return nil, nil, fmt.Errorf("the schema has no message %q (top-level messages: %s)", name, strings.Join(names, ", "))
}

// decode reads one message of the type index names and returns it as
// JSON (the proto3 JSON mapping with the .proto field names) and the
// message's full name.
func (c *protoCodec) decode(b []byte, index []int) ([]byte, string, error) {
	md, err := c.message(index)
	if err != nil {
		return nil, "", err
	}
	msg := dynamicpb.NewMessage(md)
	if err := (proto.UnmarshalOptions{Resolver: c.resolver}).Unmarshal(b, msg); err != nil {
		return nil, string(md.FullName()), fmt.Errorf("protobuf %s: %w", md.FullName(), err)
	}
	js, err := c.marshal.Marshal(msg)
	if err != nil {
		return nil, string(md.FullName()), fmt.Errorf("protobuf %s: %w", md.FullName(), err)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, js); err != nil {
		return nil, string(md.FullName()), err
	}
	return out.Bytes(), string(md.FullName()), nil
}

// encode turns a JSON value into message md; a mismatch is a *FieldError.
func (c *protoCodec) encode(js []byte, md protoreflect.MessageDescriptor) ([]byte, error) {
	v, err := decodeJSON(js)
	if err != nil {
		return nil, err
	}
	if err := checkProtoJSON(md, v, "$"); err != nil {
		return nil, err
	}
	msg := dynamicpb.NewMessage(md)
	if err := (protojson.UnmarshalOptions{Resolver: c.resolver}).Unmarshal(js, msg); err != nil {
		return nil, &FieldError{Path: "$", Msg: strings.TrimPrefix(err.Error(), "proto: ")}
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if err != nil {
		return nil, &FieldError{Path: "$", Msg: err.Error()}
	}
	return b, nil
}

// checkProtoJSON finds where a JSON value does not fit message md, as the
// proto3 JSON mapping reads it, so that the error names the field. What
// it lets through protojson still checks.
func checkProtoJSON(md protoreflect.MessageDescriptor, v any, path string) error {
	if isWellKnown(md) {
		return nil // their JSON forms are special (strings, any values)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return &FieldError{Path: path, Msg: fmt.Sprintf("expected an object (message %s), got %s", md.FullName(), describeJSON(v))}
	}
	fields := md.Fields()
	for _, k := range sortedKeys(obj) {
		fd := fields.ByJSONName(k)
		if fd == nil {
			fd = fields.ByTextName(k)
		}
		p := childPath(path, k)
		if fd == nil {
			return &FieldError{Path: p, Msg: "not a field of message " + string(md.FullName())}
		}
		val := obj[k]
		if val == nil {
			continue // null: the field's default
		}
		switch {
		case fd.IsMap():
			m, ok := val.(map[string]any)
			if !ok {
				return &FieldError{Path: p, Msg: "expected an object (map), got " + describeJSON(val)}
			}
			for _, mk := range sortedKeys(m) {
				if err := checkProtoValue(fd.MapValue(), m[mk], childPath(p, mk)); err != nil {
					return err
				}
			}
		case fd.IsList():
			a, ok := val.([]any)
			if !ok {
				return &FieldError{Path: p, Msg: "expected an array (repeated), got " + describeJSON(val)}
			}
			for i, e := range a {
				if err := checkProtoValue(fd, e, p+"["+strconv.Itoa(i)+"]"); err != nil {
					return err
				}
			}
		default:
			if err := checkProtoValue(fd, val, p); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkProtoValue(fd protoreflect.FieldDescriptor, v any, path string) error {
	bad := func(want string) error {
		return &FieldError{Path: path, Msg: fmt.Sprintf("expected %s, got %s", want, describeJSON(v))}
	}
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return checkProtoJSON(fd.Message(), v, path)
	case protoreflect.BoolKind:
		if _, ok := v.(bool); !ok {
			return bad("a boolean")
		}
	case protoreflect.StringKind:
		if _, ok := v.(string); !ok {
			return bad("a string")
		}
	case protoreflect.BytesKind:
		s, ok := v.(string)
		if !ok {
			return bad("a base64 string")
		}
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			if _, err2 := base64.URLEncoding.DecodeString(s); err2 != nil {
				return bad("a base64 string")
			}
		}
	case protoreflect.EnumKind:
		switch x := v.(type) {
		case string:
			if fd.Enum().Values().ByName(protoreflect.Name(x)) == nil {
				return &FieldError{Path: path, Msg: fmt.Sprintf("%q is not a value of enum %s", x, fd.Enum().FullName())}
			}
		case json.Number:
		default:
			return bad("an enum value name")
		}
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		if _, err := jsonFloat(v); err != nil {
			if s, ok := v.(string); !ok || !isNumeric(s) {
				return bad("a number")
			}
		}
	default: // the integer kinds: a number, or a string holding one
		switch x := v.(type) {
		case json.Number:
		case string:
			if !isNumeric(x) {
				return bad("an integer")
			}
		default:
			return bad("an integer")
		}
	}
	return nil
}

func isNumeric(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func isWellKnown(md protoreflect.MessageDescriptor) bool {
	return md.ParentFile() != nil && strings.HasPrefix(md.ParentFile().Path(), "google/protobuf/")
}
