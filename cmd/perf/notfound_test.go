package perf_test

import (
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/twmb/franz-go/pkg/kfake"
)

// A topic that does not exist is named, for produce at once and for
// consume when nothing arrived.
func TestPerfTopicNotFound(t *testing.T) {
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "present"))
	bs := strings.Join(c.ListenAddrs(), ",")
	for _, args := range [][]string{
		{"perf", "produce", "--topic", "nosuch", "--records", "5", "--record-size", "10"},
		{"perf", "consume", "--topic", "nosuch", "--records", "5", "--timeout", "1s"},
	} {
		code, _, errOut := kboxIn(t, "", append(args, "--bootstrap-server", bs)...)
		if code != 1 || !strings.HasSuffix(errOut, "kbox: error: topic nosuch not found\n") {
			t.Errorf("%v: exit %d %q", args, code, errOut)
		}
	}
}
