package cmdutil

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// javaHostPort is Utils.getPort's pattern (Kafka 4.4 clients).
var javaHostPort = regexp.MustCompile(`^(?:[0-9a-zA-Z\-%._]*://)?\[?([0-9a-zA-Z\-%._:]*)\]?:([0-9]+)$`)

// ValidateBootstrap is ToolsUtils.validateBootstrapServer: "" when the list
// is valid, else the exception's message (printed with the usage; Java's
// own two end with a newline).
func ValidateBootstrap(v string, given bool) string {
	if !given || strings.TrimSpace(v) == "" {
		return "Error while validating the bootstrap address\n"
	}
	parts := []string{v}
	if strings.Contains(v, ",") {
		parts = javaSplitLiteral(v, ",")
	}
	const invalid = "Please provide valid host:port like host1:9091,host2:9092\n"
	if len(parts) == 0 {
		return invalid
	}
	for _, p := range parts {
		m := javaHostPort.FindStringSubmatch(p)
		if m == nil {
			return invalid
		}
		if _, err := strconv.ParseInt(m[2], 10, 32); err != nil {
			return fmt.Sprintf("For input string: \"%s\"", m[2])
		}
	}
	return ""
}

// javaSplitLiteral is String.split for a separator with no regex meaning:
// trailing empty strings are dropped.
func javaSplitLiteral(s, sep string) []string {
	parts := strings.Split(s, sep)
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}
