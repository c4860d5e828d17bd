package topics

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// InternalTopics are the names Kafka's Topic.isInternal reports.
var InternalTopics = map[string]bool{
	"__consumer_offsets":  true,
	"__transaction_state": true,
	"__share_group_state": true,
}

// IsInternal reports whether name is an internal topic.
func IsInternal(name string) bool { return InternalTopics[name] }

// Filter is Apache's TopicFilter.IncludeList: a full-match regex built from
// the --topic value.
type Filter struct {
	re *regexp.Regexp
}

// NormalizeRegex applies IncludeList's rewriting: trim, ',' → '|', spaces
// removed, leading and trailing quotes stripped.
func NormalizeRegex(raw string) string {
	s := strings.TrimSpace(raw)
	s = strings.ReplaceAll(s, ",", "|")
	s = strings.ReplaceAll(s, " ", "")
	s = strings.TrimLeft(s, `"'`)
	s = strings.TrimRight(s, `"'`)
	return s
}

// NewFilter compiles the --topic value. An invalid regex gives Apache's
// message "<regex> is an invalid regex.".
func NewFilter(raw string) (*Filter, error) {
	rx := NormalizeRegex(raw)
	re, err := regexp.Compile(`^(?:` + rx + `)$`)
	if err != nil {
		return nil, fmt.Errorf("%s is an invalid regex.", rx)
	}
	return &Filter{re: re}, nil
}

// Allowed is IncludeList.isTopicAllowed.
func (f *Filter) Allowed(topic string, excludeInternal bool) bool {
	if excludeInternal && IsInternal(topic) {
		return false
	}
	return f.re.MatchString(topic)
}

// Select sorts all and keeps the topics the optional filter allows, as
// TopicCommand.getTopics does.
func Select(all []string, topicOpt *string, excludeInternal bool) ([]string, error) {
	sorted := append([]string(nil), all...)
	sort.Strings(sorted)
	var f *Filter
	if topicOpt != nil {
		var err error
		if f, err = NewFilter(*topicOpt); err != nil {
			return nil, err
		}
	}
	out := []string{}
	for _, t := range sorted {
		if f != nil {
			if f.Allowed(t, excludeInternal) {
				out = append(out, t)
			}
		} else if !(excludeInternal && IsInternal(t)) {
			out = append(out, t)
		}
	}
	return out, nil
}

// HasCollisionChars is Topic.hasCollisionChars.
func HasCollisionChars(name string) bool {
	return strings.ContainsAny(name, "._")
}

// CollisionWarning is printed on stdout before creating such a topic.
const CollisionWarning = "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both."
