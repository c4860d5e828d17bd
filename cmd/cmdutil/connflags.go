package cmdutil

import (
	"context"
	"strings"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/spf13/cobra"
)

// ConnFlags are the connection flags of native commands: --bootstrap-server,
// --command-config and repeatable -X/--property key=value. Apache applets
// parse their own flags and fill config.Overrides themselves.
type ConnFlags struct {
	Bootstrap     string
	CommandConfig string
	Props         []string
}

// Register adds the flags to cmd. withProps adds -X/--property.
func (c *ConnFlags) Register(cmd *cobra.Command, withProps bool) {
	fl := cmd.Flags()
	fl.StringVar(&c.Bootstrap, "bootstrap-server", "", "comma-separated broker addresses (overrides the profile)")
	fl.StringVar(&c.CommandConfig, "command-config", "", "Java client properties file (security settings)")
	if withProps {
		fl.StringArrayVarP(&c.Props, "property", "X", nil, "client property key=value (repeatable)")
	}
}

// Overrides turns the flags into config overrides; extra properties (a
// command's own flags such as --acks) come first, -X ones win over them.
func (c *ConnFlags) Overrides(extra map[string]string) (config.Overrides, error) {
	props := config.NewProperties()
	for k, v := range extra {
		if v != "" {
			props.Set(k, v)
		}
	}
	kv, err := ParseProps(c.Props, "--property")
	if err != nil {
		return config.Overrides{}, err
	}
	props.Merge(kv)
	return config.Overrides{Bootstrap: c.Bootstrap, CommandConfig: c.CommandConfig, Properties: props}, nil
}

// Connection resolves the invocation's connection with these flags.
func (c *ConnFlags) Connection(f *Factory, extra map[string]string) (*config.Connection, error) {
	ov, err := c.Overrides(extra)
	if err != nil {
		return nil, err
	}
	return f.Connection(ov)
}

// Connect is Factory.Connect with the connection these flags name: a
// native command's connected client, closed by the caller.
func (c *ConnFlags) Connect(ctx context.Context, f *Factory, role kafka.Role, o kafka.Options) (*kafka.Client, error) {
	ov, err := c.Overrides(nil)
	if err != nil {
		return nil, err
	}
	return f.Connect(ctx, ov, role, o)
}

// ParseProps parses key=value arguments of a native flag (named in errors).
func ParseProps(kvs []string, flag string) (*config.Properties, error) {
	props := config.NewProperties()
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, FlagErrorf("%s %q: want key=value", flag, kv)
		}
		props.Set(k, v)
	}
	return props, nil
}
