package consoleproducer

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/kafka"
)

func parsed(t *testing.T, args ...string) *options {
	t.Helper()
	s, err := parser.Parse(append([]string{"--topic", "t", "--bootstrap-server", "h:1"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	cp, cc, rp := "command-property", "command-config", "reader-property"
	if s.Has("producer-property") {
		cp = "producer-property"
	}
	if s.Has("property") {
		rp = "property"
	}
	o, err := parseOptions(s, cp, cc, rp)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// settings is the client configuration the options give: the tool's
// defaults under the user's properties and the explicit options.
func settings(t *testing.T, o *options) *kafka.Settings {
	t.Helper()
	props := o.defaults.Clone()
	props.Merge(o.props)
	s, err := kafka.Parse(props, kafka.Producer)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The console producer's own defaults (linger 1 s, acks -1, a 1.5 s request
// timeout, 16 KiB batches, client.id console-producer, no compression).
func TestDefaults(t *testing.T) {
	o := parsed(t)
	s := settings(t, o)
	if s.Linger != time.Second || s.Acks != "all" || s.RequestTimeout != 1500*time.Millisecond || *s.BatchSize != 16384 ||
		s.ClientID != "console-producer" || s.Compression != "none" || *s.Retries != 3 || s.MaxBlock != time.Minute || !s.Idempotent {
		t.Errorf("settings %+v", s)
	}
	if _, ok := o.defaults.Get("send.buffer.bytes"); ok {
		t.Error("send.buffer.bytes set without --socket-buffer-size")
	}
	if o.partition != -1 || o.format != "lines" || o.sync || o.rate != 0 {
		t.Errorf("options %+v", o)
	}
}

// maybeMergeOptions: an explicit option beats a property, a property beats
// the tool's default; --max-partition-memory-bytes is merged after
// --batch-size; compression.type always comes from --compression-codec.
func TestMergeOrder(t *testing.T) {
	o := parsed(t, "--timeout", "5", "--batch-size", "100", "--max-partition-memory-bytes", "2000",
		"--producer-property", "linger.ms=7", "--producer-property", "acks=1", "--producer-property", "compression.type=zstd",
		"--producer-property", "client.id=mine", "--socket-buffer-size", "4096", "--sync")
	s := settings(t, o)
	if s.Linger != 5*time.Millisecond || s.Acks != "1" || *s.BatchSize != 2000 || s.Compression != "none" || s.ClientID != "mine" || s.Idempotent {
		t.Errorf("settings %+v", s)
	}
	if v, _ := o.props.Get("send.buffer.bytes"); v != "4096" || !o.sync {
		t.Errorf("send.buffer.bytes %q, sync %v", v, o.sync)
	}
	for args, want := range map[*[]string]string{{"--compression-codec"}: "gzip", {"--compression-codec", "lz4"}: "lz4", {"--compression-codec="}: "gzip"} {
		if v, _ := parsed(t, *args...).props.Get("compression.type"); v != want {
			t.Errorf("%v: compression.type %q, want %q", *args, v, want)
		}
	}
}

// Reader properties: the file, then topic, then --reader-property (which
// may even change the topic, as in Java).
func TestReaderProps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.properties")
	if err := os.WriteFile(path, []byte("parse.key=true\nkey.separator=:\nnull.marker=N\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := parsed(t, "--reader-config", path, "--property", "key.separator=::", "--property", "topic=other", "--property", "ignore.error")
	want := map[string]string{"parse.key": "true", "key.separator": "::", "null.marker": "N", "topic": "other", "ignore.error": ""}
	if !reflect.DeepEqual(o.readerProps, want) {
		t.Errorf("reader props %v, want %v", o.readerProps, want)
	}
	if o.lineConfig.Topic != "other" || !o.lineConfig.ParseKey || o.lineConfig.KeySeparator != "::" || o.lineConfig.IgnoreError {
		t.Errorf("line reader %+v", o.lineConfig)
	}
}

func TestNativeOptions(t *testing.T) {
	o := parsed(t, "-f", "json", "--file", "a", "--file", "b", "-p", "3", "--rate", "50")
	if o.format != "json" || !reflect.DeepEqual(o.files, []string{"a", "b"}) || o.partition != 3 || o.rate != 50 || o.lineConfig != nil {
		t.Errorf("options %+v", o)
	}
	for _, args := range [][]string{{"-f", "csv"}, {"-p", "-1"}, {"--rate", "0"}, {"-p", "x"}} {
		s, err := parser.Parse(append([]string{"--topic", "t"}, args...))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parseOptions(s, "command-property", "command-config", "reader-property"); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

func TestValidateBootstrap(t *testing.T) {
	for v, want := range map[string]string{
		"h:1":                    "",
		"h:1,[::1]:2,k:3,":       "",
		"SASL_SSL://host.x:9093": "",
		"":                       "Error while validating the bootstrap address\n",
		"h":                      "Please provide valid host:port like host1:9091,host2:9092\n",
		",":                      "Please provide valid host:port like host1:9091,host2:9092\n",
		"h:1,,k:2":               "Please provide valid host:port like host1:9091,host2:9092\n",
	} {
		if got := validateBootstrap(v, true); got != want {
			t.Errorf("%q: %q, want %q", v, got, want)
		}
	}
}

// --command-config (or the deprecated --producer.config) names the file the
// connection layer reads under the properties.
func TestCommandConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.properties")
	if err := os.WriteFile(path, []byte("linger.ms=9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--command-config", "--producer.config"} {
		s, err := parser.Parse([]string{"--topic", "t", flag, path, "--timeout", "3"})
		if err != nil {
			t.Fatal(err)
		}
		cc := "command-config"
		if flag == "--producer.config" {
			cc = "producer.config"
		}
		o, err := parseOptions(s, "command-property", cc, "reader-property")
		if err != nil || o.configFile != path {
			t.Fatalf("%s: %+v %v", flag, o, err)
		}
		if v, _ := o.props.Get("linger.ms"); v != "3" {
			t.Errorf("%s: --timeout gives linger.ms %q over the file", flag, v)
		}
	}
}
