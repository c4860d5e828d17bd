package consoleproducer

import (
	"testing"

	"github.com/kboxdev/kbox/test/apachecases"
)

// TestAgainstApache replays the real tool's captured invocations (Kafka
// 4.4.0's kafka-console-producer via testbed.sh; stack traces cut to their
// first line) through the applet.
func TestAgainstApache(t *testing.T) {
	apachecases.Replay(t, "testdata/apache", Applet.Name, 20, run)
}
