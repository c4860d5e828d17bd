//go:build integration

package security_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// kdc is an MIT Kerberos KDC (Debian's krb5-kdc) on a loopback port with
// realm KBOX.TEST, principals kafka/127.0.0.1 (the broker) and alice, and a
// keytab for each.
type kdc struct {
	dir, krb5conf, brokerKeytab, aliceKeytab string
	cmd                                      *exec.Cmd
}

const krbRealm = "KBOX.TEST"

func startKDC(dir string) (*kdc, error) {
	for _, tool := range []string{"krb5kdc", "kdb5_util", "kadmin.local"} {
		if _, err := exec.LookPath(tool); err != nil {
			if _, err := os.Stat("/usr/sbin/" + tool); err != nil {
				return nil, fmt.Errorf("%s not installed (apt-get install krb5-kdc krb5-admin-server)", tool)
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	k := &kdc{dir: dir, krb5conf: filepath.Join(dir, "krb5.conf"), brokerKeytab: filepath.Join(dir, "kafka.keytab"), aliceKeytab: filepath.Join(dir, "alice.keytab")}
	krb5 := fmt.Sprintf("[libdefaults]\n default_realm = %s\n dns_lookup_realm = false\n dns_lookup_kdc = false\n rdns = false\n udp_preference_limit = 1\n ticket_lifetime = 10h\n"+
		"[realms]\n %s = {\n  kdc = 127.0.0.1:%d\n }\n", krbRealm, krbRealm, port)
	kdcConf := fmt.Sprintf("[kdcdefaults]\n kdc_ports = %d\n kdc_tcp_ports = %d\n[realms]\n %s = {\n  database_name = %s/principal\n  key_stash_file = %s/stash\n  acl_file = %s/kadm5.acl\n  max_life = 10h\n  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal\n }\n"+
		"[logging]\n kdc = FILE:%s/kdc.log\n",
		port, port, krbRealm, dir, dir, dir, dir)
	if err := os.WriteFile(k.krb5conf, []byte(krb5), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "kdc.conf"), []byte(kdcConf), 0o600); err != nil {
		return nil, err
	}
	_ = os.WriteFile(filepath.Join(dir, "kadm5.acl"), nil, 0o600)
	env := append(os.Environ(), "KRB5_CONFIG="+k.krb5conf, "KRB5_KDC_PROFILE="+filepath.Join(dir, "kdc.conf"))
	run := func(args ...string) error {
		c := exec.Command(args[0], args[1:]...)
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	for _, c := range [][]string{
		{"kdb5_util", "create", "-s", "-r", krbRealm, "-P", "kdc-master-pw"},
		{"kadmin.local", "-r", krbRealm, "-q", "addprinc -randkey kafka/127.0.0.1@" + krbRealm},
		{"kadmin.local", "-r", krbRealm, "-q", "addprinc -randkey alice@" + krbRealm},
		{"kadmin.local", "-r", krbRealm, "-q", "ktadd -k " + k.brokerKeytab + " kafka/127.0.0.1@" + krbRealm},
		{"kadmin.local", "-r", krbRealm, "-q", "ktadd -k " + k.aliceKeytab + " alice@" + krbRealm},
	} {
		if err := run(c...); err != nil {
			return nil, err
		}
	}
	k.cmd = exec.Command("krb5kdc", "-n", "-r", krbRealm, "-P", filepath.Join(dir, "kdc.pid"))
	k.cmd.Env = env
	k.cmd.Stdout, k.cmd.Stderr = nil, nil
	if err := k.cmd.Start(); err != nil {
		return nil, err
	}
	for i := 0; i < 100; i++ {
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 100*time.Millisecond); err == nil {
			c.Close()
			return k, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	k.stop()
	return nil, fmt.Errorf("krb5kdc did not listen on port %d", port)
}

func (k *kdc) stop() {
	if k != nil && k.cmd != nil && k.cmd.Process != nil {
		_ = k.cmd.Process.Kill()
		_, _ = k.cmd.Process.Wait()
	}
}

// brokerProps add GSSAPI to the SASL_SSL listener.
func (k *kdc) brokerProps() string {
	return strings.Join([]string{
		"sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER,GSSAPI",
		"sasl.kerberos.service.name=kafka",
		`listener.name.sasl_ssl.gssapi.sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="` + k.brokerKeytab + `" principal="kafka/127.0.0.1@` + krbRealm + `";`,
	}, "\n")
}

func (k *kdc) jvmOpts() string { return "-Djava.security.krb5.conf=" + k.krb5conf }
