package status

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/pkg/features"
	"github.com/kboxdev/kbox/pkg/groups"
)

// Report is the status of every cluster checked, in the order asked
// (profiles by name).
type Report struct {
	Healthy  bool       `json:"healthy"`
	Clusters []*Cluster `json:"clusters"`
}

// NewReport wraps the statuses; the report is healthy when every cluster is.
func NewReport(cs []*Cluster) *Report {
	r := &Report{Healthy: true, Clusters: cs}
	if r.Clusters == nil {
		r.Clusters = []*Cluster{}
	}
	for _, c := range cs {
		if !c.Healthy {
			r.Healthy = false
		}
	}
	return r
}

// Header is the table header.
func (r *Report) Header() []string {
	return []string{"CLUSTER", "STATUS", "BROKERS", "CONTROLLER", "METADATA-VERSION", "TOPICS", "PARTITIONS", "UNDER-REPLICATED", "UNDER-MIN-ISR", "OFFLINE", "NON-PREFERRED", "DISK-USED", "PRODUCE/S", "CONSUME/S", "MOST-LAGGING", "WORST-GROUP"}
}

// Rows are one row per cluster.
func (r *Report) Rows() [][]string {
	rows := make([][]string, 0, len(r.Clusters))
	for _, c := range r.Clusters {
		if !c.Reachable {
			word := "UNREACHABLE"
			if len(c.Problems) > 0 && strings.HasPrefix(c.Problems[0], notChecked) {
				word = "NOT CHECKED"
			}
			rows = append(rows, []string{c.Name, word, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"})
			continue
		}
		st := "ok"
		if !c.Healthy {
			st = "UNHEALTHY"
		}
		ctrl := "none"
		if c.Controller != nil {
			ctrl = strconv.Itoa(int(*c.Controller))
		}
		rows = append(rows, []string{
			c.Name, st,
			fmt.Sprintf("%d/%d", c.BrokersUp, c.BrokersExpected), ctrl, metadataCell(c.MetadataVersion),
			strconv.Itoa(c.Topics), strconv.Itoa(c.Partitions),
			strconv.Itoa(c.UnderReplicatedPartitions), strconv.Itoa(c.UnderMinISRPartitions),
			strconv.Itoa(c.OfflinePartitions), strconv.Itoa(c.NonPreferredLeaderPartitions),
			diskCell(c.Brokers), rateCell(c.ProduceRecordsPerSec), rateCell(c.ConsumeRecordsPerSec),
			lagCell(c.LaggingGroups), worstCell(c.WorstGroup),
		})
	}
	return rows
}

// metadataCell is the metadata.version summary ("-" when unknown).
func metadataCell(v *features.VersionStatus) string {
	if v == nil {
		return "-"
	}
	return v.Summary
}

// diskCell lists each broker's used percent: "1:12% 2:13% 3:down".
func diskCell(bs []Broker) string {
	var parts []string
	for _, b := range bs {
		v := "-"
		switch {
		case !b.Up:
			v = "down"
		case b.DiskUsedPercent != nil:
			v = strconv.FormatFloat(*b.DiskUsedPercent, 'f', -1, 64) + "%"
		}
		parts = append(parts, fmt.Sprintf("%d:%s", b.ID, v))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

// lagCell names the most lagging group, its lag in records and, when
// known, in time: "orders-app:1200 (4m05s)" ("-": none lagging or
// unknown).
func lagCell(gs []GroupLag) string {
	if len(gs) == 0 {
		return "-"
	}
	s := fmt.Sprintf("%s:%d", gs[0].Group, gs[0].Lag)
	if gs[0].TimeLagMs != nil {
		s += " (" + groups.FormatTimeLag(gs[0].TimeLagMs, false) + ")"
	}
	return s
}

// worstCell names the group with the worst verdict and the verdict:
// "billing:STOP" ("-": none worse than OK).
func worstCell(g *GroupLag) string {
	if g == nil {
		return "-"
	}
	return g.Group + ":" + g.Verdict.String()
}

func rateCell(r *float64) string {
	if r == nil {
		return "-"
	}
	return strconv.FormatFloat(*r, 'f', 1, 64)
}

// WriteProblems writes one line per reason a cluster is unhealthy
// ("CLUSTER: reason"), after the table.
func (r *Report) WriteProblems(w io.Writer) error {
	for _, c := range r.Clusters {
		for _, p := range c.Problems {
			if _, err := fmt.Fprintf(w, "%s: %s\n", c.Name, p); err != nil {
				return err
			}
		}
	}
	return nil
}
