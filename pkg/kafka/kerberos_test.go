package kafka

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKerberosConfig(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "krb5.conf")
	kt := filepath.Join(dir, "a.keytab")
	_ = os.WriteFile(conf, []byte("[libdefaults]\n default_realm = EXAMPLE.COM\n"), 0o600)
	_ = os.WriteFile(kt, []byte{5, 2}, 0o600)
	t.Setenv("KRB5_CONFIG", conf)
	base := "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=GSSAPI\n"
	keytab := "sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab=\"" + kt + "\" principal=\"alice@EXAMPLE.COM\";\n"
	s, err := Parse(props(t, base+"sasl.kerberos.service.name=kafka\n"+keytab), Admin)
	if err != nil || s.saslMechanism() == nil || s.saslMechanism().Name() != "GSSAPI" || s.SASLUser != "alice@EXAMPLE.COM" {
		t.Fatalf("keytab login: %v %v", s, err)
	}
	// Java's default mechanism is GSSAPI; the serviceName JAAS option works too.
	s, err = Parse(props(t, "security.protocol=SASL_SSL\nsasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab=\""+kt+"\" principal=\"a\" serviceName=\"kafka\";\n"), Admin)
	if err != nil || s.SASLMechanism != "GSSAPI" || s.krbLogin.service != "kafka" {
		t.Fatalf("default mechanism: %v", err)
	}
	for _, c := range []struct{ text, want string }{
		{base + keytab, "property sasl.kerberos.service.name: not set"},
		{base + "sasl.kerberos.service.name=kafka\n", "property sasl.jaas.config: not set"},
		{base + "sasl.kerberos.service.name=kafka\nsasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required;\n", "needs useKeyTab=true"},
		{base + "sasl.kerberos.service.name=kafka\nsasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true principal=\"a\";\n", "needs the keyTab option"},
		{base + "sasl.kerberos.service.name=kafka\nsasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab=\"/nonexistent.keytab\" principal=\"a\";\n", "keyTab /nonexistent.keytab: no such file"},
		{base + "sasl.kerberos.service.name=kafka\nsasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useTicketCache=true ticketCache=\"/nonexistent.cc\";\n", "ticket cache /nonexistent.cc: no such file or directory (run kinit)"},
	} {
		_, err := Parse(props(t, c.text), Admin)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.want)
		}
	}
	t.Setenv("KRB5_CONFIG", filepath.Join(dir, "missing.conf"))
	if _, err := Parse(props(t, base+"sasl.kerberos.service.name=kafka\n"+keytab), Admin); err == nil || !strings.Contains(err.Error(), "GSSAPI needs a krb5.conf") {
		t.Errorf("missing krb5.conf: %v", err)
	}
	// A bad keytab fails at login with one line naming the file.
	t.Setenv("KRB5_CONFIG", conf)
	s, _ = Parse(props(t, base+"sasl.kerberos.service.name=kafka\n"+keytab), Admin)
	if _, err := s.krbLogin.client(); err == nil || !strings.Contains(err.Error(), "GSSAPI: cannot read keytab "+kt) || strings.Contains(err.Error(), "\n") {
		t.Errorf("bad keytab: %v", err)
	}
}
