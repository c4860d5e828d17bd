package argparse

import (
	"strings"
	"unicode"
	"unicode/utf16"
)

// This file emulates argparse4j's TextHelper.wrap and adjustSpace, which
// break text with java.text.BreakIterator.getLineInstance() (the JDK's
// rule-based line iterator, not UAX #14) and then justify every line but
// the last by inserting spaces.

type charClass uint8

const (
	clsChar charClass = iota
	clsBreak
	clsNbsp
	clsSpace
	clsDash
	clsPre
	clsPost
	clsPrePost // '"' is both a pre-word and a post-word character
	clsDigit
	clsKanji
	clsIgnore
	clsCR
)

func classify(r rune) charClass {
	switch r {
	case '\u0003', '\t', '\n', '\f', '\u2028', '\u2029':
		return clsBreak
	case '\u00a0', '\u2007', '\u2011', '\ufeff':
		return clsNbsp
	case '\r':
		return clsCR
	case '"':
		return clsPrePost
	case '!', '%', '.', ',', ':', ';', '?', '\u00a2', '\u00b0', '\u066a', '\u2103', '\u2105', '\u2109', '\u0e46':
		return clsPost
	}
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return clsIgnore
	case unicode.In(r, unicode.Zs, unicode.Cc):
		return clsSpace
	case r == '\u00ad' || unicode.Is(unicode.Pd, r):
		return clsDash
	case r >= '\u2030' && r <= '\u2034', unicode.In(r, unicode.Pe, unicode.Pf):
		return clsPost
	case unicode.In(r, unicode.Sc, unicode.Ps, unicode.Pi):
		return clsPre
	case unicode.In(r, unicode.Nd, unicode.No):
		return clsDigit
	case r >= '\u4e00' && r <= '\u9fa5', r >= '\uf900' && r <= '\ufa2d', r >= '\u3041' && r <= '\u3094', r >= '\u30a1' && r <= '\u30fa':
		return clsKanji
	}
	return clsChar
}

func isPre(c charClass) bool  { return c == clsPre || c == clsPrePost }
func isPost(c charClass) bool { return c == clsPost || c == clsPrePost }

// isMidNum reports the characters that may separate digit groups.
func isMidNum(r rune) bool { return r == '.' || r == ',' }

type posSet map[int]bool

// wordEnds returns every end position of $word starting at i:
// $pre_word* $word_core $word_suffix.
func wordEnds(rs []rune, cls []charClass, i int) posSet {
	n := len(rs)
	pre := posSet{i: true}
	for j := i; j < n && isPre(cls[j]); j++ {
		pre[j+1] = true
	}
	core := posSet{}
	for p := range pre {
		core[p] = true // empty $char*
		for j := p; j < n && (cls[j] == clsChar || cls[j] == clsDigit); j++ {
			core[j+1] = true
		}
		if p < n && cls[p] == clsKanji {
			core[p+1] = true
		}
		for e := range numberEnds(rs, cls, p) {
			core[e] = true
		}
	}
	out := posSet{}
	for c := range core {
		var suf []int
		suf = append(suf, c) // empty $post_word*
		for j := c; j < n && isPost(cls[j]); j++ {
			suf = append(suf, j+1)
		}
		for j := c; j < n && cls[j] == clsDash; j++ {
			suf = append(suf, j+1)
		}
		for _, s := range suf {
			out[s] = true
			for j := s; j < n && cls[j] == clsSpace; j++ {
				out[j+1] = true
			}
		}
	}
	return out
}

// numberEnds: ([$pre_word$dash]*$digit+($mid_num$digit+)*).
func numberEnds(rs []rune, cls []charClass, i int) posSet {
	n := len(rs)
	out := posSet{}
	var starts []int
	starts = append(starts, i)
	for j := i; j < n && (isPre(cls[j]) || cls[j] == clsDash); j++ {
		starts = append(starts, j+1)
	}
	for _, s := range starts {
		j := s
		for j < n && cls[j] == clsDigit {
			j++
			out[j] = true
		}
		if j == s {
			continue
		}
		for j+1 < n && isMidNum(rs[j]) && cls[j+1] == clsDigit {
			j++
			for j < n && cls[j] == clsDigit {
				j++
				out[j] = true
			}
		}
	}
	return out
}

