//go:build integration

package security_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func mustReadFile(t *testing.T, f string) string {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func gssapiProps(keytab, principal string) string {
	return "security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\nsasl.kerberos.service.name=kafka\nssl.truststore.type=PEM\nssl.truststore.location=" + cluster.CAFile() + "\n" +
		"sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab=\"" + keytab + "\" principal=\"" + principal + "\";\n"
}

// GSSAPI against the broker's Kerberos login (krb5-kdc on loopback), with a
// keytab and with a ticket cache made by kinit.
func TestGSSAPIOnBroker(t *testing.T) {
	if theKDC == nil {
		t.Skipf("no KDC: %v", kdcErr)
	}
	env := []string{"KRB5_CONFIG=" + theKDC.krb5conf}
	cfg := writeProps(t, "gssapi.properties", gssapiProps(theKDC.aliceKeytab, "alice@"+krbRealm))
	for _, args := range appletRuns(saslBootstrap(), cfg, "krb-topic", "krb") {
		r := kbox(t, env, args[0], args[1:]...)
		if r.exit != 0 {
			t.Fatalf("%s over GSSAPI:\n%s", strings.Join(args, " "), r)
		}
	}
	// Ticket cache made by kinit from the keytab.
	cc := filepath.Join(t.TempDir(), "krb5cc")
	kinit := exec.Command("kinit", "-k", "-t", theKDC.aliceKeytab, "-c", cc, "alice@"+krbRealm)
	kinit.Env = append(os.Environ(), env...)
	if out, err := kinit.CombinedOutput(); err != nil {
		t.Fatalf("kinit: %v\n%s", err, out)
	}
	ccProps := writeProps(t, "cc.properties", "security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\nsasl.kerberos.service.name=kafka\nssl.truststore.type=PEM\nssl.truststore.location="+cluster.CAFile()+"\n"+
		"sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useTicketCache=true ticketCache=\""+cc+"\";\n")
	r := kbox(t, env, "kafka-topics", "--bootstrap-server", saslBootstrap(), "--command-config", ccProps, "--describe", "--topic", "krb-topic")
	if r.exit != 0 || !strings.Contains(r.stdout, "krb-topic") {
		t.Fatalf("ticket cache:\n%s", r)
	}
	// KRB5CCNAME as the default cache.
	ccDefault := writeProps(t, "ccd.properties", strings.Replace(mustReadFile(t, ccProps), " ticketCache=\""+cc+"\"", "", 1))
	r = kbox(t, append(env, "KRB5CCNAME=FILE:"+cc), "kafka-topics", "--bootstrap-server", saslBootstrap(), "--command-config", ccDefault, "--list")
	if r.exit != 0 || !strings.Contains(r.stdout, "krb-topic") {
		t.Fatalf("KRB5CCNAME:\n%s", r)
	}
	// Wrong principal for the keytab: the KDC refuses; one line.
	bad := writeProps(t, "bad.properties", gssapiProps(theKDC.aliceKeytab, "mallory@"+krbRealm))
	r = kbox(t, env, "kafka-topics", "--bootstrap-server", saslBootstrap(), "--command-config", bad, "--list")
	if r.exit == 0 || !strings.Contains(r.stdout+r.stderr, "GSSAPI: login as mallory@KBOX.TEST failed") {
		t.Fatalf("wrong principal:\n%s", r)
	}
	// No service name: Java's rule.
	noSvc := writeProps(t, "nosvc.properties", strings.Replace(gssapiProps(theKDC.aliceKeytab, "alice@"+krbRealm), "sasl.kerberos.service.name=kafka\n", "", 1))
	r = kbox(t, env, "kafka-topics", "--bootstrap-server", saslBootstrap(), "--command-config", noSvc, "--list")
	if r.exit == 0 || !strings.Contains(r.stdout+r.stderr, "sasl.kerberos.service.name: not set") {
		t.Fatalf("no service name:\n%s", r)
	}
}
