package configs

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/pkg/jopt"
)

// Entity types, as ConfigCommand names them.
const (
	typeTopics        = "topics"
	typeClients       = "clients"
	typeUsers         = "users"
	typeBrokers       = "brokers"
	typeBrokerLoggers = "broker-loggers"
	typeIPs           = "ips"
	typeClientMetrics = "client-metrics"
	typeGroups        = "groups"
)

// supportedTypes is BROKER_SUPPORTED_CONFIG_TYPES in its order
// (broker-loggers, then ConfigType.values()).
var supportedTypes = []string{typeBrokerLoggers, typeTopics, typeClients, typeUsers, typeBrokers, typeIPs, typeClientMetrics, typeGroups}

// parser is ConfigCommandOptions' jopt-simple option set.
var parser = jopt.New(
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "bootstrap-controller", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "command-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "alter"},
	jopt.Spec{Name: "describe"},
	jopt.Spec{Name: "all"},
	jopt.Spec{Name: "entity-type", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "entity-name", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "entity-default"},
	jopt.Spec{Name: "add-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "add-config-file", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "delete-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "topic", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "client", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "client-defaults"},
	jopt.Spec{Name: "user", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "user-defaults"},
	jopt.Spec{Name: "broker", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "broker-defaults"},
	jopt.Spec{Name: "broker-logger", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "ip-defaults"},
	jopt.Spec{Name: "ip", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "group", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "client-metrics", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
)

// entityFlags and defaultFlags are the short forms, in ConfigCommand's order.
var entityFlags = []struct{ flag, typ string }{
	{"topic", typeTopics}, {"client", typeClients}, {"user", typeUsers}, {"broker", typeBrokers},
	{"broker-logger", typeBrokerLoggers}, {"ip", typeIPs}, {"client-metrics", typeClientMetrics}, {"group", typeGroups},
}

var defaultFlags = []struct{ flag, typ string }{
	{"client-defaults", typeClients}, {"user-defaults", typeUsers}, {"broker-defaults", typeBrokers}, {"ip-defaults", typeIPs},
}

type parsed struct{ *jopt.Set }

// argError is an IllegalArgumentException, InvalidConfigurationException
// or OptionException: Apache prints its message alone on stderr, exit 1.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func argErrorf(format string, a ...any) error { return &argError{msg: fmt.Sprintf(format, a...)} }

// usageError is printUsageAndExit: message and option table, exit 1.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// single is OptionSet.valueOf (jopt's error on repeats is an OptionException).
func (p *parsed) single(name string) (string, bool, error) {
	v, ok, err := p.Value(name)
	if err != nil {
		return "", false, &argError{msg: err.Error()}
	}
	return v, ok, nil
}

// entityTypes is ConfigCommandOptions.entityTypes.
func (p *parsed) entityTypes() []string {
	out := append([]string(nil), p.Values("entity-type")...)
	for _, e := range entityFlags {
		if p.Has(e.flag) {
			out = append(out, e.typ)
		}
	}
	for _, e := range defaultFlags {
		if p.Has(e.flag) {
			out = append(out, e.typ)
		}
	}
	return out
}

// entityNames is ConfigCommandOptions.entityNames: --entity-name and
// --entity-default ("") in command-line order, then the short forms.
func (p *parsed) entityNames() ([]string, error) {
	names := p.Values("entity-name")
	var out []string
	i := 0
	for _, o := range p.Detected {
		switch o {
		case "entity-name":
			out = append(out, names[i])
			i++
		case "entity-default":
			out = append(out, "")
		}
	}
	for _, e := range entityFlags {
		if p.Has(e.flag) {
			v, _, err := p.single(e.flag)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	}
	for _, e := range defaultFlags {
		if p.Has(e.flag) {
			out = append(out, "")
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkArgs is ConfigCommandOptions.checkArgs of Kafka 4.4.
func (p *parsed) checkArgs() error {
	n := 0
	for _, a := range []string{"alter", "describe"} {
		if p.Has(a) {
			n++
		}
	}
	if n != 1 {
		return &usageError{msg: "Command must include exactly one action: --describe, --alter"}
	}
	if p.Has("alter") && p.Has("describe") {
		return &usageError{msg: `Option "[alter]" can't be used with option "[describe]"`}
	}
	if p.Has("describe") {
		for _, o := range []string{"alter", "add-config", "delete-config"} {
			if p.Has(o) {
				return &usageError{msg: fmt.Sprintf("Option \"[describe]\" can't be used with option \"[%s]\"", o)}
			}
		}
	}
	types := p.entityTypes()
	seen := map[string]bool{}
	var dups []string
	for _, t := range types {
		if seen[t] && !contains(dups, t) {
			dups = append(dups, t)
		}
		seen[t] = true
	}
	if len(dups) > 0 {
		return argErrorf("Duplicate entity type(s) specified: %s", strings.Join(dups, ","))
	}
	if !p.Has("bootstrap-server") && !p.Has("bootstrap-controller") {
		return argErrorf("Either --bootstrap-server or --bootstrap-controller must be specified.")
	}
	for _, t := range types {
		if !contains(supportedTypes, t) {
			return argErrorf("Invalid entity type %s, the entity type must be one of %s with a --bootstrap-server or --bootstrap-controller argument", t, strings.Join(supportedTypes, ", "))
		}
	}
	if len(types) == 0 {
		return argErrorf("At least one entity type must be specified")
	}
	if len(types) > 1 && !(len(seen) == 2 && seen[typeUsers] && seen[typeClients]) {
		return argErrorf("Only '%s' and '%s' entity types may be specified together", typeUsers, typeClients)
	}
	if p.Has("entity-name") || p.Has("entity-type") || p.Has("entity-default") {
		for _, e := range append(append([]struct{ flag, typ string }{}, entityFlags...), defaultFlags...) {
			if p.Has(e.flag) {
				return argErrorf("--entity-{type,name,default} should not be used in conjunction with specific entity flags")
			}
		}
	}
	names, err := p.entityNames()
	if err != nil {
		return err
	}
	hasName, hasDefault := false, false
	for _, nm := range names {
		if nm == "" {
			hasDefault = true
		} else {
			hasName = true
		}
	}
	if p.Has("bootstrap-server") && p.Has("bootstrap-controller") {
		return argErrorf("Only one of --bootstrap-server or --bootstrap-controller can be specified")
	}
	if hasName && (contains(types, typeBrokers) || contains(types, typeBrokerLoggers)) {
		for _, o := range []string{"entity-name", "broker", "broker-logger"} {
			if !p.Has(o) {
				continue
			}
			v, _, err := p.single(o)
			if err != nil {
				return err
			}
			if _, err := strconv.ParseInt(v, 10, 32); err != nil {
				return argErrorf("The entity name for %s must be a valid integer broker id, but it is: %s", types[0], v)
			}
		}
	}
	if hasName && contains(types, typeIPs) {
		for _, o := range []string{"entity-name", "ip"} {
			if !p.Has(o) {
				continue
			}
			v, _, err := p.single(o)
			if err != nil {
				return err
			}
			if !validIP(v) {
				return argErrorf("The entity name for %s must be a valid IP or resolvable host, but it is: %s", types[0], v)
			}
		}
	}
	if p.Has("describe") {
		if !(contains(types, typeUsers) || contains(types, typeClients) || contains(types, typeBrokers) || contains(types, typeIPs)) && p.Has("entity-default") {
			return argErrorf("--entity-default must not be specified with --describe of %s", strings.Join(types, ","))
		}
		if contains(types, typeBrokerLoggers) && !hasName {
			return argErrorf("An entity name must be specified with --describe of %s", strings.Join(types, ","))
		}
	}
	if p.Has("alter") {
		if contains(types, typeUsers) || contains(types, typeClients) || contains(types, typeBrokers) || contains(types, typeIPs) {
			if !hasName && !hasDefault {
				return argErrorf("An entity-name or default entity must be specified with --alter of users, clients, brokers or ips")
			}
		} else if !hasName {
			return argErrorf("An entity name must be specified with --alter of %s", strings.Join(types, ","))
		}
		add, file, del := p.Has("add-config"), p.Has("add-config-file"), p.Has("delete-config")
		if add && file {
			return argErrorf("Only one of --add-config or --add-config-file must be specified")
		}
		if !add && !file && !del {
			return argErrorf("At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter")
		}
	}
	return nil
}

// validIP is InetAddress.getByName succeeding: an IP literal or a name
// that resolves.
func validIP(s string) bool {
	if s == "" {
		return true // the loopback address
	}
	h := strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if net.ParseIP(h) != nil {
		return true
	}
	_, err := net.LookupHost(s)
	return err == nil
}

// deleteConfigs is valuesOf(deleteConfig) (split on ',') trimmed.
func (p *parsed) deleteConfigs() []string {
	var out []string
	for _, v := range p.Values("delete-config") {
		for _, s := range strings.Split(v, ",") {
			out = append(out, strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }))
		}
	}
	return out
}

var errNoEntity = errors.New("An entity name must be specified for every entity type")
