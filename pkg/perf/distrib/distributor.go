package distrib

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/trogdor"
)

// Distributor is the driver of a distributed run: it runs a workload on the
// first n of its agents through the Trogdor coordinator. kbox perf
// distributed (and its --agent-counts) and a sweep over agents (kbox perf
// sweep --vary agents=...) run through it.
type Distributor struct {
	Client       *trogdor.Client
	Coordinator  string
	Agents       []string // in order: a run with n agents uses the first n
	Command      []string // the worker command on the agents
	StartDelay   time.Duration
	AgentTimeout time.Duration
	TaskTimeout  time.Duration // Trogdor stops a task this long after its start
	// PerAgent: Records, Rate and KeyCardinality are per agent instead of
	// totals split over the agents.
	PerAgent bool
}

// ParseAgents reads a comma-separated list of agent node names: blanks
// are skipped, a name given twice is an error, and the list must not be
// empty.
func ParseAgents(s string) ([]string, error) {
	var agents []string
	seen := map[string]bool{}
	for _, a := range strings.Split(s, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if seen[a] {
			return nil, fmt.Errorf("%s given twice", a)
		}
		seen[a] = true
		agents = append(agents, a)
	}
	if len(agents) == 0 {
		return nil, errors.New("no agent names")
	}
	return agents, nil
}

// Run runs w on the first n agents (w is the whole run's workload: the
// shares are split here) and returns the merged result (see RunDistributed).
func (d *Distributor) Run(ctx context.Context, n int, w AgentWorkload, progress func(DistProgress)) (*DistributedResult, error) {
	if n < 1 || n > len(d.Agents) {
		return nil, fmt.Errorf("%d agents: want 1 to %d (the number of agents given)", n, len(d.Agents))
	}
	if err := w.Validate(n, d.PerAgent); err != nil {
		return nil, err
	}
	cfg := DistributedConfig{
		RunID:        fmt.Sprintf("kbox-perf-%s-%d", w.Kind, runStamp()),
		Command:      d.Command,
		Workloads:    SplitWorkload(w, d.Agents[:n], d.PerAgent),
		StartDelay:   d.StartDelay,
		TaskDuration: d.StartDelay + d.TaskTimeout,
		AgentTimeout: d.AgentTimeout,
	}
	return RunDistributed(ctx, d.Client, d.Coordinator, cfg, progress)
}

var lastStamp atomic.Int64

// runStamp is the current Unix time in ms, made unique within the process
// (two runs in the same millisecond get distinct task ids).
func runStamp() int64 {
	for {
		last, now := lastStamp.Load(), time.Now().UnixMilli()
		if now <= last {
			now = last + 1
		}
		if lastStamp.CompareAndSwap(last, now) {
			return now
		}
	}
}

// Validate checks a distributed run's workload (the whole run's, before
// the split over agents) before anything is submitted: the one validation
// of kbox perf distributed produce|consume|e2e and of a sweep over agents.
// Messages name those commands' flags.
func (w *AgentWorkload) Validate(agents int, perAgent bool) error {
	switch {
	case w.Topic == "":
		return errors.New("--topic is required")
	case w.Records < 0 || w.DurationMs < 0 || (w.Records == 0 && w.DurationMs == 0):
		return errors.New("give a positive --records N or --duration D")
	case w.WarmupRecords < 0 || w.WarmupMs < 0:
		return errors.New("--warmup-records and --warmup-duration must not be negative")
	case !perAgent && w.Records > 0 && w.Records < int64(agents):
		return fmt.Errorf("--records %d is fewer than one record per agent (%d agents)", w.Records, agents)
	}
	switch w.Kind {
	case "produce":
		switch {
		case w.RecordSize <= 0 || w.Clients <= 0:
			return errors.New("--record-size and --producers must be positive")
		case w.KeyCardinality < 0:
			return errors.New("--key-cardinality must not be negative")
		case !perAgent && w.KeyCardinality > 0 && w.KeyCardinality < agents:
			return fmt.Errorf("--key-cardinality %d is fewer than one key per agent (%d agents)", w.KeyCardinality, agents)
		}
	case "consume":
		switch {
		case w.Clients <= 0:
			return errors.New("--consumers must be positive")
		case w.IdleTimeoutMs <= 0:
			return errors.New("--timeout must be positive")
		}
	case perf.KindE2E:
		switch {
		case w.RecordSize < 0:
			return errors.New("--record-size must not be negative")
		case w.PollTimeoutMs <= 0:
			return errors.New("--poll-timeout must be positive")
		}
	default:
		return fmt.Errorf("unknown workload kind %q (produce, consume or e2e)", w.Kind)
	}
	return nil
}
