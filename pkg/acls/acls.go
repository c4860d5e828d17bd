package acls

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/kboxdev/kbox/pkg/javaerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Pattern is a resource pattern (Java's ResourcePattern), or a filter of
// them (ResourcePatternFilter) when PatternType is ANY or MATCH or Name is
// empty with Any set.
type Pattern struct {
	ResourceType string `json:"resource_type"`
	Name         string `json:"resource_name"`
	PatternType  string `json:"pattern_type"`
}

// String is Java's ResourcePattern.toString (and ResourcePatternFilter's).
func (p Pattern) String() string {
	return "ResourcePattern(resourceType=" + p.ResourceType + ", name=" + p.Name + ", patternType=" + p.PatternType + ")"
}

// Entry is an access control entry (Java's AccessControlEntry).
type Entry struct {
	Principal  string `json:"principal"`
	Host       string `json:"host"`
	Operation  string `json:"operation"`
	Permission string `json:"permission"`
}

// String is Java's AccessControlEntry.toString.
func (e Entry) String() string {
	return "(principal=" + e.Principal + ", host=" + e.Host + ", operation=" + e.Operation + ", permissionType=" + e.Permission + ")"
}

// Binding is one ACL: a resource pattern and an entry.
type Binding struct {
	Pattern
	Entry
}

// String is Java's AclBinding.toString.
func (b Binding) String() string {
	return "(pattern=" + b.Pattern.String() + ", entry=" + b.Entry.String() + ")"
}

// Less orders bindings by resource type, name, pattern type, principal,
// host, operation and permission.
func Less(a, b Binding) bool {
	ka := []string{a.ResourceType, a.Name, a.PatternType, a.Principal, a.Host, a.Operation, a.Permission}
	kb := []string{b.ResourceType, b.Name, b.PatternType, b.Principal, b.Host, b.Operation, b.Permission}
	for i := range ka {
		if ka[i] != kb[i] {
			return ka[i] < kb[i]
		}
	}
	return false
}

// Sort sorts bindings in place (Less).
func Sort(bs []Binding) { sort.Slice(bs, func(i, j int) bool { return Less(bs[i], bs[j]) }) }

// ParsePrincipal is SecurityUtils.parseKafkaPrincipal's check: TYPE:NAME.
func ParsePrincipal(s string) (string, error) {
	if !strings.Contains(s, ":") {
		return "", fmt.Errorf("expected a string in format principalType:principalName but got %s", s)
	}
	return s, nil
}

// Filter selects bindings: a pattern filter (a type of ANY, a name of ""
// for any name, a pattern type of ANY or MATCH) and an entry filter (""
// fields and ANY match anything).
type Filter struct {
	Pattern
	AnyName bool
	Entry
}

// APIError is an error code a broker answered, with its message: Java's
// exception text.
type APIError struct {
	Code    int16
	Message string
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = kerrMessage(e.Code)
	}
	return javaerr.String(e.Code, msg)
}

// kerrMessage is the default message of the errors ACL requests answer.
func kerrMessage(code int16) string {
	switch code {
	case 54:
		return "No Authorizer is configured."
	case 31:
		return "Cluster authorization failed."
	}
	return ""
}

func code(table map[int8]string, name string) int8 {
	c, _ := codeOf(table, name)
	return c
}

