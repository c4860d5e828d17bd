package config

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// DefaultConnectTimeout bounds how long a command waits for the first broker
// to answer before failing with one line naming the address and cause.
const DefaultConnectTimeout = 10 * time.Second

// Overrides are the per-invocation settings that come from flags.
type Overrides struct {
	Profile       string      // --profile
	Bootstrap     string      // --bootstrap-server / --broker-list (comma-separated)
	CommandConfig string      // --command-config / --producer.config / --consumer.config
	Properties    *Properties // properties given on the command line (highest precedence)
	Output        string      // -o / --output
	// ArgsOnly: the arguments name the connection themselves (an Apache
	// tool's --bootstrap-server under its own name), so neither the config
	// file's current-profile nor KBOX_BOOTSTRAP_SERVERS applies; a profile
	// chosen by Profile or KBOX_PROFILE still does.
	ArgsOnly bool
	// Controllers: connect to the KRaft controllers, not the brokers
	// (Apache's --bootstrap-controller, the admin client's
	// bootstrap.controllers). Bootstrap is then the controllers' list;
	// without one, a --command-config file's bootstrap.controllers, then
	// the profile's bootstrap-controllers apply. Connection.Bootstrap is
	// that list and bootstrap.servers is set to it (the client's seeds).
	Controllers bool
}

// Loader resolves connections. Its fields make it testable without touching
// the process environment.
//
// A Loader reads the config file once and resolves each profile's
// properties (secrets included) once: an invocation that asks for its
// connection several times reads the file once and prompts for a password
// at most once. Use one Loader per process (cmdutil.Factory holds it).
type Loader struct {
	Path       string                              // config file; "" means DefaultPath(Getenv)
	Getenv     func(string) string                 // os.Getenv when nil
	ReadSecret func(prompt string) (string, error) // terminal prompt without echo; nil: no prompting

	mu       sync.Mutex
	file     *File
	fileWarn []string
	fileErr  error
	fileRead bool
	profiles map[string]profileResult
	// registries caches ProfileRegistry per profile name.
	registries map[string]registryResult
}

type profileResult struct {
	props *Properties
	err   error
}

// File returns the config file, read once, with its warnings.
func (l *Loader) File() (*File, []string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.fileRead {
		l.file, l.fileWarn, l.fileErr = ReadFile(l.ConfigPath())
		l.fileRead = true
	}
	return l.file, l.fileWarn, l.fileErr
}

// Selection is the profile an invocation uses, found without resolving
// any secret: enough to decide defaults (bootstrap, output) before work.
type Selection struct {
	Name      string   // "" when no profile is selected or the current one dangles
	Explicit  bool     // chosen by --profile or KBOX_PROFILE
	Bootstrap []string // the profile's bootstrap servers, then KBOX_BOOTSTRAP_SERVERS
	// Controllers are the profile's bootstrap-controllers.
	Controllers []string
	Output      string // KBOX_OUTPUT, else the profile's output
}

// Select finds the profile in effect (flag, KBOX_PROFILE, current-profile)
// and the defaults it gives. An explicitly selected profile that does not
// exist is an error naming it; a dangling current-profile is not.
func (l *Loader) Select(flag string) (*Selection, error) {
	file, _, err := l.File()
	if err != nil {
		return nil, err
	}
	sel := &Selection{}
	name := l.SelectedProfile(flag, file)
	sel.Explicit = flag != "" || l.getenv("KBOX_PROFILE") != ""
	if name != "" {
		p, ok := file.Profiles[name]
		switch {
		case ok:
			sel.Name = name
			sel.Bootstrap = append([]string(nil), p.BootstrapServers...)
			sel.Controllers = append([]string(nil), p.BootstrapControllers...)
			sel.Output = p.Output
		case sel.Explicit:
			return nil, l.notFound(name)
		}
	}
	if e := l.getenv("KBOX_BOOTSTRAP_SERVERS"); e != "" {
		sel.Bootstrap = SplitList(e)
	}
	if e := l.getenv("KBOX_OUTPUT"); e != "" {
		sel.Output = e
	}
	return sel, nil
}

