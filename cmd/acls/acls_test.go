package acls

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
)

func runArgs(t *testing.T, args ...string) cmdtest.Result {
	t.Helper()
	return cmdtest.Run(t, cmdtest.Options{Cmd: Run, Invoked: "kafka-acls"}, args...)
}

const title = "This tool helps to manage acls on kafka."

// Apache 4.4's messages (captured with testbed.sh apache-batch), all
// before any connection: the bootstrap address is never dialled.
func TestApacheValidation(t *testing.T) {
	bs := "127.0.0.1:1"
	usage := func(msg string) string { return msg + "\n" + apacheHelp }
	topicOps := "ResourceType TOPIC only supports operations [ALTER_CONFIGS, ALTER, DELETE, CREATE, DESCRIBE_CONFIGS, WRITE, READ, ALL, DESCRIBE]"
	cases := []struct {
		args     []string
		out, err string
	}{
		{nil, "", usage(title)},
		{[]string{"--help"}, "", usage(title)},
		{[]string{"--bootstrap-server", bs}, "", usage("Command must include exactly one action: --list, --add, --remove. ")},
		{[]string{"--bootstrap-server", bs, "--add", "--list"}, "", usage("Command must include exactly one action: --list, --add, --remove. ")},
		{[]string{"--list"}, "", usage("One of --bootstrap-server or --bootstrap-controller must be specified")},
		{[]string{"--bootstrap-server", bs, "--bootstrap-controller", bs, "--list"}, "", usage("Only one of --bootstrap-server or --bootstrap-controller must be specified")},
		{[]string{"--bootstrap-server", bs, "--add", "--topic", "t"}, "", usage("You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.")},
		{[]string{"--bootstrap-server", bs, "--add", "--topic", "t", "--deny-host", "h"}, "", usage("You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.")},
		{[]string{"--bootstrap-server", bs, "--add", "--allow-principal", "User:a"}, "", usage("You must provide at least one resource: --topic <topic> or --cluster or --group <group> or --delegation-token <Delegation Token ID>")},
		{[]string{"--bootstrap-server", bs, "--add", "--cluster", "--resource-pattern-type", "prefixed", "--allow-principal", "User:a"}, "", usage("You must provide at least one resource: --topic <topic> or --cluster or --group <group> or --delegation-token <Delegation Token ID>")},
		{[]string{"--bootstrap-server", bs, "--add", "--topic", "t", "--allow-principal", "User:a", "--operation", "Bogus"}, "", usage(topicOps)},
		{[]string{"--bootstrap-server", bs, "--add", "--topic", "t", "--allow-principal", "User:a", "--operation", "Read", "--operation", "IdempotentWrite"}, "", usage(topicOps)},
		{[]string{"--bootstrap-server", bs, "--remove", "--topic", "t", "--allow-principal", "User:a", "--operation", "Read", "--operation", "DescribeTokens"}, "", usage(topicOps)},
		{[]string{"--bootstrap-server", bs, "--add", "--group", "t", "--allow-principal", "User:a", "--operation", "Write"}, "", usage("ResourceType GROUP only supports operations [ALTER_CONFIGS, DESCRIBE_CONFIGS, DELETE, READ, ALL, DESCRIBE]")},
		{[]string{"--bootstrap-server", bs, "--add", "--cluster", "--allow-principal", "User:a", "--operation", "Read"}, "", usage("ResourceType CLUSTER only supports operations [ALTER_CONFIGS, CLUSTER_ACTION, ALTER, CREATE, DESCRIBE_CONFIGS, IDEMPOTENT_WRITE, ALL, DESCRIBE]")},
		{[]string{"--bootstrap-server", bs, "--add", "--transactional-id", "t", "--allow-principal", "User:a", "--operation", "Read"}, "", usage("ResourceType TRANSACTIONAL_ID only supports operations [TWO_PHASE_COMMIT, WRITE, ALL, DESCRIBE]")},
		{[]string{"--bootstrap-server", bs, "--add", "--delegation-token", "t", "--allow-principal", "User:a", "--operation", "Read"}, "", usage("ResourceType DELEGATION_TOKEN only supports operations [ALL, DESCRIBE]")},
		{[]string{"--bootstrap-server", bs, "--add", "--user-principal", "User:x", "--allow-principal", "User:a", "--operation", "Read"}, "", usage("ResourceType USER only supports operations [DESCRIBE_TOKENS, CREATE_TOKENS, ALL]")},
		{[]string{"--bootstrap-server", bs, "--add", "--topic", "t", "--allow-principal", "bad", "--operation", "Read"}, "Error while executing ACL command: expected a string in format principalType:principalName but got bad\n", ""},
		{[]string{"--bootstrap-server", bs, "--add", "--topic", "t", "--allow-principal", "User:a", "--operation", "any"}, "Error while executing ACL command: operation must not be ANY\n", ""},
		{[]string{"--bootstrap-server", bs, "--add", "--topic", "t", "--allow-principal", "User:a", "--resource-pattern-type", "match"}, "", usage("A '--resource-pattern-type' value of 'MATCH' is not valid when adding acls.")},
		{[]string{"--bootstrap-server", bs, "--add", "--topic", "t", "--allow-principal", "User:a", "--resource-pattern-type", "bogus"}, "Error while executing ACL command: Cannot parse argument 'bogus' of option resource-pattern-type\n", ""},
		{[]string{"--bootstrap-server", bs, "--add", "--topic", "t", "--allow-principal", "User:a", "--resource-pattern-type", "unknown"}, "Error while executing ACL command: Cannot parse argument 'unknown' of option resource-pattern-type\n", ""},
		{[]string{"--bootstrap-server", bs, "--add", "--producer", "--group", "g", "--allow-principal", "User:a"}, "", usage("With --producer you must specify a --topic")},
		{[]string{"--bootstrap-server", bs, "--add", "--idempotent", "--topic", "t", "--allow-principal", "User:a"}, "", usage("The --idempotent option is only available if --producer is set")},
		{[]string{"--bootstrap-server", bs, "--add", "--consumer", "--topic", "t", "--allow-principal", "User:a"}, "", usage("With --consumer you must specify a --topic and a --group and no --cluster or --transactional-id option should be specified.")},
		{[]string{"--bootstrap-server", bs, "--add", "--producer", "--topic", "t", "--operation", "Read", "--allow-principal", "User:a"}, "", usage(`Option "[producer]" can't be used with option "[operation]"`)},
		{[]string{"--bootstrap-server", bs, "--list", "--producer"}, "", usage(`Option "[list]" can't be used with option "[producer]"`)},
		{[]string{"--bootstrap-server", bs, "--add", "--topic", "t", "--principal", "User:a"}, "", usage("The --principal option is only available if --list is set")},
		{[]string{"--bootstrap-server", bs, "--bogus"}, "", usage("bogus is not a recognized option")},
	}
	for _, c := range cases {
		r := runArgs(t, c.args...)
		if r.Code != 1 || r.Stdout != c.out || r.Stderr != c.err {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %.300q\nwant   %.300q", c.args, r.Code, r.Stdout, r.Stderr, c.err)
		}
	}
	if r := runArgs(t, "--version"); r.Code != 0 || !strings.HasPrefix(r.Stdout, "4.4.0") {
		t.Errorf("--version: %d %q", r.Code, r.Stdout)
	}
}

