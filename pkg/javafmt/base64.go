package javafmt

import (
	"errors"
	"strconv"
)

// fromBase64 maps a byte to its value in the basic Base64 alphabet
// (RFC 4648 table 1), -2 for '=' and -1 for anything else.
var fromBase64 = func() [256]int {
	var t [256]int
	for i := range t {
		t[i] = -1
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = i
	}
	t['='] = -2
	return t
}()

// DecodeBase64 is java.util.Base64.getDecoder().decode(String): the basic
// alphabet, padding optional at the end, and Java's IllegalArgumentException
// messages ("Illegal base64 character 21", "Input byte[] should at least
// have 2 bytes for base64 bytes", ...). A character outside Latin-1 is
// read as '?', as String.getBytes(ISO_8859_1) makes it.
func DecodeBase64(s string) ([]byte, error) {
	src := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff {
			r = '?'
		}
		src = append(src, byte(r))
	}
	switch {
	case len(src) == 0:
		return []byte{}, nil
	case len(src) < 2:
		return nil, errors.New("Input byte[] should at least have 2 bytes for base64 bytes")
	}
	var dst []byte
	bits, shift, sp := 0, 18, 0
	for sp < len(src) {
		c := src[sp]
		sp++
		v := fromBase64[c]
		if v == -2 {
			// "=" alone, "x=", "xx=" without its second "=" or followed
			// by something else
			if shift == 6 && (sp == len(src) || src[sp] != '=') || shift == 18 {
				return nil, errors.New("Input byte array has wrong 4-byte ending unit")
			}
			if shift == 6 {
				sp++
			}
			break
		}
		if v < 0 {
			// Integer.toString of a signed byte, in hex
			return nil, errors.New("Illegal base64 character " + strconv.FormatInt(int64(int8(c)), 16))
		}
		bits |= v << shift
		shift -= 6
		if shift < 0 {
			dst = append(dst, byte(bits>>16), byte(bits>>8), byte(bits))
			shift, bits = 18, 0
		}
	}
	switch shift {
	case 6:
		dst = append(dst, byte(bits>>16))
	case 0:
		dst = append(dst, byte(bits>>16), byte(bits>>8))
	case 12:
		return nil, errors.New("Last unit does not have enough valid bits")
	}
	if sp < len(src) {
		return nil, errors.New("Input byte array has incorrect ending byte at " + strconv.Itoa(sp))
	}
	if dst == nil {
		dst = []byte{}
	}
	return dst, nil
}
