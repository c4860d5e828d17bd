package acls

import (
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
)

func TestGoldens(t *testing.T) {
	bs := []Binding{
		bind("TOPIC", "orders", "LITERAL", "User:alice", "*", "WRITE", "ALLOW"),
		bind("GROUP", "pay-", "PREFIXED", "User:bob", "10.0.0.1", "READ", "DENY"),
	}
	golden.JSON(t, "list.json.golden", &List{ACLs: NewDocument(bs).ACLs})
	d, err := (&Authorizer{ACLs: bs}).Check(Request{Principal: "User:alice", Host: "10.1.2.3", Operation: "WRITE", Type: "TOPIC", Name: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	golden.JSON(t, "check.json.golden", &Result{Decision: *d, SuperUsersRead: false, AllowIfNoACLRead: false})
	golden.JSON(t, "apply.json.golden", Compute(bs[:1], NewDocument(bs[1:])))
	golden.JSON(t, "export.json.golden", NewDocument(bs))
}
