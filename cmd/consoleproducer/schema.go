package consoleproducer

import (
	"context"
	"fmt"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/serde"
)

// encoders looks up --key-schema and --value-schema (kbox produce only).
func encoders(ctx context.Context, f *cmdutil.Factory, s *jopt.Set, o *options) error {
	if !tool.Native(f) {
		return nil
	}
	one := func(name string) string {
		if v := s.Values(name); len(v) > 0 {
			return v[len(v)-1]
		}
		return ""
	}
	keySpec, valueSpec := one("key-schema"), one("value-schema")
	for _, side := range []string{"key", "value"} {
		if s.Has(side+"-message") && !s.Has(side+"-schema") {
			return cmdutil.FlagErrorf("--%s-message is for --%s-schema", side, side)
		}
	}
	if keySpec == "" && valueSpec == "" {
		if s.Has("schema-registry") {
			return cmdutil.FlagErrorf("--schema-registry is for --key-schema or --value-schema")
		}
		return nil
	}
	type want struct {
		subject string
		version int
	}
	var specs [2]*want
	for i, spec := range []string{keySpec, valueSpec} {
		if spec == "" {
			continue
		}
		subject, version, err := serde.ParseSubjectVersion(spec)
		if err != nil {
			return cmdutil.FlagErrorf("--%s-schema: %v", []string{"key", "value"}[i], err)
		}
		specs[i] = &want{subject, version}
	}
	conn, err := f.Registry(one("schema-registry"))
	if err != nil {
		return err
	}
	reg, err := serde.Open(conn)
	if err != nil {
		return err
	}
	if w := specs[0]; w != nil {
		if o.keyEnc, err = reg.Encoder(ctx, w.subject, w.version, one("key-message")); err != nil {
			return fmt.Errorf("--key-schema: %w", err)
		}
	}
	if w := specs[1]; w != nil {
		if o.valueEnc, err = reg.Encoder(ctx, w.subject, w.version, one("value-message")); err != nil {
			return fmt.Errorf("--value-schema: %w", err)
		}
	}
	return nil
}
