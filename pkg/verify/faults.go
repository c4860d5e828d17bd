package verify

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kboxdev/kbox/pkg/trogdor"
)

// FaultSpec is one entry of a fault schedule: what --during, --during-at and --during-script ask
// for. Offsets count from the start of producing.
type FaultSpec struct {
	name    string        // base name of the faults it injects
	command string        // run with /bin/sh -c
	script  string        // or: the script to run (its stdout marks windows)
	at      time.Duration // first start
	every   time.Duration // then every interval (0: once)
	trogdor *trogdorFault // or: a Trogdor fault (--during-trogdor)
}

// ParseSchedule reads --during (CMD or every=INTERVAL:CMD), every
// --during-at OFFSET:CMD, --during-script FILE and every --during-trogdor
// SPEC.
func ParseSchedule(during string, at []string, script string, trog []string) ([]FaultSpec, error) {
	var specs []FaultSpec
	if during != "" {
		if rest, ok := strings.CutPrefix(during, "every="); ok {
			iv, cmd, ok := strings.Cut(rest, ":")
			d, err := time.ParseDuration(iv)
			switch {
			case !ok || strings.TrimSpace(cmd) == "":
				return nil, fmt.Errorf("--during %q: want every=INTERVAL:COMMAND, e.g. every=2m:./kill-leader.sh", during)
			case err != nil || d <= 0:
				return nil, fmt.Errorf("--during %q: the interval %q is not a positive duration (e.g. 90s, 2m)", during, iv)
			}
			specs = append(specs, FaultSpec{name: "every", command: cmd, at: d, every: d})
		} else {
			specs = append(specs, FaultSpec{name: "during", command: during})
		}
	}
	for _, a := range at {
		off, cmd, ok := strings.Cut(a, ":")
		d, err := time.ParseDuration(off)
		switch {
		case !ok || strings.TrimSpace(cmd) == "":
			return nil, fmt.Errorf("--during-at %q: want OFFSET:COMMAND, e.g. 30s:./kill-leader.sh", a)
		case err != nil || d < 0:
			return nil, fmt.Errorf("--during-at %q: the offset %q is not a duration (e.g. 0s, 30s, 5m)", a, off)
		}
		specs = append(specs, FaultSpec{name: "at-" + off, command: cmd, at: d})
	}
	if script != "" {
		st, err := os.Stat(script)
		switch {
		case err != nil:
			return nil, fmt.Errorf("--during-script: %v", err)
		case st.IsDir() || st.Mode()&0o111 == 0:
			return nil, fmt.Errorf("--during-script %s: not an executable file", script)
		}
		abs, err := filepath.Abs(script)
		if err != nil {
			return nil, fmt.Errorf("--during-script: %v", err)
		}
		specs = append(specs, FaultSpec{name: filepath.Base(script), script: abs})
	}
	for _, t := range trog {
		tf, at, err := parseTrogdorFault(t)
		if err != nil {
			return nil, err
		}
		specs = append(specs, FaultSpec{name: "trogdor-" + tf.class, at: at, trogdor: &tf})
	}
	return specs, nil
}

// faultRunner runs a schedule and records each fault's window.
type faultRunner struct {
	stderr   io.Writer
	mu       sync.Mutex
	faults   []*FaultInfo
	seen     map[string]int
	wg       sync.WaitGroup
	stopNew  chan struct{}
	stopOnce sync.Once
	kill     chan struct{}
	killOnce sync.Once
	killWhy  string
	// onEnd, when set, sees each fault once it has ended.
	onEnd func(FaultInfo)
	// trog is the coordinator of the --during-trogdor faults.
	trog *trogdor.Client
	// undo closes when Trogdor faults are to be stopped at once (an
	// interrupted run), with undoWhy.
	undo     chan struct{}
	undoOnce sync.Once
	undoWhy  string
}

