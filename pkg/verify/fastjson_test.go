package verify

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"testing"
)

// TestDecodeFastEqualsJSON: wherever the fast decoder accepts a line,
// encoding/json accepts it too and decodes the same event; the tools'
// usual lines take the fast path. Lines are the encoders' output and
// random mutations of it.
func TestDecodeFastEqualsJSON(t *testing.T) {
	k := "k1"
	base := [][]byte{
		SendSuccess(1700000000123, nil, "0.17", "topic-a", 2, 12345),
		SendSuccess(1, &k, "", "t", 0, 0),
		RecordData(5, nil, sp("3.99"), "t", 1, 7),
		RecordData(5, &k, nil, "t", 1, 7),
		SendError(3, "t", nil, "9", "class org.apache.kafka.common.errors.TimeoutException", sp("Expiring 1 record(s)")),
		StartupComplete(9), ShutdownComplete(10),
		[]byte(`{"timestamp":-5,"name":"x","offset":-1,"partition":2147483647}` + "\n"),
	}
	fast := 0
	check := func(line []byte) {
		t.Helper()
		var a, b Event
		if !decodeFast(line, &a) {
			return
		}
		fast++
		if err := json.Unmarshal(line, &b); err != nil {
			t.Fatalf("fast path accepted %q, encoding/json: %v", line, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%q: fast %+v, encoding/json %+v", line, a, b)
		}
	}
	for _, l := range base {
		l = l[:len(l)-1]
		var e Event
		if !decodeFast(l, &e) {
			t.Errorf("usual line not on the fast path: %s", l)
		}
		check(l)
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte(`{}":,-0123456789 \nulaeé` + "\x00\x7f")
	for i := 0; i < 200_000; i++ {
		l := append([]byte(nil), base[rng.Intn(len(base))]...)
		l = l[:len(l)-1]
		for m := 0; m < 1+rng.Intn(3); m++ {
			p := rng.Intn(len(l))
			switch rng.Intn(3) {
			case 0:
				l[p] = alphabet[rng.Intn(len(alphabet))]
			case 1:
				l = append(l[:p], l[p+1:]...)
			default:
				l = append(l[:p], append([]byte{alphabet[rng.Intn(len(alphabet))]}, l[p:]...)...)
			}
			if len(l) == 0 {
				break
			}
		}
		check(l)
	}
}
