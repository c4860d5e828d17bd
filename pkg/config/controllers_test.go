package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A connection to the controllers: the flag's list, else the properties'
// bootstrap.controllers (command line, then file), else the profile's
// bootstrap-controllers; KBOX_BOOTSTRAP_SERVERS and the brokers' lists do
// not take part, and bootstrap.servers follows the list in effect.
func TestControllersResolution(t *testing.T) {
	dir := t.TempDir()
	path := writeConfig(t, dir, `current-profile: p
profiles:
  p:
    bootstrap-servers: [b1:9092]
    bootstrap-controllers: [c1:9093, c2:9093]
`, 0o600)
	cc := filepath.Join(dir, "client.properties")
	if err := os.WriteFile(cc, []byte("bootstrap.servers=fb:9092\nbootstrap.controllers=fc:9093\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l := &Loader{Path: path, Getenv: envMap(map[string]string{"KBOX_BOOTSTRAP_SERVERS": "env:9092"})}
	sel, err := l.Select("")
	if err != nil || strings.Join(sel.Controllers, ",") != "c1:9093,c2:9093" {
		t.Fatalf("selection: %+v %v", sel, err)
	}
	props := NewProperties()
	props.Set("bootstrap.controllers", "xc:9093")
	for _, c := range []struct {
		name string
		ov   Overrides
		want string
	}{
		{"profile", Overrides{Controllers: true}, "c1:9093,c2:9093"},
		{"file", Overrides{Controllers: true, CommandConfig: cc}, "fc:9093"},
		{"property", Overrides{Controllers: true, CommandConfig: cc, Properties: props}, "xc:9093"},
		{"flag", Overrides{Controllers: true, CommandConfig: cc, Properties: props, Bootstrap: "flag:9093"}, "flag:9093"},
	} {
		conn, err := l.Resolve(c.ov)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		bs, _ := conn.Props.Get("bootstrap.servers")
		if got := strings.Join(conn.Bootstrap, ","); got != c.want || bs != c.want || !conn.Controllers {
			t.Errorf("%s: bootstrap %q, bootstrap.servers %q, controllers %v; want %q", c.name, got, bs, conn.Controllers, c.want)
		}
		if _, ok := conn.Props.Get("bootstrap.controllers"); ok {
			t.Errorf("%s: bootstrap.controllers left in the client's properties", c.name)
		}
	}
}
