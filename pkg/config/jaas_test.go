package config

import (
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

const (
	plainModule  = "org.apache.kafka.common.security.plain.PlainLoginModule"
	scramModule  = "org.apache.kafka.common.security.scram.ScramLoginModule"
	oauthModule  = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
	krb5Module   = "com.sun.security.auth.module.Krb5LoginModule"
	plantedValue = "S3cr3tValue"
)

func entry(module, flag string, kvs ...string) JAASEntry {
	e := JAASEntry{LoginModule: module, ControlFlag: flag, Options: map[string]string{}}
	for i := 0; i+1 < len(kvs); i += 2 {
		if _, dup := e.Options[kvs[i]]; !dup {
			e.Keys = append(e.Keys, kvs[i])
		}
		e.Options[kvs[i]] = kvs[i+1]
	}
	return e
}

func TestParseJAAS(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []JAASEntry
	}{
		{
			"PLAIN, double quotes",
			plainModule + ` required username="alice" password="alice-secret";`,
			[]JAASEntry{entry(plainModule, "REQUIRED", "username", "alice", "password", "alice-secret")},
		},
		{
			"SCRAM, single quotes",
			scramModule + ` required username='alice' password='alice-secret';`,
			[]JAASEntry{entry(scramModule, "REQUIRED", "username", "alice", "password", "alice-secret")},
		},
		{
			"SCRAM delegation token",
			scramModule + ` required username="tokenID" password="tokenHMAC" tokenauth="true";`,
			[]JAASEntry{entry(scramModule, "REQUIRED", "username", "tokenID", "password", "tokenHMAC", "tokenauth", "true")},
		},
		{
			"escaped quotes inside values",
			plainModule + ` required username="al\"ice" password='it\'s "quoted"';`,
			[]JAASEntry{entry(plainModule, "REQUIRED", "username", `al"ice`, "password", `it's "quoted"`)},
		},
		{
			"password with semicolon, equals, spaces, quote and backslash",
			plainModule + ` required username="u" password="p;a=s s\"w\\o rd";`,
			[]JAASEntry{entry(plainModule, "REQUIRED", "username", "u", "password", `p;a=s s"w\o rd`)},
		},
		{
			"OAUTHBEARER client credentials",
			oauthModule + ` required clientId="kbox-client" clientSecret="s3cr3t" scope="kafka.read kafka.write" extension_logicalCluster="lkc-123";`,
			[]JAASEntry{entry(oauthModule, "REQUIRED",
				"clientId", "kbox-client", "clientSecret", "s3cr3t",
				"scope", "kafka.read kafka.write", "extension_logicalCluster", "lkc-123")},
		},
		{
			"OAUTHBEARER unsecured",
			oauthModule + ` required unsecuredLoginStringClaim_sub="alice";`,
			[]JAASEntry{entry(oauthModule, "REQUIRED", "unsecuredLoginStringClaim_sub", "alice")},
		},
		{
			"GSSAPI bare words",
			krb5Module + ` required useKeyTab=true storeKey=true keyTab="/etc/security/kafka.keytab" principal="kafka/host@EXAMPLE.COM";`,
			[]JAASEntry{entry(krb5Module, "REQUIRED",
				"useKeyTab", "true", "storeKey", "true",
				"keyTab", "/etc/security/kafka.keytab", "principal", "kafka/host@EXAMPLE.COM")},
		},
		{
			"bare words with digits, dots, dashes, underscores and dollars",
			`M optional a=x1.2-3_$ b=_y c=$z d=é-1;`,
			[]JAASEntry{entry("M", "OPTIONAL", "a", "x1.2-3_$", "b", "_y", "c", "$z", "d", "é-1")},
		},
		{
			"comments",
			"// leading comment\n" + plainModule + " /* flag follows */ required\n" +
				"  username=\"alice\" // the user\n" +
				"  /* multi\n     line */ password=\"alice-secret\";\n// trailing",
			[]JAASEntry{entry(plainModule, "REQUIRED", "username", "alice", "password", "alice-secret")},
		},
		{
			"slashes inside quotes are not comments",
			`M required url="https://example.com/a//b/*c*/";`,
			[]JAASEntry{entry("M", "REQUIRED", "url", "https://example.com/a//b/*c*/")},
		},
		{
			"control flags are case-insensitive",
			`A REQUIRED; B Requisite; C sufficient; D oPtIoNaL;`,
			[]JAASEntry{entry("A", "REQUIRED"), entry("B", "REQUISITE"), entry("C", "SUFFICIENT"), entry("D", "OPTIONAL")},
		},
		{
			"Java's toUpperCase maps dotless i to I",
			`M requıred;`,
			[]JAASEntry{entry("M", "REQUIRED")},
		},
		{
			"no options, whitespace everywhere",
			"\n\t M \r\n required \t ; ",
			[]JAASEntry{entry("M", "REQUIRED")},
		},
		{
			"spaces around equals",
			`M required k = "v" k2= v2 ;`,
			[]JAASEntry{entry("M", "REQUIRED", "k", "v", "k2", "v2")},
		},
		{
			"quoted key and module",
			`"my module" required "prop name"=propValue;`,
			[]JAASEntry{entry("my module", "REQUIRED", "prop name", "propValue")},
		},
		{
			"duplicate key: last wins, first position kept",
			`M required a="1" b="2" a="3";`,
			[]JAASEntry{entry("M", "REQUIRED", "a", "3", "b", "2")},
		},
		{
			"quoted number",
			`M required option1="3";`,
			[]JAASEntry{entry("M", "REQUIRED", "option1", "3")},
		},
		{
			"empty values",
			`M required a="" b='';`,
			[]JAASEntry{entry("M", "REQUIRED", "a", "", "b", "")},
		},
		{
			"StreamTokenizer escapes",
			`M required v="\a\b\f\n\r\t\v\q\\\101\7x\400\12\0";`,
			[]JAASEntry{entry("M", "REQUIRED", "v", "\a\b\f\n\r\t\vq\\A\ax 0\n\x00")},
		},
		{
			"non-ASCII words and values",
			`M required ключ=значение v="日本語";`,
			[]JAASEntry{entry("M", "REQUIRED", "ключ", "значение", "v", "日本語")},
		},
		{
			"numeric key is kept under Java's null key and dropped",
			`M required 1="x" a="y";`,
			[]JAASEntry{entry("M", "REQUIRED", "a", "y")},
		},
		{
			"unterminated quote ends at the line end",
			"M required a=\"x\n;",
			[]JAASEntry{entry("M", "REQUIRED", "a", "x")},
		},
		{
			"two modules",
			plainModule + ` required username="a" password="b"; ` + scramModule + ` sufficient username="c" password="d";`,
			[]JAASEntry{
				entry(plainModule, "REQUIRED", "username", "a", "password", "b"),
				entry(scramModule, "SUFFICIENT", "username", "c", "password", "d"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseJAAS(tt.in)
			if err != nil {
				t.Fatalf("ParseJAAS(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseJAAS(%q)\n got %#v\nwant %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseJAASErrors(t *testing.T) {
	const (
		flag   = "expected a control flag: REQUIRED, REQUISITE, SUFFICIENT or OPTIONAL)"
		equals = "expected '=' after an option name (a value holding spaces or other special characters must be quoted))"
		value  = "expected a value after '=': a word or a quoted string)"
		semi   = "expected ';' at the end of the entry)"
		module = "expected a login module class name)"
	)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", "Login module not specified in JAAS config (character 1: " + module},
		{"only comments", "// x\n/* y */", "Login module not specified in JAAS config (character 13: " + module},
		{"numeric bare value", plainModule + ` required username="alice" password=123;`,
			"Value not specified for an option in JAAS config (character 92: " + value},
		{"value starting with a dot", `M required password=.abc;`, "Value not specified for an option in JAAS config (character 21: " + value},
		{"value starting with a dash", `M required password=-abc;`, "Value not specified for an option in JAAS config (character 21: " + value},
		{"value starting with a digit", `M required password=1abc;`, "Value not specified for an option in JAAS config (character 21: " + value},
		{"value with a special character", `M required password=ab@c;`, "Value not specified for an option in JAAS config (character 24: " + equals},
		{"missing value", `M required option1;`, "Value not specified for an option in JAAS config (character 19: " + equals},
		{"missing value at end", `M required option1=`, "Value not specified for an option in JAAS config (character 20: " + value},
		{"missing equals", `M required option1 "x";`, "Value not specified for an option in JAAS config (character 20: " + equals},
		{"semicolon as value", `M required option1=;`, "Value not specified for an option in JAAS config (character 20: " + value},
		{"numeric key without value", `M required 123;`, "Value not specified for an option in JAAS config (character 15: " + equals},
		{"missing semicolon", scramModule + ` required username="alice" password="alice-secret"`,
			"JAAS config entry not terminated by semi-colon (character 106: " + semi},
		{"missing semicolon, no options", `M required`, "JAAS config entry not terminated by semi-colon (character 11: " + semi},
		{"unterminated comment", `M required a="b" /* ;`, "JAAS config entry not terminated by semi-colon (character 22: " + semi},
		{"semicolon inside an unterminated quote", `M required a="b;`, "JAAS config entry not terminated by semi-colon (character 17: " + semi},
		{"bad control flag", `M mandatory a="b";`, "Invalid login module control flag in JAAS config (character 3: " + flag},
		{"missing control flag", plainModule + ` username="alice";`, "Invalid login module control flag in JAAS config (character 57: " + flag},
		{"missing login module", `  required option1=value1;`, "Invalid login module control flag in JAAS config (character 12: " + flag},
		{"brace as control flag", `M { option1=3;`, "Login module control flag is not available in the JAAS config (character 3: " + flag},
		{"control flag missing at end", `M`, "Login module control flag not specified in JAAS config (character 2: " + flag},
		{"semicolon as control flag", `M ;`, "Login module control flag is not available in the JAAS config (character 3: " + flag},
		{"numeric login module", `123 required;`, "Login module not specified in JAAS config (character 1: " + module},
		{"empty quoted login module", `"" required;`, "Login module not specified in JAAS config (character 1: " + module},
		{"second entry broken", `A required; B required x`, "Value not specified for an option in JAAS config (character 25: " + equals},
		{"position counts characters, not bytes", `M required clé="é" x;`, "Value not specified for an option in JAAS config (character 21: " + equals},
		// Errors never show any text of the configuration: a key or a
		// control flag may be a piece of a malformed password.
		{"unquoted password with a space", `M required password=S3CR3T-a b;`, "Value not specified for an option in JAAS config (character 31: " + equals},
		{"quoted password with a stray quote", `M required password="S3CR3T"tail";`, "Value not specified for an option in JAAS config (character 33: " + equals},
		{"quoted key", `M required user="alice" "alice-secret";`, "Value not specified for an option in JAAS config (character 39: " + equals},
		{"quoted control flag", `M "alice-secret";`, "Invalid login module control flag in JAAS config (character 3: " + flag},
		{"key repeating a value", `M required password=hunter hunter;`, "Value not specified for an option in JAAS config (character 34: " + equals},
		{"flag repeating a value", `A required p=hunter; B hunter;`, "Invalid login module control flag in JAAS config (character 24: " + flag},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseJAAS(tt.in)
			if err == nil {
				t.Fatalf("ParseJAAS(%q) = %#v, want error %q", tt.in, got, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("ParseJAAS(%q) error\n got %q\nwant %q", tt.in, err, tt.want)
			}
			var je *JAASError
			if !errors.As(err, &je) {
				t.Errorf("error type %T, want *JAASError", err)
			}
			if got != nil {
				t.Errorf("entries returned with an error: %#v", got)
			}
			checkNoTextInError(t, err)
		})
	}
}

// jaasErrorRe is every JAAS syntax error: Kafka's sentence, then the
// position and the token expected; nothing in it comes from the input but
// digits.
var jaasErrorRe = regexp.MustCompile(`^(Login module not specified in JAAS config|Login module control flag not specified in JAAS config|Login module control flag is not available in the JAAS config|Invalid login module control flag in JAAS config|Value not specified for an option in JAAS config|JAAS config entry not terminated by semi-colon) \(character [1-9][0-9]*: expected (a login module class name|a control flag: REQUIRED, REQUISITE, SUFFICIENT or OPTIONAL|'=' after an option name \(a value holding spaces or other special characters must be quoted\)|a value after '=': a word or a quoted string|';' at the end of the entry)\)$`)

// checkNoTextInError checks that a JAAS syntax error is one of the fixed
// messages, with no text of the configuration in it.
func checkNoTextInError(t *testing.T, err error) {
	t.Helper()
	if !jaasErrorRe.MatchString(err.Error()) {
		t.Fatalf("error %q is not one of the fixed messages", err)
	}
}

func TestParseClientJAAS(t *testing.T) {
	e, err := ParseClientJAAS(plainModule + ` required username="alice" password="alice-secret";`)
	if err != nil {
		t.Fatal(err)
	}
	if want := entry(plainModule, "REQUIRED", "username", "alice", "password", "alice-secret"); !reflect.DeepEqual(e, want) {
		t.Errorf("got %#v, want %#v", e, want)
	}

	_, err = ParseClientJAAS(`A required; B optional; C sufficient;`)
	if err == nil || err.Error() != "JAAS config property contains 3 login modules, should be 1 module" {
		t.Errorf("three modules: error %v", err)
	}
	_, err = ParseClientJAAS(plainModule + ` required username="a" password="b"; ` + scramModule + ` required username="a" password="b";`)
	if err == nil || err.Error() != "JAAS config property contains 2 login modules, should be 1 module" {
		t.Errorf("two modules: error %v", err)
	}
	_, err = ParseClientJAAS("")
	if err == nil || !strings.HasPrefix(err.Error(), "Login module not specified in JAAS config (character 1: ") {
		t.Errorf("empty: error %v", err)
	}
	_, err = ParseClientJAAS(`M required password=42;`)
	if err == nil || !strings.HasPrefix(err.Error(), "Value not specified for an option in JAAS config (character 21: ") {
		t.Errorf("syntax error: error %v", err)
	}
}

func TestQuoteJAASValue(t *testing.T) {
	tests := []struct{ in, want string }{
		{"alice", `"alice"`},
		{"", `""`},
		{`p"w`, `"p\"w"`},
		{`C:\dir`, `"C:\\dir"`},
		{"a\nb\rc", `"a\nb\rc"`},
		{"p;a=s s'", `"p;a=s s'"`},
		{`\101`, `"\\101"`},
	}
	for _, tt := range tests {
		if got := QuoteJAASValue(tt.in); got != tt.want {
			t.Errorf("QuoteJAASValue(%q) = %s, want %s", tt.in, got, tt.want)
		}
		checkQuoteRoundTrip(t, tt.in)
	}
}

func checkQuoteRoundTrip(t *testing.T, v string) {
	t.Helper()
	s := plainModule + " required username=" + QuoteJAASValue("u") + " password=" + QuoteJAASValue(v) + ";"
	e, err := ParseClientJAAS(s)
	if err != nil {
		t.Fatalf("round trip of %q: %v", v, err)
	}
	if got := e.Options["password"]; got != v || e.Options["username"] != "u" || len(e.Keys) != 2 {
		t.Fatalf("round trip of %q: got %#v", v, e)
	}
}

func FuzzParseJAAS(f *testing.F) {
	for _, s := range []string{
		plainModule + ` required username="alice" password="alice-secret";`,
		scramModule + ` required username='alice' password='al\'ice' tokenauth="true";`,
		oauthModule + " required // c\n clientId=\"id\" /* c */ clientSecret=\"s\" scope='a b';",
		`M required password=123;`,
		`M required user="a" "S3cr3tValue";`,
		`A required; B bogus`,
		"M required v=\"\\101\\7\\n\\q\"; N optional k=v-1.2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		entries, err := ParseJAAS(s)
		entries2, produced, err2 := parseJAAS(s)
		if (err == nil) != (err2 == nil) || !reflect.DeepEqual(entries, entries2) {
			t.Fatalf("ParseJAAS and parseJAAS disagree")
		}
		if err != nil {
			checkNoTextInError(t, err)
			checkNoValueInError(t, err, produced)
		} else {
			if len(entries) == 0 {
				t.Fatal("no entries and no error")
			}
			for _, e := range entries {
				if e.LoginModule == "" || len(e.Keys) != len(e.Options) {
					t.Fatalf("bad entry %#v", e)
				}
				switch e.ControlFlag {
				case "REQUIRED", "REQUISITE", "SUFFICIENT", "OPTIONAL":
				default:
					t.Fatalf("bad control flag %q", e.ControlFlag)
				}
			}
		}

		// A planted secret in a quoted value never shows in an error,
		// whatever follows it.
		if !strings.Contains(s, plantedValue[:4]) {
			for _, prefix := range []string{
				"M required password=" + QuoteJAASValue(plantedValue) + " ",
				"M required password='" + plantedValue + "' ",
				"M required password=" + QuoteJAASValue(plantedValue) + "; ",
			} {
				_, produced, err := parseJAAS(prefix + s)
				if err != nil {
					if strings.Contains(err.Error(), plantedValue) {
						t.Fatalf("error shows the planted secret: %v", err)
					}
					checkNoValueInError(t, err, produced)
				}
			}
		}

		// QuoteJAASValue round-trips any string.
		checkQuoteRoundTrip(t, s)
	})
}

// checkNoValueInError checks that err shows no value produced before it.
func checkNoValueInError(t *testing.T, err error, produced []string) {
	t.Helper()
	msg := err.Error()
	for _, v := range produced {
		if v != "" && strings.Contains(msg, v) && !jaasErrorRe.MatchString(msg) {
			t.Fatalf("error %q shows value %q", msg, v)
		}
	}
}
