package profile

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
)

// Applet is the `kbox profile` group.
var Applet = cmdutil.Applet{Kind: cmdutil.Group, Alias: "profile", Short: "Manage connection profiles (they replace --command-config files)", New: NewCmd, NoProfile: true}

// NewCmd builds `kbox profile`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Manage connection profiles (they replace --command-config files)",
		Long: `Profiles live in a YAML file ($KBOX_CONFIG, else $XDG_CONFIG_HOME/kbox/config.yaml,
else ~/.config/kbox/config.yaml), written 0600 in a 0700 directory. Select one with
--profile NAME, $KBOX_PROFILE, or "kbox profile use NAME".`,
	}
	cmd.AddCommand(newProfileListCmd(f), newProfileShowCmd(f), newProfileUseCmd(f),
		newProfileCreateCmd(f), newProfileDeleteCmd(f), newProfileImportCmd(f))
	return cmd
}

// loadWith is loadFile for a command on profile name: one that does not
// exist is an error naming it.
func loadWith(f *cmdutil.Factory, name string) (*config.File, string, error) {
	file, path, err := loadFile(f)
	if err != nil {
		return nil, "", err
	}
	if _, ok := file.Profiles[name]; !ok {
		return nil, "", fmt.Errorf("profile %q not found in %s", name, path)
	}
	return file, path, nil
}

func loadFile(f *cmdutil.Factory) (*config.File, string, error) {
	l := f.Loader()
	path := l.ConfigPath()
	file, warnings, err := config.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	for _, w := range warnings {
		f.Warn("%s", w)
	}
	return file, path, nil
}

type profileRow struct {
	Name      string   `json:"name"`
	Current   bool     `json:"current"`
	Bootstrap []string `json:"bootstrap_servers"`
	Security  string   `json:"security"`
}

type profileList struct {
	Profiles []profileRow `json:"profiles"`
}

func (l profileList) Header() []string { return []string{"NAME", "CURRENT", "BOOTSTRAP", "SECURITY"} }
func (l profileList) Rows() [][]string {
	var rows [][]string
	for _, p := range l.Profiles {
		cur := ""
		if p.Current {
			cur = "*"
		}
		rows = append(rows, []string{p.Name, cur, strings.Join(p.Bootstrap, ","), p.Security})
	}
	return rows
}

func securityOf(p *config.Profile) string {
	var parts []string
	if p.TLS != nil && (p.TLS.Enabled || p.TLS.CAFile != "" || p.TLS.CertFile != "") {
		if p.TLS.CertFile != "" {
			parts = append(parts, "mTLS")
		} else {
			parts = append(parts, "TLS")
		}
	}
	if p.SASL != nil && p.SASL.Mechanism != "" {
		parts = append(parts, p.SASL.Mechanism)
	}
	if v, ok := p.Properties["security.protocol"]; ok && len(parts) == 0 {
		parts = append(parts, v)
	}
	if len(parts) == 0 {
		return "plaintext"
	}
	return strings.Join(parts, "+")
}

var (
	listFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML}, NoProfile: true}
	showFormats = cmdutil.Formats{Default: output.YAML, Allowed: []output.Format{output.JSON, output.YAML}, NoProfile: true}
)

func newProfileListCmd(f *cmdutil.Factory) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List profiles",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			file, _, err := loadFile(f)
			if err != nil {
				return err
			}
			l := profileList{Profiles: []profileRow{}}
			cur := f.Loader().SelectedProfile(f.Globals.Profile, file)
			for _, n := range file.Names() {
				p := file.Profiles[n]
				l.Profiles = append(l.Profiles, profileRow{Name: n, Current: n == cur, Bootstrap: p.BootstrapServers, Security: securityOf(p)})
			}
			if format == string(output.Table) && len(l.Profiles) == 0 {
				fmt.Fprintln(f.IO.ErrOut, "no profiles; create one with: kbox profile create NAME --bootstrap-server HOST:PORT")
				return nil
			}
			return output.Print(f.IO, output.Format(format), l)
		},
	}
	cmdutil.AddOutputFlag(f, cmd, &format, listFormats)
	return cmd
}

type profileShow struct {
	Name    string          `json:"name"`
	Current bool            `json:"current"`
	File    string          `json:"file"`
	Profile *config.Profile `json:"profile"`
}

