package logdirs

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/pkg/javaerr"
	"github.com/kboxdev/kbox/pkg/javafmt"
)

// QueryingLine is the first line the Apache tool prints, before it asks the
// brokers.
const QueryingLine = "Querying brokers for log directories information"

// ApachePlan is LogDirsCommand's broker selection, in its Java set orders.
type ApachePlan struct {
	Cluster  []int32 // clusterBrokers (HashSet order)
	Existing []int32 // brokers to query (HashSet order)
	Missing  []int32 // --broker-list entries not in the cluster (HashSet order)
}

// PlanApache reproduces LogDirsCommand.execute's set arithmetic: cluster is
// the DescribeCluster broker list in response order, input the
// --broker-list ids as given (empty: all brokers).
func PlanApache(cluster, input []int32) ApachePlan {
	clusterSet := javafmt.IntSetOrder(cluster, -1) // Collectors.toSet()
	inputSet := javafmt.IntSetOrder(input, -1)     // Collectors.toSet()
	in := make(map[int32]bool, len(clusterSet))
	for _, id := range clusterSet {
		in[id] = true
	}
	src := inputSet
	if len(inputSet) == 0 {
		src = clusterSet
	}
	var p ApachePlan
	p.Cluster = clusterSet
	for _, id := range javafmt.IntSetOrder(src, javafmt.HashSetCopyCapacity(len(src))) { // new HashSet<>(...) then retainAll
		if in[id] {
			p.Existing = append(p.Existing, id)
		}
	}
	for _, id := range javafmt.IntSetOrder(inputSet, javafmt.HashSetCopyCapacity(len(inputSet))) { // new HashSet<>(input) then removeAll
		if !in[id] {
			p.Missing = append(p.Missing, id)
		}
	}
	return p
}

// UnknownBrokersError is the Apache tool's error for --broker-list ids that
// are not in the cluster.
type UnknownBrokersError struct {
	Missing []int32
	Cluster []int32
}

func (e *UnknownBrokersError) Error() string {
	return fmt.Sprintf("ERROR: The given brokers do not exist from --broker-list: %s. Current existent brokers: %s",
		joinIDs(e.Missing), joinIDs(e.Cluster))
}

func joinIDs(ids []int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(int(id))
	}
	return strings.Join(parts, ",")
}

// ApacheResult is what the Apache tool prints after querying: the
// "Received ..." line and the JSON line.
type ApacheResult struct {
	// Queried are the brokers asked, in the plan's order.
	Queried []int32
	// Answers of all queried brokers.
	Answers []BrokerDirs
	// Topics filters partitions by exact topic name (empty: all).
	Topics []string
}

// WriteApache writes the second and third line of the Apache output.
func (r *ApacheResult) WriteApache(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, "Received log directory information from brokers %s\n", joinIDs(r.Queried))
	r.writeJSON(bw)
	bw.WriteByte('\n')
	return bw.Flush()
}

func (r *ApacheResult) writeJSON(w *bufio.Writer) {
	topics := make(map[string]bool, len(r.Topics))
	for _, t := range r.Topics {
		if t != "" {
			topics[t] = true
		}
	}
	byID := make(map[int32]BrokerDirs, len(r.Answers))
	var ids []int32
	for _, b := range r.Answers {
		if _, dup := byID[b.Broker]; !dup {
			ids = append(ids, b.Broker)
		}
		byID[b.Broker] = b
	}
	// futures = new HashMap<>(n) filled in the queried order, then
	// descriptions = new HashMap<>(n) filled in futures' order.
	order := javafmt.IntSetOrder(javafmt.IntSetOrder(ids, len(ids)), len(ids))

	w.WriteString(`{"brokers":[`)
	for bi, id := range order {
		if bi > 0 {
			w.WriteByte(',')
		}
		b := byID[id]
		w.WriteString(`{"broker":`)
		w.WriteString(strconv.Itoa(int(id)))
		w.WriteString(`,"logDirs":[`)
		// result = new HashMap<>(dirs.size()) keyed by path, response order.
		hashes := make([]int32, len(b.Dirs))
		for i, d := range b.Dirs {
			hashes[i] = javafmt.StringHash(d.Path)
		}
		for di, i := range javafmt.HashOrder(hashes, javafmt.HashMapCapacity(len(b.Dirs), len(b.Dirs))) {
			if di > 0 {
				w.WriteByte(',')
			}
			d := b.Dirs[i]
			w.WriteString(`{"partitions":[`)
			writeApachePartitions(w, d.Replicas, topics)
			w.WriteString(`],"error":`)
			if cls := javaerr.Class(d.ErrCode); cls != "" {
				writeJSONString(w, cls)
			} else {
				w.WriteString("null")
			}
			w.WriteString(`,"logDir":`)
			writeJSONString(w, d.Path)
			w.WriteByte('}')
		}
		w.WriteString(`]}`)
	}
	w.WriteString(`],"version":1}`)
}

func writeApachePartitions(w *bufio.Writer, reps []Replica, topics map[string]bool) {
	// replicaInfoMap = new HashMap<>() in response order; filtered into
	// Collectors.toMap() (new HashMap<>()) in that map's order.
	hashes := make([]int32, len(reps))
	for i, r := range reps {
		hashes[i] = javaTopicPartitionHash(r.Topic, r.Partition)
	}
	first := javafmt.HashOrder(hashes, javafmt.HashMapCapacity(-1, len(reps)))
	kept := first[:0:0]
	for _, i := range first {
		if len(topics) == 0 || topics[reps[i].Topic] {
			kept = append(kept, i)
		}
	}
	kh := make([]int32, len(kept))
	for j, i := range kept {
		kh[j] = hashes[i]
	}
	for n, j := range javafmt.HashOrder(kh, javafmt.HashMapCapacity(-1, len(kept))) {
		if n > 0 {
			w.WriteByte(',')
		}
		r := reps[kept[j]]
		w.WriteString(`{"partition":`)
		writeJSONString(w, r.Topic+"-"+strconv.Itoa(int(r.Partition)))
		w.WriteString(`,"size":`)
		w.WriteString(strconv.FormatInt(r.Size, 10))
		w.WriteString(`,"offsetLag":`)
		w.WriteString(strconv.FormatInt(r.OffsetLag, 10))
		w.WriteString(`,"isFuture":`)
		w.WriteString(strconv.FormatBool(r.IsFuture))
		w.WriteByte('}')
	}
}

// writeJSONString writes s the way Jackson does: quotes, backslashes and
// control characters escaped, everything else raw.
func writeJSONString(w *bufio.Writer, s string) {
	const hex = "0123456789ABCDEF"
	w.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			w.WriteString(`\"`)
		case c == '\\':
			w.WriteString(`\\`)
		case c == '\n':
			w.WriteString(`\n`)
		case c == '\r':
			w.WriteString(`\r`)
		case c == '\t':
			w.WriteString(`\t`)
		case c == '\b':
			w.WriteString(`\b`)
		case c == '\f':
			w.WriteString(`\f`)
		case c < 0x20:
			w.WriteString(`\u00`)
			w.WriteByte(hex[c>>4])
			w.WriteByte(hex[c&15])
		default:
			w.WriteByte(c)
		}
	}
	w.WriteByte('"')
}
