// Package trogdorflags holds the flags of a run on Trogdor agents, shared by
// kbox perf distributed and kbox perf sweep --vary agents=...: the command
// layer (cmd/cmdutil) stays free of the perf packages.
package trogdorflags

import (
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/perf/distrib"
	"github.com/kboxdev/kbox/pkg/trogdor"
	"github.com/spf13/cobra"
)

// Flags are the flags of a run on Trogdor agents (kbox perf
// distributed, kbox perf sweep --vary agents=...): the coordinator, the
// agents and how their tasks run.
type Flags struct {
	Coordinator  string
	Agents       string
	Command      string
	StartDelay   time.Duration
	AgentTimeout time.Duration
	TaskTimeout  time.Duration
}

// Register adds the flags to cmd; --coordinator and --agents default to
// $TROGDOR_COORDINATOR and $TROGDOR_AGENTS.
func (t *Flags) Register(f *cmdutil.Factory, cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&t.Coordinator, "coordinator", f.Getenv("TROGDOR_COORDINATOR"), "Trogdor coordinator URL, http://host:port (default $TROGDOR_COORDINATOR)")
	fl.StringVar(&t.Agents, "agents", f.Getenv("TROGDOR_AGENTS"), "comma-separated Trogdor agent node names, one task each (default $TROGDOR_AGENTS)")
	fl.StringVar(&t.Command, "worker-command", "kbox perf worker", "the worker command line on the agents (split on spaces)")
	fl.DurationVar(&t.StartDelay, "start-delay", 5*time.Second, "the shared start is this long after the submission")
	fl.DurationVar(&t.AgentTimeout, "agent-timeout", 20*time.Second, "an agent whose status does not change for this long is reported lost")
	fl.DurationVar(&t.TaskTimeout, "task-timeout", time.Hour, "Trogdor stops a task this long after it started")
}

// Distributor checks the flags (a *FlagError naming the flag) and returns
// the driver; nothing is contacted yet.
func (t *Flags) Distributor(perAgent bool) (*distrib.Distributor, error) {
	if t.Coordinator == "" {
		return nil, cmdutil.FlagErrorf("--coordinator is required (or set TROGDOR_COORDINATOR)")
	}
	cl, err := trogdor.New(t.Coordinator)
	if err != nil {
		return nil, cmdutil.FlagErrorf("--coordinator: %v", err)
	}
	if strings.TrimSpace(t.Agents) == "" {
		return nil, cmdutil.FlagErrorf("--agents is required (or set TROGDOR_AGENTS)")
	}
	agents, err := distrib.ParseAgents(t.Agents)
	if err != nil {
		return nil, cmdutil.FlagErrorf("--agents: %v", err)
	}
	command := strings.Fields(t.Command)
	if len(command) == 0 {
		return nil, cmdutil.FlagErrorf("--worker-command must not be empty")
	}
	if t.StartDelay < 0 || t.AgentTimeout <= 0 || t.TaskTimeout <= 0 {
		return nil, cmdutil.FlagErrorf("--start-delay must not be negative; --agent-timeout and --task-timeout must be positive")
	}
	return &distrib.Distributor{Client: cl, Coordinator: t.Coordinator, Agents: agents, Command: command,
		StartDelay: t.StartDelay, AgentTimeout: t.AgentTimeout, TaskTimeout: t.TaskTimeout, PerAgent: perAgent}, nil
}