func newFaultRunner(stderr io.Writer) *faultRunner {
	return &faultRunner{stderr: stderr, seen: map[string]int{}, stopNew: make(chan struct{}), kill: make(chan struct{}), undo: make(chan struct{})}
}

// stopTrogdor starts no more faults and stops the running Trogdor faults
// now (the agents undo them); fault commands go on.
func (fr *faultRunner) stopTrogdor(why string) {
	fr.stopStarting()
	fr.undoOnce.Do(func() {
		fr.mu.Lock()
		fr.undoWhy = why
		fr.mu.Unlock()
		close(fr.undo)
	})
}

// start runs each spec at t0 + its offset (and then every interval)
// until stopStarting, and never at or after until (when set: the end of
// a --duration run); a spec at offset 0 runs at once.
func (fr *faultRunner) start(specs []FaultSpec, t0, until time.Time) {
	for _, s := range specs {
		fr.wg.Add(1)
		go func() {
			defer fr.wg.Done()
			next := t0.Add(s.at)
			for first := true; ; first = false {
				// A fault at offset 0 always runs (--during CMD as
				// before); later ones only while the run is producing.
				if !until.IsZero() && !next.Before(until) {
					return
				}
				if !first || s.at > 0 {
					t := time.NewTimer(time.Until(next))
					select {
					case <-fr.stopNew:
						t.Stop()
						return
					case <-t.C:
					}
					select {
					case <-fr.stopNew:
						return
					default:
					}
					if !until.IsZero() && !time.Now().Before(until) {
						return
					}
				}
				if s.trogdor != nil {
					fr.runTrogdor(s)
				} else if s.script != "" {
					fr.runScript(s)
				} else {
					fr.runCommand(s)
				}
				if s.every <= 0 {
					return
				}
				// A command that took longer than the interval: the
				// missed starts are skipped.
				for next = next.Add(s.every); !next.After(time.Now()); next = next.Add(s.every) {
				}
			}
		}()
	}
}

// stopStarting starts no more faults (running ones go on).
func (fr *faultRunner) stopStarting() { fr.stopOnce.Do(func() { close(fr.stopNew) }) }

// wait stops starting faults and waits for the running ones; when ctx
// ends first, they are killed (their process groups) with reason.
func (fr *faultRunner) wait(ctx context.Context, reason func() string) {
	fr.stopStarting()
	done := make(chan struct{})
	go func() { fr.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		fr.killOnce.Do(func() {
			fr.mu.Lock()
			fr.killWhy = reason()
			fr.mu.Unlock()
			close(fr.kill)
		})
		<-done
	}
}

// list returns the faults so far in start order (a running one has
// EndMs 0).
func (fr *faultRunner) list() []FaultInfo {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	out := make([]FaultInfo, 0, len(fr.faults))
	for _, f := range fr.faults {
		out = append(out, *f)
	}
	return out
}

// begin records a fault that starts now; names repeat as NAME#2, #3...
// (every=: every#1, every#2, ...).
func (fr *faultRunner) begin(name, command string, numbered bool) *FaultInfo {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	fr.seen[name]++
	if n := fr.seen[name]; numbered || n > 1 {
		name += "#" + strconv.Itoa(n)
	}
	fi := &FaultInfo{Name: name, Command: command, StartMs: time.Now().UnixMilli()}
	fr.faults = append(fr.faults, fi)
	return fi
}

func (fr *faultRunner) end(fi *FaultInfo, at time.Time) {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	if fi.EndMs == 0 {
		fi.EndMs = at.UnixMilli()
		fi.DurationMs = fi.EndMs - fi.StartMs
	}
}

// ended passes a finished fault to onEnd.
func (fr *faultRunner) ended(fi *FaultInfo) {
	if fr.onEnd == nil {
		return
	}
	fr.mu.Lock()
	c := *fi
	fr.mu.Unlock()
	fr.onEnd(c)
}

