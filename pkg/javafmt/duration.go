package javafmt

import (
	"errors"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// durationRe is java.time.Duration's pattern (case-insensitive).
var durationRe = regexp.MustCompile(`(?i)^([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?$`)

// DurationError is the message of Duration.parse's DateTimeParseException.
const DurationError = "Text cannot be parsed to a Duration"

// ParseDuration is java.time.Duration.parse (PnDTnHnMn.nS, signs and
// case as Java takes them); the error is DurationError.
func ParseDuration(s string) (time.Duration, error) {
	m := durationRe.FindStringSubmatch(s)
	if m == nil || m[2] == "" && m[4] == "" && m[5] == "" && m[6] == "" || m[3] != "" && m[4] == "" && m[5] == "" && m[6] == "" {
		return 0, errors.New(DurationError)
	}
	total := new(big.Int)
	add := func(v string, unit int64) error {
		if v == "" {
			return nil
		}
		n, ok := new(big.Int).SetString(strings.TrimPrefix(v, "+"), 10)
		if !ok {
			return errors.New(DurationError)
		}
		total.Add(total, n.Mul(n, big.NewInt(unit)))
		return nil
	}
	const sec = int64(time.Second)
	for _, x := range []struct {
		v    string
		unit int64
	}{{m[2], 86400 * sec}, {m[4], 3600 * sec}, {m[5], 60 * sec}, {m[6], sec}} {
		if err := add(x.v, x.unit); err != nil {
			return 0, err
		}
	}
	if m[7] != "" {
		frac := (m[7] + "000000000")[:9]
		f, _ := strconv.ParseInt(frac, 10, 64)
		if strings.HasPrefix(m[6], "-") {
			f = -f
		}
		total.Add(total, big.NewInt(f))
	}
	if m[1] == "-" {
		total.Neg(total)
	}
	if !total.IsInt64() {
		return 0, errors.New(DurationError)
	}
	return time.Duration(total.Int64()), nil
}
