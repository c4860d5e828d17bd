package redact

import (
	"net/http"
	"strings"
	"testing"
)

func TestURLs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"no url here: a=b?c", "no url here: a=b?c"},
		{"http://idp/token", "http://idp/token"},
		{"http://cid:S3CR3T@idp/token?secret=S3CR3T-q", "http://idp/token"},
		{"token endpoint https://cid:S3CR3T@idp:8443/a/b?x=1#frag: HTTP 401", "token endpoint https://idp:8443/a/b HTTP 401"},
		{`Post "http://u:p%40ss@127.0.0.1:9/t?k=v": dial tcp 127.0.0.1:9: connection refused`, `Post "http://127.0.0.1:9/t": dial tcp 127.0.0.1:9: connection refused`},
		{"two: http://a:b@h1/x?q and ftp://c@h2?d", "two: http://h1/x and ftp://h2"},
		{"password with a slash: http://cid:S3/CR3T@idp/token", "password with a slash: http://idp/token"},
		{"password with an at: http://cid:S3@CR3T@idp/token", "password with an at: http://idp/token"},
		{"file:///etc/kbox/token?x=1", "file:///etc/kbox/token"},
	} {
		if got := URLs(tc.in); got != tc.want {
			t.Errorf("URLs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// A whole value known to be a URL, white space and all.
	if got := URL("http://cid:S3 CR3T@idp/token?secret=S3CR3T-q"); got != "http://idp/token" {
		t.Errorf("URL with a space in the password: %q", got)
	}
	if got := URL("not a url"); got != "not a url" {
		t.Errorf("URL(not a url) = %q", got)
	}
	// Go's own error for a request to such a URL.
	_, err := http.Get("http://cid:S3CR3T@127.0.0.1:1/token?secret=S3CR3T-q")
	if err == nil || !strings.Contains(err.Error(), "S3CR3T") {
		t.Fatalf("expected Go's error to show the URL: %v", err)
	}
	if got := URLs(err.Error()); strings.Contains(got, "S3CR3T") || !strings.Contains(got, "127.0.0.1:1/token") {
		t.Errorf("URLs(%q) = %q", err, got)
	}
}

func FuzzURLs(f *testing.F) {
	f.Add("http://cid:S3CR3T@idp/token?secret=S3CR3T-q")
	f.Add(`x "https://a@b/c?d" y`)
	f.Fuzz(func(t *testing.T, s string) {
		got := URLs(s)
		if URLs(got) != got {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, got, URLs(got))
		}
		// A secret planted in a URL's userinfo or query never survives.
		for _, u := range []string{"http://u:PLANTED@h/p?" + s, "http://u:PLANTED@h/p?q=PLANTED " + s, s + " http://PLANTED@h?PLANTED"} {
			if strings.Contains(URLs(u), "PLANTED") && !strings.Contains(s, "PLANTED") {
				t.Fatalf("URLs(%q) = %q", u, URLs(u))
			}
		}
	})
}
