package logdirs

import (
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
)

// javaExceptions maps Kafka error codes to the exception class that
// org.apache.kafka.common.protocol.Errors.forCode(code).exception() returns,
// for the codes a DescribeLogDirs result can carry and the usual suspects.
// Other codes fall back to the Errors naming rule (UPPER_SNAKE → Camel +
// "Exception"), which holds for most of them.
var javaExceptions = map[int16]string{
	-1: "UnknownServerException",
	3:  "UnknownTopicOrPartitionException",
	6:  "NotLeaderOrFollowerException",
	7:  "TimeoutException",
	15: "CoordinatorNotAvailableException",
	29: "TopicAuthorizationException",
	31: "ClusterAuthorizationException",
	35: "UnsupportedVersionException",
	41: "NotControllerException",
	42: "InvalidRequestException",
	56: "KafkaStorageException",
	57: "LogDirNotFoundException",
}

// JavaErrorClass returns the fully qualified Java exception class name of a
// Kafka error code, "" for code 0.
func JavaErrorClass(code int16) string {
	if code == 0 {
		return ""
	}
	const pkg = "org.apache.kafka.common.errors."
	if n, ok := javaExceptions[code]; ok {
		return pkg + n
	}
	e := kerr.ErrorForCode(code)
	ke, ok := e.(*kerr.Error)
	if !ok || ke.Message == "UNKNOWN_SERVER_ERROR" && code != -1 {
		// Errors.forCode maps unknown codes to UNKNOWN_SERVER_ERROR.
		return pkg + javaExceptions[-1]
	}
	var b strings.Builder
	for _, part := range strings.Split(ke.Message, "_") {
		if part == "" {
			continue
		}
		b.WriteString(part[:1])
		b.WriteString(strings.ToLower(part[1:]))
	}
	return pkg + b.String() + "Exception"
}
