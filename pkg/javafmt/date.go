package javafmt

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DateFormat is a compiled java.text.SimpleDateFormat pattern (the common
// letters: G y Y M L d D E u a H k K h m s S z Z X and quoted text).
type DateFormat struct {
	parts []dfPart
}

type dfPart struct {
	letter byte // 0 for literal
	n      int
	lit    string
}

// CompileDateFormat parses a SimpleDateFormat pattern. Like Java, it rejects
// unquoted ASCII letters it does not know: `Illegal pattern character 'x'`.
func CompileDateFormat(pattern string) (*DateFormat, error) {
	df := &DateFormat{}
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch {
		case c == '\'':
			j := i + 1
			var b strings.Builder
			for {
				if j >= len(pattern) {
					return nil, javaError("Unterminated quote")
				}
				if pattern[j] == '\'' {
					if j+1 < len(pattern) && pattern[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(pattern[j])
				j++
			}
			if j == i+1 {
				b.WriteByte('\'') // '' is a quote
			}
			df.parts = append(df.parts, dfPart{lit: b.String()})
			i = j + 1
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			if !strings.ContainsRune("GyYMLdDEuaHkKhmsSzZXwWF", rune(c)) {
				return nil, javaError(fmt.Sprintf("Illegal pattern character '%c'", c))
			}
			j := i
			for j < len(pattern) && pattern[j] == c {
				j++
			}
			df.parts = append(df.parts, dfPart{letter: c, n: j - i})
			i = j
		default:
			df.parts = append(df.parts, dfPart{lit: string(c)})
			i++
		}
	}
	return df, nil
}

func pad(v int, n int) string {
	s := strconv.Itoa(v)
	if len(s) < n {
		s = strings.Repeat("0", n-len(s)) + s
	}
	return s
}

// FormatMillis formats a Unix millisecond timestamp in the local zone.
func (df *DateFormat) FormatMillis(ms int64) string {
	return df.Format(time.UnixMilli(ms))
}

// Format formats t (in t's location).
func (df *DateFormat) Format(t time.Time) string {
	var b strings.Builder
	for _, p := range df.parts {
		if p.letter == 0 {
			b.WriteString(p.lit)
			continue
		}
		n := p.n
		switch p.letter {
		case 'G':
			b.WriteString("AD")
		case 'y', 'Y', 'u':
			if p.letter == 'u' {
				wd := int(t.Weekday())
				if wd == 0 {
					wd = 7
				}
				b.WriteString(pad(wd, n))
				continue
			}
			y := t.Year()
			if n == 2 {
				b.WriteString(pad(y%100, 2))
			} else {
				b.WriteString(pad(y, n))
			}
		case 'M', 'L':
			switch {
			case n >= 4:
				b.WriteString(t.Month().String())
			case n == 3:
				b.WriteString(t.Month().String()[:3])
			default:
				b.WriteString(pad(int(t.Month()), n))
			}
		case 'd':
			b.WriteString(pad(t.Day(), n))
		case 'D':
			b.WriteString(pad(t.YearDay(), n))
		case 'E':
			if n >= 4 {
				b.WriteString(t.Weekday().String())
			} else {
				b.WriteString(t.Weekday().String()[:3])
			}
		case 'a':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'H':
			b.WriteString(pad(t.Hour(), n))
		case 'k':
			h := t.Hour()
			if h == 0 {
				h = 24
			}
			b.WriteString(pad(h, n))
		case 'K':
			b.WriteString(pad(t.Hour()%12, n))
		case 'h':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			b.WriteString(pad(h, n))
		case 'm':
			b.WriteString(pad(t.Minute(), n))
		case 's':
			b.WriteString(pad(t.Second(), n))
		case 'S':
			b.WriteString(pad(t.Nanosecond()/1e6, n))
		case 'z':
			name, _ := t.Zone()
			b.WriteString(name)
		case 'Z':
			b.WriteString(t.Format("-0700"))
		case 'X':
			_, off := t.Zone()
			if off == 0 {
				b.WriteString("Z")
				continue
			}
			switch n {
			case 1:
				b.WriteString(t.Format("-07"))
			case 2:
				b.WriteString(t.Format("-0700"))
			default:
				b.WriteString(t.Format("-07:00"))
			}
		case 'w':
			_, w := t.ISOWeek()
			b.WriteString(pad(w, n))
		case 'W':
			b.WriteString(pad((t.Day()-1)/7+1, n))
		case 'F':
			b.WriteString(pad((t.Day()-1)/7+1, n))
		}
	}
	return b.String()
}

// javaError carries a message that must read exactly as Java's.
type javaError string

func (e javaError) Error() string { return string(e) }
