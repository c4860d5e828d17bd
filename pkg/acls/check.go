package acls

import (
	"fmt"
	"strings"
)

// Request is one question to the authorizer: may Principal, from Host,
// perform Operation on the resource (Type, Name)?
type Request struct {
	Principal string
	// Host is the client's address; "" asks about any host: only ACLs
	// for every host (*) are taken then.
	Host      string
	Operation string
	Type      string
	Name      string
}

// Authorizer is what the broker's StandardAuthorizer decides with: its ACLs
// and the two settings that change a decision.
type Authorizer struct {
	ACLs []Binding
	// SuperUsers is super.users, principals separated by ';'.
	SuperUsers []string
	// AllowIfNoACL is allow.everyone.if.no.acl.found.
	AllowIfNoACL bool
}

// Decision is the answer and why.
type Decision struct {
	Principal string `json:"principal"`
	Host      string `json:"host"`
	Operation string `json:"operation"`
	Resource  string `json:"resource_type"`
	Name      string `json:"resource_name"`
	// Allowed is the verdict.
	Allowed bool `json:"allowed"`
	// Reason is one of super_user, deny_acl, allow_acl, no_acl_found
	// (allow.everyone.if.no.acl.found decides), no_matching_allow.
	Reason string `json:"reason"`
	// Deciding is the bindings that decide: the matching DENY ACLs when
	// one denies, else the matching ALLOW ACLs.
	Deciding []Binding `json:"deciding_acls"`
}

// Verdict is ALLOWED or DENIED.
func (d *Decision) Verdict() string {
	if d.Allowed {
		return "ALLOWED"
	}
	return "DENIED"
}

// ParseSuperUsers splits super.users (User:a;User:b).
func ParseSuperUsers(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// resourceMatches says whether a pattern applies to the resource: a
// literal of the same name or the wildcard, or a prefix of the name.
func resourceMatches(p Pattern, typ, name string) bool {
	if p.ResourceType != typ {
		return false
	}
	switch p.PatternType {
	case "LITERAL":
		return p.Name == name || p.Name == WildcardName
	case "PREFIXED":
		return strings.HasPrefix(name, p.Name)
	}
	return false
}

// principalMatches: the principal itself or the wildcard User:*.
func principalMatches(acl, principal string) bool {
	return acl == principal || acl == WildcardPrincipal
}

func hostMatches(acl, host string) bool {
	return acl == WildcardHost || (host != "" && acl == host)
}

// operationMatches: ALL, the operation itself, or for an ALLOW an
// operation that implies it (READ, WRITE, DELETE and ALTER imply
// DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS). A DENY implies
// nothing but itself and ALL.
func operationMatches(e Entry, op string) bool {
	if e.Operation == "ALL" || e.Operation == op {
		return true
	}
	if e.Permission != "ALLOW" {
		return false
	}
	switch op {
	case "DESCRIBE":
		return e.Operation == "READ" || e.Operation == "WRITE" || e.Operation == "DELETE" || e.Operation == "ALTER"
	case "DESCRIBE_CONFIGS":
		return e.Operation == "ALTER_CONFIGS"
	}
	return false
}

// Check decides as StandardAuthorizer does: a super user is allowed; a
// matching DENY wins over any ALLOW; a matching ALLOW allows; with no ACL
// on the resource at all allow.everyone.if.no.acl.found decides; else
// denied.
func (a *Authorizer) Check(r Request) (*Decision, error) {
	if _, err := ParsePrincipal(r.Principal); err != nil {
		return nil, err
	}
	if !Supports(r.Type, r.Operation) || r.Operation == "ALL" {
		return nil, fmt.Errorf("resource type %s has no operation %s (one of %s)", r.Type, r.Operation,
			strings.Join(withoutAll(SupportedOperations(r.Type)), ", "))
	}
	d := &Decision{Principal: r.Principal, Host: or(r.Host, "*"), Operation: r.Operation, Resource: r.Type, Name: r.Name, Deciding: []Binding{}}
	for _, s := range a.SuperUsers {
		if s == r.Principal {
			d.Allowed, d.Reason = true, "super_user"
			return d, nil
		}
	}
	var deny, allow []Binding
	found := false
	for _, b := range a.ACLs {
		if !resourceMatches(b.Pattern, r.Type, r.Name) {
			continue
		}
		found = true
		if !principalMatches(b.Principal, r.Principal) || !hostMatches(b.Host, r.Host) || !operationMatches(b.Entry, r.Operation) {
			continue
		}
		if b.Permission == "DENY" {
			deny = append(deny, b)
		} else if b.Permission == "ALLOW" {
			allow = append(allow, b)
		}
	}
	switch {
	case len(deny) > 0:
		Sort(deny)
		d.Reason, d.Deciding = "deny_acl", deny
	case len(allow) > 0:
		Sort(allow)
		d.Allowed, d.Reason, d.Deciding = true, "allow_acl", allow
	case !found:
		d.Allowed, d.Reason = a.AllowIfNoACL, "no_acl_found"
	default:
		d.Reason = "no_matching_allow"
	}
	return d, nil
}

func withoutAll(ops []string) []string {
	var out []string
	for _, o := range ops {
		if o != "ALL" {
			out = append(out, o)
		}
	}
	return out
}

// Explain is the reason in words.
func (d *Decision) Explain() string {
	switch d.Reason {
	case "super_user":
		return d.Principal + " is in super.users"
	case "deny_acl":
		return "a DENY ACL matches (deny wins over allow)"
	case "allow_acl":
		return "an ALLOW ACL matches and no DENY ACL does"
	case "no_acl_found":
		return fmt.Sprintf("no ACL names this resource: allow.everyone.if.no.acl.found=%t", d.Allowed)
	}
	return "ACLs name this resource but none allows this principal, host and operation"
}
