package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"
)

// File is the YAML config file that holds named profiles.
type File struct {
	CurrentProfile string              `yaml:"current-profile,omitempty" mapstructure:"current-profile"`
	Profiles       map[string]*Profile `yaml:"profiles,omitempty" mapstructure:"profiles"`
}

// Profile is one named cluster connection.
type Profile struct {
	BootstrapServers []string          `yaml:"bootstrap-servers,omitempty" mapstructure:"bootstrap-servers" json:"bootstrap_servers,omitempty"`
	Output           string            `yaml:"output,omitempty" mapstructure:"output" json:"output,omitempty"`
	ConnectTimeout   string            `yaml:"connect-timeout,omitempty" mapstructure:"connect-timeout" json:"connect_timeout,omitempty"`
	TLS              *TLS              `yaml:"tls,omitempty" mapstructure:"tls" json:"tls,omitempty"`
	SASL             *SASL             `yaml:"sasl,omitempty" mapstructure:"sasl" json:"sasl,omitempty"`
	Properties       map[string]string `yaml:"properties,omitempty" mapstructure:"properties" json:"properties,omitempty"`
}

// TLS holds PEM file paths for a TLS connection.
type TLS struct {
	Enabled bool   `yaml:"enabled,omitempty" mapstructure:"enabled" json:"enabled,omitempty"`
	CAFile  string `yaml:"ca-file,omitempty" mapstructure:"ca-file" json:"ca_file,omitempty"`
	// CertFile and KeyFile are the client certificate chain and its PKCS#8
	// (or PKCS#1/EC) private key, for mutual TLS.
	CertFile string `yaml:"cert-file,omitempty" mapstructure:"cert-file" json:"cert_file,omitempty"`
	KeyFile  string `yaml:"key-file,omitempty" mapstructure:"key-file" json:"key_file,omitempty"`
	// SkipHostnameVerification mirrors ssl.endpoint.identification.algorithm= (empty).
	SkipHostnameVerification bool `yaml:"skip-hostname-verification,omitempty" mapstructure:"skip-hostname-verification" json:"skip_hostname_verification,omitempty"`
}

// SASL holds a SASL login. The password is given by reference; a literal
// Password works but is reported by `profile show` and warned about.
type SASL struct {
	Mechanism    string `yaml:"mechanism,omitempty" mapstructure:"mechanism" json:"mechanism,omitempty"`
	Username     string `yaml:"username,omitempty" mapstructure:"username" json:"username,omitempty"`
	Password     string `yaml:"password,omitempty" mapstructure:"password" json:"password,omitempty"`
	PasswordEnv  string `yaml:"password-env,omitempty" mapstructure:"password-env" json:"password_env,omitempty"`
	PasswordFile string `yaml:"password-file,omitempty" mapstructure:"password-file" json:"password_file,omitempty"`
}

// HasLiteralSecret reports whether the profile stores a secret in the file itself.
func (p *Profile) HasLiteralSecret() bool {
	if p == nil {
		return false
	}
	if p.SASL != nil && p.SASL.Password != "" {
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
	// A "::" key delimiter keeps Java property names such as client.id flat.
	v := viper.NewWithOptions(viper.KeyDelimiter("::"))
	v.SetConfigFile(path)
	v.SetConfigType("yaml")
	if err := v.ReadInConfig(); err != nil {
		return nil, nil, fmt.Errorf("config file %s: %s", path, oneLine(err.Error()))
	}
	if err := v.Unmarshal(f); err != nil {
		return nil, nil, fmt.Errorf("config file %s: %s", path, oneLine(err.Error()))
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

// RedactValue returns v, or a redaction marker when key names a secret.
func RedactValue(key, v string) string {
	if IsSecretKey(key) && v != "" {
		return RedactedValue
	}
	return v
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
