package serde

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/twmb/franz-go/pkg/sr"
)

// DefaultRequestTimeout bounds one registry request.
const DefaultRequestTimeout = 10 * time.Second

// NewClient builds a franz-go Schema Registry client for a resolved
// registry connection: its URLs, basic auth or bearer token, and TLS (the
// broker connection's rules, see kafka.TLSConfig).
func NewClient(reg *config.Registry) (*sr.Client, error) {
	if reg == nil || len(reg.URLs) == 0 {
		return nil, config.ErrNoRegistry
	}
	httpcl := &http.Client{Timeout: DefaultRequestTimeout}
	if reg.TLSProps != nil {
		tc, err := kafka.TLSConfig(reg.TLSProps)
		if err != nil {
			return nil, fmt.Errorf("schema registry TLS: %s", scrub(err.Error(), reg.Secrets()))
		}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = tc
		httpcl.Transport = tr
	}
	opts := []sr.ClientOpt{sr.URLs(reg.URLs...), sr.HTTPClient(httpcl), sr.UserAgent("kbox")}
	switch {
	case reg.Token() != "":
		opts = append(opts, sr.BearerToken(reg.Token()))
	case reg.Username != "":
		opts = append(opts, sr.BasicAuth(reg.Username, reg.Password()))
	}
	return sr.NewClient(opts...)
}

// scrub replaces every secret in s.
func scrub(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, config.RedactedValue)
		}
	}
	return s
}

// Error is a registry request that failed. Its text never holds a secret
// of the connection.
type Error struct {
	// Op says what was asked ("schema 7", "subject orders-value version 2").
	Op string
	// NotFound: the registry answered that it has no such thing.
	NotFound bool
	// Status is the HTTP status (0 when no answer came).
	Status int
	msg    string
	err    error
}

func (e *Error) Error() string { return e.Op + ": " + e.msg }
func (e *Error) Unwrap() error { return e.err }

// Explain turns an error of the franz-go client into an *Error for op,
// with the connection's secrets scrubbed.
func Explain(op string, err error, secrets []string) error {
	if err == nil {
		return nil
	}
	e := &Error{Op: op, err: err}
	var re *sr.ResponseError
	switch {
	case errors.As(err, &re):
		e.Status = re.StatusCode
		e.NotFound = re.StatusCode == http.StatusNotFound
		msg := re.Message
		if msg == "" {
			msg = strings.TrimSpace(string(re.Raw))
		}
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		switch {
		case re.StatusCode == http.StatusUnauthorized:
			e.msg = "the registry refused the login (401 Unauthorized)"
		case re.StatusCode == http.StatusForbidden:
			e.msg = "the registry denied access (403 Forbidden)"
		case msg != "":
			e.msg = fmt.Sprintf("%s (HTTP %d)", msg, re.StatusCode)
		default:
			e.msg = fmt.Sprintf("HTTP %d", re.StatusCode)
		}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		e.msg = err.Error()
	default:
		e.msg = "registry unreachable: " + err.Error()
	}
	e.msg = scrub(e.msg, secrets)
	return e
}

// IsNotFound reports whether err says the registry has no such schema,
// subject or version.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.NotFound
}

// Registry fetches schemas from a Schema Registry and keeps them for the
// run: each schema id, each subject version a reference names and each
// id's subjects are requested once, however many records use them
// (concurrent callers wait for the one request). An answer that they do
// not exist (or any other 4xx) is kept too; a failure to reach the
// registry (or a 5xx) is asked again after RetryAfter.
type Registry struct {
	cl      *sr.Client
	secrets []string
	// RetryAfter is how long a failure to reach the registry is kept
	// before the next request (default 10s).
	RetryAfter time.Duration
	now        func() time.Time

	mu   sync.Mutex
	ids  map[int]*fetch[*Schema]
	svs  map[subjectVersion]*fetch[sr.SubjectSchema]
	subs map[int]*fetch[[]sr.SubjectVersion]
}

type subjectVersion struct {
	subject string
	version int
}

type fetch[T any] struct {
	done chan struct{}
	val  T
	err  error
	at   time.Time
}

// NewRegistry wraps a client; secrets are scrubbed from every error.
func NewRegistry(cl *sr.Client, secrets ...string) *Registry {
	return &Registry{
		cl: cl, secrets: secrets, RetryAfter: 10 * time.Second, now: time.Now,
		ids:  map[int]*fetch[*Schema]{},
		svs:  map[subjectVersion]*fetch[sr.SubjectSchema]{},
		subs: map[int]*fetch[[]sr.SubjectVersion]{},
	}
}

// Open builds the client of a resolved connection and a Registry on it.
func Open(reg *config.Registry) (*Registry, error) {
	cl, err := NewClient(reg)
	if err != nil {
		return nil, err
	}
	return NewRegistry(cl, reg.Secrets()...), nil
}

// Client is the underlying franz-go client.
func (r *Registry) Client() *sr.Client { return r.cl }

// Secrets are the values scrubbed from errors.
func (r *Registry) Secrets() []string { return r.secrets }

