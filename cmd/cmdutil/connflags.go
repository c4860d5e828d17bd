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
	// Controller is --bootstrap-controller, on commands that register it
	// (RegisterController): KRaft controller addresses instead of brokers.
	Controller string
	// controllerFlag: the command takes --bootstrap-controller, so a
	// profile with bootstrap-controllers and no bootstrap-servers means
	// the controllers.
	controllerFlag bool
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

// RegisterController adds --bootstrap-controller: the command can work
// over the KRaft controllers (DescribeCluster, DescribeQuorum, ...), named
// by the flag or by a profile that has bootstrap-controllers and no
// bootstrap-servers (Resolve).
func (c *ConnFlags) RegisterController(cmd *cobra.Command) {
	c.controllerFlag = true
	cmd.Flags().StringVar(&c.Controller, "bootstrap-controller", "", "comma-separated KRaft controller addresses (instead of brokers)")
}

// Resolve is Overrides with the controllers decided: --bootstrap-controller
// (which excludes --bootstrap-server), or, on a command that registered
// it and names no address, the profile's bootstrap-controllers when it has
// no bootstrap-servers. Overrides.Controllers says which.
func (c *ConnFlags) Resolve(f *Factory, extra map[string]string) (config.Overrides, error) {
	ov, err := c.Overrides(extra)
	if err != nil {
		return ov, err
	}
	switch {
	case c.Controller != "":
		if c.Bootstrap != "" {
			return ov, FlagErrorf("give one of --bootstrap-server and --bootstrap-controller")
		}
		ov.Bootstrap, ov.Controllers = c.Controller, true
	case c.controllerFlag && c.Bootstrap == "":
		sel, err := f.Selection()
		if err != nil {
			return ov, err
		}
		ov.Controllers = len(sel.Bootstrap) == 0 && len(sel.Controllers) > 0
	}
	return ov, nil
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
	ov, err := c.Resolve(f, extra)
	if err != nil {
		return nil, err
	}
	return f.Connection(ov)
}

// Connect is Factory.Connect with the connection these flags name: a
// native command's connected client, closed by the caller. Over the
// controllers (conn.Controllers) the client is not pinged: a controller
// listener answers no Metadata request, so the command's first request is
// the check.
func (c *ConnFlags) Connect(ctx context.Context, f *Factory, role kafka.Role, o kafka.Options) (*kafka.Client, error) {
	ov, err := c.Resolve(f, nil)
	if err != nil {
		return nil, err
	}
	if ov.Controllers {
		conn, err := f.Connection(ov)
		if err != nil {
			return nil, err
		}
		return f.Client(conn, role, o)
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
