package app_test

import (
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/kboxdev/kbox/pkg/config"
)

// The -o json output of the native kbox commands, pinned by golden files
// (ports and the config file path normalised).
func TestJSONGolden(t *testing.T) {
	c := startKfake(t, "json-golden", 2)
	env := writeProfiles(t, "", nil)
	bs := strings.Join(c.ListenAddrs(), ",")
	both := func(name string, env map[string]string, args []string, normalize ...func(string) string) {
		t.Helper()
		j := kbox(t, env, append(args, "-o", "json")...)
		y := kbox(t, env, append(args, "-o", "yaml")...)
		if j.code != 0 || y.code != 0 {
			t.Fatalf("%s: exit %d/%d\n%s%s", name, j.code, y.code, j.errOut, y.errOut)
		}
		golden.Output(t, name+".json.golden", j.out, y.out, append([]func(string) string{
			golden.Replace(`"port": \d+`, `"port": 0`),
			golden.Replace(`"file": ".*"`, `"file": "<config file>"`)}, normalize...)...)
	}
	both("cluster-describe", env, []string{"cluster", "describe", "--bootstrap-server", bs})

	// kbox version: the Go version is the toolchain's; a test binary has no
	// module list, so franz_go_version is checked on the built binary
	// (test/integration/dist) and moduleVersion in version_test.go.
	both("version", env, []string{"version"},
		golden.Replace(`"go_version": ".*"`, `"go_version": "<go>"`),
		golden.Replace(`"franz_go_version": ".*"`, `"franz_go_version": "<franz-go>"`))

	path := env["KBOX_CONFIG"]
	f := &config.File{CurrentProfile: "local", Profiles: map[string]*config.Profile{
		"local": {BootstrapServers: []string{"127.0.0.1:9092"}},
		"prod": {BootstrapServers: []string{"b1:9093", "b2:9093"}, Output: "table", ConnectTimeout: "5s",
			TLS:        &config.TLS{Enabled: true, CAFile: "/etc/kafka/ca.pem", CertFile: "/etc/kafka/client.pem", KeyFile: "/etc/kafka/client.key"},
			SASL:       &config.SASL{Mechanism: "SCRAM-SHA-512", Username: "admin", PasswordEnv: "PROD_PW"},
			Properties: map[string]string{"client.id": "ops", "ssl.truststore.password": "secret"},
			SchemaRegistry: &config.SchemaRegistry{URL: "https://registry:8081", Username: "svc", Password: "sr-literal-secret",
				TLS: &config.TLS{CAFile: "/etc/kafka/ca.pem"}}},
	}}
	if err := config.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	both("profile-list", env, []string{"profile", "list"})
	both("profile-show", env, []string{"profile", "show", "prod"})
	if r := kbox(t, env, "profile", "show", "prod"); strings.Contains(r.out+r.errOut, "sr-literal-secret") || !strings.Contains(r.out, "[redacted]") {
		t.Fatalf("the registry password is shown:\n%s%s", r.out, r.errOut)
	}
}
