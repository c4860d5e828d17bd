package reassign

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Throttle ownership (docs/reassign.md). A move's throttles belong to the
// move: the leader and follower rates of the brokers it copies from and to,
// and its partition's entries in the topic's throttled-replica lists. A
// native command answers only for the throttles of the moves it saw in
// progress (kbox reassign status --watch, and kbox reassign execute for a
// plan's partitions it finds already moving) or started itself (kbox
// reassign execute), and releases them by Apache's --verify rule, made
// finer:
//   - a partition's list entries go once that partition is no longer
//     moving; a list of "*" and the entries of other partitions stay;
//   - rates go only when no reassignment is in progress anywhere in the
//     cluster (any move may copy through any broker), and only on the
//     brokers of the moves it answers for;
//   - a rate this command set itself over an earlier value gets that value
//     back; a rate someone changed since this command set it is left alone.
//
// A Ledger that saw nothing answers for nothing: it clears nothing. The
// log-dir rate (replica.alter.log.dirs.io.max.bytes.per.second) belongs to
// moves between log dirs, which these commands do not follow: never touched.

// RateNames are the broker rates a Ledger answers for.
var RateNames = []string{LeaderRate, FollowerRate}

// Ledger is the throttles a command answers for.
type Ledger struct {
	rates map[int32]*rateClaim
	parts map[TP]bool
}

type rateClaim struct {
	set   string             // the value this command set ("": it set none)
	prior map[string]*string // per rate: the value to put back (nil: delete)
}

// NewLedger is a ledger that answers for nothing yet.
func NewLedger() *Ledger {
	return &Ledger{rates: map[int32]*rateClaim{}, parts: map[TP]bool{}}
}

// Empty is true when the ledger answers for nothing.
func (l *Ledger) Empty() bool { return len(l.rates) == 0 && len(l.parts) == 0 }

// Saw records a move seen in progress: the command now answers for the
// partition's list entries and for the rates of every broker the move
// copies from or to (they are removed, not put back: their earlier value,
// if any, is not known).
func (l *Ledger) Saw(tp TP, o Ongoing) {
	l.parts[tp] = true
	for _, ids := range [][]int32{o.Replicas, o.Adding, o.Removing} {
		for _, b := range ids {
			if l.rates[b] == nil {
				l.rates[b] = &rateClaim{prior: map[string]*string{}}
			}
		}
	}
}

// Brokers is the brokers whose rates the ledger answers for, sorted.
func (l *Ledger) Brokers() []int32 {
	s := map[int32]bool{}
	for b := range l.rates {
		s[b] = true
	}
	return sortedIDs(s)
}

// Partitions is the partitions whose list entries the ledger answers for.
func (l *Ledger) Partitions() []TP { return SortedTPs(l.parts) }

// brokerRates reads the rates set on each broker itself (not the cluster
// default): broker -> name -> value.
func (s *Service) brokerRates(ctx context.Context, ids []int32, names []string) (map[int32]map[string]string, error) {
	out := map[int32]map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	rcs, err := s.Admin.DescribeBrokerConfigs(ctx, ids...)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	for _, rc := range rcs {
		if rc.Err != nil {
			return nil, fmt.Errorf("broker %s: %w", rc.Name, rc.Err)
		}
		id, err := strconv.Atoi(rc.Name)
		if err != nil {
			continue
		}
		for _, c := range rc.Configs {
			if want[c.Key] && c.Source == kmsg.ConfigSourceDynamicBrokerConfig && c.Value != nil {
				if out[int32(id)] == nil {
					out[int32(id)] = map[string]string{}
				}
				out[int32(id)][c.Key] = *c.Value
			}
		}
	}
	return out, nil
}

// topicLists reads the throttled-replica lists set on each topic: topic ->
// name -> value.
func (s *Service) topicLists(ctx context.Context, topics []string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	if len(topics) == 0 {
		return out, nil
	}
	rcs, err := s.Admin.DescribeTopicConfigs(ctx, topics...)
	if err != nil {
		return nil, err
	}
	for _, rc := range rcs {
		if rc.Err != nil {
			continue // a topic deleted meanwhile has no lists left
		}
		for _, c := range rc.Configs {
			if (c.Key == LeaderReplicas || c.Key == FollowerReplicas) && c.Source == kmsg.ConfigSourceDynamicTopicConfig && c.Value != nil {
				if out[rc.Name] == nil {
					out[rc.Name] = map[string]string{}
				}
				out[rc.Name][c.Key] = *c.Value
			}
		}
	}
	return out, nil
}

