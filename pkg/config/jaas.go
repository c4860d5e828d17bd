package config

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// JAASEntry is one login module of a sasl.jaas.config value.
type JAASEntry struct {
	LoginModule string
	ControlFlag string            // REQUIRED, REQUISITE, SUFFICIENT or OPTIONAL
	Options     map[string]string // option values; a later duplicate wins
	Keys        []string          // option names in order of first appearance
}

// JAASError is a syntax error in a JAAS configuration. Its text is Kafka's
// sentence with the position (a character count, from 1) and the token
// expected there, and never any text of the configuration: a name the
// parser took for a key or a control flag may be a piece of a malformed
// password (password=S3CR3T-a b; reads the key b).
type JAASError struct {
	msg string
}

func (e *JAASError) Error() string { return e.msg }

const (
	jaasErrNoModule       = "Login module not specified in JAAS config"
	jaasErrNoFlag         = "Login module control flag not specified in JAAS config"
	jaasErrFlagNull       = "Login module control flag is not available in the JAAS config"
	jaasErrBadFlag        = "Invalid login module control flag in JAAS config"
	jaasErrNoValue        = "Value not specified for an option in JAAS config"
	jaasErrNoSemicolon    = "JAAS config entry not terminated by semi-colon"
	jaasErrModuleCount    = "JAAS config property contains %d login modules, should be 1 module"
	jaasErrNoLoginModules = "JAAS config property does not contain any login modules"
)

// What the parser expected where it stopped.
const (
	jaasWantModule = "a login module class name"
	jaasWantFlag   = "a control flag: REQUIRED, REQUISITE, SUFFICIENT or OPTIONAL"
	jaasWantEquals = "'=' after an option name (a value holding spaces or other special characters must be quoted)"
	jaasWantValue  = "a value after '=': a word or a quoted string"
	jaasWantSemi   = "';' at the end of the entry"
)

// ParseJAAS parses a sasl.jaas.config value the way Kafka's
// org.apache.kafka.common.security.JaasConfig does (unchanged from 0.10.2 to
// at least the 3.9 branch and trunk of October 2024):
//
//	<LoginModuleClass> <controlFlag> (<key>=<value>)* ;
//
// repeated. The tokens come from a java.io.StreamTokenizer with its default
// syntax plus '-', '_' and '$' as word characters and // and /* */ comments:
//
//   - a word starts with a-z, A-Z, '_', '$' or a character >= U+00A0 and goes
//     on with those, digits, '.' and '-';
//   - a token starting with a digit, '.' or '-' is a number, which is not a
//     valid value ("Value not specified for key 'password' in JAAS config");
//   - values may be quoted with " or ', with the escapes \a \b \f \n \r \t \v,
//     octal \0 to \377, and \c for any other c; a quoted string also ends,
//     unterminated, at a line end or the end of the text;
//   - a lone '/' starts a comment to the end of the line.
//
// Option keys whose token is not a string (a number or a punctuation mark) are
// accepted and dropped, as Kafka keeps them under a null key that no login
// module reads.
func ParseJAAS(s string) ([]JAASEntry, error) {
	entries, _, err := parseJAAS(s)
	return entries, err
}

// ParseClientJAAS parses a client's sasl.jaas.config, which must hold exactly
// one login module (Kafka's JaasContext.loadClientContext).
func ParseClientJAAS(s string) (JAASEntry, error) {
	entries, err := ParseJAAS(s)
	if err != nil {
		return JAASEntry{}, err
	}
	switch len(entries) {
	case 0:
		return JAASEntry{}, &JAASError{jaasErrNoLoginModules}
	case 1:
		return entries[0], nil
	default:
		return JAASEntry{}, &JAASError{fmt.Sprintf(jaasErrModuleCount, len(entries))}
	}
}

