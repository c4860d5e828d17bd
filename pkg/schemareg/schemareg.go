// Package schemareg is the work behind `kbox schema`: subjects, versions,
// schemas, registration, compatibility checks and levels, and deletes on a
// Confluent-compatible Schema Registry. It prints nothing; its results
// implement output.Tabular and carry json tags (docs/json.md).
package schemareg

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/pkg/serde"
	"github.com/twmb/franz-go/pkg/sr"
)

// Client runs the registry requests of kbox schema.
type Client struct {
	reg *serde.Registry
	cl  *sr.Client
}

// New wraps a registry.
func New(reg *serde.Registry) *Client { return &Client{reg: reg, cl: reg.Client()} }

func (c *Client) explain(op string, err error) error {
	return serde.Explain(op, err, c.reg.Secrets())
}

// SubjectList is `kbox schema list`.
type SubjectList struct {
	Subjects []string `json:"subjects"`
}

// Header implements output.Tabular.
func (l SubjectList) Header() []string { return []string{"SUBJECT"} }

// Rows implements output.Tabular.
func (l SubjectList) Rows() [][]string {
	rows := make([][]string, len(l.Subjects))
	for i, s := range l.Subjects {
		rows[i] = []string{s}
	}
	return rows
}

// Subjects lists the subjects, sorted; deleted adds the soft-deleted ones.
func (c *Client) Subjects(ctx context.Context, deleted bool) (SubjectList, error) {
	if deleted {
		ctx = sr.WithParams(ctx, sr.ShowDeleted)
	}
	subs, err := c.cl.Subjects(ctx)
	if err != nil {
		return SubjectList{}, c.explain("subjects", err)
	}
	sort.Strings(subs)
	if subs == nil {
		subs = []string{}
	}
	return SubjectList{Subjects: subs}, nil
}

// Version is one version of a subject.
type Version struct {
	Version int    `json:"version"`
	ID      int    `json:"id"`
	Type    string `json:"type"`
}

// VersionList is `kbox schema versions SUBJECT`.
type VersionList struct {
	Subject  string    `json:"subject"`
	Versions []Version `json:"versions"`
}

// Header implements output.Tabular.
func (l VersionList) Header() []string { return []string{"VERSION", "ID", "TYPE"} }

// Rows implements output.Tabular.
func (l VersionList) Rows() [][]string {
	rows := make([][]string, len(l.Versions))
	for i, v := range l.Versions {
		rows[i] = []string{strconv.Itoa(v.Version), strconv.Itoa(v.ID), v.Type}
	}
	return rows
}

// Versions lists a subject's versions with their schema ids and types.
func (c *Client) Versions(ctx context.Context, subject string, deleted bool) (VersionList, error) {
	if deleted {
		ctx = sr.WithParams(ctx, sr.ShowDeleted)
	}
	vs, err := c.cl.SubjectVersions(ctx, subject)
	if err != nil {
		return VersionList{}, c.explain("subject "+subject, err)
	}
	out := VersionList{Subject: subject, Versions: []Version{}}
	for _, v := range vs {
		ss, err := c.cl.SchemaByVersion(ctx, subject, v)
		if err != nil {
			return VersionList{}, c.explain(fmt.Sprintf("subject %s version %d", subject, v), err)
		}
		out.Versions = append(out.Versions, Version{Version: v, ID: ss.ID, Type: typeName(ss.Type)})
	}
	return out, nil
}

func typeName(t sr.SchemaType) string { return t.String() }

// Reference is a schema's reference to another subject's version.
type Reference struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

func references(rs []sr.SchemaReference) []Reference {
	out := make([]Reference, len(rs))
	for i, r := range rs {
		out[i] = Reference{Name: r.Name, Subject: r.Subject, Version: r.Version}
	}
	return out
}

// SchemaView is `kbox schema show`. Subject and Version are absent for a
// schema shown by id alone.
type SchemaView struct {
	Subject    string      `json:"subject,omitempty"`
	Version    int         `json:"version,omitempty"`
	ID         int         `json:"id"`
	Type       string      `json:"type"`
	References []Reference `json:"references"`
	Schema     string      `json:"schema"`
}

// Header implements output.Tabular (the schema text follows the table).
func (v SchemaView) Header() []string {
	return []string{"SUBJECT", "VERSION", "ID", "TYPE", "REFERENCES"}
}

// Rows implements output.Tabular.
func (v SchemaView) Rows() [][]string {
	var refs []string
	for _, r := range v.References {
		refs = append(refs, fmt.Sprintf("%s=%s:%d", r.Name, r.Subject, r.Version))
	}
	ver := ""
	if v.Version > 0 {
		ver = strconv.Itoa(v.Version)
	}
	return [][]string{{v.Subject, ver, strconv.Itoa(v.ID), v.Type, strings.Join(refs, ",")}}
}

