package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// SchemaRegistry is a profile's Confluent-compatible Schema Registry: its
// URL, an optional login (basic auth or a bearer token, each given by
// reference like the SASL password) and TLS.
//
//	schema-registry:
//	  url: https://registry:8081
//	  username: alice
//	  password-env: REGISTRY_PASSWORD      # or password-file, or a prompt
//	  # token-env: REGISTRY_TOKEN          # bearer instead of basic
//	  tls: {ca-file: ca.pem}
type SchemaRegistry struct {
	// URL is the registry's base URL (several, comma-separated, are tried in
	// order).
	URL          string `yaml:"url,omitempty" json:"url,omitempty"`
	Username     string `yaml:"username,omitempty" json:"username,omitempty"`
	Password     string `yaml:"password,omitempty" json:"password,omitempty"`
	PasswordEnv  string `yaml:"password-env,omitempty" json:"password_env,omitempty"`
	PasswordFile string `yaml:"password-file,omitempty" json:"password_file,omitempty"`
	Token        string `yaml:"token,omitempty" json:"token,omitempty"`
	TokenEnv     string `yaml:"token-env,omitempty" json:"token_env,omitempty"`
	TokenFile    string `yaml:"token-file,omitempty" json:"token_file,omitempty"`
	TLS          *TLS   `yaml:"tls,omitempty" json:"tls,omitempty"`
}

// hasLiteralSecret reports whether the file itself holds a registry secret.
func (r *SchemaRegistry) hasLiteralSecret() bool {
	return r != nil && (r.Password != "" || r.Token != "")
}

func (r *SchemaRegistry) redacted() *SchemaRegistry {
	if r == nil {
		return nil
	}
	c := *r
	if c.Password != "" {
		c.Password = RedactedValue + " (literal password stored in the config file)"
	}
	if c.Token != "" {
		c.Token = RedactedValue + " (literal token stored in the config file)"
	}
	if r.TLS != nil {
		t := *r.TLS
		c.TLS = &t
	}
	return &c
}

// Registry is a resolved Schema Registry connection. The secrets are
// unexported so that no printer reaches them through reflection.
type Registry struct {
	Profile  string   // the profile it came from, "" when none
	URLs     []string // base URLs, tried in order
	Username string   // basic auth user, "" for none
	// TLSProps are the ssl.* Java client properties of the registry's TLS
	// (nil: plain HTTP, or HTTPS with the system roots); pkg/kafka turns
	// them into a tls.Config as it does for brokers.
	TLSProps *Properties

	password string
	token    string
}

// Password is the basic-auth password ("" for none).
func (r *Registry) Password() string { return r.password }

// Token is the bearer token ("" for none).
func (r *Registry) Token() string { return r.token }

// Secrets returns the registry's secret values, for scrubbing text that may
// echo them.
func (r *Registry) Secrets() []string {
	var out []string
	for _, s := range []string{r.password, r.token} {
		if s != "" {
			out = append(out, s)
		}
	}
	if r.TLSProps != nil {
		if v, ok := r.TLSProps.Get("ssl.keystore.key"); ok && v != "" {
			out = append(out, v)
		}
	}
	return out
}

// NewRegistry builds a registry connection from its parts (tests and
// callers that take them from flags).
func NewRegistry(urls []string, username, password, token string) *Registry {
	return &Registry{URLs: urls, Username: username, password: password, token: token}
}

// ErrNoRegistry is returned by Loader.Registry when no URL is configured.
var ErrNoRegistry = errors.New("no schema registry: set schema-registry.url in the profile, KBOX_SCHEMA_REGISTRY, or --schema-registry")

