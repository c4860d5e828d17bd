package consoleconsumer

// The kbox extensions of `kbox consume` (output formats, decoding through a
// schema registry, masking), decided from the options after the drop-in's
// own checks.

import (
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/console"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/serde"
	"github.com/twmb/franz-go/pkg/kgo"
)

// nativeOpts are the decided kbox extensions.
type nativeOpts struct {
	on        bool // a native output (format string or JSON)
	formatter console.Formatter
	assign    bool
	decode    *console.Decoding
	// raw counts the keys and values shown raw (not readable as asked).
	raw *rawReport
}

func (r *runner) native(req *console.Request, partition *int32, grouped bool) (nativeOpts, error) {
	var n nativeOpts
	outFlag := ""
	if v := r.s.Values("output"); len(v) > 0 {
		outFlag = v[len(v)-1]
	}
	fm, err := r.f.Output(outFlag, cmdutil.Formats{Default: output.Apache, Allowed: []output.Format{output.Apache, output.JSON}})
	if err != nil {
		return n, err
	}
	if fs, ok := r.value("format"); ok {
		if fm == output.JSON && outFlag != "" {
			return n, errors.New("-f and -o json cannot be used together")
		}
		ff, err := console.CompileFormat(fs)
		if err != nil {
			return n, err
		}
		n.on, n.formatter = true, ff
	} else if fm == output.JSON {
		n.on, n.formatter = true, console.JSONFormatter{}
	}
	if g, ok := r.value("grep"); ok {
		re, err := regexp.Compile(g)
		if err != nil {
			return n, fmt.Errorf("--grep: %v", err)
		}
		req.Grep = re
	}
	startSpec, hasStart := r.value("start")
	if since, ok := r.value("since"); ok {
		if hasStart {
			return n, errors.New("--start and --since cannot be used together")
		}
		ms, err := console.ParseTime(since, time.Now())
		if err != nil {
			return n, err
		}
		hasStart = true
		req.Start = console.Start{Kind: console.StartTimestamp, Value: ms}
	} else if hasStart {
		all, per, err := console.ParseStarts(startSpec)
		if err != nil {
			return n, err
		}
		req.Start, req.PerPartition = all, per
		if per != nil {
			for p := range per {
				req.Partitions = append(req.Partitions, p)
			}
			sortInt32(req.Partitions)
		}
	}
	if hasStart {
		switch {
		case grouped:
			return n, errors.New("--start/--since read partitions directly: they cannot be used with a group")
		case r.s.Has("include"):
			return n, errors.New("--start/--since need --topic (not --include)")
		case r.s.Has("offset"), r.s.Has("from-beginning"):
			return n, errors.New("--start/--since cannot be used with --offset or --from-beginning")
		}
		n.assign = true
		if partition != nil {
			if req.PerPartition != nil {
				return n, errors.New("--partition cannot be used with per-partition --start")
			}
			req.Partitions = []int32{*partition}
		}
	}
	if req.ExitAtEnd && r.s.Has("include") {
		return n, errors.New("--exit-at-end needs --topic (not --include)")
	}
	return n, r.decoding(&n, fm == output.JSON && !r.s.Has("format"))
}

