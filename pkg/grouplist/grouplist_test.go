package grouplist

import (
	"bytes"
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
)

func TestFilter(t *testing.T) {
	consumer := "consumer"
	groups := []Group{
		{ID: "a", Type: "Classic", Protocol: "consumer"}, {ID: "b", Type: "Classic", Protocol: ""},
		{ID: "c", Type: "Classic", Protocol: "connect"}, {ID: "d", Type: "Consumer", Protocol: "consumer"},
		{ID: "e", Type: "Share", Protocol: "share"}, {ID: "f", Type: "Streams", Protocol: "streams"},
	}
	for _, c := range []struct {
		f    Filter
		want string
	}{
		{Filter{}, "abcdef"}, {Filter{Type: "Classic"}, "abc"}, {Filter{Type: "Classic", Protocol: &consumer}, "a"},
		{Filter{Protocol: &consumer}, "ad"}, {Filter{Consumer: true}, "abd"}, {Filter{Share: true}, "e"}, {Filter{Streams: true}, "f"},
	} {
		got := ""
		for _, g := range groups {
			if c.f.Match(g) {
				got += g.ID
			}
		}
		if got != c.want {
			t.Errorf("%+v: %s, want %s", c.f, got, c.want)
		}
	}
}

// GroupsCommand's table: every column as wide as the widest cell (at
// least 20); the header has no trailing space, a row one.
func TestApache(t *testing.T) {
	r := &Result{Groups: []Group{{ID: "a-group-name-of-24-chars", Type: "Classic"}}}
	var b bytes.Buffer
	_ = r.WriteApache(&b)
	want := "GROUP                    TYPE                     PROTOCOL                \n" +
		"a-group-name-of-24-chars Classic                                           \n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
	golden.JSON(t, "list.json.golden", &Result{Groups: []Group{{ID: "g", Type: "Share", Protocol: "share", State: "Empty"}}})
}
