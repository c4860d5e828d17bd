package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kboxdev/kbox/pkg/redact"
	"gopkg.in/yaml.v3"
)

// File is the YAML config file that holds named profiles.
type File struct {
	CurrentProfile string              `yaml:"current-profile,omitempty"`
	Profiles       map[string]*Profile `yaml:"profiles,omitempty"`
}

// Profile is one named cluster connection.
type Profile struct {
	BootstrapServers []string `yaml:"bootstrap-servers,omitempty" json:"bootstrap_servers,omitempty"`
	// BootstrapControllers are the KRaft controllers' listeners, as the
	// Java admin client's bootstrap.controllers (Apache's
	// --bootstrap-controller): the tools that can talk to the controllers
	// directly (kafka-metadata-quorum) use them when the profile gives no
	// bootstrap-servers, or when asked to (kbox quorum status --controllers).
	BootstrapControllers []string          `yaml:"bootstrap-controllers,omitempty" json:"bootstrap_controllers,omitempty"`
	Output               string            `yaml:"output,omitempty" json:"output,omitempty"`
	ConnectTimeout       string            `yaml:"connect-timeout,omitempty" json:"connect_timeout,omitempty"`
	TLS                  *TLS              `yaml:"tls,omitempty" json:"tls,omitempty"`
	SASL                 *SASL             `yaml:"sasl,omitempty" json:"sasl,omitempty"`
	Properties           map[string]string `yaml:"properties,omitempty" json:"properties,omitempty"`
	// ExpectedBrokers is how many brokers the cluster should have
	// (`kbox status` compares the brokers up with it); 0: not set, the
	// brokers the cluster has registered are expected.
	ExpectedBrokers int `yaml:"expected-brokers,omitempty" json:"expected_brokers,omitempty"`
	// SchemaRegistry is the cluster's Schema Registry (kbox schema, the
	// decoding of Confluent-framed records).
	SchemaRegistry *SchemaRegistry `yaml:"schema-registry,omitempty" json:"schema_registry,omitempty"`
}

// TLS holds PEM file paths for a TLS connection.
type TLS struct {
	Enabled bool   `yaml:"enabled,omitempty" json:"enabled,omitempty"`
	CAFile  string `yaml:"ca-file,omitempty" json:"ca_file,omitempty"`
	// CertFile and KeyFile are the client certificate chain and its PKCS#8
	// (or PKCS#1/EC) private key, for mutual TLS.
	CertFile string `yaml:"cert-file,omitempty" json:"cert_file,omitempty"`
	KeyFile  string `yaml:"key-file,omitempty" json:"key_file,omitempty"`
	// SkipHostnameVerification mirrors ssl.endpoint.identification.algorithm= (empty).
	SkipHostnameVerification bool `yaml:"skip-hostname-verification,omitempty" json:"skip_hostname_verification,omitempty"`
}

// SASL holds a SASL login. The password is given by reference; a literal
// Password works but is reported by `profile show` and warned about.
type SASL struct {
	Mechanism    string `yaml:"mechanism,omitempty" json:"mechanism,omitempty"`
	Username     string `yaml:"username,omitempty" json:"username,omitempty"`
	Password     string `yaml:"password,omitempty" json:"password,omitempty"`
	PasswordEnv  string `yaml:"password-env,omitempty" json:"password_env,omitempty"`
	PasswordFile string `yaml:"password-file,omitempty" json:"password_file,omitempty"`
}

// HasLiteralSecret reports whether the profile stores a secret in the file itself.
func (p *Profile) HasLiteralSecret() bool {
	if p == nil {
		return false
	}
	if p.SASL != nil && p.SASL.Password != "" {
		return true
	}
	if p.SchemaRegistry.hasLiteralSecret() {
		return true
	}
	for k, v := range p.Properties {
		if IsSecretKey(k) && v != "" {
			return true
		}
	}
	return false
}

// DefaultPath returns the config file path: $KBOX_CONFIG, else
// $XDG_CONFIG_HOME/kbox/config.yaml, else ~/.config/kbox/config.yaml.
func DefaultPath(getenv func(string) string) string {
	if p := getenv("KBOX_CONFIG"); p != "" {
		return p
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "kbox", "config.yaml")
	}
	home := getenv("HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = h
		}
	}
	return filepath.Join(home, ".config", "kbox", "config.yaml")
}

