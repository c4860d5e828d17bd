package cluster

import (
	"bytes"
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
)

func sample() *Endpoints {
	r := "rack-a"
	return &Endpoints{ClusterID: "abc", Nodes: []Endpoint{
		{ID: 1, Host: "broker-1.example.com", Port: 9092, Rack: &r, Type: "broker"},
		{ID: 2, Host: "b2", Port: 9092, Fenced: true, Type: "broker"},
	}}
}

// ClusterTool's columns: HOST as wide as the longest host, RACK as the
// longest rack (10 when none has one), "null" for no rack, STATE for
// brokers only.
func TestEndpointsApache(t *testing.T) {
	var b bytes.Buffer
	if err := sample().WriteApache(&b); err != nil {
		t.Fatal(err)
	}
	want := "ID         HOST                 PORT       RACK   STATE      ENDPOINT_TYPE  \n" +
		"1          broker-1.example.com 9092       rack-a unfenced   broker         \n" +
		"2          b2                   9092       null   fenced     broker         \n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	c := &Endpoints{Controllers: true, Nodes: []Endpoint{{ID: 3000, Host: "c", Port: 9093, Type: "controller"}}}
	_ = c.WriteApache(&b)
	if want := "ID         HOST PORT       RACK       ENDPOINT_TYPE  \n3000       c 9093       null       controller     \n"; b.String() != want {
		t.Errorf("controllers: got\n%q\nwant\n%q", b.String(), want)
	}
}

func TestEndpointsJSON(t *testing.T) {
	golden.JSON(t, "endpoints.json.golden", sample())
	golden.JSON(t, "id.json.golden", &ID{ClusterID: "abc"})
}