// QuoteJAASValue returns s as a double-quoted JAAS option value that ParseJAAS
// reads back as s: '\' and '"' are escaped, and so are line feed and carriage
// return, which would otherwise end the quoted string.
func QuoteJAASValue(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// parseJAAS is JaasConfig's constructor and parseAppConfigurationEntry. It
// also returns every option value produced before an error, so that tests can
// check that errors do not show them.
func parseJAAS(s string) ([]JAASEntry, []string, error) {
	t := &jaasTokenizer{s: s}
	var entries []JAASEntry
	var produced []string

	// fail reports msg at the start of the current token: its position
	// and what was expected there, never its text.
	fail := func(msg, want string) ([]JAASEntry, []string, error) {
		pos := utf8.RuneCountInString(t.s[:t.tokPos]) + 1
		return nil, produced, &JAASError{fmt.Sprintf("%s (character %d: expected %s)", msg, pos, want)}
	}

	for t.next().ttype != ttEOF {
		module, modulePos := t.tok, t.tokPos
		if t.next().ttype == ttEOF {
			return fail(jaasErrNoFlag, jaasWantFlag)
		}
		flagTok := t.tok
		if !flagTok.hasSval {
			return fail(jaasErrFlagNull, jaasWantFlag)
		}
		var flag string
		switch up := strings.ToUpper(flagTok.sval); up {
		case "REQUIRED", "REQUISITE", "SUFFICIENT", "OPTIONAL":
			flag = up
		default:
			return fail(jaasErrBadFlag, jaasWantFlag)
		}

		e := JAASEntry{LoginModule: module.sval, ControlFlag: flag, Options: map[string]string{}}
		for t.next().ttype != ttEOF && t.tok.ttype != ';' {
			key := t.tok
			if t.next().ttype != '=' {
				return fail(jaasErrNoValue, jaasWantEquals)
			}
			if t.next().ttype == ttEOF || !t.tok.hasSval {
				return fail(jaasErrNoValue, jaasWantValue)
			}
			value := t.tok.sval
			produced = append(produced, value)
			if !key.hasSval {
				continue // Kafka's null key: unreachable by any login module
			}
			if _, dup := e.Options[key.sval]; !dup {
				e.Keys = append(e.Keys, key.sval)
			}
			e.Options[key.sval] = value
		}
		if t.tok.ttype != ';' {
			return fail(jaasErrNoSemicolon, jaasWantSemi)
		}
		// new AppConfigurationEntry rejects a null or empty module name (with
		// no message of its own).
		if !module.hasSval || module.sval == "" {
			t.tokPos = modulePos
			return fail(jaasErrNoModule, jaasWantModule)
		}
		entries = append(entries, e)
	}
	if len(entries) == 0 {
		return fail(jaasErrNoModule, jaasWantModule)
	}
	return entries, produced, nil
}

// Token types, as java.io.StreamTokenizer's ttype. Ordinary characters and
// quote characters are their own (positive) code.
const (
	ttEOF    = -1
	ttNumber = -2
	ttWord   = -3
)

type jaasToken struct {
	ttype   int
	sval    string
	hasSval bool // sval != null in Java (words and quoted strings)
	quoted  bool
}

// Character types of StreamTokenizer's syntax table.
const (
	ctWhitespace = 1
	ctDigit      = 2
	ctAlpha      = 4
	ctQuote      = 8
	ctComment    = 16
)

// jaasCtype is the syntax table Kafka's JaasConfig sets up: the
// StreamTokenizer defaults (whitespace 0..' ', words a-z A-Z 160..255,
// comment '/', quotes " and ', parseNumbers) plus wordChars '-', '_', '$'.
var jaasCtype = func() [256]byte {
	var ct [256]byte
	for c := 0; c <= ' '; c++ {
		ct[c] = ctWhitespace
	}
	for c := 'a'; c <= 'z'; c++ {
		ct[c] = ctAlpha
	}
	for c := 'A'; c <= 'Z'; c++ {
		ct[c] = ctAlpha
	}
	for c := 160; c <= 255; c++ {
		ct[c] = ctAlpha
	}
	ct['/'] = ctComment
	ct['"'] = ctQuote
	ct['\''] = ctQuote
	for c := '0'; c <= '9'; c++ {
		ct[c] = ctDigit
	}
	ct['.'] = ctDigit
	ct['-'] = ctDigit | ctAlpha
	ct['_'] = ctAlpha
	ct['$'] = ctAlpha
	return ct
}()

func jaasCharType(c rune) byte {
	if c < 0 {
		return ctWhitespace
	}
	if c < 256 {
		return jaasCtype[c]
	}
	return ctAlpha
}

// jaasTokenizer is java.io.StreamTokenizer.nextToken with Kafka's settings.
// Java reads UTF-16 chars; here a character is a rune, and each byte of
// invalid UTF-8 is a character that classifies like any char >= 256. Token
// text keeps the input's bytes, so nothing is altered.
type jaasTokenizer struct {
	s      string
	pos    int
	start  int // offset of the last character read
	tok    jaasToken
	tokPos int // offset where tok starts (len(s) at the end)
}

// read returns the next character, or -1 at the end.
func (t *jaasTokenizer) read() rune {
	t.start = t.pos
	if t.pos >= len(t.s) {
		return -1
	}
	r, n := utf8.DecodeRuneInString(t.s[t.pos:])
	t.pos += n
	return r
}

// unread pushes back the last character read (StreamTokenizer's peekc).
func (t *jaasTokenizer) unread() { t.pos = t.start }

func (t *jaasTokenizer) raw() string { return t.s[t.start:t.pos] }

func (t *jaasTokenizer) next() jaasToken {
	t.tok = t.scan()
	if t.tok.ttype == ttEOF {
		t.tokPos = len(t.s)
	}
	return t.tok
}

func (t *jaasTokenizer) scan() jaasToken {
	for {
		c := t.read()
		if c < 0 {
			return jaasToken{ttype: ttEOF}
		}
		ct := jaasCharType(c)
		for ct&ctWhitespace != 0 {
			c = t.read()
			if c < 0 {
				return jaasToken{ttype: ttEOF}
			}
			ct = jaasCharType(c)
		}
		t.tokPos = t.start

		if ct&ctDigit != 0 {
			if c == '-' {
				c = t.read()
				if c != '.' && (c < '0' || c > '9') {
					t.unread()
					return jaasToken{ttype: '-'}
				}
			}
			seenDot := false
			for c == '.' && !seenDot || c >= '0' && c <= '9' {
				if c == '.' {
					seenDot = true
				}
				c = t.read()
			}
			t.unread()
			return jaasToken{ttype: ttNumber}
		}

		if ct&ctAlpha != 0 {
			var b strings.Builder
			for ct&(ctAlpha|ctDigit) != 0 {
				b.WriteString(t.raw())
				c = t.read()
				ct = jaasCharType(c)
			}
			t.unread()
			return jaasToken{ttype: ttWord, sval: b.String(), hasSval: true}
		}

		if ct&ctQuote != 0 {
			return t.quoted(c)
		}

		if c == '/' {
			c = t.read()
			switch c {
			case '*':
				prev := rune(0)
				for {
					c = t.read()
					if c == '/' && prev == '*' {
						break
					}
					// Java reads on past a line end without checking the
					// next character against "*/".
					if c == '\r' {
						c = t.read()
						if c == '\n' {
							c = t.read()
						}
					} else if c == '\n' {
						c = t.read()
					}
					if c < 0 {
						return jaasToken{ttype: ttEOF}
					}
					prev = c
				}
				continue
			case '/':
				t.skipLine()
				continue
			default:
				// '/' is also a comment character: the rest of the line is
				// a comment. The character just read is not checked for a
				// line end (Java's behaviour).
				t.skipLine()
				continue
			}
		}

		if ct&ctComment != 0 {
			t.skipLine()
			continue
		}

		return jaasToken{ttype: int(c)}
	}
}

// skipLine consumes characters up to, not including, the next '\n' or '\r'.
func (t *jaasTokenizer) skipLine() {
	for {
		c := t.read()
		if c == '\n' || c == '\r' || c < 0 {
			t.unread()
			return
		}
	}
}

// quoted reads a quoted string whose opening quote q has been read.
func (t *jaasTokenizer) quoted(q rune) jaasToken {
	var b strings.Builder
	d := t.read()
	for d >= 0 && d != q && d != '\n' && d != '\r' {
		if d != '\\' {
			b.WriteString(t.raw())
			d = t.read()
			continue
		}
		c := t.read()
		first := c
		if c >= '0' && c <= '7' {
			c -= '0'
			c2 := t.read()
			if c2 >= '0' && c2 <= '7' {
				c = c<<3 + c2 - '0'
				c2 = t.read()
				if c2 >= '0' && c2 <= '7' && first <= '3' {
					c = c<<3 + c2 - '0'
					d = t.read()
				} else {
					d = c2
				}
			} else {
				d = c2
			}
			b.WriteRune(c)
			continue
		}
		switch c {
		case 'a':
			b.WriteByte(0x7)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte(0xC)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(0xB)
		default:
			if c < 0 {
				b.WriteRune(0xFFFF) // Java appends (char)-1
			} else {
				b.WriteString(t.raw())
			}
		}
		d = t.read()
	}
	if d != q {
		t.unread() // the line end is not part of the string
	}
	return jaasToken{ttype: int(q), sval: b.String(), hasSval: true, quoted: true}
}
