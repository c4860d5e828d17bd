package acls

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kboxdev/kbox/pkg/acls"
	"github.com/kboxdev/kbox/pkg/jopt"
)

// usageError is printUsageAndExit: the message and the option table on
// stderr, exit 1.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{msg: fmt.Sprintf(format, a...)} }

// execError is main's catch: "Error while executing ACL command: MSG" on
// stdout, exit 1 (the stack trace that follows is left out).
type execError struct{ msg string }

func (e *execError) Error() string { return e.msg }

// checkArgs is AclCommandOptions.checkArgs after the help and version.
func checkArgs(s *jopt.Set) error {
	if s.Has("bootstrap-server") && s.Has("bootstrap-controller") {
		return usagef("Only one of --bootstrap-server or --bootstrap-controller must be specified")
	}
	if !s.Has("bootstrap-server") && !s.Has("bootstrap-controller") {
		return usagef("One of --bootstrap-server or --bootstrap-controller must be specified")
	}
	n := 0
	for _, a := range []string{"add", "remove", "list"} {
		if s.Has(a) {
			n++
		}
	}
	if n != 1 {
		return usagef("Command must include exactly one action: --list, --add, --remove. ")
	}
	invalid := [][]string{
		{"list", "producer", "consumer", "allow-host", "allow-principal", "deny-host", "deny-principal"},
		{"producer", "operation", "deny-principal", "deny-host"},
		{"consumer", "operation", "deny-principal", "deny-host"},
	}
	for _, iv := range invalid {
		if !s.Has(iv[0]) {
			continue
		}
		for _, o := range iv[1:] {
			if s.Has(o) {
				return usagef(`Option "[%s]" can't be used with option "[%s]"`, iv[0], o)
			}
		}
	}
	switch {
	case s.Has("principal") && !s.Has("list"):
		return usagef("The --principal option is only available if --list is set")
	case s.Has("producer") && !s.Has("topic"):
		return usagef("With --producer you must specify a --topic")
	case s.Has("idempotent") && !s.Has("producer"):
		return usagef("The --idempotent option is only available if --producer is set")
	case s.Has("consumer") && (!s.Has("topic") || !s.Has("group") || (!s.Has("producer") && (s.Has("cluster") || s.Has("transactional-id")))):
		return usagef("With --consumer you must specify a --topic and a --group and no --cluster or --transactional-id option should be specified.")
	}
	return nil
}

// patternType is valueOf(resourcePatternType): LITERAL by default.
func patternType(s *jopt.Set) (string, error) {
	v, ok, err := s.Value("resource-pattern-type")
	if err != nil {
		return "", &execError{msg: err.Error()}
	}
	if !ok {
		return "LITERAL", nil
	}
	pt, good := acls.ParsePatternType(v)
	if !good {
		return "", &execError{msg: fmt.Sprintf("Cannot parse argument '%s' of option resource-pattern-type", v)}
	}
	return pt, nil
}

