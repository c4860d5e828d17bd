package groups

import "time"

func (r *LagReport) SetCommittedAt(t time.Time) { r.committedAt = t }
