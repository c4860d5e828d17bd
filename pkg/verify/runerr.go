package verify

import (
	"context"
	"errors"
	"fmt"

	"github.com/kboxdev/kbox/pkg/javaerr"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// JavaErrorClass maps a produce error to the Java exception class name
// and message Apache's VerifiableProducer would print.
func JavaErrorClass(err error, topic string, partition int32) (class, msg string) {
	const pkg = "org.apache.kafka.common.errors."
	var ke *kerr.Error
	var je interface{ JavaException() (string, string) }
	switch {
	case errors.As(err, &je):
		return je.JavaException()
	case errors.Is(err, kgo.ErrRecordTimeout):
		return pkg + "TimeoutException", fmt.Sprintf("Expiring 1 record(s) for %s-%d: delivery timeout has passed since batch creation", topic, partition)
	case errors.Is(err, kgo.ErrRecordRetries):
		return pkg + "TimeoutException", err.Error()
	case errors.Is(err, context.Canceled), errors.Is(err, kgo.ErrClientClosed):
		return "org.apache.kafka.common.errors.InterruptException", err.Error()
	case errors.As(err, &ke):
		if ke == kerr.NotLeaderForPartition {
			// renamed in Java (KIP-392), with its message; the code is the same
			return javaerr.Class(ke.Code), "For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition."
		}
		return javaerr.Class(ke.Code), ke.Description
	}
	return "org.apache.kafka.common.KafkaException", err.Error()
}
