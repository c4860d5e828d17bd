package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeConfig(t *testing.T, dir, text string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(p, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

const sampleConfig = `current-profile: dev
profiles:
  dev:
    bootstrap-servers: [dev1:9092, dev2:9092]
    output: table
    properties:
      client.id: from-profile
      linger.ms: "7"
  prod:
    bootstrap-servers: [prod:9093]
    connect-timeout: 3s
    sasl:
      mechanism: scram-sha-512
      username: admin
      password-env: PROD_PW
`

func TestPrecedence(t *testing.T) {
	dir := t.TempDir()
	path := writeConfig(t, dir, sampleConfig, 0o600)
	cc := filepath.Join(dir, "client.properties")
	if err := os.WriteFile(cc, []byte("bootstrap.servers=file:9092\nclient.id=from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	l := &Loader{Path: path, Getenv: envMap(env)}

	// profile only
	c, err := l.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Profile != "dev" || strings.Join(c.Bootstrap, ",") != "dev1:9092,dev2:9092" || c.Output != "table" {
		t.Fatalf("profile: %+v", c)
	}
	if v, _ := c.Props.Get("client.id"); v != "from-profile" {
		t.Fatalf("client.id = %q", v)
	}
	// command-config beats profile
	c, _ = l.Resolve(Overrides{CommandConfig: cc})
	if v, _ := c.Props.Get("client.id"); v != "from-file" || c.Bootstrap[0] != "file:9092" {
		t.Fatalf("command-config: %v %v", v, c.Bootstrap)
	}
	if v, _ := c.Props.Get("linger.ms"); v != "7" {
		t.Fatalf("profile properties not kept under command-config: %q", v)
	}
	// environment beats command-config
	env["KBOX_BOOTSTRAP_SERVERS"] = "env:9092"
	env["KBOX_OUTPUT"] = "json"
	c, _ = l.Resolve(Overrides{CommandConfig: cc})
	if c.Bootstrap[0] != "env:9092" || c.Output != "json" {
		t.Fatalf("env: %v %v", c.Bootstrap, c.Output)
	}
	// flags beat everything
	fp := NewProperties()
	fp.Set("client.id", "from-flag")
	c, _ = l.Resolve(Overrides{CommandConfig: cc, Bootstrap: "flag:9092", Output: "yaml", Properties: fp})
	if c.Bootstrap[0] != "flag:9092" || c.Output != "yaml" {
		t.Fatalf("flags: %v %v", c.Bootstrap, c.Output)
	}
	if v, _ := c.Props.Get("client.id"); v != "from-flag" {
		t.Fatalf("flag property: %q", v)
	}
	if v, _ := c.Props.Get("bootstrap.servers"); v != "flag:9092" {
		t.Fatalf("bootstrap.servers property must follow the effective list: %q", v)
	}
}

func TestProfileSelection(t *testing.T) {
	dir := t.TempDir()
	path := writeConfig(t, dir, sampleConfig, 0o600)
	env := map[string]string{"KBOX_PROFILE": "prod", "PROD_PW": "pw-from-env"}
	l := &Loader{Path: path, Getenv: envMap(env)}
	c, err := l.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Profile != "prod" || c.ConnectTimeout.String() != "3s" {
		t.Fatalf("KBOX_PROFILE: %+v", c)
	}
	jaas, _ := c.Props.Get("sasl.jaas.config")
	e, err := ParseClientJAAS(jaas)
	if err != nil || e.Options["username"] != "admin" || e.Options["password"] != "pw-from-env" {
		t.Fatalf("jaas: %v %+v", err, e)
	}
	if v, _ := c.Props.Get("security.protocol"); v != "SASL_PLAINTEXT" {
		t.Fatalf("protocol %q", v)
	}
	if got := c.Secrets(); len(got) != 1 || got[0] != "pw-from-env" {
		t.Fatalf("secrets: %q", got)
	}
	// --profile beats KBOX_PROFILE
	c, _ = l.Resolve(Overrides{Profile: "dev"})
	if c.Profile != "dev" {
		t.Fatalf("flag profile: %s", c.Profile)
	}
	// an unknown profile is an error naming it
	_, err = l.Resolve(Overrides{Profile: "nope"})
	if err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("unknown profile: %v", err)
	}
	// a missing password reference is an error that names the variable, not a value
	// (a new Loader: one Loader resolves a profile's secrets once)
	delete(env, "PROD_PW")
	_, err = (&Loader{Path: l.Path, Getenv: l.Getenv}).Resolve(Overrides{})
	if err == nil || !strings.Contains(err.Error(), "PROD_PW") {
		t.Fatalf("missing password: %v", err)
	}
}

func TestPasswordPrompt(t *testing.T) {
	dir := t.TempDir()
	path := writeConfig(t, dir, "profiles:\n  p:\n    bootstrap-servers: [a:1]\n    sasl: {mechanism: PLAIN, username: u}\n", 0o600)
	asked, prompts := "", 0
	l := &Loader{Path: path, Getenv: envMap(nil), ReadSecret: func(p string) (string, error) { asked = p; prompts++; return "typed", nil }}
	c, err := l.Resolve(Overrides{Profile: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(asked, "u") || c.Secrets()[0] != "typed" {
		t.Fatalf("prompt %q secrets %q", asked, c.Secrets())
	}
	// One Loader (one invocation) asks once, however often it resolves.
	for i := 0; i < 3; i++ {
		if c, err := l.Resolve(Overrides{Profile: "p", Bootstrap: "b:1"}); err != nil || c.Secrets()[0] != "typed" {
			t.Fatalf("resolve %d: %v", i, err)
		}
	}
	if prompts != 1 {
		t.Fatalf("prompted %d times, want 1", prompts)
	}
	l = &Loader{Path: path, Getenv: envMap(nil)}
	if _, err := l.Resolve(Overrides{Profile: "p"}); err == nil {
		t.Fatal("no terminal and no reference must fail")
	}
}

func TestWorldReadableSecretWarns(t *testing.T) {
	dir := t.TempDir()
	path := writeConfig(t, dir, "profiles:\n  p:\n    bootstrap-servers: [a:1]\n    sasl: {mechanism: PLAIN, username: u, password: literal-pw}\n", 0o644)
	_, warnings, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "chmod 600") || strings.Contains(warnings[0], "literal-pw") {
		t.Fatalf("warnings: %q", warnings)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, warnings, _ = ReadFile(path); len(warnings) != 0 {
		t.Fatalf("0600 must not warn: %q", warnings)
	}
}

func TestWriteFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kbox")
	path := filepath.Join(dir, "config.yaml")
	f := &File{CurrentProfile: "a", Profiles: map[string]*Profile{"a": {BootstrapServers: []string{"x:1"}, Properties: map[string]string{"client.id": "c"}}}}
	if err := WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	dst, _ := os.Stat(dir)
	if st.Mode().Perm() != 0o600 || dst.Mode().Perm() != 0o700 {
		t.Fatalf("modes %v %v", st.Mode(), dst.Mode())
	}
	back, _, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Profiles["a"].Properties["client.id"] != "c" || back.CurrentProfile != "a" {
		t.Fatalf("round trip: %+v", back.Profiles["a"])
	}
}

func TestRedacted(t *testing.T) {
	p := &Profile{SASL: &SASL{Mechanism: "PLAIN", Username: "u", Password: "pw1"}, Properties: map[string]string{"ssl.key.password": "pw2", "client.id": "c"}}
	r := p.Redacted()
	if strings.Contains(r.SASL.Password, "pw1") || r.Properties["ssl.key.password"] != RedactedValue || r.Properties["client.id"] != "c" {
		t.Fatalf("redacted: %+v %+v", r.SASL, r.Properties)
	}
	if p.SASL.Password != "pw1" {
		t.Fatal("Redacted must not modify the original")
	}
}

func TestProfileFromProperties(t *testing.T) {
	props, err := ParsePropertiesString(`bootstrap.servers=b1:9093,b2:9093
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="alice-secret";
ssl.truststore.type=PEM
ssl.truststore.location=/etc/ca.pem
request.timeout.ms=20000
`)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ProfileFromProperties(props, ImportOptions{PasswordEnv: "PW"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.BootstrapServers) != 2 || p.TLS == nil || p.TLS.CAFile != "/etc/ca.pem" || p.SASL == nil ||
		p.SASL.Username != "alice" || p.SASL.PasswordEnv != "PW" || p.SASL.Password != "" || p.Properties["request.timeout.ms"] != "20000" {
		t.Fatalf("imported: %+v tls=%+v sasl=%+v", p, p.TLS, p.SASL)
	}
	// The imported profile resolves back to equivalent client properties.
	l := &Loader{Getenv: envMap(map[string]string{"PW": "alice-secret"})}
	back, err := l.ProfileProperties("x", p)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"security.protocol", "sasl.mechanism", "ssl.truststore.location", "request.timeout.ms"} {
		a, _ := props.Get(k)
		b, _ := back.Get(k)
		if a != b {
			t.Errorf("%s: %q != %q", k, a, b)
		}
	}
	j1, _ := props.Get("sasl.jaas.config")
	j2, _ := back.Get("sasl.jaas.config")
	e1, _ := ParseClientJAAS(j1)
	e2, _ := ParseClientJAAS(j2)
	if e1.Options["username"] != e2.Options["username"] || e1.Options["password"] != e2.Options["password"] {
		t.Errorf("jaas differs")
	}
	// Mechanisms kbox cannot turn into fields stay verbatim.
	props.Set("sasl.mechanism", "OAUTHBEARER")
	p, err = ProfileFromProperties(props, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.SASL != nil || p.Properties["sasl.mechanism"] != "OAUTHBEARER" || p.Properties["security.protocol"] != "SASL_SSL" {
		t.Fatalf("oauth import: %+v", p.Properties)
	}
}

func TestShippedExamplesParse(t *testing.T) {
	f, _, err := ReadFile("../../configs/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if f.CurrentProfile != "local" || f.Profiles["prod"].SASL.PasswordEnv != "PROD_KAFKA_PASSWORD" || f.Profiles["prod"].Properties["client.id"] != "kbox-ops" {
		t.Fatalf("example config: %+v", f)
	}
	props, err := LoadPropertiesFile("../../configs/client.properties")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ProfileFromProperties(props, ImportOptions{PasswordEnv: "X"})
	if err != nil || p.SASL == nil || p.SASL.Username != "admin" || p.TLS.CAFile != "/etc/kafka/ca.pem" {
		t.Fatalf("example properties: %v %+v", err, p)
	}
}

// Java property names are case-sensitive: the file reader keeps the case of
// property keys (viper lowercased every key).
func TestProfilePropertyKeysKeepCase(t *testing.T) {
	path := writeConfig(t, t.TempDir(), `current-profile: dev
profiles:
  dev:
    bootstrap-servers: [dev1:9092]
    properties:
      sasl.oauthbearer.token.endpoint.url: https://idp/token
      SomeKey: x
      client.ID: mixed
      retries: 5
`, 0o600)
	f, _, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"sasl.oauthbearer.token.endpoint.url": "https://idp/token", "SomeKey": "x", "client.ID": "mixed", "retries": "5"}
	got := f.Profiles["dev"].Properties
	if len(got) != len(want) {
		t.Fatalf("properties %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("property %q = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	conn, err := (&Loader{Path: path, Getenv: envMap(nil)}).Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := conn.Props.Get("SomeKey"); v != "x" {
		t.Errorf("resolved SomeKey = %q; keys %v", v, conn.Props.Keys())
	}
}

// A scalar bootstrap-servers is a comma-separated list, as viper's weak
// decoding read it.
func TestScalarBootstrapServers(t *testing.T) {
	path := writeConfig(t, t.TempDir(), "profiles:\n  a:\n    bootstrap-servers: h1:9092, h2:9092\n  b:\n    bootstrap-servers: h3:9092\n", 0o600)
	f, _, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.Profiles["a"].BootstrapServers, "|"); got != "h1:9092|h2:9092" {
		t.Errorf("a: %q", got)
	}
	if got := strings.Join(f.Profiles["b"].BootstrapServers, "|"); got != "h3:9092" {
		t.Errorf("b: %q", got)
	}
	for _, bad := range []string{"profiles: [", "profiles:\n  a:\n    tls: {enabled: maybe}\n"} {
		if _, _, err := ReadFile(writeConfig(t, t.TempDir(), bad, 0o600)); err == nil || strings.Count(err.Error(), "\n") != 0 {
			t.Errorf("%q: err %v, want a one-line error", bad, err)
		}
	}
	if f, _, err := ReadFile(writeConfig(t, t.TempDir(), "", 0o600)); err != nil || len(f.Profiles) != 0 {
		t.Errorf("empty file: %v %+v", err, f)
	}
}

// ArgsOnly: the arguments name the connection, so the current profile and
// KBOX_BOOTSTRAP_SERVERS stay out of it; an explicit profile joins it.
func TestArgsOnly(t *testing.T) {
	dir := t.TempDir()
	path := writeConfig(t, dir, sampleConfig, 0o600)
	cc := filepath.Join(dir, "client.properties")
	if err := os.WriteFile(cc, []byte("bootstrap.servers=file:9092\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"KBOX_BOOTSTRAP_SERVERS": "env:9092", "PROD_PW": "pw"}
	l := &Loader{Path: path, Getenv: envMap(env)}
	c, err := l.Resolve(Overrides{ArgsOnly: true, CommandConfig: cc})
	if err != nil {
		t.Fatal(err)
	}
	if c.Profile != "" || strings.Join(c.Bootstrap, ",") != "file:9092" {
		t.Fatalf("current profile or env in an ArgsOnly connection: %+v", c)
	}
	if _, ok := c.Props.Get("linger.ms"); ok {
		t.Fatal("the current profile's properties joined")
	}
	c, err = l.Resolve(Overrides{ArgsOnly: true, Profile: "prod", Bootstrap: "flag:9092"})
	if err != nil {
		t.Fatal(err)
	}
	if mech, _ := c.Props.Get("sasl.mechanism"); c.Profile != "prod" || mech != "SCRAM-SHA-512" || strings.Join(c.Bootstrap, ",") != "flag:9092" {
		t.Fatalf("explicit profile: %+v", c)
	}
	env["KBOX_PROFILE"] = "prod"
	if c, err = l.Resolve(Overrides{ArgsOnly: true, Bootstrap: "flag:9092"}); err != nil || c.Profile != "prod" {
		t.Fatalf("KBOX_PROFILE: %+v %v", c, err)
	}
}