func TestApacheOnKfake(t *testing.T) {
	bs, _ := cmdtest.Kfake(t)
	r := runArgs(t, "--bootstrap-server", bs, "--add", "--producer", "--idempotent", "--topic", "out", "--allow-principal", "User:p")
	want := "Adding ACLs for resource `ResourcePattern(resourceType=CLUSTER, name=kafka-cluster, patternType=LITERAL)`: \n" +
		" \t(principal=User:p, host=*, operation=IDEMPOTENT_WRITE, permissionType=ALLOW)\n\n" +
		"Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=out, patternType=LITERAL)`: \n" +
		" \t(principal=User:p, host=*, operation=CREATE, permissionType=ALLOW)\n" +
		"\t(principal=User:p, host=*, operation=DESCRIBE, permissionType=ALLOW)\n" +
		"\t(principal=User:p, host=*, operation=WRITE, permissionType=ALLOW)\n\n"
	if r.Code != 0 || r.Stdout != want {
		t.Fatalf("add: %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	r = runArgs(t, "--bootstrap-server", bs, "--add", "--topic", "out", "--allow-principal", "User:p", "--operation", "Write")
	if r.Code != 0 || r.Stdout != "Acl (pattern=ResourcePattern(resourceType=TOPIC, name=out, patternType=LITERAL), entry=(principal=User:p, host=*, operation=WRITE, permissionType=ALLOW)) already exists.\n" {
		t.Fatalf("again: %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	r = runArgs(t, "--bootstrap-server", bs, "--list", "--topic", "out")
	wantList := "Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=out, patternType=LITERAL)`:\n" +
		"\t(principal=User:p, host=*, operation=CREATE, permissionType=ALLOW)\n" +
		"\t(principal=User:p, host=*, operation=DESCRIBE, permissionType=ALLOW)\n" +
		"\t(principal=User:p, host=*, operation=WRITE, permissionType=ALLOW)\n\n"
	if r.Code != 0 || r.Stdout != wantList {
		t.Fatalf("list: %d\n%q\n%s", r.Code, r.Stdout, r.Stderr)
	}
	r = runArgs(t, "--bootstrap-server", bs, "--list", "--principal", "User:p", "--cluster")
	if !strings.HasPrefix(r.Stdout, "ACLs for principal `User:p`\nCurrent ACLs for resource `ResourcePattern(resourceType=CLUSTER") {
		t.Fatalf("list --principal: %q", r.Stdout)
	}
	// --remove without --force asks; "n" keeps the ACLs.
	r = cmdtest.Run(t, cmdtest.Options{Cmd: Run, Invoked: "kafka-acls", Stdin: "n\n"}, "--bootstrap-server", bs, "--remove", "--topic", "out")
	if r.Code != 0 || r.Stdout != "Are you sure you want to delete all ACLs for resource filter `ResourcePattern(resourceType=TOPIC, name=out, patternType=LITERAL)`? (y/n)\n" {
		t.Fatalf("remove, no: %q", r.Stdout)
	}
	if r = runArgs(t, "--bootstrap-server", bs, "--list", "--topic", "out"); r.Stdout != wantList {
		t.Fatalf("an answer of n removed ACLs: %q", r.Stdout)
	}
	r = runArgs(t, "--bootstrap-server", bs, "--remove", "--force", "--topic", "out", "--allow-principal", "User:p", "--operation", "Create")
	if r.Code != 0 || r.Stdout != "" {
		t.Fatalf("remove: %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	if r = runArgs(t, "--bootstrap-server", bs, "--list", "--topic", "out"); strings.Contains(r.Stdout, "CREATE") || !strings.Contains(r.Stdout, "WRITE") {
		t.Fatalf("after remove: %q", r.Stdout)
	}
}

func TestNative(t *testing.T) {
	bs, _ := cmdtest.Kfake(t)
	native := func(stdin string, args ...string) cmdtest.Result {
		return cmdtest.Run(t, cmdtest.Options{New: NewNativeCmd, Stdin: stdin}, append(args, "--bootstrap-server", bs)...)
	}
	doc := "acls:\n  - {resource_type: topic, resource_name: orders, principal: User:alice, operation: write}\n  - {resource_type: topic, resource_name: orders, principal: User:bob, operation: write, permission: deny}\n"
	file := filepath.Join(t.TempDir(), "acls.yaml")
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	r := native("", "apply", file)
	want := "+ ALLOW User:alice WRITE TOPIC:orders (LITERAL) from *\n+ DENY User:bob WRITE TOPIC:orders (LITERAL) from *\n"
	if r.Code != 0 || r.Stdout != want {
		t.Fatalf("apply: %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	if r = native("", "list"); r.Code != 0 || !strings.Contains(r.Stdout, "User:bob") {
		t.Fatalf("list: %s %s", r.Stdout, r.Stderr)
	}
	r = native("", "check", "User:alice", "write", "topic:orders", "--super-users", "User:admin", "--allow-if-no-acl=false")
	if r.Code != 0 || !strings.Contains(r.Stdout, "ALLOWED") || r.Stderr != "" {
		t.Fatalf("check: %q %q", r.Stdout, r.Stderr)
	}
	if r = native("", "check", "User:bob", "write", "topic:orders", "-o", "json"); !strings.Contains(r.Stdout, `"reason":"deny_acl"`) {
		t.Fatalf("check bob: %q", r.Stdout)
	}
	exp := native("", "export")
	if exp.Code != 0 || !strings.Contains(exp.Stdout, "principal: User:alice") {
		t.Fatalf("export: %s", exp.Stdout)
	}
	if r = native(exp.Stdout, "apply", "-", "--dry-run"); r.Stdout != "no changes: the cluster's ACLs are the document's\n" {
		t.Fatalf("apply export: %q %s", r.Stdout, r.Stderr)
	}
	for _, bad := range [][]string{
		{"check", "alice", "write", "topic:orders"},
		{"check", "User:a", "fly", "topic:orders"},
		{"check", "User:a", "write", "topic"},
		{"check", "User:a", "IdempotentWrite", "topic:t"},
		{"list", "--resource-type", "any"},
	} {
		if r = native("", bad...); r.Code != 2 {
			t.Errorf("%v: exit %d %s", bad, r.Code, r.Stderr)
		}
	}
}