func name(table map[int8]string, c int8) string {
	if n, ok := table[c]; ok {
		return n
	}
	return "UNKNOWN"
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Describe lists the bindings filter selects (DescribeACLs).
func Describe(ctx context.Context, cl *kgo.Client, f Filter) ([]Binding, error) {
	req := kmsg.NewPtrDescribeACLsRequest()
	req.ResourceType = kmsg.ACLResourceType(code(resourceTypes, or(f.ResourceType, "ANY")))
	if !f.AnyName {
		req.ResourceName = optional(f.Name)
		if f.Name == "" {
			req.ResourceName = new(string)
		}
	}
	req.ResourcePatternType = kmsg.ACLResourcePatternType(code(patternTypes, or(f.PatternType, "ANY")))
	req.Principal = optional(f.Principal)
	req.Host = optional(f.Host)
	req.Operation = kmsg.ACLOperation(code(operations, or(f.Operation, "ANY")))
	req.PermissionType = kmsg.ACLPermissionType(code(permissions, or(f.Permission, "ANY")))
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	if resp.ErrorCode != 0 {
		return nil, &APIError{Code: resp.ErrorCode, Message: deref(resp.ErrorMessage)}
	}
	var out []Binding
	for _, r := range resp.Resources {
		p := Pattern{ResourceType: name(resourceTypes, int8(r.ResourceType)), Name: r.ResourceName, PatternType: name(patternTypes, int8(r.ResourcePatternType))}
		for _, a := range r.ACLs {
			out = append(out, Binding{Pattern: p, Entry: Entry{Principal: a.Principal, Host: a.Host,
				Operation: name(operations, int8(a.Operation)), Permission: name(permissions, int8(a.PermissionType))}})
		}
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// All lists every binding of the cluster.
func All(ctx context.Context, cl *kgo.Client) ([]Binding, error) {
	return Describe(ctx, cl, Filter{AnyName: true})
}

// createBatch is the most creations one request carries (a KRaft
// controller refuses more records than 10,000 in one operation).
const createBatch = 5000

// Create creates bindings, up to createBatch in a request; the first
// failure is returned.
func Create(ctx context.Context, cl *kgo.Client, bs []Binding) error {
	for len(bs) > createBatch {
		if err := create(ctx, cl, bs[:createBatch]); err != nil {
			return err
		}
		bs = bs[createBatch:]
	}
	return create(ctx, cl, bs)
}

func create(ctx context.Context, cl *kgo.Client, bs []Binding) error {
	if len(bs) == 0 {
		return nil
	}
	req := kmsg.NewPtrCreateACLsRequest()
	for _, b := range bs {
		c := kmsg.NewCreateACLsRequestCreation()
		c.ResourceType = kmsg.ACLResourceType(code(resourceTypes, b.ResourceType))
		c.ResourceName = b.Name
		c.ResourcePatternType = kmsg.ACLResourcePatternType(code(patternTypes, b.PatternType))
		c.Principal, c.Host = b.Principal, b.Host
		c.Operation = kmsg.ACLOperation(code(operations, b.Operation))
		c.PermissionType = kmsg.ACLPermissionType(code(permissions, b.Permission))
		req.Creations = append(req.Creations, c)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	for _, r := range resp.Results {
		if r.ErrorCode != 0 {
			return &APIError{Code: r.ErrorCode, Message: deref(r.ErrorMessage)}
		}
	}
	return nil
}

// Delete deletes the bindings the filters select in one request and
// returns them.
func Delete(ctx context.Context, cl *kgo.Client, fs []Filter) ([]Binding, error) {
	if len(fs) == 0 {
		return nil, nil
	}
	req := kmsg.NewPtrDeleteACLsRequest()
	for _, f := range fs {
		d := kmsg.NewDeleteACLsRequestFilter()
		d.ResourceType = kmsg.ACLResourceType(code(resourceTypes, or(f.ResourceType, "ANY")))
		if !f.AnyName {
			d.ResourceName = &f.Name
		}
		d.ResourcePatternType = kmsg.ACLResourcePatternType(code(patternTypes, or(f.PatternType, "ANY")))
		d.Principal, d.Host = optional(f.Principal), optional(f.Host)
		d.Operation = kmsg.ACLOperation(code(operations, or(f.Operation, "ANY")))
		d.PermissionType = kmsg.ACLPermissionType(code(permissions, or(f.Permission, "ANY")))
		req.Filters = append(req.Filters, d)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	var out []Binding
	for _, r := range resp.Results {
		if r.ErrorCode != 0 {
			return out, &APIError{Code: r.ErrorCode, Message: deref(r.ErrorMessage)}
		}
		for _, m := range r.MatchingACLs {
			out = append(out, Binding{Pattern: Pattern{ResourceType: name(resourceTypes, int8(m.ResourceType)), Name: m.ResourceName,
				PatternType: name(patternTypes, int8(m.ResourcePatternType))}, Entry: Entry{Principal: m.Principal, Host: m.Host,
				Operation: name(operations, int8(m.Operation)), Permission: name(permissions, int8(m.PermissionType))}})
		}
	}
	return out, nil
}

// Exact is the filter that selects exactly b.
func Exact(b Binding) Filter { return Filter{Pattern: b.Pattern, Entry: b.Entry} }
