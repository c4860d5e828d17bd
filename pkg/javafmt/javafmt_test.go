package javafmt

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Cases from the compatibility reference (apache-tools.md §0.4).
func TestFixedReference(t *testing.T) {
	cases := []struct {
		x    float64
		prec int
		want string
	}{
		{0.15, 1, "0.2"},
		{0.125, 2, "0.13"},
		{2.675, 2, "2.68"},
		{math.NaN(), 4, "NaN"},
		{math.Inf(1), 4, "Infinity"},
		{math.Inf(-1), 1, "-Infinity"},
		{199.973337, 6, "199.973337"},
		{0.5, 0, "1"},
		{99.99, 1, "100.0"},
		{-0.05, 1, "-0.1"},
	}
	for _, c := range cases {
		if got := Fixed(c.x, c.prec); got != c.want {
			t.Errorf("Fixed(%v, %d) = %q, want %q", c.x, c.prec, got, c.want)
		}
	}
}

// testdata/java17.txt is the output of testdata/J.java.txt run on OpenJDK 17:
// Double.toString|%.1f|%.2f|%.4f|%f|%.0f for each value.
func TestAgainstJava17(t *testing.T) {
	f, err := os.Open("testdata/java17.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		parts := strings.Split(sc.Text(), "|")
		if len(parts) != 6 {
			t.Fatalf("bad line %q", sc.Text())
		}
		x, err := parseJava(parts[0])
		if err != nil {
			t.Fatalf("parse %q: %v", parts[0], err)
		}
		if got := DoubleToString(x); got != parts[0] {
			t.Errorf("DoubleToString(%v) = %q, want %q", x, got, parts[0])
		}
		for i, prec := range []int{1, 2, 4, 6, 0} {
			if got := Fixed(x, prec); got != parts[i+1] {
				t.Errorf("Fixed(%v, %d) = %q, want %q", x, prec, got, parts[i+1])
			}
		}
		n++
	}
	if n < 30 {
		t.Fatalf("only %d cases read", n)
	}
}

func parseJava(s string) (float64, error) {
	switch s {
	case "NaN":
		return math.NaN(), nil
	case "Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(strings.Replace(s, "E", "e", 1), 64)
}