func (l *Loader) notFound(name string) error {
	return fmt.Errorf("profile %q not found in %s", name, l.ConfigPath())
}

// Connection is everything needed to build a client.
type Connection struct {
	Profile        string      // selected profile name, "" when none
	Bootstrap      []string    // seed brokers
	Props          *Properties // merged Java client properties, security included
	Output         string      // preferred output format, "" for the command's default
	ConnectTimeout time.Duration
	Warnings       []string // to print on stderr, e.g. about literal secrets
	// Controllers: Bootstrap lists KRaft controllers (Overrides.Controllers).
	Controllers bool
}

// Secrets returns the secret values of the connection, for tests and for
// scrubbing text that may echo them.
func (c *Connection) Secrets() []string {
	var out []string
	if c.Props == nil {
		return nil
	}
	for _, k := range c.Props.Keys() {
		v, _ := c.Props.Get(k)
		if !IsSecretKey(k) || v == "" {
			continue
		}
		if k == "sasl.jaas.config" {
			if e, err := ParseClientJAAS(v); err == nil {
				for ok, ov := range e.Options {
					if IsSecretKey(ok) && ov != "" {
						out = append(out, ov)
					}
				}
				continue
			}
		}
		out = append(out, v)
	}
	return out
}

func (l *Loader) getenv(k string) string {
	if l.Getenv != nil {
		return l.Getenv(k)
	}
	return os.Getenv(k)
}

// ConfigPath is the config file this loader reads.
func (l *Loader) ConfigPath() string {
	if l.Path != "" {
		return l.Path
	}
	return DefaultPath(l.getenv)
}

// SelectedProfile returns the profile name in effect: flag, KBOX_PROFILE,
// then the file's current-profile.
func (l *Loader) SelectedProfile(flag string, f *File) string {
	if flag != "" {
		return flag
	}
	if e := l.getenv("KBOX_PROFILE"); e != "" {
		return e
	}
	if f != nil {
		return f.CurrentProfile
	}
	return ""
}

// Resolve merges all sources into a Connection. It does not dial.
func (l *Loader) Resolve(ov Overrides) (*Connection, error) {
	file, warnings, err := l.File()
	if err != nil {
		return nil, err
	}
	conn := &Connection{Props: NewProperties(), ConnectTimeout: DefaultConnectTimeout, Warnings: append([]string(nil), warnings...)}

	// 4. profile
	name := l.SelectedProfile(ov.Profile, file)
	if ov.ArgsOnly && ov.Profile == "" && l.getenv("KBOX_PROFILE") == "" {
		name = ""
	}
	if name != "" {
		p, ok := file.Profiles[name]
		if !ok {
			if ov.Profile != "" || l.getenv("KBOX_PROFILE") != "" {
				return nil, l.notFound(name)
			}
			// A dangling current-profile pointer is not fatal.
			conn.Warnings = append(conn.Warnings, fmt.Sprintf("current profile %q not found in %s; ignoring it", name, l.ConfigPath()))
		} else {
			conn.Profile = name
			if err := l.applyProfile(conn, name, p); err != nil {
				return nil, err
			}
		}
	}

	// 3. Java client properties file
	if ov.CommandConfig != "" {
		props, err := LoadPropertiesFile(ov.CommandConfig)
		if err != nil {
			return nil, err
		}
		conn.Props.Merge(props)
		if bs, ok := props.Get("bootstrap.servers"); ok && strings.TrimSpace(bs) != "" {
			conn.Bootstrap = SplitList(bs)
		}
	}

	// 2. environment
	if e := l.getenv("KBOX_BOOTSTRAP_SERVERS"); e != "" && !ov.ArgsOnly {
		conn.Bootstrap = SplitList(e)
	}
	if e := l.getenv("KBOX_OUTPUT"); e != "" {
		conn.Output = e
	}
	if e := l.getenv("KBOX_CONNECT_TIMEOUT"); e != "" {
		d, err := parseTimeout(e)
		if err != nil {
			return nil, fmt.Errorf("KBOX_CONNECT_TIMEOUT: %v", err)
		}
		conn.ConnectTimeout = d
	}

	// 1. flags
	if ov.Properties != nil {
		conn.Props.Merge(ov.Properties)
		if bs, ok := ov.Properties.Get("bootstrap.servers"); ok && strings.TrimSpace(bs) != "" {
			conn.Bootstrap = SplitList(bs)
		}
	}
	if ov.Bootstrap != "" {
		conn.Bootstrap = SplitList(ov.Bootstrap)
	}
	if ov.Output != "" {
		conn.Output = ov.Output
	}
	if ov.Controllers {
		conn.Bootstrap = l.controllers(ov, file, name)
		conn.Controllers = true
		conn.Props.Delete("bootstrap.controllers")
	}
	if len(conn.Bootstrap) > 0 {
		conn.Props.Set("bootstrap.servers", strings.Join(conn.Bootstrap, ","))
	}
	return conn, nil
}

