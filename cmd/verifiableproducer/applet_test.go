package verifiableproducer

import (
	"testing"

	"github.com/kboxdev/kbox/test/apachecases"
)

// TestAgainstApache replays the real tool's captured invocations through
// the applet.
func TestAgainstApache(t *testing.T) {
	apachecases.Replay(t, "../../pkg/argparse/testdata", Applet.Name, 20, run)
}
