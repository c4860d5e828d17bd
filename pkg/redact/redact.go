// Package redact is the one place that makes a text safe to show: every
// URL in it loses its userinfo (user:password@) and its query string
// (which may carry a secret such as ?secret= or a signed token). Every
// message that may hold a URL or a property value (errors, warnings, the
// client's log, the dashboard's answers, kbox status) goes through URLs.
package redact

import (
	"regexp"
	"strings"
)

// urlRe finds a URL in free text: a scheme, "://", then everything up to
// white space, a quote or an angle bracket (the ends of a URL quoted in
// an error message such as Go's `Post "http://...": ...`).
var urlRe = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>` + "`" + `]*`)

// URLs returns s with the userinfo and the query string (and fragment)
// of every URL in it dropped. A text without "://" is returned as is.
func URLs(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlRe.ReplaceAllStringFunc(s, URL)
}

// URL is one value known to be a URL (a property value), cleaned whole:
// its userinfo, query and fragment dropped, even when it holds white
// space that would end a URL in free text. A value that is not a URL
// ("://" missing) goes through URLs unchanged.
//
// It works on the text, not on a parse, so that a URL Go's parser
// refuses (a bad escape, a space in the password) is cleaned too. The
// userinfo ends at the last '@' before the query: a password may hold
// '/' or '@' unescaped, so an '@' in a path is dropped with what precedes
// it (safe, if less exact).
func URL(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return u
	}
	scheme, rest := u[:i+3], u[i+3:]
	if j := strings.IndexAny(rest, "?#"); j >= 0 {
		rest = rest[:j]
	}
	if j := strings.LastIndexByte(rest, '@'); j >= 0 {
		rest = rest[j+1:]
	}
	return scheme + rest
}
