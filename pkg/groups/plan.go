package groups

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"
)

// PlanFormatVersion is the version of the saved reset plan (kbox groups
// reset --save-plan); readers refuse a newer one.
const PlanFormatVersion = 1

// Plan is a native reset plan: what `kbox groups reset` shows (a diff per
// partition), saves with --save-plan and replays with --plan.
type Plan struct {
	FormatVersion int         `json:"format_version"`
	Spec          string      `json:"spec"`
	Created       time.Time   `json:"created"`
	Executed      bool        `json:"executed"`
	Groups        []PlanGroup `json:"groups"`
}

// PlanGroup is one group of a plan.
type PlanGroup struct {
	Group string `json:"group"`
	State string `json:"state"`
	// Refused: the group cannot be reset now (Reason says why); it has no
	// partitions and nothing is committed for any group of the plan.
	Refused bool `json:"refused"`
	// Reason explains a refusal, or notes a group that does not exist
	// (Dead: committing creates it).
	Reason     string          `json:"reason,omitempty"`
	Partitions []PlanPartition `json:"partitions"`
}

// PlanPartition is one partition of a plan: the diff from the committed
// offset to the new one.
type PlanPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// CurrentOffset is the committed offset when planned (null: none):
	// the offset the plan was computed from, which a replay (--plan)
	// checks is still the committed one.
	CurrentOffset *int64 `json:"current_offset"`
	NewOffset     int64  `json:"new_offset"`
	// Clamped is "earliest" or "latest" when the requested offset was
	// outside the log and moved to its start or end.
	Clamped string `json:"clamped,omitempty"`
	// RecordsSkipped (new > current) or RecordsReplayed (new < current):
	// how many records the group will not read, or read again.
	RecordsSkipped  int64 `json:"records_skipped"`
	RecordsReplayed int64 `json:"records_replayed"`
	// unrecorded: read from a plan without current_offset (written by
	// hand or by another tool): what it was computed from is unknown.
	unrecorded bool
}

// activeStates are the states of a group with live members.
var activeStates = map[string]bool{"Stable": true, "PreparingRebalance": true, "CompletingRebalance": true, "Assigning": true, "Reconciling": true}

// RefusalReason explains why a group in state cannot be reset.
func RefusalReason(group, state string) string {
	if activeStates[state] {
		return fmt.Sprintf("group %s is active (state %s): offsets can be reset only when the group is Empty; stop its consumers first", group, state)
	}
	if state == "" {
		state = "unknown"
	}
	return fmt.Sprintf("group %s is in state %s, which kbox does not reset: only Empty groups (or groups that do not exist yet) can be reset", group, state)
}

// NewPlan turns a planned reset into a native plan with the diff.
func NewPlan(rp *ResetPlan, created time.Time) *Plan {
	p := &Plan{FormatVersion: PlanFormatVersion, Spec: string(rp.Kind), Created: created, Groups: []PlanGroup{}}
	for _, g := range rp.Groups {
		pg := PlanGroup{Group: g.Group, State: g.State, Refused: g.Refused, Partitions: []PlanPartition{}}
		switch {
		case g.Refused:
			pg.Reason = RefusalReason(g.Group, g.State)
		case g.NoFilePlan:
			pg.Reason = "the file has no offsets for this group"
		case g.State == "Dead":
			pg.Reason = fmt.Sprintf("group %s does not exist: executing the plan creates it with these offsets", g.Group)
		}
		for _, pr := range g.Partitions {
			pp := PlanPartition{Topic: pr.Topic, Partition: pr.Partition, NewOffset: pr.New, Clamped: pr.Clamped}
			if pr.Current != nil {
				c := *pr.Current
				pp.CurrentOffset = &c
			}
			pp.diff()
			pg.Partitions = append(pg.Partitions, pp)
		}
		p.Groups = append(p.Groups, pg)
	}
	return p
}

func (pp *PlanPartition) diff() {
	pp.RecordsSkipped, pp.RecordsReplayed = 0, 0
	if pp.CurrentOffset == nil {
		return
	}
	if d := pp.NewOffset - *pp.CurrentOffset; d > 0 {
		pp.RecordsSkipped = d
	} else {
		pp.RecordsReplayed = -d
	}
}

// Refused reports whether any group of the plan is refused.
func (p *Plan) Refused() bool {
	for _, g := range p.Groups {
		if g.Refused {
			return true
		}
	}
	return false
}