// resources is getResourceFilter: the resource patterns the options name
// (a set), dying with the usage when none and die is set.
func resources(s *jopt.Set, die bool) ([]acls.Pattern, error) {
	pt, err := patternType(s)
	if err != nil {
		return nil, err
	}
	seen := map[acls.Pattern]bool{}
	var out []acls.Pattern
	add := func(rt, name string) {
		p := acls.Pattern{ResourceType: rt, Name: name, PatternType: pt}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, t := range s.Values("topic") {
		add("TOPIC", strings.TrimSpace(t))
	}
	if pt == "LITERAL" && (s.Has("cluster") || s.Has("idempotent")) {
		add("CLUSTER", acls.ClusterName)
	}
	for _, g := range s.Values("group") {
		add("GROUP", strings.TrimSpace(g))
	}
	for _, t := range s.Values("transactional-id") {
		add("TRANSACTIONAL_ID", t) // not trimmed, as in AclCommand
	}
	for _, t := range s.Values("delegation-token") {
		add("DELEGATION_TOKEN", strings.TrimSpace(t))
	}
	for _, u := range s.Values("user-principal") {
		add("USER", strings.TrimSpace(u))
	}
	if len(out) == 0 && die {
		return nil, usagef("You must provide at least one resource: --topic <topic> or --cluster or --group <group> or --delegation-token <Delegation Token ID>")
	}
	sortPatterns(out)
	return out, nil
}

func sortPatterns(ps []acls.Pattern) {
	sort.Slice(ps, func(i, j int) bool { return ps[i].String() < ps[j].String() })
}

// principals is getPrincipals: the trimmed values, each TYPE:NAME.
func principals(s *jopt.Set, opt string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, v := range s.Values(opt) {
		p, err := acls.ParsePrincipal(strings.TrimSpace(v))
		if err != nil {
			return nil, &execError{msg: err.Error()}
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// hosts is getHosts: the given hosts, or * when principals are given.
func hosts(s *jopt.Set, hostOpt, principalOpt string) []string {
	switch {
	case s.Has(hostOpt):
		var out []string
		for _, h := range s.Values(hostOpt) {
			out = append(out, strings.TrimSpace(h))
		}
		return out
	case s.Has(principalOpt):
		return []string{acls.WildcardHost}
	}
	return nil
}

// entries is getAcl: every principal × operation × host, allowed and
// denied.
func entries(s *jopt.Set, ops []string) ([]acls.Entry, error) {
	allowP, err := principals(s, "allow-principal")
	if err != nil {
		return nil, err
	}
	denyP, err := principals(s, "deny-principal")
	if err != nil {
		return nil, err
	}
	seen := map[acls.Entry]bool{}
	var out []acls.Entry
	for _, side := range []struct {
		ps, hs []string
		perm   string
	}{{allowP, hosts(s, "allow-host", "allow-principal"), "ALLOW"}, {denyP, hosts(s, "deny-host", "deny-principal"), "DENY"}} {
		if len(side.ps) == 0 || len(side.hs) == 0 {
			continue
		}
		for _, p := range side.ps {
			for _, op := range ops {
				if op == "ANY" {
					return nil, &execError{msg: "operation must not be ANY"}
				}
				for _, h := range side.hs {
					e := acls.Entry{Principal: p, Host: h, Operation: op, Permission: side.perm}
					if !seen[e] {
						seen[e] = true
						out = append(out, e)
					}
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, nil
}

// change is one resource (pattern or filter) and its entries.
type change struct {
	pattern acls.Pattern
	entries []acls.Entry
}

// plan is getResourceFilterToAcls: the resources and their entries of
// --add and --remove, the operations validated (validateOperation).
func plan(s *jopt.Set) ([]change, error) {
	byPattern := map[acls.Pattern][]acls.Entry{}
	var order []acls.Pattern
	put := func(p acls.Pattern, es []acls.Entry, merge bool) {
		if _, ok := byPattern[p]; !ok {
			order = append(order, p)
		}
		if merge {
			byPattern[p] = mergeEntries(byPattern[p], es)
		} else {
			byPattern[p] = es
		}
	}
	if !s.Has("producer") && !s.Has("consumer") {
		var ops []string
		for _, o := range s.Values("operation") {
			ops = append(ops, acls.ParseOperation(strings.TrimSpace(o)))
		}
		if !s.Has("operation") {
			ops = []string{"ALL"}
		}
		es, err := entries(s, dedupe(ops))
		if err != nil {
			return nil, err
		}
		ps, err := resources(s, true)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			put(p, es, false)
		}
	}
	if s.Has("producer") {
		if err := roleACLs(s, put, map[string][]string{"TOPIC": {"WRITE", "DESCRIBE", "CREATE"}, "TRANSACTIONAL_ID": {"WRITE", "DESCRIBE"}}, false); err != nil {
			return nil, err
		}
		if s.Has("idempotent") {
			es, err := entries(s, []string{"IDEMPOTENT_WRITE"})
			if err != nil {
				return nil, err
			}
			put(acls.Pattern{ResourceType: "CLUSTER", Name: acls.ClusterName, PatternType: "LITERAL"}, es, false)
		}
	}
	if s.Has("consumer") {
		if err := roleACLs(s, put, map[string][]string{"TOPIC": {"READ", "DESCRIBE"}, "GROUP": {"READ"}}, true); err != nil {
			return nil, err
		}
	}
	sortPatterns(order)
	var out []change
	for _, p := range order {
		out = append(out, change{pattern: p, entries: byPattern[p]})
	}
	return out, validateOperations(out)
}

// roleACLs adds the --producer or --consumer ACLs of the named resources
// of the types in ops.
func roleACLs(s *jopt.Set, put func(acls.Pattern, []acls.Entry, bool), ops map[string][]string, merge bool) error {
	ps, err := resources(s, true)
	if err != nil {
		return err
	}
	for _, p := range ps {
		o, ok := ops[p.ResourceType]
		if !ok {
			continue
		}
		es, err := entries(s, o)
		if err != nil {
			return err
		}
		put(p, es, merge)
	}
	return nil
}

func mergeEntries(a, b []acls.Entry) []acls.Entry {
	seen := map[acls.Entry]bool{}
	var out []acls.Entry
	for _, e := range append(append([]acls.Entry{}, a...), b...) {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// validateOperations is validateOperation: an operation the resource type
// does not support fails the whole command before any request.
func validateOperations(cs []change) error {
	for _, c := range cs {
		for _, e := range c.entries {
			if !acls.Supports(c.pattern.ResourceType, e.Operation) {
				return usagef("ResourceType %s only supports operations [%s]", c.pattern.ResourceType,
					strings.Join(acls.SupportedOperations(c.pattern.ResourceType), ", "))
			}
		}
	}
	return nil
}