// Show returns a subject's version (0: the latest).
func (c *Client) Show(ctx context.Context, subject string, version int) (SchemaView, error) {
	v := version
	if v == 0 {
		v = -1
	}
	ss, err := c.reg.SubjectVersion(ctx, subject, v)
	if err != nil {
		return SchemaView{}, err
	}
	return SchemaView{Subject: subject, Version: ss.Version, ID: ss.ID, Type: typeName(ss.Type),
		References: references(ss.References), Schema: ss.Schema.Schema}, nil
}

// ShowID returns the schema of an id.
func (c *Client) ShowID(ctx context.Context, id int) (SchemaView, error) {
	s, err := c.cl.SchemaByID(ctx, id)
	if err != nil {
		return SchemaView{}, c.explain(fmt.Sprintf("schema %d", id), err)
	}
	return SchemaView{ID: id, Type: typeName(s.Type), References: references(s.References), Schema: s.Schema}, nil
}

// RegisterResult is `kbox schema register`.
type RegisterResult struct {
	Subject string `json:"subject"`
	Version int    `json:"version"`
	ID      int    `json:"id"`
	Type    string `json:"type"`
}

// Header implements output.Tabular.
func (r RegisterResult) Header() []string { return []string{"SUBJECT", "VERSION", "ID", "TYPE"} }

// Rows implements output.Tabular.
func (r RegisterResult) Rows() [][]string {
	return [][]string{{r.Subject, strconv.Itoa(r.Version), strconv.Itoa(r.ID), r.Type}}
}

// Compile parses s with the registered schemas its references name, so
// that a schema kbox cannot read is refused before anything changes.
func (c *Client) Compile(ctx context.Context, s sr.Schema) error {
	_, err := c.reg.Compile(ctx, s)
	return err
}

// Register registers s under subject (an identical schema gets its
// existing version back).
func (c *Client) Register(ctx context.Context, subject string, s sr.Schema) (RegisterResult, error) {
	ss, err := c.cl.CreateSchema(ctx, subject, s)
	if err != nil {
		return RegisterResult{}, c.explain("register under "+subject, err)
	}
	return RegisterResult{Subject: subject, Version: ss.Version, ID: ss.ID, Type: typeName(s.Type)}, nil
}

// CheckResult is `kbox schema register --dry-run`: would the schema be
// accepted under the subject's compatibility level?
type CheckResult struct {
	Subject string `json:"subject"`
	DryRun  bool   `json:"dry_run"`
	// SubjectExists is false for a new subject (nothing to be compatible with).
	SubjectExists bool     `json:"subject_exists"`
	Compatible    bool     `json:"compatible"`
	Messages      []string `json:"messages"`
}

// Header implements output.Tabular.
func (r CheckResult) Header() []string { return []string{"SUBJECT", "COMPATIBLE", "DETAILS"} }

// Rows implements output.Tabular.
func (r CheckResult) Rows() [][]string {
	details := strings.Join(r.Messages, "; ")
	if !r.SubjectExists {
		details = "new subject: it would be version 1"
	}
	return [][]string{{r.Subject, strconv.FormatBool(r.Compatible), details}}
}

// Check asks the registry whether s is compatible with the subject's
// latest version under its compatibility level. It changes nothing.
func (c *Client) Check(ctx context.Context, subject string, s sr.Schema) (CheckResult, error) {
	out := CheckResult{Subject: subject, DryRun: true, SubjectExists: true, Messages: []string{}}
	res, err := c.cl.CheckCompatibility(sr.WithParams(ctx, sr.Verbose), subject, -1, s)
	if err != nil {
		var re *sr.ResponseError
		if errors.As(err, &re) && re.StatusCode == 404 {
			out.SubjectExists, out.Compatible = false, true
			return out, nil
		}
		return CheckResult{}, c.explain("compatibility check for "+subject, err)
	}
	out.Compatible = res.Is
	for _, m := range res.Messages {
		if m != "" {
			out.Messages = append(out.Messages, m)
		}
	}
	return out, nil
}

// Levels are the compatibility levels, as the registry names them.
var Levels = []string{"BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE", "NONE"}

// ParseLevel reads a compatibility level (any case).
func ParseLevel(s string) (sr.CompatibilityLevel, error) {
	var l sr.CompatibilityLevel
	for _, name := range Levels {
		if strings.EqualFold(s, name) {
			if err := l.UnmarshalText([]byte(name)); err != nil {
				return 0, err
			}
			return l, nil
		}
	}
	return 0, fmt.Errorf("unknown compatibility level %q (use %s)", s, strings.Join(Levels, ", "))
}

