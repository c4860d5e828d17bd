package apiversions

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Kafka 4.4's broker-api-versions printed a 3-broker bed (one host,
// ports 30842, 29486, 23458 for ids 1, 2, 3) in the order 3, 2, 1.
func TestHashMapOrder(t *testing.T) {
	nodes := []Node{{ID: 1, Host: "127.0.0.1", Port: 30842}, {ID: 2, Host: "127.0.0.1", Port: 29486}, {ID: 3, Host: "127.0.0.1", Port: 23458}}
	HashMapOrder(nodes)
	var got []int32
	for _, n := range nodes {
		got = append(got, n.ID)
	}
	if got[0] != 3 || got[1] != 2 || got[2] != 1 {
		t.Errorf("order %v, want [3 2 1]", got)
	}
	if a, ab := javaStringHash("a"), javaStringHash("ab"); a != 97 || ab != 3105 {
		t.Errorf("String.hashCode %d %d", a, ab)
	}
}

// A 3-broker bed (ports 29872, 27115, 27479 for ids 1, 2, 3) where Apache
// printed 2, 3, 1 and kbox 2, 1, 3: ids 1 and 3 share a bucket, and Java
// inserts them in the order its Cluster shuffled them into.
func TestHashMapBucketShared(t *testing.T) {
	b := func(id, port int32) int { return HashMapBucket(Node{ID: id, Host: "127.0.0.1", Port: port}, 3) }
	if b1, b2, b3 := b(1, 29872), b(2, 27115), b(3, 27479); b1 != 14 || b2 != 12 || b3 != 14 {
		t.Errorf("buckets %d %d %d, want 14 12 14", b1, b2, b3)
	}
	nodes := []Node{{ID: 1, Host: "127.0.0.1", Port: 29872}, {ID: 2, Host: "127.0.0.1", Port: 27115}, {ID: 3, Host: "127.0.0.1", Port: 27479}}
	HashMapOrder(nodes)
	if nodes[0].ID != 2 || nodes[1].ID != 1 || nodes[2].ID != 3 {
		t.Errorf("order %v, want ids 2 1 3", nodes)
	}
}

// The lines NodeApiVersions.toString(true) prints, from the Java table.
func TestText(t *testing.T) {
	keys := []kmsg.ApiVersionsResponseApiKey{
		{ApiKey: 1, MinVersion: 4, MaxVersion: 18},
		{ApiKey: 0, MinVersion: 0, MaxVersion: 13},
		{ApiKey: 18, MinVersion: 0, MaxVersion: 4},
		{ApiKey: 3, MinVersion: 14, MaxVersion: 20},
		{ApiKey: 2, MinVersion: 0, MaxVersion: 0},
		{ApiKey: 999, MinVersion: 1, MaxVersion: 1},
	}
	var lines []string
	for _, a := range Table(keys) {
		lines = append(lines, a.Text())
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{
		"Produce(0): 0 to 13 [usable: 13]",
		"Fetch(1): 4 to 18 [usable: 18]",
		"ListOffsets(2): 0 [unusable: node too old]",
		"Metadata(3): 14 to 20 [unusable: node too new]",
		"ApiVersions(18): 0 to 4 [usable: 4]",
		"OffsetCommit(8): UNSUPPORTED",
		"UNKNOWN(999): 1",
	} {
		if !strings.Contains(got, want+"\n") && !strings.HasSuffix(got, want) {
			t.Errorf("no line %q in\n%s", want, got)
		}
	}
	if !strings.HasPrefix(got, "Produce(0)") || !strings.HasSuffix(got, "UNKNOWN(999): 1") {
		t.Errorf("not in key order:\n%s", got)
	}
}

func TestReportJSON(t *testing.T) {
	r := Collect(context.Background(), []Node{{ID: 1, Host: "h", Port: 9092}, {ID: 2, Host: "h", Port: 9093}},
		func(_ context.Context, n Node) (*kmsg.ApiVersionsResponse, error) {
			if n.ID == 2 {
				return nil, errors.New("connection refused")
			}
			resp := kmsg.NewPtrApiVersionsResponse()
			resp.ApiKeys = []kmsg.ApiVersionsResponseApiKey{{ApiKey: 0, MinVersion: 0, MaxVersion: 13}, {ApiKey: 18, MinVersion: 0, MaxVersion: 4}}
			return resp, nil
		}, func(err error) string { return err.Error() })
	r.Nodes[0].APIs = r.Nodes[0].APIs[:3] // Produce, Fetch (unsupported), ApiVersions is further: keep it short
	golden.JSON(t, "report.json.golden", r)
}
