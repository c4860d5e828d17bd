package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kboxdev/kbox/pkg/trogdor"
)

// trogdorFault is one --during-trogdor fault: a Trogdor fault spec the
// coordinator runs on its agents, DURATION long, AT after producing starts.
type trogdorFault struct {
	class      string // ProcessStop or NetworkPartition
	nodes      []string
	process    string
	partitions [][]string
	duration   time.Duration
	text       string // the flag's value
}

const duringTrogdorUsage = "want ProcessStop:nodes=AGENT[,AGENT...]:process=NAME:duration=D[:at=OFFSET] or NetworkPartition:partitions=A[,B...]/C[,D...]:duration=D[:at=OFFSET]"

// parseTrogdorFault reads one --during-trogdor value:
//
//	ProcessStop:nodes=agent1:process=/tb/n2/server.properties:duration=10s:at=5s
//	NetworkPartition:partitions=agent1/agent2,agent3:duration=10s
//
// Fields are separated by ':'; a piece without '=' continues the value
// before it (a process name may hold ':').
func parseTrogdorFault(s string) (trogdorFault, time.Duration, error) {
	bad := func(format string, a ...any) (trogdorFault, time.Duration, error) {
		return trogdorFault{}, 0, fmt.Errorf("--during-trogdor %q: %s", s, fmt.Sprintf(format, a...))
	}
	parts := strings.Split(s, ":")
	tf := trogdorFault{text: s}
	switch strings.TrimSuffix(parts[0], "Fault") {
	case "ProcessStop", trogdor.ProcessStopClass:
		tf.class = "ProcessStop"
	case "NetworkPartition", trogdor.NetworkPartitionClass:
		tf.class = "NetworkPartition"
	case "":
		return bad("no fault class; %s", duringTrogdorUsage)
	default:
		return bad("unknown fault class %q (ProcessStop or NetworkPartition)", parts[0])
	}
	fields := map[string]string{}
	var order []string
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			if len(order) == 0 {
				return bad("%q is not KEY=VALUE; %s", p, duringTrogdorUsage)
			}
			last := order[len(order)-1]
			fields[last] += ":" + p
			continue
		}
		if _, dup := fields[k]; dup {
			return bad("%s given twice", k)
		}
		fields[k] = v
		order = append(order, k)
	}
	allowed := map[string]bool{"duration": true, "at": true}
	if tf.class == "ProcessStop" {
		allowed["nodes"], allowed["process"] = true, true
	} else {
		allowed["partitions"] = true
	}
	for _, k := range order {
		if !allowed[k] {
			return bad("unknown field %q for %s; %s", k, tf.class, duringTrogdorUsage)
		}
	}
	dv, ok := fields["duration"]
	if !ok {
		return bad("duration=D is required (how long the fault lasts, e.g. 10s)")
	}
	d, err := time.ParseDuration(dv)
	if err != nil || d <= 0 {
		return bad("the duration %q is not a positive duration (e.g. 10s)", dv)
	}
	if d%time.Millisecond != 0 {
		return bad("the duration %q is finer than a millisecond", dv)
	}
	tf.duration = d
	var at time.Duration
	if av, ok := fields["at"]; ok {
		at, err = time.ParseDuration(av)
		if err != nil || at < 0 {
			return bad("the offset %q is not a duration (e.g. 0s, 30s, 5m)", av)
		}
	}
	split := func(v string) []string {
		if v == "" {
			return nil
		}
		return strings.Split(v, ",")
	}
	if tf.class == "ProcessStop" {
		tf.nodes, tf.process = split(fields["nodes"]), fields["process"]
	} else {
		pv := fields["partitions"]
		if pv == "" {
			return bad("partitions=A,B/C,D is required (groups of agent nodes cut apart, '/' between groups)")
		}
		for _, g := range strings.Split(pv, "/") {
			tf.partitions = append(tf.partitions, split(g))
		}
	}
	if _, err := tf.spec(0); err != nil {
		return bad("%v", err)
	}
	return tf, at, nil
}

// spec is the Trogdor task spec starting at startMs.
func (tf trogdorFault) spec(startMs int64) (any, error) {
	if tf.class == "ProcessStop" {
		return trogdor.NewProcessStop(startMs, tf.duration.Milliseconds(), tf.nodes, tf.process)
	}
	return trogdor.NewNetworkPartition(startMs, tf.duration.Milliseconds(), tf.partitions)
}

var trogdorTaskSeq atomic.Int64

