package kafka

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"hash"
)

// Encrypted PKCS#8 (RFC 5958 EncryptedPrivateKeyInfo) with PBES2 (RFC 8018):
// PBKDF2 with HMAC-SHA1/224/256/384/512 and AES-128/192/256-CBC or
// DES-EDE3-CBC — what `openssl pkcs8 -topk8` and Java's KIP-651 PEM key
// loading produce and accept.

var (
	oidPBES2  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2 = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}

	oidHMACSHA1   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACSHA224 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 8}
	oidHMACSHA256 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidHMACSHA384 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 10}
	oidHMACSHA512 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}

	oidAES128CBC = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
	oidDESEDE3   = asn1.ObjectIdentifier{1, 2, 840, 113549, 3, 7}
)

type encryptedPrivateKeyInfo struct {
	Algo pkix.AlgorithmIdentifier
	Data []byte
}

type pbes2Params struct {
	KDF pkix.AlgorithmIdentifier
	Enc pkix.AlgorithmIdentifier
}

type pbkdf2Params struct {
	Salt      []byte
	Iter      int
	KeyLength int                      `asn1:"optional"`
	PRF       pkix.AlgorithmIdentifier `asn1:"optional"`
}

// errWrongKeyPassword is returned when decryption yields no valid key.
var errWrongKeyPassword = errors.New("wrong password")

// decryptPKCS8 decrypts the DER of an "ENCRYPTED PRIVATE KEY" PEM block and
// returns the PKCS#8 DER of the key.
func decryptPKCS8(der []byte, password string) ([]byte, error) {
	var info encryptedPrivateKeyInfo
	if rest, err := asn1.Unmarshal(der, &info); err != nil || len(rest) > 0 {
		return nil, errors.New("malformed encrypted PKCS#8 key")
	}
	if !info.Algo.Algorithm.Equal(oidPBES2) {
		return nil, fmt.Errorf("unsupported key encryption %s (only PBES2 is supported; re-encrypt with openssl pkcs8 -topk8 -v2 aes-256-cbc)", info.Algo.Algorithm)
	}
	var p pbes2Params
	if _, err := asn1.Unmarshal(info.Algo.Parameters.FullBytes, &p); err != nil {
		return nil, errors.New("malformed PBES2 parameters")
	}
	if !p.KDF.Algorithm.Equal(oidPBKDF2) {
		return nil, fmt.Errorf("unsupported key derivation %s (only PBKDF2 is supported)", p.KDF.Algorithm)
	}
	var kp pbkdf2Params
	if _, err := asn1.Unmarshal(p.KDF.Parameters.FullBytes, &kp); err != nil {
		return nil, errors.New("malformed PBKDF2 parameters")
	}
	if kp.Iter <= 0 || kp.Iter > 10_000_000 {
		return nil, fmt.Errorf("unreasonable PBKDF2 iteration count %d", kp.Iter)
	}
	var prf func() hash.Hash
	switch a := kp.PRF.Algorithm; {
	case len(a) == 0 || a.Equal(oidHMACSHA1):
		prf = sha1.New
	case a.Equal(oidHMACSHA224):
		prf = sha256.New224
	case a.Equal(oidHMACSHA256):
		prf = sha256.New
	case a.Equal(oidHMACSHA384):
		prf = sha512.New384
	case a.Equal(oidHMACSHA512):
		prf = sha512.New
	default:
		return nil, fmt.Errorf("unsupported PBKDF2 PRF %s", a)
	}
	var (
		keyLen  int
		newCiph func([]byte) (cipher.Block, error)
	)
	switch a := p.Enc.Algorithm; {
	case a.Equal(oidAES128CBC):
		keyLen, newCiph = 16, aes.NewCipher
	case a.Equal(oidAES192CBC):
		keyLen, newCiph = 24, aes.NewCipher
	case a.Equal(oidAES256CBC):
		keyLen, newCiph = 32, aes.NewCipher
	case a.Equal(oidDESEDE3):
		keyLen, newCiph = 24, des.NewTripleDESCipher
	default:
		return nil, fmt.Errorf("unsupported key cipher %s (supported: AES-CBC, DES-EDE3-CBC)", a)
	}
	if kp.KeyLength != 0 && kp.KeyLength != keyLen {
		return nil, errors.New("malformed PBKDF2 parameters: key length does not match the cipher")
	}
	var iv []byte
	if _, err := asn1.Unmarshal(p.Enc.Parameters.FullBytes, &iv); err != nil {
		return nil, errors.New("malformed cipher parameters")
	}
	key, err := pbkdf2.Key(prf, password, kp.Salt, kp.Iter, keyLen)
	if err != nil {
		return nil, err
	}
	block, err := newCiph(key)
	if err != nil {
		return nil, err
	}
	bs := block.BlockSize()
	if len(iv) != bs || len(info.Data) == 0 || len(info.Data)%bs != 0 {
		return nil, errors.New("malformed encrypted key data")
	}
	out := make([]byte, len(info.Data))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, info.Data)
	// PKCS#7 padding; a wrong password almost always breaks it, and the
	// DER check below catches the rest.
	n := int(out[len(out)-1])
	if n == 0 || n > bs {
		return nil, errWrongKeyPassword
	}
	for _, c := range out[len(out)-n:] {
		if int(c) != n {
			return nil, errWrongKeyPassword
		}
	}
	out = out[:len(out)-n]
	if _, err := parseKeyDER(out); err != nil {
		return nil, errWrongKeyPassword
	}
	return out, nil
}