// Compatibility is `kbox schema compatibility get|set`. Subject is absent
// for the global level; Source says where the level in effect is set
// (subject or global).
type Compatibility struct {
	Subject string `json:"subject,omitempty"`
	Level   string `json:"compatibility"`
	Source  string `json:"source"`
}

// Header implements output.Tabular.
func (c Compatibility) Header() []string { return []string{"SUBJECT", "COMPATIBILITY", "SOURCE"} }

// Rows implements output.Tabular.
func (c Compatibility) Rows() [][]string {
	s := c.Subject
	if s == "" {
		s = "(global)"
	}
	return [][]string{{s, c.Level, c.Source}}
}

// GetCompatibility returns the level in effect for subject ("": the
// global level): the subject's own, else the global one.
func (c *Client) GetCompatibility(ctx context.Context, subject string) (Compatibility, error) {
	if subject != "" {
		r := c.cl.Compatibility(ctx, subject)[0]
		if r.Err == nil {
			return Compatibility{Subject: subject, Level: r.Level.String(), Source: "subject"}, nil
		}
		var re *sr.ResponseError
		if !errors.As(r.Err, &re) || re.StatusCode != 404 {
			return Compatibility{}, c.explain("compatibility of "+subject, r.Err)
		}
	}
	r := c.cl.Compatibility(ctx)[0]
	if r.Err != nil {
		return Compatibility{}, c.explain("global compatibility", r.Err)
	}
	return Compatibility{Subject: subject, Level: r.Level.String(), Source: "global"}, nil
}

// SetCompatibility sets subject's level ("": the global level).
func (c *Client) SetCompatibility(ctx context.Context, subject string, level sr.CompatibilityLevel) (Compatibility, error) {
	var subjects []string
	source := "global"
	op := "set the global compatibility"
	if subject != "" {
		subjects, source, op = []string{subject}, "subject", "set the compatibility of "+subject
	}
	r := c.cl.SetCompatibility(ctx, sr.SetCompatibility{Level: level}, subjects...)[0]
	if r.Err != nil {
		return Compatibility{}, c.explain(op, r.Err)
	}
	return Compatibility{Subject: subject, Level: r.Level.String(), Source: source}, nil
}

// DeleteResult is `kbox schema delete`.
type DeleteResult struct {
	Subject   string `json:"subject"`
	Version   int    `json:"version,omitempty"`
	Permanent bool   `json:"permanent"`
	// Versions are the versions deleted.
	Versions []int `json:"deleted_versions"`
}

// Header implements output.Tabular.
func (r DeleteResult) Header() []string {
	return []string{"SUBJECT", "DELETED VERSIONS", "PERMANENT"}
}

// Rows implements output.Tabular.
func (r DeleteResult) Rows() [][]string {
	vs := make([]string, len(r.Versions))
	for i, v := range r.Versions {
		vs[i] = strconv.Itoa(v)
	}
	return [][]string{{r.Subject, strings.Join(vs, ","), strconv.FormatBool(r.Permanent)}}
}

// Registry error codes: the subject, or the version, was soft deleted
// already.
const (
	codeSubjectSoftDeleted = 40404
	codeVersionSoftDeleted = 40406
)

func softDeletedAlready(err error) bool {
	var re *sr.ResponseError
	return errors.As(err, &re) && (re.ErrorCode == codeSubjectSoftDeleted || re.ErrorCode == codeVersionSoftDeleted)
}

// Delete deletes a subject (version 0) or one version of it. permanent
// deletes for good; the registry needs a soft delete first, so a live
// subject or version is soft deleted and then hard deleted.
func (c *Client) Delete(ctx context.Context, subject string, version int, permanent bool) (DeleteResult, error) {
	out := DeleteResult{Subject: subject, Version: version, Permanent: permanent, Versions: []int{}}
	what := "subject " + subject
	if version > 0 {
		what = fmt.Sprintf("subject %s version %d", subject, version)
	}
	soft := func() ([]int, error) {
		if version > 0 {
			return []int{version}, c.cl.DeleteSchema(ctx, subject, version, sr.SoftDelete)
		}
		return c.cl.DeleteSubject(ctx, subject, sr.SoftDelete)
	}
	vs, err := soft()
	switch {
	case err == nil:
		out.Versions = vs
	case permanent && softDeletedAlready(err):
	default:
		return DeleteResult{}, c.explain("delete "+what, err)
	}
	if permanent {
		if version > 0 {
			err = c.cl.DeleteSchema(ctx, subject, version, sr.HardDelete)
			vs = []int{version}
		} else {
			vs, err = c.cl.DeleteSubject(ctx, subject, sr.HardDelete)
		}
		if err != nil {
			return DeleteResult{}, c.explain("permanently delete "+what, err)
		}
		if len(vs) > 0 {
			out.Versions = vs
		}
	}
	sort.Ints(out.Versions)
	return out, nil
}
