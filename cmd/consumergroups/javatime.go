package consumergroups

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// dateRe is SimpleDateFormat "yyyy-MM-dd'T'HH:mm:ss.SSS" followed by the
// zone of the XXX ("Z", "+hh:mm") or X ("Z", "+hh", "+hhmm") patterns.
var dateRe = regexp.MustCompile(`^(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)\.(\d+)(Z|[+-]\d\d:\d\d|[+-]\d\d|[+-]\d\d\d\d)$`)

// parseDateTime is Kafka's Utils.getDateTime: an ISO-8601 local date-time
// with milliseconds and an optional zone (UTC when none), strictly parsed.
// The error is the message Apache's tool prints.
func parseDateTime(s string) (int64, error) {
	parts := strings.Split(s, "T")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) < 2 {
		return 0, errors.New("java.text.ParseException: Error parsing timestamp. It does not contain a 'T' according to ISO8601 format")
	}
	if sec := parts[1]; !strings.ContainsAny(sec, "+-Z") {
		s += "Z"
	}
	bad := errors.New(`java.text.ParseException: Unparseable date: "` + s + `"`)
	m := dateRe.FindStringSubmatch(s)
	if m == nil {
		return 0, bad
	}
	n := make([]int, 7)
	for i := range n {
		v, err := strconv.Atoi(m[i+1])
		if err != nil {
			return 0, bad
		}
		n[i] = v
	}
	if n[1] < 1 || n[1] > 12 || n[2] < 1 || n[3] > 23 || n[4] > 59 || n[5] > 59 || n[6] > 999 {
		return 0, bad
	}
	t := time.Date(n[0], time.Month(n[1]), n[2], n[3], n[4], n[5], n[6]*1e6, time.UTC)
	if t.Day() != n[2] { // Feb 30 and the like
		return 0, bad
	}
	off := 0
	if z := m[8]; z != "Z" {
		digits := strings.ReplaceAll(z[1:], ":", "")
		h, _ := strconv.Atoi(digits[:2])
		mm := 0
		if len(digits) == 4 {
			mm, _ = strconv.Atoi(digits[2:])
		}
		if h > 23 || mm > 59 {
			return 0, bad
		}
		off = (h*60 + mm) * 60
		if z[0] == '-' {
			off = -off
		}
	}
	return t.Add(-time.Duration(off) * time.Second).UnixMilli(), nil
}
