package output

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// Progress is the one live status line of a command: drawn in place on
// stderr when stderr is a terminal, and nothing at all otherwise, so
// `2>log` never fills a log with carriage returns and escape codes. The
// decision is stderr's own; where stdout goes does not matter.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	on    bool
	drawn bool
}

// Progress returns the streams' status line (one per IOStreams).
func (s *IOStreams) Progress() *Progress {
	if s.progress == nil {
		s.progress = &Progress{w: s.ErrOut, on: s.errTTY}
	}
	return s.progress
}

// Enabled reports whether updates are drawn.
func (p *Progress) Enabled() bool { return p != nil && p.on }

// Update redraws the status line.
func (p *Progress) Update(format string, a ...any) {
	if !p.Enabled() {
		return
	}
	line := fmt.Sprintf(format, a...)
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\033[K%s", strings.TrimRight(line, "\n"))
	p.drawn = true
}

// Println prints a lasting line on stderr above the status line (the
// status line is redrawn by the next Update). Unlike Update it prints
// whether or not stderr is a terminal.
func (p *Progress) Println(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		io.WriteString(p.w, "\r\033[K")
		p.drawn = false
	}
	fmt.Fprintf(p.w, format+"\n", a...)
}

// Clear removes the status line, before the result is printed.
func (p *Progress) Clear() {
	if !p.Enabled() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		io.WriteString(p.w, "\r\033[K")
		p.drawn = false
	}
}