// splitEntries is a throttled-replica list's "partition:broker" entries.
func splitEntries(v string) []string {
	var out []string
	for _, e := range strings.Split(v, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// MergeEntries adds entries to a throttled-replica list, keeping the ones
// it has; "*" (every replica) stays "*". Sorted as strings, as Apache
// writes them.
func MergeEntries(current, add string) string {
	if strings.TrimSpace(current) == "*" {
		return "*"
	}
	seen := map[string]bool{}
	var all []string
	for _, e := range append(splitEntries(current), splitEntries(add)...) {
		if !seen[e] {
			seen[e] = true
			all = append(all, e)
		}
	}
	sort.Strings(all)
	return strings.Join(all, ",")
}

// PruneEntries removes from a throttled-replica list the entries of the
// partitions drop says go; "*" and unparsable entries stay.
func PruneEntries(v string, drop func(partition int32) bool) (out string, changed bool) {
	if strings.TrimSpace(v) == "*" {
		return v, false
	}
	var keep []string
	for _, e := range splitEntries(v) {
		p, _, ok := strings.Cut(e, ":")
		n, err := strconv.ParseInt(strings.TrimSpace(p), 10, 32)
		if ok && err == nil && drop(int32(n)) {
			changed = true
			continue
		}
		keep = append(keep, e)
	}
	return strings.Join(keep, ","), changed
}

// ApplyThrottles sets the throttles of moves: rate on the leader and
// follower rates of every broker they copy from or to, and their entries
// added to the topics' throttled-replica lists (the entries of other
// partitions kept). The ledger records them first, with each rate's
// earlier value, so that Release puts back what was there.
func (s *Service) ApplyThrottles(ctx context.Context, l *Ledger, moves map[TP]PartitionMove, rate int64) error {
	brokers := ReassigningBrokers(moves)
	var fresh []int32
	for _, b := range brokers {
		if l.rates[b] == nil {
			fresh = append(fresh, b)
		}
	}
	before, err := s.brokerRates(ctx, fresh, RateNames)
	if err != nil {
		return err
	}
	v := strconv.FormatInt(rate, 10)
	for _, b := range brokers {
		c := l.rates[b]
		if c == nil {
			c = &rateClaim{prior: map[string]*string{}}
			for _, n := range RateNames {
				if old, ok := before[b][n]; ok {
					c.prior[n] = &old
				}
			}
			l.rates[b] = c
		}
		c.set = v
	}
	for tp := range moves {
		l.parts[tp] = true
	}
	leader, follower := TopicThrottleValues(moves)
	topics := sortedKeys(leader)
	lists, err := s.topicLists(ctx, topics)
	if err != nil {
		return err
	}
	for _, t := range topics {
		var cs []kadm.AlterConfig
		for _, x := range []struct{ name, add string }{{LeaderReplicas, leader[t]}, {FollowerReplicas, follower[t]}} {
			cur := lists[t][x.name]
			nv := MergeEntries(cur, x.add)
			if nv != cur && nv != "" {
				cs = append(cs, kadm.AlterConfig{Op: kadm.SetConfig, Name: x.name, Value: &nv})
			}
		}
		if len(cs) > 0 {
			if err := firstAlterErr(s.Admin.AlterTopicConfigs(ctx, cs, t)); err != nil {
				return err
			}
		}
	}
	return s.SetBrokerConfigs(ctx, brokers, rate, RateNames...)
}

// Released is what Release did and left.
type Released struct {
	// ClearedBrokers had their rates removed; RestoredBrokers got back the
	// rates they had before this command set its own.
	ClearedBrokers  []int32 `json:"cleared_brokers"`
	RestoredBrokers []int32 `json:"restored_brokers"`
	// ClearedTopics lost the list entries of partitions done moving.
	ClearedTopics []string `json:"cleared_topics"`
	// KeptBrokers and KeptTopics still have rates and lists; Kept says
	// which and why, in one line ("" when nothing is left).
	KeptBrokers []int32  `json:"kept_brokers"`
	KeptTopics  []string `json:"kept_topics"`
	Kept        string   `json:"kept"`
}

// Anything is true when Release removed or put back a throttle.
func (r *Released) Anything() bool {
	return len(r.ClearedBrokers)+len(r.RestoredBrokers)+len(r.ClearedTopics) > 0
}

// ClearedLine says what Release removed ("" when nothing).
func (r *Released) ClearedLine() string {
	var parts []string
	if len(r.ClearedBrokers) > 0 {
		parts = append(parts, "rates on "+brokersText(r.ClearedBrokers))
	}
	if len(r.RestoredBrokers) > 0 {
		parts = append(parts, "rates put back to their earlier values on "+brokersText(r.RestoredBrokers))
	}
	if len(r.ClearedTopics) > 0 {
		parts = append(parts, "throttled replicas of "+plural(len(r.ClearedTopics), "topic", "topics")+" "+strings.Join(r.ClearedTopics, ","))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Throttles cleared: " + strings.Join(parts, "; ") + "."
}

// KeptLine says what is left and why ("" when nothing).
func (r *Released) KeptLine() string {
	if r.Kept == "" {
		return ""
	}
	return "Throttles kept: " + r.Kept + "."
}

func brokersText(ids []int32) string {
	return plural(len(ids), "broker", "brokers") + " " + JoinIDs(ids, ",")
}

// namesText lists up to 5 names, then how many more.
func namesText(names []string) string {
	if len(names) <= 5 {
		return strings.Join(names, ",")
	}
	return strings.Join(names[:5], ",") + fmt.Sprintf(" and %d more", len(names)-5)
}

// Release removes the throttles the ledger answers for that no move needs
// any more (see the rule above) and forgets them; what must stay stays in
// the ledger for a later Release. It also reports the leader and follower
// rates set on other brokers, which it never touches.
func (s *Service) Release(ctx context.Context, l *Ledger) (*Released, error) {
	r := &Released{ClearedBrokers: []int32{}, RestoredBrokers: []int32{}, ClearedTopics: []string{}, KeptBrokers: []int32{}, KeptTopics: []string{}}
	ongoing, err := s.ListReassignments(ctx, nil)
	if err != nil {
		return nil, err
	}
	listWhy, err := s.releaseLists(ctx, l, ongoing, r)
	if err != nil {
		return nil, err
	}
	why, err := s.releaseRates(ctx, l, ongoing, r)
	if err != nil {
		return nil, err
	}
	r.Kept = strings.Join(append(why, listWhy...), "; ")
	return r, nil
}

// releaseLists removes from the topics' throttled-replica lists the
// entries of the ledger's partitions no longer moving, forgets those
// partitions, and says why the lists left stay.
func (s *Service) releaseLists(ctx context.Context, l *Ledger, ongoing map[TP]Ongoing, r *Released) (listWhy []string, err error) {
	topicSet := map[string]bool{}
	for tp := range l.parts {
		topicSet[tp.Topic] = true
	}
	topics := sortedKeys(topicSet)
	lists, err := s.topicLists(ctx, topics)
	if err != nil {
		return nil, err
	}
	var moving []string
	var foreignTopics []string
	for _, t := range topics {
		drop := func(p int32) bool {
			tp := TP{t, p}
			_, busy := ongoing[tp]
			return l.parts[tp] && !busy
		}
		var cs []kadm.AlterConfig
		left := false
		for _, name := range TopicThrottles {
			cur, ok := lists[t][name]
			if !ok {
				continue
			}
			nv, changed := PruneEntries(cur, drop)
			if nv != "" {
				left = true
			}
			if !changed {
				continue
			}
			if nv == "" {
				cs = append(cs, kadm.AlterConfig{Op: kadm.DeleteConfig, Name: name})
			} else {
				cs = append(cs, kadm.AlterConfig{Op: kadm.SetConfig, Name: name, Value: &nv})
			}
		}
		if len(cs) > 0 {
			if err := firstAlterErr(s.Admin.AlterTopicConfigs(ctx, cs, t)); err != nil {
				return nil, err
			}
			r.ClearedTopics = append(r.ClearedTopics, t)
		}
		ownMoving := false
		for tp := range l.parts {
			if tp.Topic != t {
				continue
			}
			if _, busy := ongoing[tp]; busy {
				ownMoving = true
				moving = append(moving, tp.String())
			} else {
				delete(l.parts, tp)
			}
		}
		if left {
			r.KeptTopics = append(r.KeptTopics, t)
			if !ownMoving {
				foreignTopics = append(foreignTopics, t)
			}
		}
	}
	sort.Strings(moving)
	if len(moving) > 0 {
		listWhy = append(listWhy, "throttled replicas of "+namesText(moving)+" (still moving)")
	}
	if len(foreignTopics) > 0 {
		listWhy = append(listWhy, "other throttled replicas of "+plural(len(foreignTopics), "topic", "topics")+" "+strings.Join(foreignTopics, ",")+
			" (not of a move this command saw)")
	}

	return listWhy, nil
}

// releaseRates removes (or puts back) the ledger's broker rates when no
// reassignment is in progress anywhere, forgets them, and says why the
// rates left stay.
func (s *Service) releaseRates(ctx context.Context, l *Ledger, ongoing map[TP]Ongoing, r *Released) (why []string, err error) {
	live, err := s.Brokers(ctx)
	if err != nil {
		return nil, err
	}
	ids := BrokerIDs(live)
	for b := range l.rates {
		if !contains32(ids, b) {
			ids = append(ids, b)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	rates, err := s.brokerRates(ctx, ids, RateNames)
	if err != nil {
		return nil, err
	}
	var foreign, held, changedBy []int32
	for _, b := range ids {
		if l.rates[b] == nil && len(rates[b]) > 0 {
			foreign = append(foreign, b)
		}
	}
	if len(ongoing) > 0 {
		for _, b := range l.Brokers() {
			if len(rates[b]) > 0 {
				held = append(held, b)
			}
		}
	} else {
		for _, b := range l.Brokers() {
			c := l.rates[b]
			var cs []kadm.AlterConfig
			restored, other := false, false
			for _, n := range RateNames {
				cur, has := rates[b][n]
				switch {
				case c.set != "" && has && cur != c.set:
					other = true // changed by someone since: theirs now
				case c.set != "" && !has:
					// removed by someone since: nothing to put back
				case c.prior[n] != nil:
					if !has || cur != *c.prior[n] {
						cs = append(cs, kadm.AlterConfig{Op: kadm.SetConfig, Name: n, Value: c.prior[n]})
					}
					restored = true
				case has:
					cs = append(cs, kadm.AlterConfig{Op: kadm.DeleteConfig, Name: n})
				}
			}
			if len(cs) > 0 {
				if err := firstAlterErr(s.Admin.AlterBrokerConfigs(ctx, cs, b)); err != nil {
					return nil, err
				}
			}
			switch {
			case restored:
				r.RestoredBrokers = append(r.RestoredBrokers, b)
			case len(cs) > 0:
				r.ClearedBrokers = append(r.ClearedBrokers, b)
			}
			if other {
				changedBy = append(changedBy, b)
			}
			delete(l.rates, b)
		}
	}
	if len(held) > 0 {
		byTopic := map[string]bool{}
		for tp := range ongoing {
			byTopic[tp.Topic] = true
		}
		ts := sortedKeys(byTopic)
		why = append(why, "rates on "+brokersText(held)+" (moves of "+plural(len(ts), "topic", "topics")+" "+namesText(ts)+
			" are still in progress)")
	}
	if len(changedBy) > 0 {
		why = append(why, "rates on "+brokersText(changedBy)+" (changed by someone else since this command set them)")
	}
	if len(foreign) > 0 {
		why = append(why, "rates on "+brokersText(foreign)+" (not set for a move this command saw)")
	}
	kept := map[int32]bool{}
	for _, ids := range [][]int32{held, changedBy, foreign} {
		for _, b := range ids {
			kept[b] = true
		}
	}
	r.KeptBrokers = append(r.KeptBrokers, sortedIDs(kept)...)
	return why, nil
}

// WatchSummary ends kbox reassign status --watch.
type WatchSummary struct {
	Done       bool     `json:"done"`
	ElapsedSec float64  `json:"elapsed_sec"`
	Topics     []string `json:"topics"` // of the moves the watch saw
	// ThrottlesCleared: the watch removed a throttle; Brokers: whose rates.
	ThrottlesCleared bool    `json:"throttles_cleared"`
	Brokers          []int32 `json:"throttles_cleared_brokers"`
	// Released is what the watch cleared and left (null with
	// --preserve-throttles).
	Released *Released `json:"throttles"`
}

// SetReleased records what Release did.
func (w *WatchSummary) SetReleased(r *Released) {
	w.Released = r
	w.ThrottlesCleared = r.Anything()
	s := map[int32]bool{}
	for _, ids := range [][]int32{r.ClearedBrokers, r.RestoredBrokers} {
		for _, b := range ids {
			s[b] = true
		}
	}
	w.Brokers = sortedIDs(s)
}
