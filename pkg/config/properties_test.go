package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

type kv struct{ k, v string }

func pairs(p *Properties) []kv {
	var out []kv
	for _, k := range p.Keys() {
		v, _ := p.Get(k)
		out = append(out, kv{k, v})
	}
	return out
}

func TestParsePropertiesString(t *testing.T) {
	const jaasValue = `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="alice-secret";`
	tests := []struct {
		name string
		in   string
		want []kv
	}{
		{"equals", "a=b", []kv{{"a", "b"}}},
		{"colon", "a:b", []kv{{"a", "b"}}},
		{"space", "a b", []kv{{"a", "b"}}},
		{"tab and form feed", "a\t\fb", []kv{{"a", "b"}}},
		{"spaces around equals, trailing kept", "a   =   b  ", []kv{{"a", "b  "}}},
		{"only one separator skipped", "a = = b", []kv{{"a", "= b"}}},
		{"colon then equals", "a:=b", []kv{{"a", "=b"}}},
		{"space then colon", "a :b", []kv{{"a", "b"}}},
		{"escaped equals in key", `a\=b=c`, []kv{{"a=b", "c"}}},
		{"escaped colon in key", `a\:b:c`, []kv{{"a:b", "c"}}},
		{"escaped spaces in key", `key\ with\ spaces=v`, []kv{{"key with spaces", "v"}}},
		{"unicode escapes", `\u0041=\u00e9`, []kv{{"A", "é"}}},
		{"upper-case hex", `k=\u00C9\u20AC`, []kv{{"k", "É€"}}},
		{"surrogate pair", `k=\uD83D\uDE00`, []kv{{"k", "😀"}}},
		{"lone surrogate", `k=\uD83D`, []kv{{"k", "\uFFFD"}}},
		{"escapes", `k=a\tb\nc\rd\fe\\f\qg\"h`, []kv{{"k", "a\tb\nc\rd\fe\\fqg\"h"}}},
		{"escaped leading space in value", `k=\ \ v`, []kv{{"k", "  v"}}},
		{"equals kept in value", "k=a=b:c", []kv{{"k", "a=b:c"}}},
		{"leading whitespace", " \t\f a=b", []kv{{"a", "b"}}},
		{"key only", "a", []kv{{"a", ""}}},
		{"key and separator only", "a=", []kv{{"a", ""}}},
		{"key and spaces only", "a   ", []kv{{"a", ""}}},
		{"empty key", "=v", []kv{{"", "v"}}},
		{"empty key, colon", ":v", []kv{{"", "v"}}},
		{"last duplicate wins, first position kept", "a=1\nb=2\na=3", []kv{{"a", "3"}, {"b", "2"}}},
		{
			"continuation skips leading whitespace",
			"a=one\\\n    two\\\n\t three\nb=c",
			[]kv{{"a", "onetwothree"}, {"b", "c"}},
		},
		{"continuation inside key", "ke\\\n  y=v", []kv{{"key", "v"}}},
		{"continuation after separator", "k=\\\n  v", []kv{{"k", "v"}}},
		{"even backslashes: no continuation", "a=b\\\\\nc=d", []kv{{"a", `b\`}, {"c", "d"}}},
		{"three backslashes continue", "a=b\\\\\\\nc", []kv{{"a", `b\c`}}},
		{"continuation then blank line ends it", "a=b\\\n\nc=d", []kv{{"a", "b"}, {"c", "d"}}},
		{"continuation then whitespace-only line", "a=b\\\n   \nc=d", []kv{{"a", "b"}, {"c", "d"}}},
		{"continuation line starting with #", "a=b\\\n  #c", []kv{{"a", "b#c"}}},
		{"hash comment", "# comment\na=b", []kv{{"a", "b"}}},
		{"bang comment", "! comment\na=b", []kv{{"a", "b"}}},
		{"indented comments", "   # c1\n\t! c2\na=b", []kv{{"a", "b"}}},
		{"comment never continues", "# comment \\\na=b", []kv{{"a", "b"}}},
		{"comment ending in backslash at EOF", "a=b\n# c\\", []kv{{"a", "b"}}},
		{"hash inside value", "a=b # not a comment", []kv{{"a", "b # not a comment"}}},
		{"escaped hash key", `\#a=b`, []kv{{"#a", "b"}}},
		{"backslash at EOF dropped", "a=b\\", []kv{{"a", "b"}}},
		{"backslash newline at EOF dropped", "a=b\\\n", []kv{{"a", "b"}}},
		{"lone backslash file", "\\", []kv{{"", ""}}},
		{"CRLF", "a=b\r\nc=d\r\n", []kv{{"a", "b"}, {"c", "d"}}},
		{"bare CR", "a=b\rc=d\r", []kv{{"a", "b"}, {"c", "d"}}},
		{"CRLF continuation", "a=b\\\r\n  c\r\nd=e", []kv{{"a", "bc"}, {"d", "e"}}},
		{"CR continuation", "a=b\\\r  c\rd=e", []kv{{"a", "bc"}, {"d", "e"}}},
		{"blank lines", "\n\n  \n\ta=b\n\n", []kv{{"a", "b"}}},
		{"empty input", "", nil},
		{"only comments", "#a\n!b\n", nil},
		{"non-ASCII kept by Reader", "k=é", []kv{{"k", "é"}}},
		{
			"JAAS value on continuation lines",
			"sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n" +
				"    username=\"alice\" \\\n" +
				"    password=\"alice-secret\";\n",
			[]kv{{"sasl.jaas.config", jaasValue}},
		},
		{
			"equals kept inside JAAS value",
			`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p=q";`,
			[]kv{{"sasl.jaas.config", `org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p=q";`}},
		},
		{
			"client.properties",
			"# client settings\n" +
				"bootstrap.servers=broker-1:9092,broker-2:9092\n" +
				"security.protocol = SASL_SSL\n" +
				"sasl.mechanism: SCRAM-SHA-512\n" +
				"ssl.truststore.location=/etc/kafka/truststore.jks\n" +
				"ssl.endpoint.identification.algorithm=\n",
			[]kv{
				{"bootstrap.servers", "broker-1:9092,broker-2:9092"},
				{"security.protocol", "SASL_SSL"},
				{"sasl.mechanism", "SCRAM-SHA-512"},
				{"ssl.truststore.location", "/etc/kafka/truststore.jks"},
				{"ssl.endpoint.identification.algorithm", ""},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePropertiesString(tt.in)
			if err != nil {
				t.Fatalf("ParsePropertiesString(%q): %v", tt.in, err)
			}
			if got := pairs(p); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParsePropertiesString(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if p.Len() != len(tt.want) {
				t.Errorf("Len() = %d, want %d", p.Len(), len(tt.want))
			}
			if strings.ContainsFunc(tt.in, func(r rune) bool { return r > 0x7f }) {
				return
			}
			// ASCII input reads the same as bytes.
			pb, err := ParseProperties([]byte(tt.in))
			if err != nil {
				t.Fatalf("ParseProperties(%q): %v", tt.in, err)
			}
			if got := pairs(pb); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseProperties(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParsePropertiesISO88591(t *testing.T) {
	p, err := ParseProperties([]byte("k=caf\xe9\nn\xe4me=\xff"))
	if err != nil {
		t.Fatal(err)
	}
	want := []kv{{"k", "café"}, {"näme", "ÿ"}}
	if got := pairs(p); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// UTF-8 bytes are read as two ISO-8859-1 characters, as Java does.
	p, err = ParseProperties([]byte("k=caf\xc3\xa9"))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := p.Get("k"); v != "cafÃ©" {
		t.Errorf("UTF-8 bytes: got %q, want %q", v, "cafÃ©")
	}
}

func TestParsePropertiesMalformedUnicode(t *testing.T) {
	tests := []struct {
		in   string
		line int
	}{
		{`k=\u12`, 1},
		{`k=\u12G4`, 1},
		{"a=b\n\nk=\\uzzzz", 3},
		{"a=b\r\nc=d\r\n\\u00=v", 3},
		{"a=b\rk=x\\\n  \\u", 2}, // the line where the logical line starts
		{`\u00=v`, 1},            // the key ends at '=': only two hex digits
		{"# \\u\n\\u", 2},
	}
	for _, tt := range tests {
		for _, parse := range []func() (*Properties, error){
			func() (*Properties, error) { return ParsePropertiesString(tt.in) },
			func() (*Properties, error) { return ParseProperties([]byte(tt.in)) },
		} {
			p, err := parse()
			if err == nil {
				t.Errorf("%q: no error, got %q", tt.in, pairs(p))
				continue
			}
			var pe *PropertiesError
			if !errors.As(err, &pe) {
				t.Fatalf("%q: error %T, want *PropertiesError", tt.in, err)
			}
			if pe.Line != tt.line || pe.Msg != `Malformed \uxxxx encoding.` {
				t.Errorf("%q: got line %d %q, want line %d", tt.in, pe.Line, pe.Msg, tt.line)
			}
			if !strings.Contains(err.Error(), `Malformed \uxxxx encoding.`) {
				t.Errorf("%q: error text %q", tt.in, err)
			}
		}
	}
	// A comment is not decoded, so a bad escape there is fine.
	if _, err := ParsePropertiesString("# \\uXYZ\na=b"); err != nil {
		t.Errorf("comment: %v", err)
	}
}

func TestLoadPropertiesFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "client.properties")
	if err := os.WriteFile(path, []byte("bootstrap.servers=localhost:9092\nclient.id=caf\xe9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPropertiesFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []kv{{"bootstrap.servers", "localhost:9092"}, {"client.id", "café"}}
	if got := pairs(p); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}

	missing := filepath.Join(dir, "missing.properties")
	_, err = LoadPropertiesFile(missing)
	if err == nil || !strings.HasPrefix(err.Error(), "read properties file "+missing+": ") {
		t.Errorf("missing file: error %v", err)
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: error %v does not wrap os.ErrNotExist", err)
	}

	bad := filepath.Join(dir, "bad.properties")
	if err := os.WriteFile(bad, []byte("a=b\nc=\\u12"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = LoadPropertiesFile(bad)
	var pe *PropertiesError
	if err == nil || !strings.Contains(err.Error(), bad) || !errors.As(err, &pe) || pe.Line != 2 {
		t.Errorf("bad file: error %v", err)
	}
}

func TestPropertiesMethods(t *testing.T) {
	var zero Properties
	if zero.Len() != 0 || zero.Keys() != nil {
		t.Fatal("zero value not empty")
	}
	zero.Set("x", "1")
	if v, ok := zero.Get("x"); !ok || v != "1" {
		t.Fatal("zero value Set/Get")
	}

	p := NewProperties()
	p.Set("a", "1")
	p.Set("b", "2")
	p.Set("c", "3")
	p.Set("a", "4")
	if got, want := pairs(p), []kv{{"a", "4"}, {"b", "2"}, {"c", "3"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if _, ok := p.Get("missing"); ok {
		t.Error("Get(missing) reported present")
	}

	c := p.Clone()
	c.Set("b", "changed")
	c.Set("d", "5")
	if v, _ := p.Get("b"); v != "2" || p.Len() != 3 {
		t.Error("Clone is not independent")
	}

	p.Delete("b")
	p.Delete("missing")
	if got, want := p.Keys(), []string{"a", "c"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after Delete: keys %q, want %q", got, want)
	}
	p.Set("b", "6")
	if got, want := p.Keys(), []string{"a", "c", "b"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("re-added key: keys %q, want %q", got, want)
	}

	keys := p.Keys()
	keys[0] = "mutated"
	if p.Keys()[0] != "a" {
		t.Error("Keys returned internal slice")
	}

	other := NewProperties()
	other.Set("c", "other")
	other.Set("z", "26")
	p.Merge(other)
	p.Merge(nil)
	if got, want := pairs(p), []kv{{"a", "4"}, {"c", "other"}, {"b", "6"}, {"z", "26"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after Merge: %q, want %q", got, want)
	}

	m := p.Map()
	if want := map[string]string{"a": "4", "c": "other", "b": "6", "z": "26"}; !reflect.DeepEqual(m, want) {
		t.Fatalf("Map() = %v", m)
	}
	m["a"] = "mutated"
	if v, _ := p.Get("a"); v != "4" {
		t.Error("Map returned internal map")
	}

	var nilp *Properties
	if nilp.Len() != 0 || nilp.Keys() != nil || nilp.Clone().Len() != 0 || len(nilp.Map()) != 0 {
		t.Error("nil Properties not empty")
	}
	if _, ok := nilp.Get("a"); ok {
		t.Error("nil Get")
	}
	nilp.Delete("a")
}

func TestPropertiesStore(t *testing.T) {
	p := NewProperties()
	p.Set("a", "b")
	p.Set("key with spaces", "value with spaces ")
	p.Set("k=:#!", "v=:#!")
	p.Set("#comment", " leading")
	p.Set("ctl\t\n\r\f", "ctl\t\n\r\f")
	p.Set(`back\slash`, `C:\dir\`)
	p.Set("uni", "café €😀\x01\x7f")
	p.Set("", "")
	p.Set("sasl.jaas.config", `org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p=q";`)
	want := `a=b
key\ with\ spaces=value with spaces 
k\=\:\#\!=v\=\:\#\!
\#comment=\ leading
ctl\t\n\r\f=ctl\t\n\r\f
back\\slash=C\:\\dir\\
uni=caf\u00E9 \u20AC\uD83D\uDE00\u0001\u007F
=
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username\="u" password\="p\=q";
`
	if got := p.Store(); got != want {
		t.Errorf("Store():\n%s\nwant:\n%s", got, want)
	}
	for _, parse := range []func(string) (*Properties, error){
		ParsePropertiesString,
		func(s string) (*Properties, error) { return ParseProperties([]byte(s)) },
	} {
		q, err := parse(want)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(pairs(q), pairs(p)) {
			t.Errorf("round trip:\n got %q\nwant %q", pairs(q), pairs(p))
		}
	}
}

func FuzzParseProperties(f *testing.F) {
	for _, s := range []string{
		"a=b",
		"a b\nc:d\n",
		"# c\n! c\n  k  =  v  \n",
		"a=b\\\n   c\\\r\n d\\\r e",
		`\u0041=\u00e9\uD83D\uDE00`,
		"k=\\u12",
		"\\",
		"a=b\\\\\n=v\n:\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProperties(data)
		ps, errs := ParsePropertiesString(string(data))
		if err != nil {
			var pe *PropertiesError
			if !errors.As(err, &pe) || pe.Msg != `Malformed \uxxxx encoding.` || pe.Line < 1 {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		// Both readers agree on ASCII input.
		ascii := true
		for _, b := range data {
			if b > 0x7f {
				ascii = false
				break
			}
		}
		if ascii {
			if errs != nil {
				t.Fatalf("ParsePropertiesString failed where ParseProperties did not: %v", errs)
			}
			if !reflect.DeepEqual(pairs(p), pairs(ps)) {
				t.Fatalf("readers disagree:\n%q\n%q", pairs(p), pairs(ps))
			}
		}

		stored := p.Store()
		for i := 0; i < len(stored); i++ {
			if stored[i] > 0x7e || stored[i] < 0x20 && stored[i] != '\n' {
				t.Fatalf("Store output is not printable ASCII: %q", stored)
			}
		}
		for name, parse := range map[string]func(string) (*Properties, error){
			"ParsePropertiesString": ParsePropertiesString,
			"ParseProperties":       func(s string) (*Properties, error) { return ParseProperties([]byte(s)) },
		} {
			q, err := parse(stored)
			if err != nil {
				t.Fatalf("%s(Store()): %v\nstored: %q", name, err, stored)
			}
			if !reflect.DeepEqual(pairs(q), pairs(p)) {
				t.Fatalf("%s(Store()) differs:\n got %q\nwant %q\nstored %q", name, pairs(q), pairs(p), stored)
			}
		}
	})
}
