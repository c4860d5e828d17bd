// Package grouplist lists the groups of every type (classic, consumer,
// share, streams) as kafka-groups --list does: one ListGroups request to
// every broker, filtered by Apache 4.4's GroupsCommand rules.
package grouplist

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Group is one listed group.
type Group struct {
	ID string `json:"group"`
	// Type is the Java client's GroupType name (Classic, Consumer, Share,
	// Streams, Unknown), "" when the broker names none.
	Type     string `json:"type"`
	Protocol string `json:"protocol"`
	State    string `json:"state"`
}

// Filter is what --group-type, --protocol, --consumer, --share and
// --streams ask for (at most one of the last four kinds applies, in that
// order, as in GroupsCommand).
type Filter struct {
	Type     string // a GroupType name (ParseType), "" none
	Protocol *string
	Consumer bool
	Share    bool
	Streams  bool
}

// ParseType is GroupType.parse: a type name in any case; false for one
// Kafka does not know.
func ParseType(s string) (string, bool) {
	switch strings.ToLower(s) {
	case "classic":
		return "Classic", true
	case "consumer":
		return "Consumer", true
	case "share":
		return "Share", true
	case "streams":
		return "Streams", true
	}
	return "", false
}

func typeName(s string) string {
	if s == "" {
		return ""
	}
	if t, ok := ParseType(s); ok {
		return t
	}
	return "Unknown"
}

// Match is GroupsCommand's combinedFilter.
func (f Filter) Match(g Group) bool {
	switch {
	case f.Type != "":
		return g.Type == f.Type && (f.Protocol == nil || *f.Protocol == g.Protocol)
	case f.Protocol != nil:
		return g.Protocol == *f.Protocol
	case f.Consumer:
		return g.Protocol == "consumer" || g.Protocol == "" || g.Type == "Consumer"
	case f.Share:
		return g.Type == "Share"
	case f.Streams:
		return g.Type == "Streams"
	}
	return true
}

// Result is the listing, sorted by group id.
type Result struct {
	Groups []Group `json:"groups"`
}

// List asks every broker for its groups and keeps those f matches.
func List(ctx context.Context, cl *kgo.Client, f Filter) (*Result, error) {
	req := kmsg.NewPtrListGroupsRequest()
	shards := cl.RequestSharded(ctx, req)
	r := &Result{Groups: []Group{}}
	for _, s := range shards {
		if s.Err != nil {
			return nil, fmt.Errorf("broker %d: %w", s.Meta.NodeID, s.Err)
		}
		resp := s.Resp.(*kmsg.ListGroupsResponse)
		if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
			return nil, err
		}
		for _, g := range resp.Groups {
			lg := Group{ID: g.Group, Type: typeName(g.GroupType), Protocol: g.ProtocolType, State: g.GroupState}
			if f.Match(lg) {
				r.Groups = append(r.Groups, lg)
			}
		}
	}
	sort.Slice(r.Groups, func(i, j int) bool { return r.Groups[i].ID < r.Groups[j].ID })
	return r, nil
}

// WriteApache writes GroupsCommand's table: three columns, each as wide
// as the widest cell of the table (at least 20), every cell padded.
func (r *Result) WriteApache(w io.Writer) error {
	width := 20
	for _, g := range r.Groups {
		width = max(width, len(g.ID), len(g.Type), len(g.Protocol))
	}
	// The header is one format of three columns; a row is each cell
	// followed by a space.
	fmt.Fprintf(w, "%-*s %-*s %-*s\n", width, "GROUP", width, "TYPE", width, "PROTOCOL")
	for _, g := range r.Groups {
		fmt.Fprintf(w, "%-*s %-*s %-*s \n", width, g.ID, width, g.Type, width, g.Protocol)
	}
	return nil
}

// Header is the table header.
func (r *Result) Header() []string { return []string{"GROUP", "TYPE", "PROTOCOL", "STATE"} }

// Rows are the table rows.
func (r *Result) Rows() [][]string {
	rows := make([][]string, 0, len(r.Groups))
	for _, g := range r.Groups {
		rows = append(rows, []string{g.ID, g.Type, g.Protocol, g.State})
	}
	return rows
}
