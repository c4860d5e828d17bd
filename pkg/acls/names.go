// Package acls is kbox's ACL domain: Kafka's ACL bindings with their Java
// names and texts (AclCommand's), describe, create and delete over the
// admin protocol, the StandardAuthorizer's decision for one request
// (Check), and the YAML document and diff of `kbox acls export|apply`.
// It prints nothing.
package acls

import (
	"fmt"
	"strings"
)

// Resource types: Java's ResourceType names by protocol code.
var resourceTypes = map[int8]string{0: "UNKNOWN", 1: "ANY", 2: "TOPIC", 3: "GROUP", 4: "CLUSTER", 5: "TRANSACTIONAL_ID", 6: "DELEGATION_TOKEN", 7: "USER"}

// Pattern types: Java's PatternType names by protocol code.
var patternTypes = map[int8]string{0: "UNKNOWN", 1: "ANY", 2: "MATCH", 3: "LITERAL", 4: "PREFIXED"}

// Operations: Java's AclOperation names by protocol code.
var operations = map[int8]string{0: "UNKNOWN", 1: "ANY", 2: "ALL", 3: "READ", 4: "WRITE", 5: "CREATE", 6: "DELETE", 7: "ALTER",
	8: "DESCRIBE", 9: "CLUSTER_ACTION", 10: "DESCRIBE_CONFIGS", 11: "ALTER_CONFIGS", 12: "IDEMPOTENT_WRITE",
	13: "CREATE_TOKENS", 14: "DESCRIBE_TOKENS", 15: "TWO_PHASE_COMMIT"}

// Permission types: Java's AclPermissionType names by protocol code.
var permissions = map[int8]string{0: "UNKNOWN", 1: "ANY", 2: "DENY", 3: "ALLOW"}

// ClusterName is the one name of the cluster resource (Resource.CLUSTER_NAME).
const ClusterName = "kafka-cluster"

// WildcardHost and WildcardName are the ACL wildcards; WildcardPrincipal
// matches every user.
const (
	WildcardHost      = "*"
	WildcardName      = "*"
	WildcardPrincipal = "User:*"
)

// supported is AclEntry.supportedOperations per resource type (ALL added),
// in the order AclCommand's message printed them in a 4.4 capture (a Java
// HashSet: no order to rely on).
var supported = map[string][]string{
	"TOPIC":            {"ALTER_CONFIGS", "ALTER", "DELETE", "CREATE", "DESCRIBE_CONFIGS", "WRITE", "READ", "ALL", "DESCRIBE"},
	"GROUP":            {"ALTER_CONFIGS", "DESCRIBE_CONFIGS", "DELETE", "READ", "ALL", "DESCRIBE"},
	"CLUSTER":          {"ALTER_CONFIGS", "CLUSTER_ACTION", "ALTER", "CREATE", "DESCRIBE_CONFIGS", "IDEMPOTENT_WRITE", "ALL", "DESCRIBE"},
	"TRANSACTIONAL_ID": {"TWO_PHASE_COMMIT", "WRITE", "ALL", "DESCRIBE"},
	"DELEGATION_TOKEN": {"ALL", "DESCRIBE"},
	"USER":             {"DESCRIBE_TOKENS", "CREATE_TOKENS", "ALL"},
}

// SupportedOperations is the operations an ACL on resource type rt may
// name (ALL included), as AclCommand prints them.
func SupportedOperations(rt string) []string { return supported[rt] }

// Supports says whether an ACL on resource type rt may name operation op.
func Supports(rt, op string) bool {
	for _, o := range supported[rt] {
		if o == op {
			return true
		}
	}
	return false
}

func codeOf(table map[int8]string, name string) (int8, bool) {
	for c, n := range table {
		if n == name {
			return c, true
		}
	}
	return 0, false
}

// camel is SecurityUtils.operationName: READ → Read, DESCRIBE_CONFIGS →
// DescribeConfigs.
func camel(name string) string {
	var b strings.Builder
	for _, w := range strings.Split(name, "_") {
		if w != "" {
			b.WriteString(w[:1] + strings.ToLower(w[1:]))
		}
	}
	return b.String()
}

// OperationName is the operation's name in AclCommand's help (Read,
// DescribeConfigs).
func OperationName(op string) string { return camel(op) }

// ParseOperation is SecurityUtils.operation: the camel-case name in any
// case (read, DescribeConfigs); UNKNOWN for any other text.
func ParseOperation(s string) string {
	u := strings.ToUpper(s)
	for _, n := range operations {
		if strings.ToUpper(camel(n)) == u {
			return n
		}
	}
	return "UNKNOWN"
}

// ParseOperationName takes an operation as kbox's native commands do:
// Java's enum name or the camel-case name, in any case; an error names the
// valid ones.
func ParseOperationName(s string) (string, error) {
	u := strings.ToUpper(strings.ReplaceAll(strings.ReplaceAll(s, "-", "_"), " ", "_"))
	for _, n := range operations {
		if n == u && n != "UNKNOWN" && n != "ANY" {
			return n, nil
		}
	}
	if op := ParseOperation(s); op != "UNKNOWN" && op != "ANY" {
		return op, nil
	}
	return "", fmt.Errorf("unknown operation %q (one of %s)", s, strings.Join(OperationNames(), ", "))
}

// OperationNames is every operation an ACL may name, by protocol code.
func OperationNames() []string {
	var out []string
	for c := int8(2); c <= 15; c++ {
		out = append(out, operations[c])
	}
	return out
}

// ParsePatternType is jopt's EnumConverter over PatternType (any case)
// with AclCommand's refusal of UNKNOWN; ok false when s names none.
func ParsePatternType(s string) (string, bool) {
	u := strings.ToUpper(s)
	if u == "UNKNOWN" {
		return "", false
	}
	_, ok := codeOf(patternTypes, u)
	return u, ok
}

// ParseResourceType takes a resource type in any case, with - or _
// (topic, transactional-id); ANY and UNKNOWN are refused.
func ParseResourceType(s string) (string, error) {
	u := strings.ToUpper(strings.ReplaceAll(s, "-", "_"))
	if c, ok := codeOf(resourceTypes, u); ok && c > 1 {
		return u, nil
	}
	return "", fmt.Errorf("unknown resource type %q (one of topic, group, cluster, transactional-id, delegation-token, user)", s)
}
