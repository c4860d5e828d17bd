package cmdutil

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestCancelOnInterrupt(t *testing.T) {
	ctx, stop := WithInterrupts(context.Background())
	defer stop()
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	release := CancelOnInterrupt(child)
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-child.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGINT did not cancel the command's context")
	}
	var in *Interrupted
	if !errors.As(context.Cause(child), &in) || in.Signal != os.Interrupt {
		t.Fatalf("cause %v, want *Interrupted by SIGINT", context.Cause(child))
	}
	release()
}

func TestInterruptsDeliversWithoutCancelling(t *testing.T) {
	ctx, stop := WithInterrupts(context.Background())
	defer stop()
	sigs, release := Interrupts(ctx)
	defer release()
	for _, s := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		if err := syscall.Kill(os.Getpid(), s); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-sigs:
			if got != s {
				t.Fatalf("got %v, want %v", got, s)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v not delivered", s)
		}
	}
	if ctx.Err() != nil {
		t.Fatal("Interrupts cancelled the context")
	}
	if SignalExit(syscall.SIGINT) != 130 || SignalExit(syscall.SIGTERM) != 143 {
		t.Fatal("SignalExit: want 128+n")
	}
}

// Outside any handling scope a signal ends the process by the signal, as
// it did before the watch (the shell sees 130 for SIGINT).
func TestUnhandledInterruptKillsTheProcess(t *testing.T) {
	if os.Getenv("KBOX_INTERRUPT_CHILD") == "1" {
		ctx, stop := WithInterrupts(context.Background())
		defer stop()
		release := CancelOnInterrupt(ctx)
		release() // a scope that ended
		_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
		time.Sleep(30 * time.Second)
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUnhandledInterruptKillsTheProcess$")
	cmd.Env = append(os.Environ(), "KBOX_INTERRUPT_CHILD=1")
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("child: %v, want killed by SIGINT", err)
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Fatalf("child ended %v, want killed by SIGINT", ee)
	}
}
