package acls

import (
	"bytes"
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"
)

// Document is the YAML form of a cluster's ACLs (kbox acls export, apply).
type Document struct {
	ACLs []Binding `json:"acls"`
}

// NewDocument is the document of bindings, sorted.
func NewDocument(bs []Binding) *Document {
	out := append([]Binding{}, bs...)
	Sort(out)
	return &Document{ACLs: out}
}

// ParseDocument reads a document: every binding complete and valid
// (host defaults to *, pattern_type to LITERAL, permission to ALLOW;
// names in any case), no unknown keys. An error names the first bad
// entry.
func ParseDocument(data []byte) (*Document, error) {
	var raw any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("not YAML: %v", err)
	}
	js, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("not a document of ACLs: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	var doc Document
	if raw != nil {
		if err := dec.Decode(&doc); err != nil {
			return nil, fmt.Errorf("not a document of ACLs (acls: a list of resource_type, resource_name, pattern_type, principal, host, operation, permission): %v", err)
		}
	}
	seen := map[Binding]bool{}
	var out []Binding
	for i, b := range doc.ACLs {
		nb, err := normalize(b)
		if err != nil {
			return nil, fmt.Errorf("acls[%d]: %v", i, err)
		}
		if !seen[nb] {
			seen[nb] = true
			out = append(out, nb)
		}
	}
	return NewDocument(out), nil
}

func normalize(b Binding) (Binding, error) {
	rt, err := ParseResourceType(b.ResourceType)
	if err != nil {
		return b, err
	}
	b.ResourceType = rt
	if rt == "CLUSTER" && b.Name == "" {
		b.Name = ClusterName
	}
	if b.Name == "" {
		return b, fmt.Errorf("resource_name is empty")
	}
	pt, ok := ParsePatternType(or(b.PatternType, "LITERAL"))
	if !ok || (pt != "LITERAL" && pt != "PREFIXED") {
		return b, fmt.Errorf("pattern_type %q is not LITERAL or PREFIXED", b.PatternType)
	}
	b.PatternType = pt
	if _, err := ParsePrincipal(b.Principal); err != nil {
		return b, err
	}
	b.Host = or(b.Host, WildcardHost)
	op, err := ParseOperationName(b.Operation)
	if err != nil {
		return b, err
	}
	if !Supports(rt, op) {
		return b, fmt.Errorf("resource type %s has no operation %s", rt, op)
	}
	b.Operation = op
	perm := or(b.Permission, "ALLOW")
	switch p := upper(perm); p {
	case "ALLOW", "DENY":
		b.Permission = p
	default:
		return b, fmt.Errorf("permission %q is not ALLOW or DENY", perm)
	}
	return b, nil
}

func upper(s string) string { return string(bytes.ToUpper([]byte(s))) }

// Diff is what apply changes: the bindings to add and to remove.
type Diff struct {
	Add    []Binding `json:"add"`
	Remove []Binding `json:"remove"`
}

// Empty says whether nothing changes.
func (d *Diff) Empty() bool { return len(d.Add) == 0 && len(d.Remove) == 0 }

// Compute is the diff from the cluster's bindings to the document's.
func Compute(current []Binding, want *Document) *Diff {
	have := map[Binding]bool{}
	for _, b := range current {
		have[b] = true
	}
	wanted := map[Binding]bool{}
	d := &Diff{Add: []Binding{}, Remove: []Binding{}}
	for _, b := range want.ACLs {
		wanted[b] = true
		if !have[b] {
			d.Add = append(d.Add, b)
		}
	}
	for b := range have {
		if !wanted[b] {
			d.Remove = append(d.Remove, b)
		}
	}
	Sort(d.Add)
	Sort(d.Remove)
	return d
}

// Lines is the diff as text: "+ binding" and "- binding", one a line.
func (d *Diff) Lines() []string {
	var out []string
	for _, b := range d.Remove {
		out = append(out, "- "+b.Short())
	}
	for _, b := range d.Add {
		out = append(out, "+ "+b.Short())
	}
	return out
}

// Short is a binding in one line: PERMISSION PRINCIPAL OPERATION
// TYPE:NAME (PATTERN) from HOST.
func (b Binding) Short() string {
	return fmt.Sprintf("%s %s %s %s:%s (%s) from %s", b.Permission, b.Principal, b.Operation, b.ResourceType, b.Name, b.PatternType, b.Host)
}