// decoding sets up --key-format, --value-format and --mask-field (kbox
// consume only), all checked before any connection.
func (r *runner) decoding(n *nativeOpts, jsonOut bool) error {
	keyF, hasKey := r.value("key-format")
	valF, hasVal := r.value("value-format")
	mask, hasMask := r.value("mask-field")
	if !hasKey && !hasVal && !hasMask {
		if _, ok := r.value("schema-registry"); ok {
			return errors.New("--schema-registry is for --key-format or --value-format")
		}
		return nil
	}
	d := &console.Decoding{}
	var err error
	if hasKey {
		if d.Key, err = serde.ParseFormat(keyF); err != nil {
			return fmt.Errorf("--key-format: %v", err)
		}
	}
	if hasVal {
		if d.Value, err = serde.ParseFormat(valF); err != nil {
			return fmt.Errorf("--value-format: %v", err)
		}
	}
	if hasMask {
		if d.Mask, err = regexp.Compile(mask); err != nil {
			return fmt.Errorf("--mask-field: %v", err)
		}
	}
	if _, isDefault := n.formatter.(*console.DefaultFormatter); n.formatter == nil || isDefault {
		if df, ok := r.defaultFormatter(); ok {
			if hasKey && df.KeyDeserializer != nil {
				return errors.New("--key-format and a key.deserializer cannot be used together")
			}
			if hasVal && df.ValueDeserializer != nil {
				return errors.New("--value-format and a value.deserializer cannot be used together")
			}
		} else {
			return errors.New("--key-format, --value-format and --mask-field work with the default formatter, -f or -o json, not with --formatter " + r.formatterClass())
		}
	}
	d.Decoder = &serde.Decoder{Subjects: jsonOut}
	if d.Key.NeedsRegistry() || d.Value.NeedsRegistry() {
		url, _ := r.value("schema-registry")
		conn, err := r.f.Registry(url)
		explicit := d.Key.NeedsRegistry() && d.Key != serde.Auto || d.Value.NeedsRegistry() && d.Value != serde.Auto
		switch {
		case errors.Is(err, config.ErrNoRegistry) && !explicit:
			// auto without a registry: framed records are shown raw,
			// with the reason.
		case err != nil:
			return err
		default:
			if d.Decoder.Registry, err = serde.Open(conn); err != nil {
				return err
			}
		}
	}
	n.raw = &rawReport{f: r.f, warn: !jsonOut, reasons: map[string]bool{}}
	d.OnRaw = n.raw.see
	n.decode = d
	return nil
}

// formatterClass is the --formatter class in effect.
func (r *runner) formatterClass() string {
	if c, ok := r.value("formatter"); ok {
		return c
	}
	return console.DefaultFormatterClass
}

// defaultFormatter returns the default formatter the options build, when
// the formatter in effect is it.
func (r *runner) defaultFormatter() (*console.DefaultFormatter, bool) {
	switch r.formatterClass() {
	case console.DefaultFormatterClass, "org.apache.kafka.tools.consumer.LoggingMessageFormatter":
	default:
		return nil, false
	}
	props := map[string]string{}
	if kd, ok := r.value("key-deserializer"); ok && kd != "" {
		props["key.deserializer"] = kd
	}
	if vd, ok := r.value("value-deserializer"); ok && vd != "" {
		props["value.deserializer"] = vd
	}
	for k, v := range keyValues(append(r.s.Values("property"), r.s.Values("formatter-property")...)).Map() {
		props[k] = v
	}
	df, _ := console.NewDefaultFormatter(props)
	return df, true
}

// maxRawWarnings bounds the distinct reasons warned about; the rest are
// counted in the summary.
const maxRawWarnings = 10

// rawReport warns once per distinct reason a key or value is shown raw
// (-o json carries the reason in each record instead) and counts them.
type rawReport struct {
	f       *cmdutil.Factory
	warn    bool
	reasons map[string]bool
	keys    int64
	values  int64
}

func (w *rawReport) see(rec *kgo.Record, key bool, v *console.Shown) {
	what := "value"
	if key {
		w.keys++
		what = "key"
	} else {
		w.values++
	}
	msg := v.Err.Error()
	if !w.warn || w.reasons[msg] || len(w.reasons) > maxRawWarnings {
		return
	}
	if len(w.reasons) == maxRawWarnings {
		w.reasons[""] = true
		w.f.Warn("more keys or values shown raw for other reasons (counted at the end)")
		return
	}
	w.reasons[msg] = true
	w.f.Warn("%s-%d@%d: %s shown raw: %s", rec.Topic, rec.Partition, rec.Offset, what, msg)
}

// summary is the closing line: how many keys and values were shown raw.
func (w *rawReport) summary() {
	if w == nil || w.keys+w.values == 0 {
		return
	}
	w.f.Warn("%d keys and %d values could not be read as asked and were shown raw", w.keys, w.values)
}