// ReadFile reads the config file at path. A missing file is an empty config.
// Warnings (for example a world-readable file that holds a secret) are
// returned for the caller to print.
func ReadFile(path string) (*File, []string, error) {
	f := &File{Profiles: map[string]*Profile{}}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("config file %s: %w", path, err)
	}
	// yaml.v3, not viper: viper lowercases every key, and Java property
	// names are case-sensitive (docs/DEVELOPING.md).
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("config file %s: %w", path, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, nil, fmt.Errorf("config file %s: %s", path, oneLine(err.Error()))
	}
	if len(doc.Content) > 0 {
		listifyBootstrap(doc.Content[0])
		if err := doc.Decode(f); err != nil {
			return nil, nil, fmt.Errorf("config file %s: %s", path, oneLine(err.Error()))
		}
	}
	if f.Profiles == nil {
		f.Profiles = map[string]*Profile{}
	}
	var warnings []string
	if st.Mode().Perm()&0o077 != 0 {
		for name, p := range f.Profiles {
			if p.HasLiteralSecret() {
				warnings = append(warnings, fmt.Sprintf("config file %s is readable by others (mode %04o) and profile %q holds a secret; run chmod 600 %s", path, st.Mode().Perm(), name, path))
				break
			}
		}
	}
	return f, warnings, nil
}

// listifyBootstrap turns a scalar bootstrap-servers ("h1:9092,h2:9092") of
// any profile into a list, as the --bootstrap-server flag reads it.
func listifyBootstrap(root *yaml.Node) {
	profiles := mappingValue(root, "profiles")
	if profiles == nil || profiles.Kind != yaml.MappingNode {
		return
	}
	for i := 1; i < len(profiles.Content); i += 2 {
		bs := mappingValue(profiles.Content[i], "bootstrap-servers")
		if bs == nil || bs.Kind != yaml.ScalarNode || bs.Tag != "!!str" {
			continue
		}
		items := SplitList(bs.Value)
		bs.Kind, bs.Tag, bs.Value, bs.Style, bs.Content = yaml.SequenceNode, "!!seq", "", 0, nil
		for _, it := range items {
			bs.Content = append(bs.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: it})
		}
	}
}

// mappingValue returns the value of key in a mapping node, or nil.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// WriteFile writes the config file 0600 in a 0700 directory.
func WriteFile(path string, f *File) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create config directory: %w", err)
	}
	b, err := yaml.Marshal(f)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".config-*.yaml")
	if err != nil {
		return fmt.Errorf("write config file: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write config file: %w", err)
	}
	return nil
}

// Names returns the profile names, sorted.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.Profiles))
	for n := range f.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ValidateProfileName checks a profile name.
func ValidateProfileName(name string) error {
	if name == "" {
		return errors.New("profile name is empty")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("invalid profile name %q: use lower-case letters, digits, '-', '_' and '.'", name)
		}
	}
	return nil
}

// Redacted returns a copy of the profile with secret values replaced.
func (p *Profile) Redacted() *Profile {
	if p == nil {
		return nil
	}
	c := *p
	if p.SASL != nil {
		s := *p.SASL
		if s.Password != "" {
			s.Password = RedactedValue + " (literal password stored in the config file)"
		}
		c.SASL = &s
	}
	if p.TLS != nil {
		t := *p.TLS
		c.TLS = &t
	}
	c.SchemaRegistry = p.SchemaRegistry.redacted()
	if p.Properties != nil {
		c.Properties = make(map[string]string, len(p.Properties))
		for k, v := range p.Properties {
			c.Properties[k] = RedactValue(k, v)
		}
	}
	return &c
}

// RedactedValue replaces a secret in displays.
const RedactedValue = "[redacted]"

// IsSecretKey reports whether a Java client property (or profile key) holds a secret.
func IsSecretKey(key string) bool {
	k := strings.ToLower(key)
	for _, s := range []string{"password", "secret", "jaas", "token", "ssl.keystore.key", "credential"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// RedactValue returns v as a display may show it: a redaction marker
// when key names a secret, else v with the userinfo and query string of
// any URL in it dropped (redact.URL).
func RedactValue(key, v string) string {
	if IsSecretKey(key) && v != "" {
		return RedactedValue
	}
	return redact.URL(v)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
