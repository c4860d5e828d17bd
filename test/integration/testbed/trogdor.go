package testbed

import (
	"fmt"
	"strconv"
	"strings"
)

// Trogdor is a Trogdor coordinator and its agents on loopback, started by
// `testbed.sh trogdor up` in a test-bed state dir (see testbed.sh).
type Trogdor struct {
	Dir         string
	Coordinator string   // http://127.0.0.1:port
	Agents      []string // agent node names
}

// TrogdorUp starts a coordinator and n agents in state dir dir (which may
// also hold a Kafka cluster: `testbed.sh down` stops both).
func TrogdorUp(dir string, n int) (*Trogdor, error) {
	stdout, stderr, err := run(dir, nil, "trogdor", "up", "--agents", strconv.Itoa(n))
	t := &Trogdor{Dir: dir}
	if err != nil {
		return t, fmt.Errorf("testbed.sh trogdor up: %w\n%s", err, tail(stderr, 8000))
	}
	env := parseExports(stdout)
	t.Coordinator = env["TROGDOR_COORDINATOR"]
	if t.Coordinator == "" || env["TROGDOR_AGENTS"] == "" {
		return t, fmt.Errorf("testbed.sh trogdor up printed no TROGDOR_COORDINATOR/TROGDOR_AGENTS; stdout: %q", stdout)
	}
	t.Agents = strings.Split(env["TROGDOR_AGENTS"], ",")
	return t, nil
}

// Down stops the coordinator and the agents. It is fine to call it more
// than once.
func (t *Trogdor) Down() error {
	if _, stderr, err := run(t.Dir, nil, "trogdor", "down"); err != nil {
		return fmt.Errorf("testbed.sh trogdor down: %w\n%s", err, tail(stderr, 4000))
	}
	return nil
}

// KillAgent SIGKILLs one agent.
func (t *Trogdor) KillAgent(name string) error {
	if _, stderr, err := run(t.Dir, nil, "trogdor", "kill-agent", name); err != nil {
		return fmt.Errorf("testbed.sh trogdor kill-agent %s: %w\n%s", name, err, tail(stderr, 4000))
	}
	return nil
}
