package javafmt

import (
	"encoding/hex"
	"testing"
)

// The answers of java.util.Base64.getDecoder().decode(String) on JDK 17
// (hex bytes, or "E:" and the IllegalArgumentException's message).
var javaBase64 = []struct{ in, want string }{
	{"", ""},
	{"a", "E:Input byte[] should at least have 2 bytes for base64 bytes"},
	{"YQ", "61"},
	{"YQ=", "E:Input byte array has wrong 4-byte ending unit"},
	{"YQ==", "61"},
	{"YWI", "6162"},
	{"YWI=", "6162"},
	{"YWI==", "E:Input byte array has incorrect ending byte at 4"},
	{"YWJj", "616263"},
	{"YWJj=", "E:Input byte array has wrong 4-byte ending unit"},
	{"=", "E:Input byte[] should at least have 2 bytes for base64 bytes"},
	{"YQ=a", "E:Input byte array has wrong 4-byte ending unit"},
	{"YQ==YQ", "E:Input byte array has incorrect ending byte at 4"},
	{"YWJjZA", "61626364"},
	{"YWJjZ", "E:Last unit does not have enough valid bits"},
	{"Y!", "E:Illegal base64 character 21"},
	{"Y\u00e9", "E:Illegal base64 character -17"},
	{"Y\u20ac==", "E:Illegal base64 character 3f"},
	{"YW Jj", "E:Illegal base64 character 20"},
	{"YWJj\n", "E:Illegal base64 character a"},
	{"YQ===", "E:Input byte array has incorrect ending byte at 4"},
	{"YWJjZGVm", "616263646566"},
	{"54HMXGaPZO9YmqeUxpAl6c6lXeA4zmU1i4f89LEO0QpY/hpDowCheGyGe9QfzOnXjj239fU6NeEcjcZz/t5KJQ==", "e781cc5c668f64ef589aa794c69025e9cea55de038ce65358b87fcf4b10ed10a58fe1a43a300a1786c867bd41fcce9d78e3db7f5f53a35e11c8dc673fede4a25"},
	{"-_", "E:Illegal base64 character 2d"},
	{"YWJ=j", "E:Input byte array has incorrect ending byte at 4"},
}

func TestDecodeBase64(t *testing.T) {
	for _, c := range javaBase64 {
		b, err := DecodeBase64(c.in)
		got := hex.EncodeToString(b)
		if err != nil {
			got = "E:" + err.Error()
		}
		if got != c.want {
			t.Errorf("DecodeBase64(%q) = %q, Java %q", c.in, got, c.want)
		}
	}
}
