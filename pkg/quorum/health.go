package quorum

import (
	"fmt"
	"time"
)

// The thresholds of Problems: a voter further behind the leader than
// MaxVoterLag records, or last caught up longer than MaxVoterBehind ago,
// is lagging.
const (
	MaxVoterLag    = 1000
	MaxVoterBehind = 30 * time.Second
)

// Problems are the reasons the quorum is unhealthy: each lagging voter
// (too many records behind, or not caught up for too long), and a quorum
// whose caught-up voters leave no majority to spare (one more voter lost
// and the metadata log stops). A single-voter quorum is a deliberate
// choice (development clusters) and is not reported for its size.
func Problems(q *Quorum, now time.Time) []string {
	var out []string
	caughtUp := 0
	for _, v := range q.Voters {
		lagging := false
		if v.ID != q.LeaderID && v.Lag > MaxVoterLag {
			out = append(out, fmt.Sprintf("quorum: voter %d is %d records behind the leader (more than %d)", v.ID, v.Lag, MaxVoterLag))
			lagging = true
		}
		if v.ID != q.LeaderID && v.LastCaughtUpMs != nil {
			if behind := now.Sub(time.UnixMilli(*v.LastCaughtUpMs)); behind > MaxVoterBehind {
				out = append(out, fmt.Sprintf("quorum: voter %d last caught up %s ago (more than %s)", v.ID, behind.Round(time.Second), MaxVoterBehind))
				lagging = true
			}
		}
		if !lagging {
			caughtUp++
		}
	}
	n := len(q.Voters)
	switch majority := n/2 + 1; {
	case n > 1 && caughtUp < majority:
		out = append(out, fmt.Sprintf("quorum: %d of %d voters caught up, fewer than a majority (%d)", caughtUp, n, majority))
	case n > 1 && caughtUp == majority:
		out = append(out, fmt.Sprintf("quorum: %d of %d voters caught up, a majority with none to spare", caughtUp, n))
	}
	return out
}
