package kafka

import (
	"strings"
	"testing"

	"github.com/kboxdev/kbox/pkg/config"
)

// FuzzParseClientProperties feeds arbitrary client.properties text through
// the property table and the TLS/SASL setup: it must never panic, errors are
// one line, and no error shows the value of a secret property.
func FuzzParseClientProperties(f *testing.F) {
	for _, s := range []string{
		"security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" password=\"pw-secret-1\";\n",
		"security.protocol=SSL\nssl.truststore.location=/nonexistent\nssl.truststore.password=pw-secret-2\nssl.keystore.type=PKCS12\nssl.keystore.location=/nonexistent\n",
		"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\nsasl.oauthbearer.token.endpoint.url=https://idp/token\nsasl.jaas.config=x required clientId=\"c\" clientSecret=\"pw-secret-3\";\n",
		"security.protocol=SSL\nssl.keystore.type=PEM\nssl.keystore.key=-----BEGIN ENCRYPTED PRIVATE KEY-----\\nMIIB\\n-----END ENCRYPTED PRIVATE KEY-----\nssl.keystore.certificate.chain=x\nssl.key.password=pw-secret-4\n",
		"security.protocol=SSL\nssl.enabled.protocols=TLSv1.1,TLSv1.3\nssl.protocol=TLSv1.2\nssl.endpoint.identification.algorithm=\n",
		"acks=2\nlinger.ms=-1\nbatch.size=x\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		props, err := config.ParsePropertiesString(text)
		if err != nil {
			return
		}
		var secrets []string
		for _, k := range props.Keys() {
			if v, _ := props.Get(k); config.IsSecretKey(k) && len(strings.TrimSpace(v)) >= 6 && !strings.Contains(k, "jaas") && !strings.Contains(k, "token") {
				secrets = append(secrets, v)
			}
		}
		for _, role := range []Role{Admin, Producer, Consumer} {
			s, err := Parse(props, role)
			if err == nil {
				_, err = s.Opts()
			}
			if err == nil {
				continue
			}
			msg := err.Error()
			for _, sec := range secrets {
				if strings.Contains(msg, sec) {
					t.Fatalf("error shows a secret value %q: %s", sec, msg)
				}
			}
		}
	})
}
