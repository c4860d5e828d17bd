package logdirs

import "github.com/kboxdev/kbox/pkg/javafmt"

// javaTopicPartitionHash is TopicPartition.hashCode.
func javaTopicPartitionHash(topic string, partition int32) int32 {
	const prime = 31
	result := prime + partition
	return prime*result + javafmt.StringHash(topic)
}
