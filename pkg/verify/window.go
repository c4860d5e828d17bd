package verify

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/output"
)

// windows prints a verdict at every window boundary of a run: a text
// line, or one JSON object per line (-o json), or a YAML document
// followed by "---" (-o yaml), each written out as soon as it is known.
type windows struct {
	done chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	n    int
	err  error
}

// startWindows starts the window ticker at t0; verdict judges what the
// run saw so far, faults lists the faults so far.
func startWindows(w io.Writer, format output.Format, every time.Duration, t0 time.Time,
	verdict func() Verdict, faults func() []FaultInfo, beforePrint func()) *windows {
	ws := &windows{done: make(chan struct{})}
	if every <= 0 {
		return ws
	}
	ws.wg.Add(1)
	go func() {
		defer ws.wg.Done()
		var prev *WindowVerdict
		for n := 1; ; n++ {
			start, end := t0.Add(time.Duration(n-1)*every), t0.Add(time.Duration(n)*every)
			t := time.NewTimer(time.Until(end))
			select {
			case <-ws.done:
				t.Stop()
				// A window that ended as the run stopped (--duration a
				// multiple of --window) is still judged and printed.
				if time.Now().Before(end) {
					return
				}
			case <-t.C:
			}
			wv := NewWindowVerdict(n, start, end, t0, verdict(), prev, faults())
			prev = &wv
			if beforePrint != nil {
				beforePrint()
			}
			err := writeWindow(w, format, wv)
			ws.mu.Lock()
			ws.n = n
			if ws.err == nil {
				ws.err = err
			}
			ws.mu.Unlock()
		}
	}()
	return ws
}

// stop ends the ticker and returns how many windows were printed and the
// first write error.
func (ws *windows) stop() (int, error) {
	close(ws.done)
	ws.wg.Wait()
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.n, ws.err
}

func writeWindow(w io.Writer, format output.Format, wv WindowVerdict) error {
	switch format {
	case output.JSON:
		return output.WriteJSON(w, wv, false)
	case output.YAML:
		if err := output.WriteYAML(w, wv); err != nil {
			return err
		}
		_, err := io.WriteString(w, "---\n")
		return err
	}
	_, err := io.WriteString(w, windowLine(wv))
	return err
}

// windowLine is a window verdict as one line of text.
func windowLine(wv WindowVerdict) string {
	var b strings.Builder
	el := time.Duration(wv.ElapsedMs) * time.Millisecond
	fmt.Fprintf(&b, "window %d (%s-%s, %s): ", wv.Window, time.UnixMilli(wv.StartMs).UTC().Format("15:04:05"),
		time.UnixMilli(wv.EndMs).UTC().Format("15:04:05"), el.Round(time.Second))
	if wv.Valid {
		b.WriteString("VALID so far")
	} else {
		b.WriteString("INVALID so far (" + strings.Join(wv.BadErrorTypes, ", ") + ")")
	}
	fmt.Fprintf(&b, ": acked %d (+%d), consumed %d (+%d), lag %d, send errors %d", wv.Acked, wv.AckedInWindow,
		wv.Consumed, wv.ConsumedInWindow, wv.Lag, wv.SendErrors)
	var an []string
	for _, a := range wv.Anomalies {
		an = append(an, fmt.Sprintf("%s %s %d", a.Severity, a.Type, a.Count))
	}
	if len(an) == 0 {
		an = []string{"none"}
	}
	b.WriteString("; anomalies: " + strings.Join(an, ", "))
	if len(wv.Faults) > 0 {
		b.WriteString("; faults: " + strings.Join(wv.Faults, ", "))
	}
	b.WriteString("\n")
	return b.String()
}
