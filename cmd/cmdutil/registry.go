package cmdutil

import (
	"fmt"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/spf13/cobra"
)

// AddRegistryFlag adds --schema-registry URL to cmd (persistent: its
// subcommands take it too). It overrides the profile's schema-registry
// url and KBOX_SCHEMA_REGISTRY; the profile's login and TLS still apply.
func AddRegistryFlag(cmd *cobra.Command, url *string) {
	cmd.PersistentFlags().StringVar(url, "schema-registry", "", "Schema Registry URL (overrides the profile's schema-registry url and KBOX_SCHEMA_REGISTRY)")
}

// Registry resolves the Schema Registry of this invocation: the profile in
// effect (--profile, KBOX_PROFILE, the current one), KBOX_SCHEMA_REGISTRY,
// then urlFlag. A profile that stores a literal secret is warned about
// once. It does not dial.
func (f *Factory) Registry(urlFlag string) (*config.Registry, error) {
	l := f.Loader()
	reg, err := l.Registry(f.Globals.Profile, urlFlag)
	if err != nil {
		return nil, err
	}
	if reg.Profile != "" {
		if file, _, err := l.File(); err == nil {
			if p := file.Profiles[reg.Profile]; p.HasLiteralSecret() {
				f.warnOnce(fmt.Sprintf("profile %q stores a literal secret in %s; prefer password-env or password-file", reg.Profile, l.ConfigPath()))
			}
		}
	}
	return reg, nil
}
