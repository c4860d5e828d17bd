package cmdutil

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// The one cancellation path. app.Main calls WithInterrupts once: it
// watches SIGINT and SIGTERM for the whole process and its context is the
// one every command receives (cmd.Context(), Context(cmd), an applet's
// Run). A command says where it stops gracefully:
//
//   - CancelOnInterrupt(ctx): until release, the first signal cancels the
//     command's context (its cause an *Interrupted); later ones are
//     ignored until release;
//   - Interrupts(ctx): until release, every signal is delivered on a
//     channel and the context is left alone (a JVM shutdown hook's
//     emulation: the command decides what the signal does).
//
// Outside both, a signal ends the process as it would a Go program that
// handles none (killed by the signal: the shell's exit status 128+n).
// This is the only package that imports os/signal.

// interruptSignals are the JVM's shutdown-hook signals.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// Interrupted is the cause of a context cancelled by a signal.
type Interrupted struct{ Signal os.Signal }

func (e *Interrupted) Error() string { return "interrupted by " + e.Signal.String() }

type interruptsKey struct{}

// interrupts is the process's signal watch: who handles the signals now.
type interrupts struct {
	mu      sync.Mutex
	cancels int                         // active CancelOnInterrupt scopes
	subs    map[chan os.Signal]struct{} // active Interrupts scopes
	cancel  context.CancelCauseFunc
	// ignored are the signals the process was started with ignored
	// (nohup, a background job of a script): outside a handling scope
	// they stay ignored, as in a Go program that handles none.
	ignored map[os.Signal]bool
}

// WithInterrupts starts the process's one signal watch; ctx is the context
// of every command. stop ends the watch (signals get their default action
// again).
func WithInterrupts(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	in := &interrupts{cancel: cancel, subs: map[chan os.Signal]struct{}{}, ignored: map[os.Signal]bool{}}
	for _, s := range interruptSignals {
		in.ignored[s] = signal.Ignored(s)
	}
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, interruptSignals...)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-ch:
				in.deliver(s)
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return context.WithValue(ctx, interruptsKey{}, in), func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancel(context.Canceled)
		})
	}
}

func (in *interrupts) deliver(s os.Signal) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.cancels == 0 && len(in.subs) == 0 {
		if !in.ignored[s] {
			dieBySignal(s)
		}
		return
	}
	if in.cancels > 0 {
		in.cancel(&Interrupted{Signal: s})
	}
	for ch := range in.subs {
		select {
		case ch <- s:
		default:
		}
	}
}

// dieBySignal gives s its default action: the process ends killed by it
// (the signal is on its way when it returns).
func dieBySignal(s os.Signal) {
	signal.Reset(s)
	if sig, ok := s.(syscall.Signal); ok {
		_ = syscall.Kill(os.Getpid(), sig)
	}
}

func interruptsOf(ctx context.Context) *interrupts {
	in, _ := ctx.Value(interruptsKey{}).(*interrupts)
	return in
}

// CancelOnInterrupt makes the first SIGINT or SIGTERM, until release,
// cancel the command's context (the one WithInterrupts made, so ctx and
// every context derived from it) instead of ending the process. A context
// not from WithInterrupts (a test calling a command directly) is never
// cancelled by a signal.
func CancelOnInterrupt(ctx context.Context) (release func()) {
	in := interruptsOf(ctx)
	if in == nil {
		return func() {}
	}
	in.mu.Lock()
	in.cancels++
	in.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			in.mu.Lock()
			in.cancels--
			in.mu.Unlock()
		})
	}
}

// Interrupts delivers every SIGINT and SIGTERM, until release, on sigs
// instead of ending the process; the context is not cancelled. With a
// context not from WithInterrupts, sigs never delivers.
func Interrupts(ctx context.Context) (sigs <-chan os.Signal, release func()) {
	ch := make(chan os.Signal, 2)
	in := interruptsOf(ctx)
	if in == nil {
		return ch, func() {}
	}
	in.mu.Lock()
	in.subs[ch] = struct{}{}
	in.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			in.mu.Lock()
			delete(in.subs, ch)
			in.mu.Unlock()
		})
	}
}

// SignalExit is the JVM's exit status after the fatal signal s.
func SignalExit(s os.Signal) int {
	if sig, ok := s.(syscall.Signal); ok {
		return 128 + int(sig)
	}
	return 1
}