// controllers is the controller bootstrap list of a connection to the
// controllers: the flag's, else the properties' bootstrap.controllers
// (command line, then --command-config file), else the profile's
// bootstrap-controllers.
func (l *Loader) controllers(ov Overrides, file *File, profile string) []string {
	if ov.Bootstrap != "" {
		return SplitList(ov.Bootstrap)
	}
	for _, props := range []*Properties{ov.Properties, l.commandConfig(ov.CommandConfig)} {
		if props == nil {
			continue
		}
		if v, ok := props.Get("bootstrap.controllers"); ok && strings.TrimSpace(v) != "" {
			return SplitList(v)
		}
	}
	if p, ok := file.Profiles[profile]; ok && profile != "" {
		return append([]string(nil), p.BootstrapControllers...)
	}
	return nil
}

// commandConfig reads a --command-config file again (Resolve has read it
// without error already); nil when none.
func (l *Loader) commandConfig(path string) *Properties {
	if path == "" {
		return nil
	}
	props, err := LoadPropertiesFile(path)
	if err != nil {
		return nil
	}
	return props
}

func (l *Loader) applyProfile(conn *Connection, name string, p *Profile) error {
	conn.Bootstrap = append([]string(nil), p.BootstrapServers...)
	if p.Output != "" {
		conn.Output = p.Output
	}
	if p.ConnectTimeout != "" {
		d, err := parseTimeout(p.ConnectTimeout)
		if err != nil {
			return fmt.Errorf("profile %q: connect-timeout: %v", name, err)
		}
		conn.ConnectTimeout = d
	}
	props, err := l.profileProperties(name, p)
	if err != nil {
		return err
	}
	conn.Props.Merge(props)
	if p.HasLiteralSecret() {
		conn.Warnings = append(conn.Warnings, fmt.Sprintf("profile %q stores a literal secret in %s; prefer password-env or password-file", name, l.ConfigPath()))
	}
	return nil
}

// profileProperties is ProfileProperties, once per profile name.
func (l *Loader) profileProperties(name string, p *Profile) (*Properties, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r, ok := l.profiles[name]; ok {
		return r.props, r.err
	}
	props, err := l.ProfileProperties(name, p)
	if l.profiles == nil {
		l.profiles = map[string]profileResult{}
	}
	l.profiles[name] = profileResult{props, err}
	return props, err
}