func newProfileShowCmd(f *cmdutil.Factory) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "show [NAME]",
		Short: "Show a profile (secrets redacted); the selected one by default",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, path, err := loadFile(f)
			if err != nil {
				return err
			}
			cur := f.Loader().SelectedProfile(f.Globals.Profile, file)
			name := cur
			if len(args) == 1 {
				name = args[0]
			}
			if name == "" {
				return fmt.Errorf("no profile selected; name one or run kbox profile use NAME")
			}
			p, ok := file.Profiles[name]
			if !ok {
				return fmt.Errorf("profile %q not found in %s", name, path)
			}
			if p.HasLiteralSecret() {
				f.Warn("profile %q stores a literal secret in %s; prefer password-env or password-file", name, path)
			}
			return output.Print(f.IO, output.Format(format), profileShow{Name: name, Current: name == cur, File: path, Profile: p.Redacted()})
		},
	}
	cmdutil.AddOutputFlag(f, cmd, &format, showFormats)
	return cmd
}

func newProfileUseCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "use NAME",
		Short: "Make NAME the current profile",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, path, err := loadWith(f, args[0])
			if err != nil {
				return err
			}
			file.CurrentProfile = args[0]
			if err := config.WriteFile(path, file); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "current profile is now %q\n", args[0])
			return nil
		},
	}
}

type profileCreateOptions struct {
	bootstrap      []string
	output         string
	connectTimeout string
	expected       int
	caFile         string
	certFile       string
	keyFile        string
	tls            bool
	skipHostname   bool
	mechanism      string
	username       string
	passwordEnv    string
	passwordFile   string
	props          []string
	use            bool
	force          bool
}

func newProfileCreateCmd(f *cmdutil.Factory) *cobra.Command {
	var o profileCreateOptions
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Create (or with --force replace) a profile",
		Example: `  # a local plaintext cluster
  kbox profile create local --bootstrap-server 127.0.0.1:9092 --use
  # SCRAM over TLS, password read from an environment variable
  kbox profile create prod --bootstrap-server b1:9093,b2:9093 --tls-ca ca.pem \
      --sasl-mechanism SCRAM-SHA-512 --sasl-username admin --password-env PROD_KAFKA_PASSWORD`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := config.ValidateProfileName(name); err != nil {
				return &cmdutil.FlagError{Err: err}
			}
			p := &config.Profile{Output: o.output, ConnectTimeout: o.connectTimeout, ExpectedBrokers: o.expected}
			if o.expected < 0 {
				return cmdutil.FlagErrorf("--expected-brokers %d: must not be negative", o.expected)
			}
			for _, b := range o.bootstrap {
				p.BootstrapServers = append(p.BootstrapServers, config.SplitList(b)...)
			}
			if len(p.BootstrapServers) == 0 {
				return cmdutil.FlagErrorf("--bootstrap-server is required")
			}
			if o.output != "" {
				if _, err := output.ParseFormat(o.output, output.Apache, output.Table, output.Wide, output.JSON, output.YAML); err != nil {
					return &cmdutil.FlagError{Err: err}
				}
			}
			if o.tls || o.caFile != "" || o.certFile != "" || o.keyFile != "" || o.skipHostname {
				p.TLS = &config.TLS{Enabled: true, CAFile: o.caFile, CertFile: o.certFile, KeyFile: o.keyFile, SkipHostnameVerification: o.skipHostname}
			}
			if o.mechanism != "" || o.username != "" {
				if o.mechanism == "" || o.username == "" {
					return cmdutil.FlagErrorf("--sasl-mechanism and --sasl-username go together")
				}
				if o.passwordEnv != "" && o.passwordFile != "" {
					return cmdutil.FlagErrorf("--password-env and --password-file are exclusive")
				}
				p.SASL = &config.SASL{Mechanism: strings.ToUpper(o.mechanism), Username: o.username, PasswordEnv: o.passwordEnv, PasswordFile: o.passwordFile}
			}
			if len(o.props) > 0 {
				p.Properties = map[string]string{}
				for _, kv := range o.props {
					k, v, ok := strings.Cut(kv, "=")
					if !ok || k == "" {
						return cmdutil.FlagErrorf("--set %q: want KEY=VALUE", k)
					}
					p.Properties[k] = v
				}
			}
			// Check the profile resolves (files exist, mechanism known)
			// before writing it; the password may legitimately be absent now.
			if p.SASL == nil || p.SASL.PasswordEnv == "" {
				if _, err := (&config.Loader{Getenv: f.Getenv}).ProfileProperties(name, withDummyPassword(p)); err != nil {
					return err
				}
			}
			return saveProfile(f, name, p, o.force, o.use)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&o.bootstrap, "bootstrap-server", nil, "broker addresses, comma-separated or repeated")
	fl.StringVar(&o.output, "default-output", "", "default output format for this profile (apache, table, wide, json, yaml)")
	fl.StringVar(&o.connectTimeout, "connect-timeout", "", "how long to wait for the first broker (e.g. 10s)")
	fl.IntVar(&o.expected, "expected-brokers", 0, "how many brokers the cluster should have (kbox status; 0: the registered ones)")
	fl.BoolVar(&o.tls, "tls", false, "connect with TLS (system roots unless --tls-ca)")
	fl.StringVar(&o.caFile, "tls-ca", "", "PEM file of CA certificates to trust")
	fl.StringVar(&o.certFile, "tls-cert", "", "PEM client certificate chain (mutual TLS)")
	fl.StringVar(&o.keyFile, "tls-key", "", "PEM client private key (mutual TLS)")
	fl.BoolVar(&o.skipHostname, "tls-skip-hostname-verification", false, "do not check the broker host name (the chain is still verified)")
	fl.StringVar(&o.mechanism, "sasl-mechanism", "", "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	fl.StringVar(&o.username, "sasl-username", "", "SASL user")
	fl.StringVar(&o.passwordEnv, "password-env", "", "read the SASL password from this environment variable")
	fl.StringVar(&o.passwordFile, "password-file", "", "read the SASL password from this file")
	fl.StringArrayVar(&o.props, "set", nil, "a Java client property KEY=VALUE (repeatable)")
	fl.BoolVar(&o.use, "use", false, "make it the current profile")
	fl.BoolVar(&o.force, "force", false, "replace an existing profile of that name")
	return cmd
}

