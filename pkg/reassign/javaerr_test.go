package reassign

import "testing"

// A broker's per-partition error prints as its Java exception's toString,
// with Java's class where the Errors naming rule would give another.
func TestKafkaErrorJavaString(t *testing.T) {
	for code, want := range map[int16]string{
		3:    "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: m",
		36:   "org.apache.kafka.common.errors.TopicExistsException: m",
		7:    "org.apache.kafka.common.errors.TimeoutException: m",
		12:   "org.apache.kafka.common.errors.OffsetMetadataTooLarge: m",
		9999: "org.apache.kafka.common.errors.UnknownServerException: m",
	} {
		if got := (&KafkaError{Code: code, Message: "m"}).JavaString(); got != want {
			t.Errorf("%d: got %q, want %q", code, got, want)
		}
	}
}