// runTrogdor submits one Trogdor fault and follows its task until the
// coordinator reports it done. The fault's window is the task's startedMs
// and doneMs as the coordinator reports them, its error the task's. When
// the runner's kill or undo channel closes, the task is stopped (the
// agents undo the fault); the task is deleted from the coordinator at the
// end.
func (fr *faultRunner) runTrogdor(s FaultSpec) {
	tf := s.trogdor
	id := fmt.Sprintf("kbox-verify-%s-%d-%d", strings.ToLower(tf.class), time.Now().UnixMilli(), trogdorTaskSeq.Add(1))
	command := "trogdor " + tf.text + " (task " + id + ")"
	record := func(startMs int64) *FaultInfo {
		fi := fr.begin(s.name, command, false)
		if startMs > 0 {
			fr.mu.Lock()
			fi.StartMs = startMs
			fr.mu.Unlock()
		}
		return fi
	}
	finish := func(fi *FaultInfo, end time.Time, code int, msg string) {
		fr.end(fi, end)
		fr.mu.Lock()
		fi.ExitCode, fi.Error = code, msg
		fr.mu.Unlock()
		fr.ended(fi)
	}
	call := func(f func(context.Context) error) error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return f(ctx)
	}
	spec, err := tf.spec(time.Now().UnixMilli())
	if err == nil {
		err = call(func(ctx context.Context) error { return fr.trog.Create(ctx, id, spec) })
	}
	if err != nil {
		finish(record(0), time.Now(), -1, err.Error())
		return
	}
	defer func() { _ = call(func(ctx context.Context) error { return fr.trog.Destroy(ctx, id) }) }()

	var fi *FaultInfo
	var killed string
	var lastErr error
	var failingSince, stopDeadline time.Time
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	kill, undo := fr.kill, fr.undo
	for {
		var st *trogdor.TaskState
		err := call(func(ctx context.Context) error {
			var e error
			st, e = fr.trog.Task(ctx, id)
			return e
		})
		now := time.Now()
		switch {
		case err != nil:
			lastErr = err
			if failingSince.IsZero() {
				failingSince = now
			}
		default:
			failingSince = time.Time{}
			if fi == nil && st.StartedMs > 0 {
				fi = record(st.StartedMs)
			}
			if st.State == trogdor.Done {
				end := now
				if st.DoneMs > 0 {
					end = time.UnixMilli(st.DoneMs)
				}
				if fi == nil {
					// Never started (startedMs -1, e.g. unknown nodes): an
					// empty window at its end.
					started := st.StartedMs
					if started <= 0 || started > end.UnixMilli() {
						started = end.UnixMilli()
					}
					fi = record(started)
				}
				fr.mu.Lock()
				if end.UnixMilli() < fi.StartMs {
					end = time.UnixMilli(fi.StartMs)
				}
				fr.mu.Unlock()
				code, msg := 0, st.Error
				if msg != "" {
					code = 1
				}
				if killed != "" {
					msg = strings.TrimPrefix(msg+"; "+killed+" (task stopped)", "; ")
				}
				finish(fi, end, code, msg)
				return
			}
		}
		// The coordinator stopped answering: give up after 30s (the agents
		// still end the fault after its duration).
		giveUp := !failingSince.IsZero() && now.Sub(failingSince) > 30*time.Second
		if !stopDeadline.IsZero() && now.After(stopDeadline) {
			giveUp = true
		}
		if giveUp {
			if fi == nil {
				fi = record(0)
			}
			msg := fmt.Sprintf("task %s: no end reported by the coordinator", id)
			if lastErr != nil {
				msg += ": " + lastErr.Error()
			}
			if killed != "" {
				msg = killed + "; " + msg
			}
			finish(fi, now, -1, msg)
			return
		}
		select {
		case <-tick.C:
		case <-kill:
			kill, undo = nil, nil
			fr.mu.Lock()
			killed = fr.killWhy
			fr.mu.Unlock()
		case <-undo:
			kill, undo = nil, nil
			fr.mu.Lock()
			killed = fr.undoWhy
			fr.mu.Unlock()
		}
		if stopDeadline.IsZero() && killed != "" {
			if err := call(func(ctx context.Context) error { return fr.trog.Stop(ctx, id) }); err != nil && !errors.Is(err, trogdor.ErrNotFound) {
				lastErr = err
			}
			stopDeadline = time.Now().Add(15 * time.Second)
		}
	}
}
