// Package javafmt is the one home of the Java platform behaviours that leak
// into the output of Apache Kafka's Java command-line tools, so kbox's
// emulation of them is byte-identical: number formatting (String.format,
// Double.toString), number parsing (Integer.parseInt, Double.valueOf and
// their NumberFormatException messages), SimpleDateFormat, and the
// iteration order of java.util.HashMap/HashSet.
//
// Java's String.format("%.Nf") rounds HALF_UP on the shortest decimal
// representation of the double (0.125 -> "0.13", 2.675 -> "2.68"), where Go
// rounds the exact binary value (half-even on ties it can see). Java prints
// NaN and infinities as "NaN", "Infinity" and "-Infinity".
package javafmt

import (
	"math"
	"strconv"
	"strings"
)

// Fixed formats x like Java's String.format("%.<prec>f", x).
func Fixed(x float64, prec int) string {
	if s, ok := special(x); ok {
		return s
	}
	if prec < 0 {
		prec = 6
	}
	neg := math.Signbit(x)
	s := strconv.FormatFloat(math.Abs(x), 'f', -1, 64) // shortest repr, no exponent
	intPart, frac, _ := strings.Cut(s, ".")
	if len(frac) <= prec {
		frac += strings.Repeat("0", prec-len(frac))
		return sign(neg) + join(intPart, frac)
	}
	roundUp := frac[prec] >= '5'
	digits := []byte(intPart + frac[:prec])
	if roundUp {
		i := len(digits) - 1
		for ; i >= 0; i-- {
			if digits[i] == '9' {
				digits[i] = '0'
				continue
			}
			digits[i]++
			break
		}
		if i < 0 {
			digits = append([]byte{'1'}, digits...)
		}
	}
	n := len(digits) - prec
	return sign(neg) + join(string(digits[:n]), string(digits[n:]))
}

func join(i, f string) string {
	if f == "" {
		return i
	}
	return i + "." + f
}

func sign(neg bool) string {
	if neg {
		return "-"
	}
	return ""
}

func special(x float64) (string, bool) {
	switch {
	case math.IsNaN(x):
		return "NaN", true
	case math.IsInf(x, 1):
		return "Infinity", true
	case math.IsInf(x, -1):
		return "-Infinity", true
	}
	return "", false
}

// DoubleToString formats x like Java's Double.toString: plain decimal with
// at least one fractional digit for 1e-3 <= |x| < 1e7 ("100.0", "0.001"),
// otherwise computerized scientific notation ("1.0E7", "1.234E-5").
func DoubleToString(x float64) string {
	if s, ok := special(x); ok {
		return s
	}
	if x == 0 {
		if math.Signbit(x) {
			return "-0.0"
		}
		return "0.0"
	}
	neg := x < 0
	a := math.Abs(x)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(a, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return sign(neg) + s
	}
	s := strconv.FormatFloat(a, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return sign(neg) + mant + "E" + strconv.Itoa(e)
}