// Rebase sets each partition's current offset to what the group has
// committed now (a saved plan replayed later) and recomputes the diff.
func (p *Plan) Rebase(committed map[string]map[TopicPartition]int64) {
	for gi := range p.Groups {
		g := &p.Groups[gi]
		for i := range g.Partitions {
			pp := &g.Partitions[i]
			pp.CurrentOffset = nil
			if v, ok := committed[g.Group][TopicPartition{pp.Topic, pp.Partition}]; ok {
				pp.CurrentOffset = &v
			}
			pp.diff()
		}
	}
}

// Drift is a partition of a saved plan whose committed offset is no
// longer the one the plan was computed from.
type Drift struct {
	Group     string `json:"group"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// Then is the committed offset the plan recorded (null: none, or not
	// recorded when Unrecorded); Now the one committed now (null: none).
	Then       *int64 `json:"then"`
	Now        *int64 `json:"now"`
	Unrecorded bool   `json:"unrecorded"`
}

// Drifts compares the committed offsets the plan was computed from with
// the ones committed now, for the groups the plan does not refuse: the
// partitions whose offset changed, and those whose offset the plan does
// not record.
func (p *Plan) Drifts(committed map[string]map[TopicPartition]int64) []Drift {
	var out []Drift
	for _, g := range p.Groups {
		if g.Refused {
			continue
		}
		for _, pp := range g.Partitions {
			d := Drift{Group: g.Group, Topic: pp.Topic, Partition: pp.Partition, Then: pp.CurrentOffset, Unrecorded: pp.unrecorded}
			if v, ok := committed[g.Group][TopicPartition{pp.Topic, pp.Partition}]; ok {
				d.Now = &v
			}
			same := (d.Then == nil) == (d.Now == nil) && (d.Then == nil || *d.Then == *d.Now)
			if d.Unrecorded || !same {
				out = append(out, d)
			}
		}
	}
	return out
}

// DriftHeader and DriftRows print drifts as a table.
func DriftHeader() []string {
	return []string{"GROUP", "TOPIC", "PARTITION", "OFFSET-THEN", "OFFSET-NOW"}
}

// DriftRows are one row per drift ("none": nothing committed; "not
// recorded": a plan without current_offset).
func DriftRows(ds []Drift) [][]string {
	off := func(v *int64) string {
		if v == nil {
			return "none"
		}
		return strconv.FormatInt(*v, 10)
	}
	rows := [][]string{}
	for _, d := range ds {
		then := off(d.Then)
		if d.Unrecorded {
			then = "not recorded"
		}
		rows = append(rows, []string{d.Group, d.Topic, strconv.Itoa(int(d.Partition)), then, off(d.Now)})
	}
	return rows
}

// ResetPlan returns the plan as ApplyReset takes it.
func (p *Plan) ResetPlan() *ResetPlan {
	rp := &ResetPlan{Kind: ResetKind(p.Spec)}
	for _, g := range p.Groups {
		gr := GroupReset{Group: g.Group, State: g.State, Refused: g.Refused}
		for _, pp := range g.Partitions {
			gr.Partitions = append(gr.Partitions, PartitionReset{Topic: pp.Topic, Partition: pp.Partition, Current: pp.CurrentOffset, New: pp.NewOffset, Requested: pp.NewOffset})
		}
		rp.Groups = append(rp.Groups, gr)
	}
	return rp
}

// GroupNames lists the plan's groups.
func (p *Plan) GroupNames() []string {
	var out []string
	for _, g := range p.Groups {
		out = append(out, g.Group)
	}
	return out
}

// ReadPlan parses a saved plan and checks it: known version, every group
// named, no partition twice, offsets not negative.
func ReadPlan(r io.Reader) (*Plan, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("not a kbox reset plan: %v", err)
	}
	// Which partitions record the offset they were computed from (a
	// null current_offset does: nothing was committed).
	var keys struct {
		Groups []struct {
			Partitions []map[string]json.RawMessage `json:"partitions"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(raw, &keys); err != nil {
		return nil, fmt.Errorf("not a kbox reset plan: %v", err)
	}
	for gi := range p.Groups {
		for pi := range p.Groups[gi].Partitions {
			_, ok := keys.Groups[gi].Partitions[pi]["current_offset"]
			p.Groups[gi].Partitions[pi].unrecorded = !ok
		}
	}
	if p.FormatVersion < 1 || p.FormatVersion > PlanFormatVersion {
		return nil, fmt.Errorf("reset plan format_version %d: this kbox reads version %d", p.FormatVersion, PlanFormatVersion)
	}
	seen := map[string]bool{}
	for gi := range p.Groups {
		g := &p.Groups[gi]
		if g.Group == "" {
			return nil, fmt.Errorf("reset plan: a group without a name")
		}
		if seen[g.Group] {
			return nil, fmt.Errorf("reset plan: group %s appears twice", g.Group)
		}
		seen[g.Group] = true
		tps := map[TopicPartition]bool{}
		for _, pp := range g.Partitions {
			tp := TopicPartition{pp.Topic, pp.Partition}
			if pp.Topic == "" || pp.Partition < 0 || pp.NewOffset < 0 {
				return nil, fmt.Errorf("reset plan: group %s: bad partition %s with new offset %d", g.Group, tp, pp.NewOffset)
			}
			if tps[tp] {
				return nil, fmt.Errorf("reset plan: group %s: partition %s appears twice", g.Group, tp)
			}
			tps[tp] = true
		}
		if g.Partitions == nil {
			g.Partitions = []PlanPartition{}
		}
		sort.SliceStable(g.Partitions, func(i, j int) bool {
			a, b := g.Partitions[i], g.Partitions[j]
			if a.Topic != b.Topic {
				return a.Topic < b.Topic
			}
			return a.Partition < b.Partition
		})
	}
	if p.Groups == nil {
		p.Groups = []PlanGroup{}
	}
	return &p, nil
}