// Registry resolves the Schema Registry of the profile in effect (chosen as
// Resolve chooses it), with KBOX_SCHEMA_REGISTRY and then urlFlag
// overriding its URL. Secrets are resolved once per profile. It returns
// ErrNoRegistry when no URL is set anywhere.
func (l *Loader) Registry(profileFlag, urlFlag string) (*Registry, error) {
	file, _, err := l.File()
	if err != nil {
		return nil, err
	}
	reg := &Registry{}
	name := l.SelectedProfile(profileFlag, file)
	if name != "" {
		p, ok := file.Profiles[name]
		switch {
		case ok && p.SchemaRegistry != nil:
			reg.Profile = name
			r, err := l.profileRegistry(name, p.SchemaRegistry)
			if err != nil {
				return nil, err
			}
			c := *r
			reg = &c
		case !ok && (profileFlag != "" || l.getenv("KBOX_PROFILE") != ""):
			return nil, l.notFound(name)
		}
	}
	if e := l.getenv("KBOX_SCHEMA_REGISTRY"); e != "" {
		reg.URLs = SplitList(e)
	}
	if urlFlag != "" {
		reg.URLs = SplitList(urlFlag)
	}
	if len(reg.URLs) == 0 {
		return nil, ErrNoRegistry
	}
	for _, u := range reg.URLs {
		if err := checkRegistryURL(u); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// checkRegistryURL accepts http and https URLs without credentials (those
// go in username/password-env, never into a URL that errors may echo).
func checkRegistryURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("schema registry URL %q: want http://HOST:PORT or https://HOST:PORT", redactURL(s))
	}
	if u.User != nil {
		return fmt.Errorf("schema registry URL %q holds credentials; put them in the profile's schema-registry username and password-env (or password-file) instead", redactURL(s))
	}
	return nil
}

// redactURL hides the userinfo of a URL-like string.
func redactURL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	at := strings.LastIndex(rest, "@")
	slash := strings.Index(rest, "/")
	if at < 0 || (slash >= 0 && at > slash) {
		return s
	}
	return scheme + "://" + RedactedValue + "@" + rest[at+1:]
}

// profileRegistry resolves a profile's registry once per profile name.
func (l *Loader) profileRegistry(name string, r *SchemaRegistry) (*Registry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if res, ok := l.registries[name]; ok {
		return res.reg, res.err
	}
	reg, err := l.ProfileRegistry(name, r)
	if l.registries == nil {
		l.registries = map[string]registryResult{}
	}
	l.registries[name] = registryResult{reg, err}
	return reg, err
}

type registryResult struct {
	reg *Registry
	err error
}

// ProfileRegistry resolves a profile's schema-registry block: its URL
// list, the password or token from their references, and its TLS as ssl.*
// properties. It does not dial.
func (l *Loader) ProfileRegistry(name string, r *SchemaRegistry) (*Registry, error) {
	reg := &Registry{Profile: name, URLs: SplitList(r.URL), Username: r.Username}
	basic := r.Password != "" || r.PasswordEnv != "" || r.PasswordFile != ""
	bearer := r.Token != "" || r.TokenEnv != "" || r.TokenFile != ""
	if basic && bearer {
		return nil, fmt.Errorf("profile %q: schema-registry: a password and a token are exclusive (basic auth or bearer)", name)
	}
	if basic && r.Username == "" {
		return nil, fmt.Errorf("profile %q: schema-registry: a password needs a username", name)
	}
	if r.Username != "" {
		pw, err := l.secret(name, "schema-registry ", "password", r.Password, r.PasswordEnv, r.PasswordFile,
			fmt.Sprintf("Schema registry password for %s (profile %s): ", r.Username, name), "no schema-registry password for user "+r.Username)
		if err != nil {
			return nil, err
		}
		reg.password = pw
	}
	if bearer {
		tok, err := l.secret(name, "schema-registry ", "token", r.Token, r.TokenEnv, r.TokenFile, "", "no schema-registry token")
		if err != nil {
			return nil, err
		}
		reg.token = tok
	}
	if r.TLS != nil {
		props := NewProperties()
		if err := tlsProperties(name, "schema-registry tls", r.TLS, props); err != nil {
			return nil, err
		}
		reg.TLSProps = props
	}
	return reg, nil
}
