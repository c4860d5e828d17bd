package configs

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/pkg/javaerr"
	"github.com/twmb/franz-go/pkg/kerr"
)

func isJavaSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\x0b' || c == '\f' || c == '\r'
}

// outsideBrackets is the lookahead (?=[^\]]*(?:\[|$)) at position i: the
// text from i reaches '[' or the end before any ']'.
func outsideBrackets(s string, i int) bool {
	for ; i < len(s); i++ {
		switch s[i] {
		case ']':
			return false
		case '[':
			return true
		}
	}
	return true
}

// splitCommas is s.split(",(?=[^\\]]*(?:\\[|$))"): commas outside square
// brackets; trailing empty strings removed, as Java's split(regex) does.
func splitCommas(s string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ',' && outsideBrackets(s, i+1) {
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	parts = append(parts, s[start:])
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// splitEquals is s.split("\\s*=\\s*(?=[^\\]]*(?:\\[|$))", -1).
func splitEquals(s string) []string {
	var parts []string
	start := 0
	for i := start; i < len(s); i++ {
		j := i
		for j < len(s) && isJavaSpace(s[j]) {
			j++
		}
		if j >= len(s) || s[j] != '=' {
			continue
		}
		k := j + 1
		for k < len(s) && isJavaSpace(s[k]) {
			k++
		}
		if !outsideBrackets(s, k) {
			continue
		}
		parts = append(parts, s[start:i])
		start = k
		i = k - 1
	}
	return append(parts, s[start:])
}

// ErrAddConfigFormat is ConfigCommand's message for a malformed --add-config.
const ErrAddConfigFormat = `Invalid entity config: all configs to be added must be in the format "key=val" or  "key=[val1,val2]" to group values which contain commas.`

// Prop is one config to add, in the order given (a later one with the same
// name replaces an earlier one).
type Prop struct{ Name, Value string }

// Props is an ordered set of configs to add.
type Props []Prop

// Set adds or replaces name.
func (p *Props) Set(name, value string) {
	for i := range *p {
		if (*p)[i].Name == name {
			(*p)[i].Value = value
			return
		}
	}
	*p = append(*p, Prop{name, value})
}

// Get returns name's value.
func (p Props) Get(name string) (string, bool) {
	for _, x := range p {
		if x.Name == name {
			return x.Value, true
		}
	}
	return "", false
}

// Names returns the names in order.
func (p Props) Names() []string {
	out := make([]string, len(p))
	for i, x := range p {
		out[i] = x.Name
	}
	return out
}

// ParseAddConfig adds the configs of one --add-config value to props, as
// ConfigCommand.parseConfigsToBeAdded does: "k1=v1,k2=[a,b]", square
// brackets group values that contain commas and are then dropped.
func ParseAddConfig(props *Props, s string) error {
	var pairs [][]string
	for _, kv := range splitCommas(s) {
		p := splitEquals(kv)
		if len(p) != 2 {
			return errors.New(ErrAddConfigFormat)
		}
		pairs = append(pairs, p)
	}
	if len(pairs) == 0 { // "".split(...) is [""], which has no '='
		return errors.New(ErrAddConfigFormat)
	}
	for _, p := range pairs {
		v := strings.NewReplacer("[", "", "]", "").Replace(p[1])
		props.Set(javaTrim(p[0]), javaTrim(v))
	}
	return nil
}

// javaTrim is String.trim: every char <= ' ' at both ends.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

var keyChars = regexp.MustCompile(`^[$a-zA-Z0-9._-]*$`)

// ValidateKeys is validatePropsKey: only letters, digits, '.', '_', '-'
// and '$' in config names.
func ValidateKeys(props Props) error {
	for _, p := range props {
		if !keyChars.MatchString(p.Name) {
			return fmt.Errorf("Invalid character found for config key: %s", p.Name)
		}
	}
	return nil
}

var credPattern = regexp.MustCompile(`^(?:iterations=(-?[0-9]*),)?password=((?s).*)$`)

// RedactPasswords replaces what follows each "password=" up to the next
// ']' (or the end) with "<redacted>": kbox's only change to the text
// Apache echoes (a SCRAM credential's argument, the command line).
func RedactPasswords(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "password=")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+len("password=")] + "<redacted>")
		s = s[i+len("password="):]
		if j := strings.IndexByte(s, ']'); j >= 0 {
			s = s[j:]
		} else {
			s = ""
		}
	}
}

// ParseScram parses a SCRAM credential value "[iterations=N,]password=P"
// (brackets already removed) for mechanism, as ConfigCommand does. Errors
// never hold the password.
func ParseScram(mechanism, v string) (ScramUpsert, error) {
	m := credPattern.FindStringSubmatchIndex(v)
	if m == nil {
		// Java prints the ScramMechanism enum name.
		return ScramUpsert{}, fmt.Errorf("Invalid credential property %s=%s", strings.ReplaceAll(mechanism, "-", "_"), RedactPasswords(v))
	}
	it := 4096
	if m[2] >= 0 {
		s := v[m[2]:m[3]]
		if s != "-1" {
			n, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				return ScramUpsert{}, fmt.Errorf("For input string: \"%s\"", s)
			}
			it = int(n)
		}
	}
	if min := scramMechanisms[mechanism].minIterations; it < min {
		return ScramUpsert{}, fmt.Errorf("Iterations %d is less than the minimum %d required for %s", it, min, mechanism)
	}
	return ScramUpsert{Mechanism: mechanism, Iterations: it, Password: v[m[4]:m[5]]}, nil
}

// ValidateTopicName is Topic.validate of Kafka 4.4: the message for a
// name Kafka refuses.
func ValidateTopicName(name string) error {
	const pre = "Topic name is invalid: "
	switch {
	case name == "":
		return errors.New(pre + "the empty string is not allowed")
	case name == "." || name == "..":
		return fmt.Errorf(pre+"'%s' is not allowed", name)
	case len(name) > 249:
		return fmt.Errorf(pre+"the length of '%s' is longer than the max allowed length 249", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf(pre+"'%s' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'", name)
		}
	}
	return nil
}

// javaException is e.getClass().getSimpleName() + ": " + e.getMessage()
// for a broker error.
func javaException(err error) string {
	var ke *kerr.Error
	var ce *Error
	msg := err.Error()
	if errors.As(err, &ce) {
		err = ce.Err
	}
	if errors.As(err, &ke) {
		if ce == nil || ce.Message == "" {
			msg = ke.Description
		}
		return javaerr.SimpleName(ke.Code) + ": " + msg
	}
	return msg
}

// WriteEntriesApache prints a resource's entries as kafka-configs
// --describe does under its header line.
func WriteEntriesApache(w io.Writer, entries []Entry) error {
	for _, e := range entries {
		var syn []string
		for _, s := range e.Synonyms {
			syn = append(syn, s.Source+":"+s.Name+"="+javaString(s.Value))
		}
		if _, err := fmt.Fprintf(w, "  %s=%s sensitive=%t synonyms={%s}\n", e.Name, javaString(e.Value), e.Sensitive, strings.Join(syn, ", ")); err != nil {
			return err
		}
	}
	return nil
}

func javaString(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}
