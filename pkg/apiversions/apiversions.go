// Package apiversions is the per-node API version table of
// kafka-broker-api-versions and kafka-cluster api-versions: the versions
// each node answers ApiVersions with, and for each API the version Apache
// Kafka 4.4's Java client would use with it (from the Java client's own
// table, javaAPIs, not franz-go's).
package apiversions

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"
)

type javaAPI struct {
	Key            int16
	Name           string
	Oldest, Latest int16
	Client         bool
}

var javaByKey = func() map[int16]javaAPI {
	m := make(map[int16]javaAPI, len(javaAPIs))
	for _, a := range javaAPIs {
		m[a.Key] = a
	}
	return m
}()

// Node is a broker or controller as the Java client's Node prints it.
type Node struct {
	ID     int32   `json:"id"`
	Host   string  `json:"host"`
	Port   int32   `json:"port"`
	Rack   *string `json:"rack"`
	Fenced bool    `json:"fenced"`
}

// String is Node.toString: "host:port (id: N rack: R isFenced: B)".
func (n Node) String() string {
	rack := "null"
	if n.Rack != nil {
		rack = *n.Rack
	}
	return fmt.Sprintf("%s:%d (id: %d rack: %s isFenced: %t)", n.Host, n.Port, n.ID, rack, n.Fenced)
}

// API is one line of a node's table.
type API struct {
	Key  int16  `json:"api_key"`
	Name string `json:"name"` // the Java client's name; UNKNOWN for a key it does not know
	// Min and Max are the node's versions; absent for an API the node
	// does not list (Status "unsupported").
	Min *int16 `json:"min_version,omitempty"`
	Max *int16 `json:"max_version,omitempty"`
	// Usable is the version the Java client would use (Status "usable").
	Usable *int16 `json:"usable_version,omitempty"`
	// Status: usable, unsupported (the node does not list it), node too
	// new, node too old, unknown (the Java client does not know the key).
	Status string `json:"status"`
}

// NodeVersions is one node's answer, or the error asking it.
type NodeVersions struct {
	Node  Node   `json:"node"`
	APIs  []API  `json:"apis"`
	Error string `json:"error,omitempty"`
}

// Report is the result: one entry per node.
type Report struct {
	Nodes []NodeVersions `json:"nodes"`
}

// Table builds a node's lines from its ApiVersions answer, as the Java
// client's NodeApiVersions sees it: the node's APIs and every client API
// it does not list, by key.
func Table(keys []kmsg.ApiVersionsResponseApiKey) []API {
	seen := map[int16]bool{}
	var out []API
	for _, k := range keys {
		if seen[k.ApiKey] {
			continue
		}
		seen[k.ApiKey] = true
		a := API{Key: k.ApiKey, Name: "UNKNOWN", Min: ptr(k.MinVersion), Max: ptr(k.MaxVersion), Status: "unknown"}
		if j, ok := javaByKey[k.ApiKey]; ok {
			a.Name = j.Name
			switch {
			case j.Latest < k.MinVersion:
				a.Status = "node too new"
			case k.MaxVersion < j.Oldest:
				a.Status = "node too old"
			default:
				a.Status, a.Usable = "usable", ptr(min(j.Latest, k.MaxVersion))
			}
		}
		out = append(out, a)
	}
	for _, j := range javaAPIs {
		if j.Client && !seen[j.Key] {
			out = append(out, API{Key: j.Key, Name: j.Name, Status: "unsupported"})
		}
	}
	sort.SliceStable(out, func(i, k int) bool { return out[i].Key < out[k].Key })
	return out
}

func ptr(v int16) *int16 { return &v }

// Text is one line of NodeApiVersions.toString: "Name(key): versions
// [usable: N]".
func (a API) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(%d): ", a.Name, a.Key)
	if a.Status == "unsupported" {
		b.WriteString("UNSUPPORTED")
		return b.String()
	}
	if *a.Min == *a.Max {
		b.WriteString(strconv.Itoa(int(*a.Min)))
	} else {
		fmt.Fprintf(&b, "%d to %d", *a.Min, *a.Max)
	}
	switch a.Status {
	case "usable":
		fmt.Fprintf(&b, " [usable: %d]", *a.Usable)
	case "node too new", "node too old":
		fmt.Fprintf(&b, " [unusable: %s]", a.Status)
	}
	return b.String()
}

