package groups

import (
	"errors"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
)

// GroupList is `kbox groups list`.
type GroupList struct {
	Groups []Listing `json:"groups"`
}

// NewGroupList wraps listed groups (never a null list).
func NewGroupList(ls []Listing) *GroupList {
	if ls == nil {
		ls = []Listing{}
	}
	return &GroupList{Groups: ls}
}

// Header is the list table header.
func (l *GroupList) Header() []string { return []string{"GROUP", "TYPE", "STATE"} }

// Rows are the list rows.
func (l *GroupList) Rows() [][]string {
	rows := [][]string{}
	for _, g := range l.Groups {
		rows = append(rows, []string{g.Group, dash(g.Type), dash(g.State)})
	}
	return rows
}

// WideHeader adds the protocol type and the coordinator.
func (l *GroupList) WideHeader() []string {
	return []string{"GROUP", "TYPE", "STATE", "PROTOCOL-TYPE", "COORDINATOR"}
}

// WideRows are the wide list rows.
func (l *GroupList) WideRows() [][]string {
	rows := [][]string{}
	for _, g := range l.Groups {
		rows = append(rows, []string{g.Group, dash(g.Type), dash(g.State), dash(g.ProtocolType), strconv.Itoa(int(g.Coordinator))})
	}
	return rows
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// DescribedGroup is one group of `kbox groups describe`: its state,
// members and partitions, or the error that kept it from being described.
type DescribedGroup struct {
	GroupOffsets
	Error string `json:"error,omitempty"`
}

// Description is `kbox groups describe`.
type Description struct {
	Groups []DescribedGroup `json:"groups"`
}

// NewDescription wraps described groups: errors become text, and lists
// are never null.
func NewDescription(gs []GroupOffsets) *Description {
	d := &Description{Groups: []DescribedGroup{}}
	for _, g := range gs {
		dg := DescribedGroup{GroupOffsets: g}
		if g.Err != nil {
			dg.Error = g.Err.Error()
			var nf *ErrGroupNotFound
			if errors.As(g.Err, &nf) || errors.Is(g.Err, kerr.GroupIDNotFound) {
				dg.State, dg.Error = "Dead", "the group does not exist"
			}
		}
		if dg.Members == nil {
			dg.Members = []Member{}
		}
		for i := range dg.Members {
			if dg.Members[i].Assignment == nil {
				dg.Members[i].Assignment = []TopicPartition{}
			}
		}
		if dg.Partitions == nil {
			dg.Partitions = []PartitionLag{}
		}
		d.Groups = append(d.Groups, dg)
	}
	return d
}

// Header is the describe table header: one row per partition.
func (d *Description) Header() []string {
	return []string{"GROUP", "STATE", "TOPIC", "PARTITION", "COMMITTED", "LOG-END", "LAG", "CLIENT-ID", "HOST"}
}

// Rows are the describe rows; a group without partitions gets one row.
func (d *Description) Rows() [][]string { return d.rows(false) }

// WideHeader adds the member id and the leader epoch of the commit.
func (d *Description) WideHeader() []string {
	return append(d.Header(), "MEMBER-ID", "LEADER-EPOCH")
}

// WideRows are the wide describe rows.
func (d *Description) WideRows() [][]string { return d.rows(true) }

func (d *Description) rows(wide bool) [][]string {
	rows := [][]string{}
	for _, g := range d.Groups {
		if len(g.Partitions) == 0 {
			r := []string{g.Group.Group, dash(g.State), "-", "-", "-", "-", "-", "-", "-"}
			if g.Error != "" {
				r[2] = "error: " + g.Error
			}
			if wide {
				r = append(r, "-", "-")
			}
			rows = append(rows, r)
			continue
		}
		for _, p := range g.Partitions {
			r := []string{g.Group.Group, dash(g.State), p.Topic, strconv.Itoa(int(p.Partition)), i64(p.Committed), i64(p.LogEnd), i64(p.Lag), dash(p.ClientID), dash(p.Host)}
			if wide {
				ep := "-"
				if p.LeaderEpoch != nil {
					ep = strconv.Itoa(int(*p.LeaderEpoch))
				}
				r = append(r, dash(p.MemberID), ep)
			}
			rows = append(rows, r)
		}
	}
	return rows
}

func i64(v *int64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatInt(*v, 10)
}

// Deletion is the outcome of deleting one group.
type Deletion struct {
	Group   string `json:"group"`
	Deleted bool   `json:"deleted"`
	Error   string `json:"error,omitempty"`
}

// DeleteReport is `kbox groups delete`.
type DeleteReport struct {
	Groups []Deletion `json:"groups"`
}

// NewDeleteReport explains each result: a group with members and an
// unknown group get a sentence saying so.
func NewDeleteReport(rs []DeleteResult) *DeleteReport {
	d := &DeleteReport{Groups: []Deletion{}}
	for _, r := range rs {
		del := Deletion{Group: r.Group, Deleted: r.Err == nil}
		switch {
		case r.Err == nil:
		case errors.Is(r.Err, kerr.NonEmptyGroup):
			del.Error = "the group has active members: stop its consumers first"
		case errors.Is(r.Err, kerr.GroupIDNotFound):
			del.Error = "the group does not exist"
		default:
			del.Error = r.Err.Error()
		}
		d.Groups = append(d.Groups, del)
	}
	return d
}

// Failed counts the groups that were not deleted.
func (d *DeleteReport) Failed() int {
	n := 0
	for _, g := range d.Groups {
		if !g.Deleted {
			n++
		}
	}
	return n
}

// Header is the delete table header.
func (d *DeleteReport) Header() []string { return []string{"GROUP", "RESULT"} }

// Rows are the delete rows.
func (d *DeleteReport) Rows() [][]string {
	rows := [][]string{}
	for _, g := range d.Groups {
		res := "deleted"
		if !g.Deleted {
			res = "not deleted: " + g.Error
		}
		rows = append(rows, []string{g.Group, res})
	}
	return rows
}
