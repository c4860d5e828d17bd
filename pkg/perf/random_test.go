package perf

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// Expected sequences printed by OpenJDK 17 (java.util.SplittableRandom),
// bounds cycling through 26,26,26,7,1000,16,3,MAX_INT,26,26.
var javaSeqs = map[int64]string{
	0:  "24,16,7,5,789,5,2,739740864,4,15,3,13,18,1,700,10,0,437506862,12,18,20,9,23,2,852,6,0,1866735023,18,15,11,6,7,6,904,8,0,273227031,9,5",
	42: "21,14,9,1,781,15,2,1373018519,16,4,11,1,21,3,128,3,0,1328279849,12,18,2,9,2,2,992,15,2,453050122,23,0,11,0,3,4,457,6,1,1754814496,3,25",
	-7: "9,16,17,3,493,2,0,2065664280,6,13,25,10,20,3,450,5,1,521520616,24,2,7,21,12,2,3,15,1,332000675,15,3,9,1,7,2,710,12,0,689163851,18,21",
}

func TestSplittableRandomMatchesJava(t *testing.T) {
	bounds := []int32{26, 26, 26, 7, 1000, 16, 3, math.MaxInt32, 26, 26}
	for seed, want := range javaSeqs {
		r := NewSplittableRandom(seed)
		var got []string
		for i := 0; i < 40; i++ {
			got = append(got, strconv.Itoa(int(r.Intn(bounds[i%len(bounds)]))))
		}
		if g := strings.Join(got, ","); g != want {
			t.Errorf("seed %d:\n got %s\nwant %s", seed, g, want)
		}
	}
}

func TestFillUpper(t *testing.T) {
	b := make([]byte, 3)
	NewSplittableRandom(0).FillUpper(b)
	// 24,16,7 -> 'Y','Q','H'
	if string(b) != "YQH" {
		t.Fatalf("got %q", b)
	}
}
