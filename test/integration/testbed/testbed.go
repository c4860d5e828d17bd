// Package testbed lets integration tests start and control a real Apache
// Kafka (KRaft) cluster through test/integration/testbed.sh.
//
// The cluster runs as plain JVMs on loopback ports; its state lives in the
// directory given to Up (KBOX_TESTBED_DIR), so tests that use different
// directories get independent clusters. Keep in mind that each node is a JVM
// of up to 512 MB heap and that a 3-node cluster keeps two cores busy while
// it starts.
//
// Typical use:
//
//	c, err := testbed.Up(1, "plaintext", t.TempDir())
//	if err != nil { t.Fatal(err) }
//	t.Cleanup(func() { c.Down() })
//	// connect to c.Bootstrap
package testbed

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// Cluster describes a running test-bed cluster.
type Cluster struct {
	// Dir is the state directory (KBOX_TESTBED_DIR) of the cluster.
	Dir string
	// Bootstrap is KAFKA_BOOTSTRAP: the PLAINTEXT listeners for "plaintext",
	// the SASL_SSL listeners for "sasl_ssl".
	Bootstrap string
	// ClientProperties is KAFKA_CLIENT_PROPERTIES (sasl_ssl only): a Kafka
	// client config file for SASL_SSL with SCRAM-SHA-512 user admin.
	ClientProperties string
	// PlaintextBootstrap is always the PLAINTEXT listeners (admin setup).
	PlaintextBootstrap string
	// SSLBootstrap is the mTLS SSL listeners (sasl_ssl only).
	SSLBootstrap string
	// ControllerBootstrap is the nodes' CONTROLLER listeners (PLAINTEXT),
	// for --bootstrap-controller.
	ControllerBootstrap string
	// Brokers is the number of nodes (IDs 1..Brokers).
	Brokers int
	// Security is "plaintext" or "sasl_ssl".
	Security string
}

// Credentials and files of a sasl_ssl cluster (see testbed.sh).
const (
	AdminUser     = "admin"
	AdminPassword = "admin-secret"
	AliceUser     = "alice"
	AlicePassword = "alice-secret"
)

// CAFile is the PEM CA certificate that signed the broker certificate.
func (c *Cluster) CAFile() string { return filepath.Join(c.Dir, "tls", "ca.pem") }

// ClientCertFile and ClientKeyFile are the mTLS client certificate and its
// PKCS#8 key for the SSL listener.
func (c *Cluster) ClientCertFile() string { return filepath.Join(c.Dir, "tls", "client-cert.pem") }

// ClientKeyFile is the PKCS#8 PEM key of ClientCertFile.
func (c *Cluster) ClientKeyFile() string { return filepath.Join(c.Dir, "tls", "client-key.pem") }

// SSLClientProperties is a Kafka client config for the SSL (mTLS) listener.
func (c *Cluster) SSLClientProperties() string { return filepath.Join(c.Dir, "ssl-client.properties") }

// NodeLog is the server.log of node id.
func (c *Cluster) NodeLog(id int) string {
	return filepath.Join(c.Dir, "n"+strconv.Itoa(id), "server.log")
}

var (
	scriptOnce sync.Once
	scriptPath string
)

// Script returns the absolute path of test/integration/testbed.sh.
func Script() string {
	scriptOnce.Do(func() {
		if _, file, _, ok := runtime.Caller(0); ok {
			p := filepath.Join(filepath.Dir(file), "..", "testbed.sh")
			if _, err := os.Stat(p); err == nil {
				scriptPath, _ = filepath.Abs(p)
				return
			}
		}
		// Fall back to walking up from the working directory to go.mod.
		dir, err := os.Getwd()
		if err != nil {
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				scriptPath = filepath.Join(dir, "test", "integration", "testbed.sh")
				return
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return
			}
			dir = parent
		}
	})
	if scriptPath == "" {
		return filepath.Join("test", "integration", "testbed.sh")
	}
	return scriptPath
}

// Up starts a cluster of brokers nodes with security "plaintext" (or "")
// or "sasl_ssl" in dir (created if needed; "" means the script's default
// dir) and waits until every broker is registered. It fails if a cluster
// already runs in dir.
func Up(brokers int, security string, dir string) (*Cluster, error) {
	return UpWith(brokers, security, dir, UpOptions{})
}

// UpOptions are the optional settings of UpWith.
type UpOptions struct {
	// LogDirs is the number of log.dirs per node (0 or 1: one).
	LogDirs int
	// Authorizer turns ACLs on (testbed.sh up --authorizer):
	// StandardAuthorizer, super.users User:ANONYMOUS and User:admin.
	Authorizer bool
	// DynamicQuorum bootstraps the quorum dynamically (testbed.sh up
	// --dynamic-quorum: kraft.version 1, every node an initial voter), so
	// that controllers can be added (StartController) and removed.
	DynamicQuorum bool
}

