package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const registryConfig = `current-profile: dev
profiles:
  dev:
    bootstrap-servers: [dev:9092]
    schema-registry:
      url: http://sr1:8081, http://sr2:8081
      username: alice
      password-env: SR_PW
  tok:
    bootstrap-servers: [tok:9092]
    schema-registry:
      url: https://sr:8081
      token-file: TOKENFILE
      tls:
        ca-file: CAFILE
        skip-hostname-verification: true
  literal:
    bootstrap-servers: [lit:9092]
    schema-registry:
      url: http://sr:8081
      username: bob
      password: bob-literal-secret
  bare:
    bootstrap-servers: [bare:9092]
`

func registryLoader(t *testing.T, env map[string]string) *Loader {
	t.Helper()
	dir := t.TempDir()
	tok := filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte("tok-secret-123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer("TOKENFILE", tok, "CAFILE", filepath.Join(dir, "ca.pem")).Replace(registryConfig)
	return &Loader{Path: writeConfig(t, dir, text, 0o600), Getenv: envMap(env)}
}

func TestRegistryFromProfile(t *testing.T) {
	env := map[string]string{"SR_PW": "alice-secret"}
	l := registryLoader(t, env)
	r, err := l.Registry("", "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Profile != "dev" || strings.Join(r.URLs, " ") != "http://sr1:8081 http://sr2:8081" || r.Username != "alice" || r.Password() != "alice-secret" || r.Token() != "" || r.TLSProps != nil {
		t.Fatalf("dev: %+v", r)
	}
	if s := r.Secrets(); len(s) != 1 || s[0] != "alice-secret" {
		t.Fatalf("secrets %q", s)
	}

	r, err = l.Registry("tok", "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Token() != "tok-secret-123" || r.Username != "" || r.Password() != "" {
		t.Fatalf("tok: %+v", r)
	}
	if v, _ := r.TLSProps.Get("ssl.truststore.location"); !strings.HasSuffix(v, "ca.pem") {
		t.Fatalf("tls props: %v", r.TLSProps.Keys())
	}
	if v, ok := r.TLSProps.Get("ssl.endpoint.identification.algorithm"); !ok || v != "" {
		t.Fatalf("skip-hostname-verification not mapped: %q %v", v, ok)
	}

	// KBOX_SCHEMA_REGISTRY overrides the profile's URL, the flag overrides both;
	// the login stays the profile's.
	env["KBOX_SCHEMA_REGISTRY"] = "http://env:8081"
	if r, err = l.Registry("", ""); err != nil || strings.Join(r.URLs, ",") != "http://env:8081" || r.Password() != "alice-secret" {
		t.Fatalf("env: %+v %v", r, err)
	}
	if r, err = l.Registry("", "http://flag:1/apis/ccompat/v7"); err != nil || strings.Join(r.URLs, ",") != "http://flag:1/apis/ccompat/v7" {
		t.Fatalf("flag: %+v %v", r, err)
	}
	// A profile without a registry block works with the environment's URL.
	if r, err = l.Registry("bare", ""); err != nil || r.URLs[0] != "http://env:8081" || r.Username != "" {
		t.Fatalf("bare: %+v %v", r, err)
	}
	delete(env, "KBOX_SCHEMA_REGISTRY")
	if _, err = l.Registry("bare", ""); err != ErrNoRegistry {
		t.Fatalf("bare without URL: %v", err)
	}
	if _, err = l.Registry("nope", ""); err == nil || !strings.Contains(err.Error(), `profile "nope" not found`) {
		t.Fatalf("unknown profile: %v", err)
	}
}

func TestRegistryErrorsHoldNoSecret(t *testing.T) {
	l := registryLoader(t, map[string]string{})
	// password-env unset: the error names the variable, not a value.
	if _, err := l.Registry("dev", ""); err == nil || !strings.Contains(err.Error(), "password-env SR_PW is not set") {
		t.Fatalf("unset env: %v", err)
	}
	// Credentials in a URL are refused, and the error does not echo them.
	_, err := l.Registry("bare", "http://u:url-secret@sr:8081")
	if err == nil || strings.Contains(err.Error(), "url-secret") || !strings.Contains(err.Error(), "holds credentials") {
		t.Fatalf("URL with credentials: %v", err)
	}
	if _, err := l.Registry("bare", "sr:8081"); err == nil || !strings.Contains(err.Error(), "want http://HOST:PORT") {
		t.Fatalf("URL without scheme: %v", err)
	}
	both := &SchemaRegistry{URL: "http://x:1", Username: "u", PasswordEnv: "A", TokenEnv: "B"}
	if _, err := l.ProfileRegistry("p", both); err == nil || !strings.Contains(err.Error(), "exclusive") {
		t.Fatalf("password and token: %v", err)
	}
	if _, err := l.ProfileRegistry("p", &SchemaRegistry{URL: "http://x:1", PasswordEnv: "A"}); err == nil || !strings.Contains(err.Error(), "needs a username") {
		t.Fatalf("password without user: %v", err)
	}
}

func TestRegistryLiteralSecretRedacted(t *testing.T) {
	l := registryLoader(t, map[string]string{})
	f, _, err := l.File()
	if err != nil {
		t.Fatal(err)
	}
	p := f.Profiles["literal"]
	if !p.HasLiteralSecret() || f.Profiles["dev"].HasLiteralSecret() {
		t.Fatal("HasLiteralSecret does not see the registry's literal password")
	}
	red := p.Redacted()
	if strings.Contains(red.SchemaRegistry.Password, "bob-literal-secret") || !strings.HasPrefix(red.SchemaRegistry.Password, RedactedValue) {
		t.Fatalf("redacted: %+v", red.SchemaRegistry)
	}
	if p.SchemaRegistry.Password != "bob-literal-secret" {
		t.Fatal("Redacted must not modify the original")
	}
	tok := (&Profile{SchemaRegistry: &SchemaRegistry{Token: "t0k"}}).Redacted()
	if strings.Contains(tok.SchemaRegistry.Token, "t0k") {
		t.Fatalf("token not redacted: %+v", tok.SchemaRegistry)
	}
	r, err := l.Registry("literal", "")
	if err != nil || r.Password() != "bob-literal-secret" {
		t.Fatalf("literal: %+v %v", r, err)
	}
}
