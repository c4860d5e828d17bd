package quorum

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// zeroUUID is Uuid.ZERO_UUID's text.
const zeroUUID = "AAAAAAAAAAAAAAAAAAAAAA"

// WriteStatus writes kafka-metadata-quorum describe --status.
func (q *Info) WriteStatus(w io.Writer) error {
	_, err := fmt.Fprintf(w, "ClusterId:              %s\nLeaderId:               %d\nLeaderEpoch:            %d\n"+
		"HighWatermark:          %d\nMaxFollowerLag:         %d\nMaxFollowerLagTimeMs:   %d\n"+
		"CurrentVoters:          %s\nCurrentObservers:       %s\n",
		q.ClusterID, q.LeaderID, q.LeaderEpoch, q.HighWatermark, q.MaxFollowerLag, q.MaxFollowerLagTimeMs,
		members(q.Voters), members(q.Observers))
	return err
}

// members is the tool's [{"id": 1, "directoryId": "...", "endpoints": [...]}, ...].
func members(ms []Member) string {
	parts := make([]string, 0, len(ms))
	for _, m := range ms {
		var b strings.Builder
		fmt.Fprintf(&b, `{"id": %d`, m.ID)
		if m.DirectoryID != zeroUUID && m.DirectoryID != "" {
			fmt.Fprintf(&b, `, "directoryId": "%s"`, m.DirectoryID)
		}
		if len(m.Endpoints) > 0 {
			b.WriteString(`, "endpoints": ["` + strings.Join(m.Endpoints, `", "`) + `"]`)
		}
		b.WriteString("}")
		parts = append(parts, b.String())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// ClockError is the tool's KafkaException for a timestamp in the future.
type ClockError struct {
	Now, At int64
	What    string
}

func (e *ClockError) Error() string {
	return fmt.Sprintf("Error while computing relative time, possible drift in system clock.\nCurrent timestamp is %d, %s timestamp is %d", e.Now, e.What, e.At)
}

// ReplicationRows are describe --replication's rows: the leader, the
// other voters, then the observers; human-readable times are "N ms ago"
// from now.
func (q *Info) ReplicationRows(human bool, now time.Time) ([][]string, error) {
	var order []Member
	for _, v := range q.Voters {
		if v.Status == "Leader" {
			order = append(order, v)
		}
	}
	for _, v := range q.Voters {
		if v.Status != "Leader" {
			order = append(order, v)
		}
	}
	order = append(order, q.Observers...)
	rows := make([][]string, 0, len(order))
	for _, m := range order {
		fetch, err := stamp(m.LastFetchMs, human, now, "last fetch")
		if err != nil {
			return nil, err
		}
		caught, err := stamp(m.LastCaughtUpMs, human, now, "last caught up")
		if err != nil {
			return nil, err
		}
		rows = append(rows, []string{strconv.Itoa(int(m.ID)), m.DirectoryID, strconv.FormatInt(m.LogEndOffset, 10),
			strconv.FormatInt(m.Lag, 10), fetch, caught, m.Status})
	}
	return rows, nil
}

func stamp(v *int64, human bool, now time.Time, what string) (string, error) {
	switch {
	case v == nil:
		return "-1", nil
	case !human:
		return strconv.FormatInt(*v, 10), nil
	}
	n := now.UnixMilli()
	if *v <= 0 || *v > n {
		return "", &ClockError{Now: n, At: *v, What: what}
	}
	return fmt.Sprintf("%d ms ago", n-*v), nil
}

// ReplicationHeader is describe --replication's header.
var ReplicationHeader = []string{"NodeId", "DirectoryId", "LogEndOffset", "Lag", "LastFetchTimestamp", "LastCaughtUpTimestamp", "Status"}

// WriteTable is ToolsUtils.prettyPrintTable: every cell padded to its
// column's width and followed by a tab.
func WriteTable(w io.Writer, header []string, rows [][]string) error {
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = len(h)
	}
	for _, r := range rows {
		for i := range header {
			widths[i] = max(widths[i], len(r[i]))
		}
	}
	var b strings.Builder
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			b.WriteString(c + strings.Repeat(" ", widths[i]-len(c)) + "\t")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Header and Rows are the native table: one row per voter and observer.
func (q *Info) Header() []string {
	return []string{"ID", "ROLE", "DIRECTORY", "LOG END", "LAG", "LAST FETCH", "LAST CAUGHT UP", "ENDPOINTS"}
}

// Rows implements output.Tabular.
func (q *Info) Rows() [][]string {
	var rows [][]string
	for _, m := range append(append([]Member{}, q.Voters...), q.Observers...) {
		rows = append(rows, []string{strconv.Itoa(int(m.ID)), m.Status, m.DirectoryID, strconv.FormatInt(m.LogEndOffset, 10),
			strconv.FormatInt(m.Lag, 10), msText(m.LastFetchMs), msText(m.LastCaughtUpMs), strings.Join(m.Endpoints, ",")})
	}
	return rows
}

func msText(v *int64) string {
	if v == nil {
		return "-"
	}
	return time.UnixMilli(*v).UTC().Format("2006-01-02T15:04:05.000Z")
}