// cached runs fn once for key k of m (see Registry).
func cached[K comparable, T any](ctx context.Context, r *Registry, m map[K]*fetch[T], k K, fn func(context.Context) (T, error)) (T, error) {
	r.mu.Lock()
	f, ok := m[k]
	if ok {
		select {
		case <-f.done:
			if f.err != nil && retryable(f.err) && r.now().Sub(f.at) >= r.RetryAfter {
				ok = false
			}
		default:
		}
	}
	if !ok {
		f = &fetch[T]{done: make(chan struct{})}
		m[k] = f
		r.mu.Unlock()
		f.val, f.err = fn(ctx)
		f.at = r.now()
		if f.err != nil && (errors.Is(f.err, context.Canceled) || errors.Is(f.err, context.DeadlineExceeded)) {
			// Only this caller gave up: the next one asks again.
			f.at = time.Time{}
		}
		close(f.done)
		return f.val, f.err
	}
	r.mu.Unlock()
	select {
	case <-f.done:
		return f.val, f.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// retryable: a failure to get an answer, not the registry's answer.
func retryable(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.Status == 0 || e.Status >= 500
	}
	return false // a schema the codecs cannot parse stays unparsable
}

// SchemaByID returns schema id, parsed, with its references resolved.
func (r *Registry) SchemaByID(ctx context.Context, id int) (*Schema, error) {
	return cached(ctx, r, r.ids, id, func(ctx context.Context) (*Schema, error) {
		s, err := r.cl.SchemaByID(ctx, id)
		if err != nil {
			return nil, Explain(fmt.Sprintf("schema %d", id), err, r.secrets)
		}
		out, err := r.parse(ctx, fmt.Sprintf("schema %d", id), s)
		if out != nil {
			out.ID = id
		}
		return out, err
	})
}

// Compile parses a schema that is not registered (yet) with the
// registered schemas its references name: the check before registering.
func (r *Registry) Compile(ctx context.Context, s sr.Schema) (*Schema, error) {
	return r.parse(ctx, "the schema", s)
}

// SubjectVersion returns a subject's version (-1: the latest) as the
// registry has it. The latest version is looked up on every call; a
// numbered one once.
func (r *Registry) SubjectVersion(ctx context.Context, subject string, version int) (sr.SubjectSchema, error) {
	get := func(ctx context.Context) (sr.SubjectSchema, error) {
		ss, err := r.cl.SchemaByVersion(ctx, subject, version)
		if err != nil {
			v := "latest version"
			if version > 0 {
				v = fmt.Sprintf("version %d", version)
			}
			return ss, Explain(fmt.Sprintf("subject %s %s", subject, v), err, r.secrets)
		}
		return ss, nil
	}
	if version <= 0 {
		return get(ctx)
	}
	return cached(ctx, r, r.svs, subjectVersion{subject, version}, get)
}

// SubjectsOf returns the subjects and versions that hold schema id.
func (r *Registry) SubjectsOf(ctx context.Context, id int) ([]sr.SubjectVersion, error) {
	return cached(ctx, r, r.subs, id, func(ctx context.Context) ([]sr.SubjectVersion, error) {
		svs, err := r.cl.SchemaVersionsByID(ctx, id)
		if err != nil {
			return nil, Explain(fmt.Sprintf("subjects of schema %d", id), err, r.secrets)
		}
		return svs, nil
	})
}

// Schema is a registered schema, parsed for decoding and encoding.
type Schema struct {
	ID   int
	Type sr.SchemaType
	// Text is the schema as the registry returned it.
	Text       string
	References []sr.SchemaReference

	avro  *avroCodec
	proto *protoCodec
	json  *jsonSchemaCodec
}

// maxRefDepth bounds how deep references may nest.
const maxRefDepth = 32

// parse compiles a schema with the schemas its references name.
func (r *Registry) parse(ctx context.Context, what string, s sr.Schema) (*Schema, error) {
	out := &Schema{Type: s.Type, Text: s.Schema, References: s.References}
	// Referenced schemas, dependencies first, each once, by their
	// reference names (the import path of a .proto, the URL of a JSON
	// schema, the type name of an Avro one).
	type ref struct{ name, text string }
	var refs []ref
	seen := map[subjectVersion]bool{}
	var walk func(rs []sr.SchemaReference, depth int) error
	walk = func(rs []sr.SchemaReference, depth int) error {
		if depth > maxRefDepth {
			return fmt.Errorf("%s: references nest deeper than %d", what, maxRefDepth)
		}
		for _, rf := range rs {
			k := subjectVersion{rf.Subject, rf.Version}
			if seen[k] {
				continue
			}
			seen[k] = true
			ss, err := r.SubjectVersion(ctx, rf.Subject, rf.Version)
			if err != nil {
				return fmt.Errorf("%s: reference %q: %w", what, rf.Name, err)
			}
			if err := walk(ss.References, depth+1); err != nil {
				return err
			}
			refs = append(refs, ref{rf.Name, ss.Schema.Schema})
		}
		return nil
	}
	if err := walk(s.References, 0); err != nil {
		return nil, err
	}
	var err error
	switch s.Type {
	case sr.TypeAvro:
		texts := make([]string, len(refs))
		for i, rf := range refs {
			texts[i] = rf.text
		}
		out.avro, err = parseAvro(s.Schema, texts)
	case sr.TypeProtobuf:
		files := make(map[string]string, len(refs))
		for _, rf := range refs {
			files[rf.name] = rf.text
		}
		out.proto, err = parseProtobuf(ctx, s.Schema, files)
	case sr.TypeJSON:
		files := make(map[string]string, len(refs))
		for _, rf := range refs {
			files[rf.name] = rf.text
		}
		out.json, err = parseJSONSchema(s.Schema, files)
	default:
		err = fmt.Errorf("unknown schema type %v", s.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
