package topics

import "github.com/kboxdev/kbox/pkg/javafmt"

// DescribeTopicOrder is the topic order of `kafka-topics --describe` (Java
// HashMap order of the names): the admin client fills a HashMap(n) of
// futures from the sorted names, copies it, and collects the descriptions
// into another HashMap(n).
func DescribeTopicOrder(sorted []string) []string {
	n := len(sorted)
	if n == 0 {
		return nil
	}
	futures := javafmt.HashMapOrder(sorted, n)
	copied := javafmt.HashMapOrder(futures, javafmt.HashMapCopyCapacity(len(futures)))
	return javafmt.HashMapOrder(copied, n)
}
