package kafka

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/jcmturner/gokrb5/v8/client"
	krbconfig "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/kerberos"
)

// GSSAPI (Kerberos), as Java's Krb5LoginModule takes it in sasl.jaas.config:
//
//	com.sun.security.auth.module.Krb5LoginModule required
//	    useKeyTab=true keyTab="/etc/kafka/client.keytab" principal="alice@REALM";
//	com.sun.security.auth.module.Krb5LoginModule required useTicketCache=true
//	    [ticketCache="/tmp/krb5cc_1000"] [principal="alice@REALM"];
//
// with sasl.kerberos.service.name (or the serviceName option) naming the
// brokers' service principal (<service>/<broker host>@REALM). The krb5.conf
// is $KRB5_CONFIG, else /etc/krb5.conf (Java's -Djava.security.krb5.conf);
// the default ticket cache is $KRB5CCNAME, else /tmp/krb5cc_<uid>.

type kerberosProps struct {
	serviceName string
}

type kerberosLogin struct {
	service   string
	krb5conf  string
	keytab    string
	ccache    string
	principal string // user part
	realm     string

	mu sync.Mutex
	cl *client.Client
}

func (s *Settings) finishKerberos(opts map[string]string) error {
	if s.jaas == "" {
		return &PropertyError{"sasl.jaas.config", "not set: GSSAPI needs com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab=\"...\" principal=\"...\"; (or useTicketCache=true)"}
	}
	l := &kerberosLogin{service: s.krb.serviceName}
	if v := opts["serviceName"]; v != "" && l.service == "" {
		l.service = v
	}
	if l.service == "" {
		return &PropertyError{"sasl.kerberos.service.name", "not set: no serviceName defined in either JAAS or Kafka config (brokers usually run as \"kafka\")"}
	}
	l.krb5conf = os.Getenv("KRB5_CONFIG")
	if l.krb5conf == "" {
		l.krb5conf = "/etc/krb5.conf"
	}
	if _, err := os.Stat(l.krb5conf); err != nil {
		return &PropertyError{"sasl.mechanism", "GSSAPI needs a krb5.conf: " + fileErr(err) + " (set KRB5_CONFIG)"}
	}
	isTrue := func(k string) bool { return strings.EqualFold(opts[k], "true") }
	principal := opts["principal"]
	switch {
	case isTrue("useKeyTab"):
		l.keytab = opts["keyTab"]
		if l.keytab == "" {
			return &PropertyError{"sasl.jaas.config", "useKeyTab=true needs the keyTab option"}
		}
		if principal == "" {
			return &PropertyError{"sasl.jaas.config", "useKeyTab=true needs the principal option"}
		}
		if _, err := os.Stat(l.keytab); err != nil {
			return &PropertyError{"sasl.jaas.config", "keyTab " + fileErr(err)}
		}
	case isTrue("useTicketCache"):
		l.ccache = opts["ticketCache"]
		if l.ccache == "" {
			l.ccache = strings.TrimPrefix(os.Getenv("KRB5CCNAME"), "FILE:")
		}
		if l.ccache == "" {
			l.ccache = "/tmp/krb5cc_" + strconv.Itoa(os.Getuid())
		}
		if _, err := os.Stat(l.ccache); err != nil {
			return &PropertyError{"sasl.jaas.config", "ticket cache " + fileErr(err) + " (run kinit)"}
		}
	default:
		return &PropertyError{"sasl.jaas.config", "Krb5LoginModule needs useKeyTab=true (with keyTab and principal) or useTicketCache=true; password prompts are not supported"}
	}
	if principal != "" {
		l.principal, l.realm, _ = strings.Cut(principal, "@")
	}
	s.SASLUser = principal
	s.krbLogin = l
	return nil
}

// client logs in once (lazily, at the first connection) and keeps the
// client, which renews its tickets itself.
func (l *kerberosLogin) client() (*client.Client, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cl != nil {
		return l.cl, nil
	}
	cfg, err := krbconfig.Load(l.krb5conf)
	if err != nil {
		return nil, &KerberosError{fmt.Sprintf("cannot read krb5.conf %s: %v", l.krb5conf, oneLineText(err.Error()))}
	}
	var cl *client.Client
	if l.keytab != "" {
		kt, err := keytab.Load(l.keytab)
		if err != nil {
			return nil, &KerberosError{fmt.Sprintf("cannot read keytab %s: %v", l.keytab, oneLineText(err.Error()))}
		}
		realm := l.realm
		if realm == "" {
			realm = cfg.LibDefaults.DefaultRealm
		}
		cl = client.NewWithKeytab(l.principal, realm, kt, cfg, client.DisablePAFXFAST(true))
	} else {
		cc, err := credentials.LoadCCache(l.ccache)
		if err != nil {
			return nil, &KerberosError{fmt.Sprintf("cannot read ticket cache %s: %v", l.ccache, oneLineText(err.Error()))}
		}
		if cl, err = client.NewFromCCache(cc, cfg, client.DisablePAFXFAST(true)); err != nil {
			return nil, &KerberosError{fmt.Sprintf("ticket cache %s: %v", l.ccache, oneLineText(err.Error()))}
		}
	}
	if err := cl.Login(); err != nil {
		return nil, &KerberosError{fmt.Sprintf("login as %s failed: %s", l.principalName(), krbErrText(err))}
	}
	l.cl = cl
	return cl, nil
}

func (l *kerberosLogin) principalName() string {
	if l.realm != "" {
		return l.principal + "@" + l.realm
	}
	if l.principal != "" {
		return l.principal
	}
	return "the ticket cache's principal"
}

// krbErrText keeps the first line of a gokrb5 error (they nest and repeat).
func krbErrText(err error) string {
	msg := oneLineText(err.Error())
	if i := strings.Index(msg, "KRB Error: "); i >= 0 {
		return msg[i+len("KRB Error: "):]
	}
	return msg
}

// KerberosError is a failure to log in to the KDC.
type KerberosError struct{ Msg string }

func (e *KerberosError) Error() string { return "GSSAPI: " + e.Msg }

func (s *Settings) kerberosMechanism() sasl.Mechanism {
	l := s.krbLogin
	if l == nil {
		return nil
	}
	return kerberos.Kerberos(func(context.Context) (kerberos.Auth, error) {
		cl, err := l.client()
		if err != nil {
			return kerberos.Auth{}, err
		}
		return kerberos.Auth{Client: cl, Service: l.service, PersistAfterAuth: true}, nil
	})
}

func kerberosRows() map[string]property {
	relogin := "gokrb5 renews tickets itself"
	return map[string]property{
		"sasl.kerberos.service.name":               {roles: Common, apply: func(s *Settings, v string) error { s.krb.serviceName = strings.TrimSpace(v); return nil }},
		"sasl.kerberos.kinit.cmd":                  {roles: Common, reason: relogin},
		"sasl.kerberos.min.time.before.relogin":    {roles: Common, reason: relogin},
		"sasl.kerberos.ticket.renew.jitter":        {roles: Common, reason: relogin},
		"sasl.kerberos.ticket.renew.window.factor": {roles: Common, reason: relogin},
	}
}