// UpWith is Up with options (testbed.sh up --log-dirs).
func UpWith(brokers int, security string, dir string, o UpOptions) (*Cluster, error) {
	if security == "" {
		security = "plaintext"
	}
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		dir = abs
	}
	args := []string{"up", "--brokers", strconv.Itoa(brokers), "--security", security}
	if o.LogDirs > 1 {
		args = append(args, "--log-dirs", strconv.Itoa(o.LogDirs))
	}
	if o.Authorizer {
		args = append(args, "--authorizer")
	}
	if o.DynamicQuorum {
		args = append(args, "--dynamic-quorum")
	}
	stdout, stderr, err := run(dir, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("testbed.sh up: %w\n%s", err, tail(stderr, 8000))
	}
	env := parseExports(stdout)
	if dir == "" {
		dir = defaultDir()
	}
	c := &Cluster{
		Dir:              dir,
		Bootstrap:        env["KAFKA_BOOTSTRAP"],
		ClientProperties: env["KAFKA_CLIENT_PROPERTIES"],
		Brokers:          brokers,
		Security:         security,
	}
	if c.Bootstrap == "" {
		return c, fmt.Errorf("testbed.sh up printed no KAFKA_BOOTSTRAP; stdout: %q", stdout)
	}
	c.PlaintextBootstrap = readTrim(filepath.Join(dir, "plaintext-bootstrap"))
	if c.PlaintextBootstrap == "" && security == "plaintext" {
		c.PlaintextBootstrap = c.Bootstrap
	}
	c.SSLBootstrap = readTrim(filepath.Join(dir, "ssl-bootstrap"))
	c.ControllerBootstrap = readTrim(filepath.Join(dir, "controller-bootstrap"))
	return c, nil
}

// Down stops every node and removes the cluster's state. It is fine to call
// it more than once.
func (c *Cluster) Down() error {
	_, stderr, err := run(c.Dir, nil, "down")
	if err != nil {
		return fmt.Errorf("testbed.sh down: %w\n%s", err, tail(stderr, 4000))
	}
	return nil
}

// StopBroker stops node id: SIGTERM with a SIGKILL fallback, or SIGKILL
// right away when kill is true.
func (c *Cluster) StopBroker(id int, kill bool) error {
	args := []string{"stop-broker", strconv.Itoa(id)}
	if kill {
		args = append(args, "--kill")
	}
	_, stderr, err := run(c.Dir, nil, args...)
	if err != nil {
		return fmt.Errorf("testbed.sh stop-broker %d: %w\n%s", id, err, tail(stderr, 4000))
	}
	return nil
}

// StartBroker restarts node id with its old config and data and waits until
// it is registered again.
func (c *Cluster) StartBroker(id int) error {
	_, stderr, err := run(c.Dir, nil, "start-broker", strconv.Itoa(id))
	if err != nil {
		return fmt.Errorf("testbed.sh start-broker %d: %w\n%s", id, err, tail(stderr, 8000))
	}
	return nil
}

// StartController starts the controller-only node id (> Brokers) of a
// dynamic quorum (testbed.sh start-controller): formatted without initial
// controllers, so it joins as an observer, not a voter. It returns once the
// quorum's leader lists it, with the path of its server.properties (what
// kafka-metadata-quorum add-controller's --command-config wants). Called
// again after StopBroker(id), it restarts the node with its data.
func (c *Cluster) StartController(id int) (string, error) {
	_, stderr, err := run(c.Dir, nil, "start-controller", strconv.Itoa(id))
	if err != nil {
		return "", fmt.Errorf("testbed.sh start-controller %d: %w\n%s", id, err, tail(stderr, 8000))
	}
	return filepath.Join(c.Dir, "n"+strconv.Itoa(id), "server.properties"), nil
}

// Apache runs the Apache Kafka reference tool (e.g. "kafka-topics") of the
// same version with args and stdin (nil for none). exit is the tool's exit
// status; err is non-nil only when the tool could not be run at all.
func (c *Cluster) Apache(stdin io.Reader, tool string, args ...string) (stdout, stderr string, exit int, err error) {
	dir := ""
	if c != nil {
		dir = c.Dir
	}
	return Apache(dir, stdin, tool, args...)
}

// Apache runs an Apache Kafka tool without a cluster (see Cluster.Apache).
// dir may be "".
func Apache(dir string, stdin io.Reader, tool string, args ...string) (stdout, stderr string, exit int, err error) {
	full := append([]string{"apache", tool}, args...)
	stdout, stderr, err = run(dir, stdin, full...)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		return stdout, stderr, ee.ExitCode(), nil
	}
	if err != nil {
		return stdout, stderr, -1, err
	}
	return stdout, stderr, 0, nil
}

func run(dir string, stdin io.Reader, args ...string) (string, string, error) {
	cmd := exec.Command(Script(), args...)
	cmd.Env = os.Environ()
	if dir != "" {
		cmd.Env = append(cmd.Env, "KBOX_TESTBED_DIR="+dir)
	}
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// parseExports reads `export KEY=VALUE` lines; VALUE may be shell-quoted.
func parseExports(s string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(line, "export ")
		if !ok {
			continue
		}
		k, v, ok := strings.Cut(rest, "=")
		if !ok {
			continue
		}
		m[k] = shellUnquote(v)
	}
	return m
}

// shellUnquote undoes the quoting of bash's printf %q for the simple cases
// it produces for paths: backslash escapes and '...' quoting.
func shellUnquote(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch ch := v[i]; ch {
		case '\\':
			if i+1 < len(v) {
				i++
				b.WriteByte(v[i])
			}
		case '\'':
			j := strings.IndexByte(v[i+1:], '\'')
			if j < 0 {
				b.WriteString(v[i+1:])
				return b.String()
			}
			b.WriteString(v[i+1 : i+1+j])
			i += j + 1
		case '"':
			// not produced by the script; keep content verbatim
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

func defaultDir() string {
	tmp := os.Getenv("TMPDIR")
	if tmp == "" {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, "kbox-testbed-"+strconv.Itoa(os.Getuid()))
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