// exec starts c in its own process group and waits for it, killing the
// group when the runner's kill channel closes. It returns the exit
// status and an error text.
func (fr *faultRunner) exec(c *exec.Cmd, started func()) (int, string) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		return -1, err.Error()
	}
	if started != nil {
		started()
	}
	waited := make(chan error, 1)
	go func() { waited <- c.Wait() }()
	var err error
	why := ""
	select {
	case err = <-waited:
	case <-fr.kill:
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		err = <-waited
		fr.mu.Lock()
		why = fr.killWhy
		fr.mu.Unlock()
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, why
	case errors.As(err, &ee):
		code := ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
		return code, why
	default:
		return -1, err.Error()
	}
}

// runCommand runs one fault command; its window is the command's start
// and exit.
func (fr *faultRunner) runCommand(s FaultSpec) {
	fi := fr.begin(s.name, s.command, s.every > 0)
	c := exec.Command("/bin/sh", "-c", s.command)
	c.Stdout, c.Stderr = fr.stderr, fr.stderr
	code, msg := fr.exec(c, nil)
	fr.end(fi, time.Now())
	fr.mu.Lock()
	fi.ExitCode, fi.Error = code, msg
	fr.mu.Unlock()
	fr.ended(fi)
}

// runScript runs a --during-script once. Its stdout lines
// "fault-start NAME" and "fault-end NAME" open and close fault windows
// (every other line goes to stderr); a window still open when the
// script exits ends then. A script that marks nothing is one fault from
// its start to its exit.
func (fr *faultRunner) runScript(s FaultSpec) {
	started := time.Now()
	fail := func(err error) {
		fi := fr.begin(s.name, s.script, false)
		fr.end(fi, time.Now())
		fr.mu.Lock()
		fi.ExitCode, fi.Error = -1, err.Error()
		fr.mu.Unlock()
		fr.ended(fi)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		fail(err)
		return
	}
	defer pr.Close()
	c := exec.Command(s.script)
	c.Stdout, c.Stderr = pw, fr.stderr
	var marked []*FaultInfo
	open := map[string]*FaultInfo{}
	var problems []string
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			verb, name, _ := strings.Cut(strings.TrimSpace(line), " ")
			name = strings.TrimSpace(name)
			switch {
			case verb == "fault-start" && name != "":
				if open[name] != nil {
					problems = append(problems, "fault-start "+name+" while it was open")
					continue
				}
				fi := fr.begin(name, s.script, false)
				open[name] = fi
				marked = append(marked, fi)
			case verb == "fault-end" && name != "":
				fi := open[name]
				if fi == nil {
					problems = append(problems, "fault-end "+name+" without fault-start")
					continue
				}
				fr.end(fi, time.Now())
				fr.ended(fi)
				delete(open, name)
			default:
				fmt.Fprintln(fr.stderr, line)
			}
		}
	}()
	code, msg := fr.exec(c, nil)
	exited := time.Now()
	_ = pw.Close()
	// A child the script left running may hold its stdout open: read
	// what is buffered, then stop.
	select {
	case <-scanned:
	case <-time.After(time.Second):
		_ = pr.Close()
		<-scanned
	}
	if len(marked) == 0 {
		fi := fr.begin(s.name, s.script, false)
		fr.mu.Lock()
		fi.StartMs = started.UnixMilli()
		fr.mu.Unlock()
		marked = append(marked, fi)
	}
	for _, fi := range marked {
		fr.mu.Lock()
		wasOpen := fi.EndMs == 0
		fr.mu.Unlock()
		fr.end(fi, exited)
		fr.mu.Lock()
		fi.ExitCode, fi.Error = code, msg
		if len(problems) > 0 {
			fi.Error = strings.TrimPrefix(fi.Error+"; "+strings.Join(problems, "; "), "; ")
		}
		fr.mu.Unlock()
		if wasOpen {
			fr.ended(fi)
		}
	}
}
