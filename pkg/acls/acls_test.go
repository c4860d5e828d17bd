package acls

import (
	"strings"
	"testing"
)

func bind(rt, name, pt, principal, host, op, perm string) Binding {
	return Binding{Pattern: Pattern{ResourceType: rt, Name: name, PatternType: pt}, Entry: Entry{Principal: principal, Host: host, Operation: op, Permission: perm}}
}

func TestJavaStrings(t *testing.T) {
	b := bind("TOPIC", "t", "LITERAL", "User:a", "*", "READ", "ALLOW")
	if got, want := b.String(), "(pattern=ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL), entry=(principal=User:a, host=*, operation=READ, permissionType=ALLOW))"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestParseOperation(t *testing.T) {
	for in, want := range map[string]string{"Read": "READ", "read": "READ", "DescribeConfigs": "DESCRIBE_CONFIGS", "describeconfigs": "DESCRIBE_CONFIGS",
		"TwoPhaseCommit": "TWO_PHASE_COMMIT", "Any": "ANY", "bogus": "UNKNOWN", "DESCRIBE_CONFIGS": "UNKNOWN"} {
		if got := ParseOperation(in); got != want {
			t.Errorf("ParseOperation(%q) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{"describe-configs": "DESCRIBE_CONFIGS", "IdempotentWrite": "IDEMPOTENT_WRITE", "write": "WRITE"} {
		if got, err := ParseOperationName(in); err != nil || got != want {
			t.Errorf("ParseOperationName(%q) = %s, %v", in, got, err)
		}
	}
	for _, in := range []string{"any", "unknown", "x"} {
		if _, err := ParseOperationName(in); err == nil {
			t.Errorf("ParseOperationName(%q): no error", in)
		}
	}
	if OperationName("CLUSTER_ACTION") != "ClusterAction" {
		t.Error(OperationName("CLUSTER_ACTION"))
	}
}

func TestParsePatternType(t *testing.T) {
	for in, want := range map[string]string{"literal": "LITERAL", "Prefixed": "PREFIXED", "MATCH": "MATCH", "any": "ANY"} {
		if got, ok := ParsePatternType(in); !ok || got != want {
			t.Errorf("%q: %s %v", in, got, ok)
		}
	}
	for _, in := range []string{"unknown", "bogus", ""} {
		if _, ok := ParsePatternType(in); ok {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestSupports(t *testing.T) {
	if !Supports("TOPIC", "READ") || Supports("TOPIC", "IDEMPOTENT_WRITE") || !Supports("CLUSTER", "IDEMPOTENT_WRITE") ||
		!Supports("TRANSACTIONAL_ID", "TWO_PHASE_COMMIT") || Supports("USER", "READ") || !Supports("DELEGATION_TOKEN", "ALL") {
		t.Error("supported operations")
	}
}

func TestParsePrincipal(t *testing.T) {
	if _, err := ParsePrincipal("bad"); err == nil || err.Error() != "expected a string in format principalType:principalName but got bad" {
		t.Error(err)
	}
	if _, err := ParsePrincipal(":a"); err != nil {
		t.Error(err)
	}
}

func TestAPIError(t *testing.T) {
	if got := (&APIError{Code: 54}).Error(); got != "org.apache.kafka.common.errors.SecurityDisabledException: No Authorizer is configured." {
		t.Error(got)
	}
}

func TestDocument(t *testing.T) {
	doc, err := ParseDocument([]byte(`acls:
  - {resource_type: topic, resource_name: orders, principal: "User:alice", operation: read}
  - {resource_type: Topic, resource_name: orders, principal: "User:alice", operation: Read, host: "*", permission: allow, pattern_type: literal}
  - {resource_type: cluster, principal: "User:p", operation: IdempotentWrite}
  - {resource_type: transactional-id, resource_name: tx-, pattern_type: prefixed, principal: "User:p", operation: write, permission: deny}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.ACLs) != 3 {
		t.Fatalf("want 3 (duplicates merged), got %v", doc.ACLs)
	}
	if doc.ACLs[0] != bind("CLUSTER", "kafka-cluster", "LITERAL", "User:p", "*", "IDEMPOTENT_WRITE", "ALLOW") {
		t.Errorf("%+v", doc.ACLs[0])
	}
	for _, bad := range []string{
		"acls:\n  - {resource_type: topic, resource_name: t, principal: x, operation: read}",
		"acls:\n  - {resource_type: topic, resource_name: t, principal: User:x, operation: IdempotentWrite}",
		"acls:\n  - {resource_type: topic, resource_name: t, principal: User:x, operation: read, pattern_type: match}",
		"acls:\n  - {resource_type: topic, resource_name: t, principal: User:x, operation: read, permission: maybe}",
		"acls:\n  - {resource_type: topic, resource_name: t, principal: User:x, operation: read, extra: 1}",
		"acls:\n  - {resource_type: any, resource_name: t, principal: User:x, operation: read}",
		"acls:\n  - {resource_type: topic, principal: User:x, operation: read}",
		"acls: [",
	} {
		if _, err := ParseDocument([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	empty, err := ParseDocument(nil)
	if err != nil || len(empty.ACLs) != 0 {
		t.Errorf("empty document: %v %v", empty, err)
	}
}

func TestDiff(t *testing.T) {
	a := bind("TOPIC", "a", "LITERAL", "User:x", "*", "READ", "ALLOW")
	b := bind("TOPIC", "b", "LITERAL", "User:x", "*", "READ", "ALLOW")
	c := bind("GROUP", "g", "PREFIXED", "User:x", "*", "READ", "DENY")
	d := Compute([]Binding{a, b}, NewDocument([]Binding{b, c}))
	if len(d.Add) != 1 || d.Add[0] != c || len(d.Remove) != 1 || d.Remove[0] != a {
		t.Fatalf("%+v", d)
	}
	want := "- ALLOW User:x READ TOPIC:a (LITERAL) from *\n+ DENY User:x READ GROUP:g (PREFIXED) from *"
	if got := strings.Join(d.Lines(), "\n"); got != want {
		t.Errorf("got\n%s", got)
	}
	if !Compute([]Binding{a}, NewDocument([]Binding{a})).Empty() {
		t.Error("same ACLs: not empty")
	}
}
