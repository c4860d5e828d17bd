package javafmt

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// testdata/java17_parse.txt is the output of testdata/P.java.txt run on
// OpenJDK 17: Integer.parseInt, Long.parseLong and Double.valueOf (printed
// with Double.toString) of each input, or "NFE <message>".
func TestParseAgainstJava17(t *testing.T) {
	f, err := os.Open("testdata/java17_parse.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "|")
		in := strings.NewReplacer(`\t`, "\t", `\n`, "\n").Replace(fields[1])
		switch fields[0] {
		case "I":
			for i, bits := range []int{32, 64} {
				got := "NFE "
				if v, err := ParseInt(in, bits); err != nil {
					got += err.Error()
				} else {
					got = strconv.FormatInt(v, 10)
				}
				if got != fields[2+i] {
					t.Errorf("ParseInt(%q, %d) = %s, want %s", in, bits, got, fields[2+i])
				}
			}
		case "D":
			got := "NFE "
			if v, err := ParseDouble(in); err != nil {
				got += err.Error()
			} else {
				got = DoubleToString(v)
			}
			if got != fields[2] {
				t.Errorf("ParseDouble(%q) = %s, want %s", in, got, fields[2])
			}
		}
		n++
	}
	if n < 50 {
		t.Fatalf("only %d cases", n)
	}
}
