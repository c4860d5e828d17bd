//go:build integration

// Package security_test runs kbox against a real Apache Kafka broker with
// every secured listener the test bed offers (SASL_SSL with PLAIN, SCRAM and
// OAUTHBEARER validated against a JWKS served by this test; SSL with mTLS),
// with PEM, JKS and PKCS12 key material, and checks that secrets never
// appear in any output.
package security_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/test/integration/testbed"
)

var (
	cluster *testbed.Cluster
	binDir  string
	theIDP  *idp
	work    string
	// theKDC is nil when no KDC could be started (GSSAPI tests skip).
	theKDC *kdc
	kdcErr error
)

// applets are the Apache script names kbox implements (cmd/app/applets.go).
var applets = []string{
	"kafka-topics", "kafka-log-dirs", "kafka-producer-perf-test", "kafka-consumer-perf-test",
	"kafka-verifiable-producer", "kafka-verifiable-consumer",
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	work, err = os.MkdirTemp("", "kbox-security-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(work)
	if binDir, err = buildLinks(work); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if theIDP, err = newIDP(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	serverProps, jvmOpts := theIDP.brokerProps(), theIDP.jvmOpts()
	if theKDC, kdcErr = startKDC(filepath.Join(work, "kdc")); kdcErr == nil {
		defer theKDC.stop()
		// The later sasl.enabled.mechanisms line wins.
		serverProps += "\n" + theKDC.brokerProps()
		jvmOpts += " " + theKDC.jvmOpts()
	} else {
		fmt.Fprintf(os.Stderr, "security: no KDC, GSSAPI tests will skip: %v\n", kdcErr)
	}
	os.Setenv("KBOX_TESTBED_SERVER_PROPS", serverProps)
	os.Setenv("KBOX_TESTBED_JVM_OPTS", jvmOpts)
	os.Setenv("KBOX_CONFIG", filepath.Join(work, "no-such-kbox-config.yaml"))
	cluster, err = testbed.Up(1, "sasl_ssl", filepath.Join(work, "tb"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		if cluster != nil {
			cluster.Down()
		}
		return 1
	}
	defer cluster.Down()
	return m.Run()
}

func buildLinks(dir string) (string, error) {
	bin := os.Getenv("KBOX_BIN")
	if bin == "" {
		bin = filepath.Join(dir, "kbox")
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..", "..")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/kbox")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	links := filepath.Join(dir, "bin")
	if err := os.MkdirAll(links, 0o755); err != nil {
		return "", err
	}
	for _, a := range append(applets, "kbox") {
		if err := os.Symlink(bin, filepath.Join(links, a)); err != nil {
			return "", err
		}
	}
	return links, nil
}

type result struct {
	stdout, stderr string
	exit           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
}

// kbox runs an applet (by link name) with args, a 60 s limit and extra env.
func kbox(t *testing.T, env []string, applet string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, applet), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader("")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{out.String(), errb.String(), 0}
	if ee, ok := err.(*exec.ExitError); ok {
		r.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", applet, args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%s %v timed out\n%s", applet, args, r)
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
		t.Fatalf("%s %v panicked\n%s", applet, args, r)
	}
	return r
}

// writeProps writes a client properties file in the test's temp dir.
func writeProps(t *testing.T, name, text string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

func sslBootstrap() string  { return cluster.SSLBootstrap }
func saslBootstrap() string { return cluster.Bootstrap }
