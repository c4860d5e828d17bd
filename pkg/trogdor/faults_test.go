package trogdor

import (
	"encoding/json"
	"strings"
	"testing"
)

// The specs encode with Trogdor's field names (ProcessStopFaultSpec,
// NetworkPartitionFaultSpec: @JsonProperty names) and full class names.
func TestFaultSpecJSON(t *testing.T) {
	ps, err := NewProcessStop(1000, 5000, []string{"agent1", "agent2"}, "/tb/n2/server.properties")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(ps)
	if want := `{"class":"org.apache.kafka.trogdor.fault.ProcessStopFaultSpec","startMs":1000,"durationMs":5000,"nodeNames":["agent1","agent2"],"javaProcessName":"/tb/n2/server.properties"}`; string(b) != want {
		t.Errorf("ProcessStop:\n got %s\nwant %s", b, want)
	}
	np, err := NewNetworkPartition(0, 1, [][]string{{"agent1"}, {"agent2", "agent3"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(np)
	if want := `{"class":"org.apache.kafka.trogdor.fault.NetworkPartitionFaultSpec","startMs":0,"durationMs":1,"partitions":[["agent1"],["agent2","agent3"]]}`; string(b) != want {
		t.Errorf("NetworkPartition:\n got %s\nwant %s", b, want)
	}
}

func TestFaultSpecErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(NewProcessStop(0, 0, []string{"a"}, "x")), "duration must be positive"},
		{second(NewProcessStop(0, 1, nil, "x")), "no nodes given"},
		{second(NewProcessStop(0, 1, []string{"a", "a"}, "x")), "node a given twice"},
		{second(NewProcessStop(0, 1, []string{""}, "x")), `bad node name ""`},
		{second(NewProcessStop(0, 1, []string{"a"}, " ")), "process name is empty"},
		{second(NewNetworkPartition(0, -1, [][]string{{"a"}, {"b"}})), "duration must be positive"},
		{second(NewNetworkPartition(0, 1, [][]string{{"a", "b"}})), "at least two groups"},
		{second(NewNetworkPartition(0, 1, [][]string{{"a"}, {}})), "no nodes given"},
		{second(NewNetworkPartition(0, 1, [][]string{{"a"}, {"b", "a"}})), "node a appears in more than one group"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) || strings.Contains(c.err.Error(), "\n") {
			t.Errorf("got %v, want one line with %q", c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }
