package dashboard

import (
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// queryParam checks one query parameter's value; pageSize is the
// server's default partition page.
type queryParam func(v string, pageSize int) error

// queryParams are the query parameters each route takes (by its mux
// pattern); any other parameter, a parameter given twice or a value out
// of range is answered 400 before the handler runs. Routes not listed
// take none (the page's files ignore theirs).
var queryParams = map[string]map[string]queryParam{
	"GET /api/clusters": {"sample": oneOf("0", "1")},
	"GET /api/c/{cluster}/topics/{topic}": {
		"offset":   intRange("offset", 0, math.MaxInt32, nil),
		"limit":    intRange("limit", 1, 0, func(pageSize int) int { return 10 * pageSize }),
		"problems": oneOf("0", "1"),
	},
	"GET /api/c/{cluster}/topics/{topic}/messages": messagesParams,
}

func oneOf(allowed ...string) queryParam {
	return func(v string, _ int) error {
		for _, a := range allowed {
			if v == a {
				return nil
			}
		}
		return fmt.Errorf("want %s", strings.Join(allowed, " or "))
	}
}

// intRange is an integer from lo to hi (or to max(pageSize) when set).
func intRange(name string, lo, hi int, max func(pageSize int) int) queryParam {
	return func(v string, pageSize int) error {
		h := hi
		if max != nil {
			h = max(pageSize)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < int64(lo) || n > int64(h) {
			return fmt.Errorf("want an integer from %d to %d", lo, h)
		}
		return nil
	}
}

// checkQuery validates a request's query string against its route's
// parameters. Static files (pattern "GET /") and unmatched paths are
// not checked: they read no parameter.
func checkQuery(pattern, raw string, pageSize int) error {
	if raw == "" || pattern == "" || pattern == "GET /" {
		return nil
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return fmt.Errorf("malformed query string")
	}
	allowed := queryParams[pattern]
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		check, ok := allowed[k]
		if !ok {
			name := k
			if len(name) > 40 {
				name = name[:40] + "..."
			}
			if len(allowed) == 0 {
				return fmt.Errorf("query parameter %q: this endpoint takes none", name)
			}
			return fmt.Errorf("query parameter %q: unknown (this endpoint takes %s)", name, strings.Join(sortedKeys(allowed), ", "))
		}
		if len(q[k]) > 1 {
			return fmt.Errorf("query parameter %s: given %d times", k, len(q[k]))
		}
		// The value is not echoed: it is the client's own, and may be
		// anything.
		if err := check(q[k][0], pageSize); err != nil {
			return fmt.Errorf("query parameter %s: %s", k, err)
		}
	}
	return nil
}

func sortedKeys(m map[string]queryParam) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
