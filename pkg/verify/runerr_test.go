package verify

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

func TestJavaErrorClass(t *testing.T) {
	if class, _ := JavaErrorClass(kerr.NotEnoughReplicas, "t", 0); class != "org.apache.kafka.common.errors.NotEnoughReplicasException" {
		t.Error(class)
	}
}
