package acls

import "testing"

func TestCheck(t *testing.T) {
	acls := []Binding{
		bind("TOPIC", "orders", "LITERAL", "User:alice", "*", "WRITE", "ALLOW"),
		bind("TOPIC", "orders", "LITERAL", "User:alice", "10.0.0.9", "ALL", "DENY"),
		bind("TOPIC", "pay-", "PREFIXED", "User:bob", "*", "READ", "ALLOW"),
		bind("TOPIC", "pay-secret", "LITERAL", "User:*", "*", "READ", "DENY"),
		bind("TOPIC", "*", "LITERAL", "User:carol", "*", "DESCRIBE", "ALLOW"),
		bind("GROUP", "g", "LITERAL", "User:bob", "*", "READ", "DENY"),
		bind("GROUP", "g", "LITERAL", "User:bob", "*", "ALL", "ALLOW"),
		bind("CLUSTER", "kafka-cluster", "LITERAL", "User:alice", "*", "ALTER_CONFIGS", "ALLOW"),
	}
	az := &Authorizer{ACLs: acls, SuperUsers: ParseSuperUsers("User:admin; User:ANONYMOUS")}
	cases := []struct {
		r       Request
		allowed bool
		reason  string
		n       int
	}{
		{Request{"User:admin", "", "DELETE", "TOPIC", "orders"}, true, "super_user", 0},
		{Request{"User:alice", "10.1.2.3", "WRITE", "TOPIC", "orders"}, true, "allow_acl", 1},
		{Request{"User:alice", "10.0.0.9", "WRITE", "TOPIC", "orders"}, false, "deny_acl", 1},
		{Request{"User:alice", "", "WRITE", "TOPIC", "orders"}, true, "allow_acl", 1},          // host-specific deny not taken for any host
		{Request{"User:alice", "", "DESCRIBE", "TOPIC", "orders"}, true, "allow_acl", 1},       // WRITE implies DESCRIBE
		{Request{"User:alice", "", "READ", "TOPIC", "orders"}, false, "no_matching_allow", 0},  // ACLs exist on the resource
		{Request{"User:bob", "", "READ", "TOPIC", "pay-in"}, true, "allow_acl", 1},             // prefixed
		{Request{"User:bob", "", "DESCRIBE", "TOPIC", "pay-in"}, true, "allow_acl", 1},         // READ implies DESCRIBE
		{Request{"User:bob", "", "READ", "TOPIC", "pay-secret"}, false, "deny_acl", 1},         // wildcard principal deny wins
		{Request{"User:bob", "", "DESCRIBE", "TOPIC", "pay-secret"}, true, "allow_acl", 1},     // a DENY READ does not deny DESCRIBE
		{Request{"User:carol", "", "DESCRIBE", "TOPIC", "anything"}, true, "allow_acl", 1},     // wildcard resource
		{Request{"User:dave", "", "READ", "TOPIC", "anything"}, false, "no_matching_allow", 0}, // the wildcard ACL names it
		{Request{"User:dave", "", "READ", "GROUP", "other"}, false, "no_acl_found", 0},
		{Request{"User:bob", "", "READ", "GROUP", "g"}, false, "deny_acl", 1},
		{Request{"User:bob", "", "DELETE", "GROUP", "g"}, true, "allow_acl", 1},
		{Request{"User:alice", "", "DESCRIBE_CONFIGS", "CLUSTER", "kafka-cluster"}, true, "allow_acl", 1}, // ALTER_CONFIGS implies it
		{Request{"User:alice", "", "ALTER", "CLUSTER", "kafka-cluster"}, false, "no_matching_allow", 0},
	}
	for _, c := range cases {
		d, err := az.Check(c.r)
		if err != nil {
			t.Fatalf("%+v: %v", c.r, err)
		}
		if d.Allowed != c.allowed || d.Reason != c.reason || len(d.Deciding) != c.n {
			t.Errorf("%+v: got %s %s %v", c.r, d.Verdict(), d.Reason, d.Deciding)
		}
	}
	az.AllowIfNoACL = true
	if d, _ := az.Check(Request{"User:dave", "", "READ", "GROUP", "other"}); !d.Allowed || d.Reason != "no_acl_found" {
		t.Errorf("allow.everyone.if.no.acl.found: %+v", d)
	}
	if d, _ := az.Check(Request{"User:dave", "", "READ", "TOPIC", "anything"}); d.Allowed {
		t.Errorf("an ACL on the resource: the setting does not apply: %+v", d)
	}
	for _, bad := range []Request{{"alice", "", "READ", "TOPIC", "t"}, {"User:a", "", "IDEMPOTENT_WRITE", "TOPIC", "t"}, {"User:a", "", "ALL", "TOPIC", "t"}} {
		if _, err := az.Check(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestSuperUsers(t *testing.T) {
	got := ParseSuperUsers(" User:a ;;User:b")
	if len(got) != 2 || got[0] != "User:a" || got[1] != "User:b" {
		t.Error(got)
	}
}
