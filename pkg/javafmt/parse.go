package javafmt

import (
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// NumberFormatError is java.lang.NumberFormatException: Error is its
// message ("For input string: \"x\"", or "empty String" from Double.valueOf).
type NumberFormatError struct{ Msg string }

func (e *NumberFormatError) Error() string { return e.Msg }

// forInputString is NumberFormatException.forInputString(s, 10).
func forInputString(s string) error {
	return &NumberFormatError{Msg: `For input string: "` + s + `"`}
}

// ParseInt parses s like Integer.parseInt/Integer.valueOf (bits 32) or
// Long.parseLong/Long.valueOf (bits 64): an optional '+' or '-', then at
// least one decimal digit. Like Java's Character.digit, any Unicode decimal
// digit of the Basic Multilingual Plane counts ("٣" is 3); nothing is
// trimmed. The error is Java's NumberFormatException message.
func ParseInt(s string, bits int) (int64, error) {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case i == 0 && (r == '+' || r == '-'):
			b.WriteRune(r)
		default:
			d, ok := unicodeDigit(r)
			if !ok {
				return 0, forInputString(s)
			}
			b.WriteByte('0' + d)
		}
	}
	n, err := strconv.ParseInt(b.String(), 10, bits)
	if err != nil {
		return 0, forInputString(s)
	}
	return n, nil
}

// unicodeDigit is Character.digit(c, 10) for a non-ASCII char: the value of
// a decimal digit (category Nd) of the BMP. Java reads strings as UTF-16
// units, so a supplementary digit is two non-digit surrogates.
func unicodeDigit(r rune) (byte, bool) {
	if r > 0xFFFF || !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	// Every Nd range of the table starts at a digit zero and runs in tens.
	for _, rg := range unicode.Nd.R16 {
		if uint16(r) >= rg.Lo && uint16(r) <= rg.Hi {
			return byte((uint16(r) - rg.Lo) % 10), true
		}
	}
	return 0, false
}

var (
	javaDecimalDouble = regexp.MustCompile(`^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)$`)
	javaHexDouble     = regexp.MustCompile(`^[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+[fFdD]?$`)
)

// ParseDouble parses s like Double.valueOf/Double.parseDouble: leading and
// trailing characters <= ' ' are ignored, then an optional sign and "NaN",
// "Infinity", a decimal or a hexadecimal ("0x1p3") floating-point literal
// with an optional f/F/d/D suffix. Out-of-range values become infinities or
// zero. Errors carry Java's NumberFormatException message ("empty String"
// for a blank input).
func ParseDouble(s string) (float64, error) {
	t := strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if t == "" {
		return 0, &NumberFormatError{Msg: "empty String"}
	}
	if !javaDecimalDouble.MatchString(t) && !javaHexDouble.MatchString(t) {
		return 0, forInputString(s)
	}
	neg := strings.HasPrefix(t, "-")
	switch strings.TrimLeft(t, "+-") {
	case "NaN":
		return math.NaN(), nil
	case "Infinity":
		if neg {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	}
	t = strings.TrimRight(t, "fFdD") // the one type suffix the patterns allow
	v, err := strconv.ParseFloat(t, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, forInputString(s)
	}
	return v, nil
}