func withDummyPassword(p *config.Profile) *config.Profile {
	if p.SASL == nil || p.SASL.PasswordFile != "" {
		return p
	}
	c := *p
	s := *p.SASL
	s.Password = "x"
	c.SASL = &s
	return &c
}

func saveProfile(f *cmdutil.Factory, name string, p *config.Profile, force, use bool) error {
	file, path, err := loadFile(f)
	if err != nil {
		return err
	}
	if _, exists := file.Profiles[name]; exists && !force {
		return fmt.Errorf("profile %q already exists in %s; use --force to replace it", name, path)
	}
	file.Profiles[name] = p
	if use || file.CurrentProfile == "" {
		file.CurrentProfile = name
	}
	if err := config.WriteFile(path, file); err != nil {
		return err
	}
	fmt.Fprintf(f.IO.Out, "profile %q written to %s\n", name, path)
	if p.HasLiteralSecret() {
		f.Warn("profile %q stores a literal secret; prefer --password-env or --password-file", name)
	}
	return nil
}

func newProfileDeleteCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a profile",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, path, err := loadWith(f, args[0])
			if err != nil {
				return err
			}
			delete(file.Profiles, args[0])
			if file.CurrentProfile == args[0] {
				file.CurrentProfile = ""
			}
			if err := config.WriteFile(path, file); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "profile %q deleted\n", args[0])
			return nil
		},
	}
}

func newProfileImportCmd(f *cmdutil.Factory) *cobra.Command {
	var from, pwEnv, pwFile string
	var use, force bool
	var bootstrap string
	cmd := &cobra.Command{
		Use:     "import NAME --from-properties FILE",
		Short:   "Turn a Java client properties file into a profile",
		Example: `  kbox profile import prod --from-properties client.properties --bootstrap-server b1:9093 --password-env PROD_PW`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := config.ValidateProfileName(name); err != nil {
				return &cmdutil.FlagError{Err: err}
			}
			if from == "" {
				return cmdutil.FlagErrorf("--from-properties is required")
			}
			props, err := config.LoadPropertiesFile(from)
			if err != nil {
				return err
			}
			p, err := config.ProfileFromProperties(props, config.ImportOptions{PasswordEnv: pwEnv, PasswordFile: pwFile})
			if err != nil {
				return fmt.Errorf("%s: %v", from, err)
			}
			if bootstrap != "" {
				p.BootstrapServers = config.SplitList(bootstrap)
			}
			if len(p.BootstrapServers) == 0 {
				return cmdutil.FlagErrorf("%s has no bootstrap.servers; pass --bootstrap-server", from)
			}
			keys := make([]string, 0, len(p.Properties))
			for k := range p.Properties {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if len(keys) > 0 {
				fmt.Fprintf(f.IO.ErrOut, "kept as Java properties: %s\n", strings.Join(keys, ", "))
			}
			return saveProfile(f, name, p, force, use)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&from, "from-properties", "", "Java client properties file to import")
	fl.StringVar(&bootstrap, "bootstrap-server", "", "broker addresses (when the file has no bootstrap.servers)")
	fl.StringVar(&pwEnv, "password-env", "", "store the SASL password as a reference to this environment variable")
	fl.StringVar(&pwFile, "password-file", "", "store the SASL password as a reference to this file")
	fl.BoolVar(&use, "use", false, "make it the current profile")
	fl.BoolVar(&force, "force", false, "replace an existing profile of that name")
	return cmd
}