// nextBreak returns the next line-break position after i.
func nextBreak(rs []rune, cls []charClass, i int) int {
	n := len(rs)
	best := i
	seen := posSet{}
	var frontier []int
	for e := range wordEnds(rs, cls, i) {
		frontier = append(frontier, e)
	}
	ends := posSet{}
	for len(frontier) > 0 {
		e := frontier[len(frontier)-1]
		frontier = frontier[:len(frontier)-1]
		if seen[e] {
			continue
		}
		seen[e] = true
		ends[e] = true
		// ($nbsp+ $word)*
		j := e
		for j < n && cls[j] == clsNbsp {
			j++
			for w := range wordEnds(rs, cls, j) {
				frontier = append(frontier, w)
			}
		}
	}
	for e := range ends {
		end := e
		j := e
		if j < n && cls[j] == clsCR {
			j++
			end = j
		}
		if j < n && cls[j] == clsBreak {
			end = j + 1
		}
		if end > best {
			best = end
		}
	}
	if best == i {
		best = i + 1
	}
	return best
}

// segments splits s at the JDK line-break opportunities.
func segments(s string) []string {
	rs := []rune(s)
	cls := make([]charClass, len(rs))
	for i, r := range rs {
		cls[i] = classify(r)
	}
	var out []string
	for i := 0; i < len(rs); {
		j := nextBreak(rs, cls, i)
		out = append(out, string(rs[i:j]))
		i = j
	}
	return out
}

// javaLen is String.length(): UTF-16 code units (argparse4j's ASCII
// text width counter).
func javaLen(s string) int { return len(utf16.Encode([]rune(s))) }

// Wrap is TextHelper.wrap: it breaks s into lines of at most width
// columns (initialOffset columns are already used on the first line) and
// justifies every full line by widening its runs of spaces.
func Wrap(s string, width, initialOffset int, initialIndent, subsequentIndent string) string {
	var res, sb strings.Builder
	res.WriteString(initialIndent)
	cur := initialOffset + javaLen(initialIndent)
	for _, sub := range segments(s) {
		w := javaLen(sub)
		cur += w
		if cur > width {
			res.WriteString(adjustSpace(sb.String(), width, cur-w))
			res.WriteString("\n")
			res.WriteString(subsequentIndent)
			sb.Reset()
			cur = javaLen(subsequentIndent) + w
		}
		sb.WriteString(sub)
		if strings.HasSuffix(sub, "\n") {
			res.WriteString(sb.String())
			res.WriteString(subsequentIndent)
			sb.Reset()
			cur = javaLen(subsequentIndent)
		}
	}
	res.WriteString(sb.String())
	return res.String()
}

// adjustSpace trims line and spreads width-curwidth extra spaces over its
// runs of spaces, the remainder going to the middle runs.
func adjustSpace(line string, width, curwidth int) string {
	origLen := javaLen(line)
	line = strings.TrimLeft(line, " ")
	line = strings.TrimRight(line, " ")
	curwidth -= origLen - javaLen(line)
	rs := []rune(line)
	blocks := 0
	cont := false
	for _, r := range rs {
		if r == ' ' {
			if !cont {
				cont = true
				blocks++
			}
		} else {
			cont = false
		}
	}
	if blocks == 0 {
		return line
	}
	need := width - curwidth
	each := need / blocks
	rem := need % blocks
	remStart := (blocks - rem + 1) / 2
	remEnd := remStart + rem
	var b strings.Builder
	cont = false
	blk := 0
	for _, r := range rs {
		if r == ' ' {
			if !cont {
				cont = true
				add := each
				if remStart <= blk && blk < remEnd {
					add++
				}
				for k := 0; k < add; k++ {
					b.WriteByte(' ')
				}
				blk++
			}
		} else {
			cont = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
