package verify

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

func TestJavaErrorClass(t *testing.T) {
	// Java's names from Errors (pkg/javaerr), not the error code's words:
	// TOPIC_ALREADY_EXISTS is TopicExistsException, REQUEST_TIMED_OUT a
	// TimeoutException, MESSAGE_TOO_LARGE a RecordTooLargeException.
	for ke, want := range map[*kerr.Error]string{
		kerr.NotEnoughReplicas:     "NotEnoughReplicasException",
		kerr.TopicAlreadyExists:    "TopicExistsException",
		kerr.RequestTimedOut:       "TimeoutException",
		kerr.MessageTooLarge:       "RecordTooLargeException",
		kerr.CorruptMessage:        "CorruptRecordException",
		kerr.RecordListTooLarge:    "RecordBatchTooLargeException",
		kerr.NotLeaderForPartition: "NotLeaderOrFollowerException",
	} {
		if class, _ := JavaErrorClass(ke, "t", 0); class != "org.apache.kafka.common.errors."+want {
			t.Errorf("%s: %s, want %s", ke.Message, class, want)
		}
	}
}