// Marshal is the saved form of the plan: indented JSON.
func (p *Plan) Marshal() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(p) // plain data: cannot fail
	return b.Bytes()
}

// Header is the diff table's header.
func (p *Plan) Header() []string {
	return []string{"GROUP", "TOPIC", "PARTITION", "OLD-OFFSET", "NEW-OFFSET", "CHANGE"}
}

// Rows are the diff rows, one per partition; a group with no partitions
// (refused, or nothing in scope) gets one row saying why.
func (p *Plan) Rows() [][]string {
	rows := [][]string{}
	for _, g := range p.Groups {
		if len(g.Partitions) == 0 {
			what := "nothing to reset"
			if g.Refused {
				what = "refused: state " + g.State
			}
			rows = append(rows, []string{g.Group, "-", "-", "-", "-", what})
			continue
		}
		for _, pp := range g.Partitions {
			old := "-"
			if pp.CurrentOffset != nil {
				old = strconv.FormatInt(*pp.CurrentOffset, 10)
			}
			rows = append(rows, []string{g.Group, pp.Topic, strconv.Itoa(int(pp.Partition)), old, strconv.FormatInt(pp.NewOffset, 10), pp.Change()})
		}
	}
	return rows
}

// Change says what the reset does to the partition in words.
func (pp PlanPartition) Change() string {
	var s string
	switch {
	case pp.CurrentOffset == nil:
		s = "new commit"
	case pp.RecordsSkipped > 0:
		s = fmt.Sprintf("skip %d", pp.RecordsSkipped)
	case pp.RecordsReplayed > 0:
		s = fmt.Sprintf("replay %d", pp.RecordsReplayed)
	default:
		s = "unchanged"
	}
	if pp.Clamped != "" {
		s += " (clamped to " + pp.Clamped + ")"
	}
	return s
}

// Totals sums the records skipped and replayed over the plan.
func (p *Plan) Totals() (partitions int, skipped, replayed int64) {
	for _, g := range p.Groups {
		for _, pp := range g.Partitions {
			partitions++
			skipped += pp.RecordsSkipped
			replayed += pp.RecordsReplayed
		}
	}
	return
}

// WideHeader adds the group state and the counts as numbers.
func (p *Plan) WideHeader() []string {
	return []string{"GROUP", "STATE", "TOPIC", "PARTITION", "OLD-OFFSET", "NEW-OFFSET", "SKIPPED", "REPLAYED", "CHANGE"}
}

// WideRows are the wide diff rows.
func (p *Plan) WideRows() [][]string {
	rows := [][]string{}
	i := 0
	narrow := p.Rows()
	for _, g := range p.Groups {
		if len(g.Partitions) == 0 {
			r := narrow[i]
			rows = append(rows, []string{g.Group, dash(g.State), "-", "-", "-", "-", "-", "-", r[5]})
			i++
			continue
		}
		for _, pp := range g.Partitions {
			r := narrow[i]
			rows = append(rows, []string{g.Group, dash(g.State), r[1], r[2], r[3], r[4],
				strconv.FormatInt(pp.RecordsSkipped, 10), strconv.FormatInt(pp.RecordsReplayed, 10), r[5]})
			i++
		}
	}
	return rows
}
