package sweep

import (
	"fmt"
	"os"
	"strings"
)

// Describe is the one-line statement of what a sweep of cells with totals
// t will run: the cells, the repeats, the measured time or records, the
// warm-up, and the records that fill a consume sweep's topics.
func (p *Plan) Describe(t Totals) string {
	var names []string
	for _, d := range p.Dimensions {
		names = append(names, fmt.Sprintf("%s (%d)", d.Name, len(d.Values)))
	}
	what := fmt.Sprintf("%d cells (%s of %s)", t.Cells, p.Strategy, strings.Join(names, " x "))
	if p.Preset != "" {
		what = fmt.Sprintf("preset %s: %s", p.Preset, what)
	}
	warm := "no warm-up"
	switch {
	case p.WarmupRecords > 0 && p.WarmupDurationSec > 0:
		warm = fmt.Sprintf("%s warm-up records and %s", Thousands(p.WarmupRecords), p.WarmupDuration())
	case p.WarmupRecords > 0:
		warm = fmt.Sprintf("%s warm-up records", Thousands(p.WarmupRecords))
	case p.WarmupDurationSec > 0:
		warm = fmt.Sprintf("%s warm-up", p.WarmupDuration())
	}
	if p.Records == 0 {
		return fmt.Sprintf("sweep %s: %s x %d repeat(s) x %s measured (+ %s) = %s of measured runs",
			p.Mode, what, p.Repeat, p.Duration(), warm, t.RunTime)
	}
	s := fmt.Sprintf("sweep %s: %s x %d repeat(s) x %s records (%s + %s warm-up) = %s records",
		p.Mode, what, p.Repeat, Thousands(t.RunRecords), Thousands(p.Records), Thousands(p.WarmupRecords), Thousands(t.Records))
	if p.WarmupDurationSec > 0 {
		s += fmt.Sprintf(" (+ %s warm-up per run)", p.WarmupDuration())
	}
	if t.FillTopics > 0 {
		s += fmt.Sprintf(", plus %s to fill %d topic(s)", Thousands(t.FillRecords), t.FillTopics)
	}
	return s
}

// Thousands writes n with a comma between groups of three digits.
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// ReadFiles reads sweep results files (kbox perf sweep merge); an error
// names the file.
func ReadFiles(paths []string) ([]*Result, error) {
	var rs []*Result
	for _, a := range paths {
		fh, err := os.Open(a)
		if err != nil {
			return nil, err
		}
		r, err := Read(fh)
		fh.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a, err)
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// Failed counts the cells that measured nothing.
func (r *Result) Failed() int {
	failed := 0
	for _, c := range r.Cells {
		if !c.OK() {
			failed++
		}
	}
	return failed
}
