package sweep

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/distrib"
)

// Agents is how a sweep over agents runs its cells: through the
// driver of kbox perf distributed, with the connection the agents' workers
// use.
type Agents struct {
	Distributor *distrib.Distributor
	Bootstrap   string
	// Properties are the user's client properties (and the sweep's fixed
	// ones); a cell's varied properties go over them.
	Properties map[string]string
}

// ClientID is the client id prefix of a sweep's producers (each agent
// adds its name).
const ClientID = "kbox-perf-sweep-producer"

// AgentWorkload is the workload of one run of cell c on the agents: the
// plan's totals (records, throughput, key cardinality) split over the
// cell's agents by the driver, the warm-up per agent.
func (s *Sweeper) AgentWorkload(c Cell, topic string, rep int) distrib.AgentWorkload {
	w := s.Plan.Workload(c)
	props := map[string]string{}
	if s.Agents != nil {
		for k, v := range s.Agents.Properties {
			props[k] = v
		}
	}
	for k, v := range w.Props {
		props[k] = v
	}
	aw := distrib.AgentWorkload{Kind: "produce", Topic: topic, Records: s.Plan.Records, DurationMs: s.Plan.Duration().Milliseconds(),
		IntervalMs: s.Interval.Milliseconds(), RecordSize: w.RecordSize, KeyCardinality: w.KeyCardinality,
		WarmupRecords: s.Plan.WarmupRecords, WarmupMs: s.Plan.WarmupDuration().Milliseconds(), Seed: s.Seed + int64(rep),
		Clients: w.Producers, Properties: props, ClientID: ClientID}
	if s.Plan.Throughput > 0 {
		aw.Rate = s.Plan.Throughput
	}
	if s.Agents != nil {
		aw.Bootstrap = s.Agents.Bootstrap
	}
	return aw
}

// runAgents runs one repeat of a cell on its agents.
func (s *Sweeper) runAgents(ctx context.Context, c Cell, topic string, rep int, progress func(perf.Progress)) Run {
	var run Run
	if s.Agents == nil || s.Agents.Distributor == nil {
		run.Error = "a sweep over agents needs a Trogdor coordinator"
		return run
	}
	n := s.Plan.Workload(c).Agents
	var dp func(distrib.DistProgress)
	if progress != nil {
		dp = func(p distrib.DistProgress) {
			progress(perf.Progress{Elapsed: p.Elapsed, Done: p.Done, Target: p.Target, Rate: p.Rate})
		}
	}
	res, err := s.Agents.Distributor.Run(ctx, n, s.AgentWorkload(c, topic, rep), dp)
	if res != nil {
		run.Result = res.Merged
		run.Distributed = agentsRun(res)
	}
	switch {
	case err != nil && !errors.Is(err, context.Canceled):
		run.Error = err.Error()
	case res != nil && res.FailedAgents > 0:
		var msgs []string
		for _, a := range res.PerAgent {
			if a.State != distrib.AgentDone {
				msgs = append(msgs, fmt.Sprintf("%s %s: %s", a.Agent, a.State, a.Error))
			}
		}
		run.Error = fmt.Sprintf("%d of %d agents did not finish: %s", res.FailedAgents, res.Agents, strings.Join(msgs, "; "))
	}
	return run
}

func agentsRun(res *distrib.DistributedResult) *AgentsRun {
	d := &AgentsRun{FailedAgents: res.FailedAgents, AggregateRecordsPerSec: res.AggregateRecordsPerSec,
		AggregateMBPerSec: res.AggregateMBPerSec, SubmitToFirstRecordMs: res.SubmitToFirstRecordMs, Agents: []string{}}
	for _, a := range res.PerAgent {
		d.Agents = append(d.Agents, a.Agent)
		ar := AgentRun{Agent: a.Agent, State: a.State, Error: a.Error}
		if a.Result != nil {
			ar.Records, ar.RecordsPerSec, ar.MBPerSec = a.Result.Records, a.Result.RecordsPerSec, a.Result.MBPerSec
		}
		d.PerAgent = append(d.PerAgent, ar)
	}
	return d
}