// ProfileProperties turns a profile into Java client properties, resolving
// secret references. The profile's own properties map is applied last.
func (l *Loader) ProfileProperties(name string, p *Profile) (*Properties, error) {
	props := NewProperties()
	tlsOn := p.TLS != nil && (p.TLS.Enabled || p.TLS.CAFile != "" || p.TLS.CertFile != "")
	saslOn := p.SASL != nil && p.SASL.Mechanism != ""
	switch {
	case tlsOn && saslOn:
		props.Set("security.protocol", "SASL_SSL")
	case tlsOn:
		props.Set("security.protocol", "SSL")
	case saslOn:
		props.Set("security.protocol", "SASL_PLAINTEXT")
	}
	if tlsOn {
		if err := tlsProperties(name, "tls", p.TLS, props); err != nil {
			return nil, err
		}
	}
	if saslOn {
		s := p.SASL
		mech := strings.ToUpper(s.Mechanism)
		props.Set("sasl.mechanism", mech)
		module := ""
		switch mech {
		case "PLAIN":
			module = "org.apache.kafka.common.security.plain.PlainLoginModule"
		case "SCRAM-SHA-256", "SCRAM-SHA-512":
			module = "org.apache.kafka.common.security.scram.ScramLoginModule"
		default:
			return nil, fmt.Errorf("profile %q: sasl mechanism %q is not supported (use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)", name, s.Mechanism)
		}
		if s.Username == "" {
			return nil, fmt.Errorf("profile %q: sasl username is empty", name)
		}
		pw, err := l.resolvePassword(name, s)
		if err != nil {
			return nil, err
		}
		props.Set("sasl.jaas.config", module+" required username="+QuoteJAASValue(s.Username)+" password="+QuoteJAASValue(pw)+";")
	}
	for k, v := range p.Properties {
		props.Set(k, v)
	}
	return props, nil
}

// tlsProperties sets the ssl.* properties of a profile's TLS block (what
// names the block in errors: "tls", "schema-registry tls").
func tlsProperties(name, what string, t *TLS, props *Properties) error {
	if t.CAFile != "" {
		props.Set("ssl.truststore.type", "PEM")
		props.Set("ssl.truststore.location", t.CAFile)
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		return fmt.Errorf("profile %q: %s cert-file and key-file must be given together", name, what)
	}
	if t.CertFile != "" {
		chain, err := os.ReadFile(t.CertFile)
		if err != nil {
			return fmt.Errorf("profile %q: %s cert-file: %w", name, what, unwrapPathErr(err))
		}
		key, err := os.ReadFile(t.KeyFile)
		if err != nil {
			return fmt.Errorf("profile %q: %s key-file: %w", name, what, unwrapPathErr(err))
		}
		props.Set("ssl.keystore.type", "PEM")
		props.Set("ssl.keystore.certificate.chain", string(chain))
		props.Set("ssl.keystore.key", string(key))
	}
	if t.SkipHostnameVerification {
		props.Set("ssl.endpoint.identification.algorithm", "")
	}
	return nil
}

func (l *Loader) resolvePassword(name string, s *SASL) (string, error) {
	return l.secret(name, "", "password", s.Password, s.PasswordEnv, s.PasswordFile,
		fmt.Sprintf("Password for %s (profile %s): ", s.Username, name), "no password for sasl user "+s.Username)
}

// secret resolves a secret given by environment variable, by file,
// literally, or (with a prompt text and a terminal) by prompting. where
// prefixes its keys in errors ("", "schema-registry "), key is password or
// token, missing says what is missing when none is given.
func (l *Loader) secret(profile, where, key, literal, env, file, prompt, missing string) (string, error) {
	switch {
	case env != "":
		v := l.getenv(env)
		if v == "" {
			return "", fmt.Errorf("profile %q: %s%s-env %s is not set", profile, where, key, env)
		}
		return v, nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("profile %q: %s%s-file: %w", profile, where, key, unwrapPathErr(err))
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	case literal != "":
		return literal, nil
	case prompt != "" && l.ReadSecret != nil:
		v, err := l.ReadSecret(prompt)
		if err != nil {
			return "", fmt.Errorf("profile %q: %s (set %s-env or %s-file): %v", profile, missing, key, key, err)
		}
		return v, nil
	}
	return "", fmt.Errorf("profile %q: %s (set %s-env or %s-file)", profile, missing, key, key)
}

// SplitList splits a comma-separated list, trimming blanks.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func parseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (use e.g. 10s, 500ms)", s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("invalid duration %q: must be positive", s)
	}
	return d, nil
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}