// WriteApache writes the nodes in the report's order as the Java tools
// do: "NODE -> (" and one tab-indented line per API, or "NODE -> ERROR:
// message".
func (r *Report) WriteApache(w io.Writer) error {
	for _, n := range r.Nodes {
		if n.Error != "" {
			if _, err := fmt.Fprintf(w, "%s -> ERROR: %s\n", n.Node, n.Error); err != nil {
				return err
			}
			continue
		}
		lines := make([]string, len(n.APIs))
		for i, a := range n.APIs {
			lines[i] = a.Text()
		}
		if _, err := fmt.Fprintf(w, "%s -> (\n\t%s\n)\n", n.Node, strings.Join(lines, ",\n\t")); err != nil {
			return err
		}
	}
	return nil
}

// Header is the table header (one row per node and API).
func (r *Report) Header() []string {
	return []string{"NODE", "API", "KEY", "MIN", "MAX", "USABLE"}
}

// Rows are the table rows: one per node and API.
func (r *Report) Rows() [][]string {
	var rows [][]string
	for _, n := range r.Nodes {
		id := strconv.Itoa(int(n.Node.ID))
		if n.Error != "" {
			rows = append(rows, []string{id, "ERROR: " + n.Error, "-", "-", "-", "-"})
			continue
		}
		for _, a := range n.APIs {
			lo, hi, use := "-", "-", a.Status
			if a.Min != nil {
				lo, hi = strconv.Itoa(int(*a.Min)), strconv.Itoa(int(*a.Max))
			}
			if a.Usable != nil {
				use = strconv.Itoa(int(*a.Usable))
			}
			rows = append(rows, []string{id, a.Name, strconv.Itoa(int(a.Key)), lo, hi, use})
		}
	}
	return rows
}

// Asker sends one node an ApiVersions request.
type Asker func(ctx context.Context, n Node) (*kmsg.ApiVersionsResponse, error)

// Collect asks every node at once and returns their tables in the order
// of nodes; a node that fails carries its error (errText: its message).
func Collect(ctx context.Context, nodes []Node, ask Asker, errText func(error) string) *Report {
	r := &Report{Nodes: make([]NodeVersions, len(nodes))}
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nv := NodeVersions{Node: n, APIs: []API{}}
			resp, err := ask(ctx, n)
			if err == nil && resp.ErrorCode != 0 {
				err = fmt.Errorf("ApiVersions error code %d", resp.ErrorCode)
			}
			if err != nil {
				nv.Error = errText(err)
			} else {
				nv.APIs = Table(resp.ApiKeys)
			}
			r.Nodes[i] = nv
		}()
	}
	wg.Wait()
	return r
}

// SortByID orders nodes by id (kafka-cluster api-versions' TreeMap).
func SortByID(nodes []Node) {
	sort.SliceStable(nodes, func(i, j int) bool { return nodes[i].ID < nodes[j].ID })
}

// HashMapOrder orders nodes as a java.util.HashMap keyed by Node iterates
// them (kafka-broker-api-versions collects its nodes into one): by bucket
// of Node.hashCode in the final table, insertion order within a bucket.
// Java inserts them in the order of its Cluster's node list, which Cluster
// shuffles, so nodes that share a bucket come out in random order; kbox
// inserts them by id (nodes should be sorted so), one of those orders.
func HashMapOrder(nodes []Node) {
	n := len(nodes)
	sort.SliceStable(nodes, func(i, j int) bool { return HashMapBucket(nodes[i], n) < HashMapBucket(nodes[j], n) })
}

// HashMapBucket is the bucket of a java.util.HashMap holding entries nodes
// (the default table, grown as they are put) that n hashes to.
func HashMapBucket(n Node, entries int) int {
	size := 16
	for float64(entries) > 0.75*float64(size) {
		size *= 2
	}
	h := n.hashCode()
	return int(uint32(h^int32(uint32(h)>>16)) & uint32(size-1))
}

// hashCode is Kafka 4.4's Node.hashCode.
func (n Node) hashCode() int32 {
	h := 31 + javaStringHash(n.Host)
	h = 31*h + n.ID
	h = 31*h + n.Port
	rack := int32(0)
	if n.Rack != nil {
		rack = javaStringHash(*n.Rack)
	}
	h = 31*h + rack
	fenced := int32(1237) // Boolean.hashCode(false)
	if n.Fenced {
		fenced = 1231
	}
	return 31*h + fenced
}

// javaStringHash is String.hashCode over UTF-16 code units.
func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + r
	}
	return h
}
