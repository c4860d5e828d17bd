package trogdor

import (
	"errors"
	"fmt"
	"strings"
)

// Fault spec classes of Trogdor (trogdor/fault).
const (
	ProcessStopClass      = "org.apache.kafka.trogdor.fault.ProcessStopFaultSpec"
	NetworkPartitionClass = "org.apache.kafka.trogdor.fault.NetworkPartitionFaultSpec"
)

// ProcessStopSpec stops processes on agents NodeNames for DurationMs: the
// agent lists its machine's JVMs with jcmd, sends SIGSTOP to every one
// whose jcmd line (PID, main class and arguments) contains
// JavaProcessName, and SIGCONT when the task ends. Every matching JVM on
// the agent's machine is stopped, so the name must single out the
// processes meant (a broker's config path, for example).
type ProcessStopSpec struct {
	Class           string   `json:"class"`
	StartMs         int64    `json:"startMs"`
	DurationMs      int64    `json:"durationMs"`
	NodeNames       []string `json:"nodeNames"`
	JavaProcessName string   `json:"javaProcessName"`
}

// NetworkPartitionSpec cuts the network between groups of nodes for
// DurationMs: the agent of every node listed runs `sudo iptables -A INPUT
// -p tcp -s ADDR -j DROP` for the addresses of the nodes of the other
// groups (their hostnames in the platform config), and -D at the end.
type NetworkPartitionSpec struct {
	Class      string     `json:"class"`
	StartMs    int64      `json:"startMs"`
	DurationMs int64      `json:"durationMs"`
	Partitions [][]string `json:"partitions"`
}

// NewProcessStop returns a checked ProcessStop spec.
func NewProcessStop(startMs, durationMs int64, nodes []string, javaProcessName string) (*ProcessStopSpec, error) {
	if durationMs <= 0 {
		return nil, errors.New("ProcessStop: the duration must be positive")
	}
	if err := checkNodes(nodes); err != nil {
		return nil, fmt.Errorf("ProcessStop: %v", err)
	}
	if strings.TrimSpace(javaProcessName) == "" {
		return nil, errors.New("ProcessStop: the process name is empty (it would match every JVM on the agents' machines)")
	}
	return &ProcessStopSpec{Class: ProcessStopClass, StartMs: startMs, DurationMs: durationMs,
		NodeNames: append([]string(nil), nodes...), JavaProcessName: javaProcessName}, nil
}

// NewNetworkPartition returns a checked NetworkPartition spec: at least
// two groups, none empty, no node in two groups (Trogdor rejects that
// only when the task starts).
func NewNetworkPartition(startMs, durationMs int64, groups [][]string) (*NetworkPartitionSpec, error) {
	if durationMs <= 0 {
		return nil, errors.New("NetworkPartition: the duration must be positive")
	}
	if len(groups) < 2 {
		return nil, errors.New("NetworkPartition: give at least two groups of nodes to cut apart")
	}
	seen := map[string]bool{}
	out := make([][]string, 0, len(groups))
	for _, g := range groups {
		if err := checkNodes(g); err != nil {
			return nil, fmt.Errorf("NetworkPartition: %v", err)
		}
		for _, n := range g {
			if seen[n] {
				return nil, fmt.Errorf("NetworkPartition: node %s appears in more than one group", n)
			}
			seen[n] = true
		}
		out = append(out, append([]string(nil), g...))
	}
	return &NetworkPartitionSpec{Class: NetworkPartitionClass, StartMs: startMs, DurationMs: durationMs, Partitions: out}, nil
}

func checkNodes(nodes []string) error {
	if len(nodes) == 0 {
		return errors.New("no nodes given")
	}
	seen := map[string]bool{}
	for _, n := range nodes {
		switch {
		case n == "" || strings.TrimSpace(n) != n:
			return fmt.Errorf("bad node name %q", n)
		case seen[n]:
			return fmt.Errorf("node %s given twice", n)
		}
		seen[n] = true
	}
	return nil
}
