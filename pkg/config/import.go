package config

import (
	"fmt"
	"strings"
)

// ImportOptions say how to store the password of an imported SASL login.
type ImportOptions struct {
	PasswordEnv  string // store a reference to this variable instead of the literal
	PasswordFile string // or to this file
}

// ProfileFromProperties turns a Java client properties set into a profile.
// Settings with a profile field (bootstrap servers, PEM TLS files, PLAIN and
// SCRAM logins) become fields; every other property is kept verbatim in the
// profile's properties map, so nothing is dropped. When the JAAS password is
// stored as a reference, the literal is not written anywhere.
func ProfileFromProperties(props *Properties, opt ImportOptions) (*Profile, error) {
	p := &Profile{Properties: map[string]string{}}
	rest := props.Clone()
	if bs, ok := rest.Get("bootstrap.servers"); ok {
		p.BootstrapServers = SplitList(bs)
		rest.Delete("bootstrap.servers")
	}
	proto, _ := rest.Get("security.protocol")
	proto = strings.ToUpper(strings.TrimSpace(proto))
	tls := proto == "SSL" || proto == "SASL_SSL"
	sasl := proto == "SASL_PLAINTEXT" || proto == "SASL_SSL"
	switch proto {
	case "", "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL":
	default:
		return nil, fmt.Errorf("security.protocol: invalid value %q (use PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)", proto)
	}
	if tls {
		t := &TLS{Enabled: true}
		typ, _ := rest.Get("ssl.truststore.type")
		loc, hasLoc := rest.Get("ssl.truststore.location")
		if hasLoc && strings.EqualFold(typ, "PEM") {
			t.CAFile = loc
			rest.Delete("ssl.truststore.location")
			rest.Delete("ssl.truststore.type")
		}
		if v, ok := rest.Get("ssl.endpoint.identification.algorithm"); ok && v == "" {
			t.SkipHostnameVerification = true
			rest.Delete("ssl.endpoint.identification.algorithm")
		}
		p.TLS = t
	}
	if sasl {
		mech, _ := rest.Get("sasl.mechanism")
		mech = strings.ToUpper(strings.TrimSpace(mech))
		jaas, hasJAAS := rest.Get("sasl.jaas.config")
		if (mech == "PLAIN" || mech == "SCRAM-SHA-256" || mech == "SCRAM-SHA-512") && hasJAAS {
			e, err := ParseClientJAAS(jaas)
			if err != nil {
				return nil, fmt.Errorf("sasl.jaas.config: %v", err)
			}
			onlyUserPass := true
			for _, k := range e.Keys {
				if k != "username" && k != "password" {
					onlyUserPass = false
				}
			}
			if onlyUserPass && e.Options["username"] != "" {
				s := &SASL{Mechanism: mech, Username: e.Options["username"]}
				switch {
				case opt.PasswordEnv != "":
					s.PasswordEnv = opt.PasswordEnv
				case opt.PasswordFile != "":
					s.PasswordFile = opt.PasswordFile
				default:
					s.Password = e.Options["password"]
				}
				p.SASL = s
				rest.Delete("sasl.mechanism")
				rest.Delete("sasl.jaas.config")
			}
		}
	}
	// The protocol is implied by the tls and sasl fields only when both
	// were converted; otherwise keep it verbatim.
	if (p.TLS != nil || p.SASL != nil) && tls == (p.TLS != nil) && sasl == (p.SASL != nil) {
		rest.Delete("security.protocol")
	}
	for _, k := range rest.Keys() {
		v, _ := rest.Get(k)
		p.Properties[k] = v
	}
	if len(p.Properties) == 0 {
		p.Properties = nil
	}
	return p, nil
}
