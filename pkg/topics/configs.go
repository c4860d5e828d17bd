package topics

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kboxdev/kbox/pkg/javafmt"
)

type cfgType int

const (
	tString cfgType = iota
	tInt
	tLong
	tBool
	tDouble
	tList
)

type cfgDef struct {
	typ     cfgType
	oneOf   []string // ValidString / ValidList choices
	atLeast *int64   // Range.atLeast
}

func least(n int64) *int64 { return &n }

// topicConfigs are the topic configs of Kafka 4.4 (LogConfig), with the
// types and the validators kafka-topics checks before sending.
var topicConfigs = map[string]cfgDef{
	"cleanup.policy":                          {typ: tList, oneOf: []string{"compact", "delete"}},
	"compression.gzip.level":                  {typ: tInt},
	"compression.lz4.level":                   {typ: tInt},
	"compression.type":                        {typ: tString, oneOf: []string{"uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"}},
	"compression.zstd.level":                  {typ: tInt},
	"delete.retention.ms":                     {typ: tLong},
	"errors.deadletterqueue.group.enable":     {typ: tBool},
	"file.delete.delay.ms":                    {typ: tLong},
	"flush.messages":                          {typ: tLong},
	"flush.ms":                                {typ: tLong},
	"follower.replication.throttled.replicas": {typ: tList},
	"index.interval.bytes":                    {typ: tInt},
	"leader.replication.throttled.replicas":   {typ: tList},
	"local.retention.bytes":                   {typ: tLong},
	"local.retention.ms":                      {typ: tLong},
	"max.compaction.lag.ms":                   {typ: tLong},
	"max.decompressed.message.bytes":          {typ: tInt},
	"max.message.bytes":                       {typ: tInt},
	"message.timestamp.after.max.ms":          {typ: tLong},
	"message.timestamp.before.max.ms":         {typ: tLong},
	"message.timestamp.type":                  {typ: tString, oneOf: []string{"CreateTime", "LogAppendTime"}},
	"min.cleanable.dirty.ratio":               {typ: tDouble},
	"min.compaction.lag.ms":                   {typ: tLong},
	"min.insync.replicas":                     {typ: tInt},
	"preallocate":                             {typ: tBool},
	"remote.copy.lag.bytes":                   {typ: tLong},
	"remote.copy.lag.ms":                      {typ: tLong},
	"remote.log.copy.disable":                 {typ: tBool},
	"remote.log.delete.on.disable":            {typ: tBool},
	"remote.storage.enable":                   {typ: tBool},
	"retention.bytes":                         {typ: tLong},
	"retention.ms":                            {typ: tLong, atLeast: least(-1)},
	"segment.bytes":                           {typ: tInt},
	"segment.index.bytes":                     {typ: tInt},
	"segment.jitter.ms":                       {typ: tLong},
	"segment.ms":                              {typ: tLong},
	"unclean.leader.election.enable":          {typ: tBool},
}

// TopicConfigNames returns the known topic config names, sorted.
func TopicConfigNames() []string {
	out := make([]string, 0, len(topicConfigs))
	for k := range topicConfigs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// configSplit is Java's s.split("\\s*=\\s*"): trailing empty parts removed.
func configSplit(s string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '=' {
			continue
		}
		l := i
		for l > start && isJavaSpace(s[l-1]) {
			l--
		}
		r := i + 1
		for r < len(s) && isJavaSpace(s[r]) {
			r++
		}
		// Java never produces a leading empty string for a zero-width
		// match at 0, but "=x" has a non-empty match: keep "".
		parts = append(parts, s[start:l])
		start = r
		i = r - 1
	}
	parts = append(parts, s[start:])
	for len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) == 1 && parts[0] == "" && s != "" {
		return nil
	}
	return parts
}

func isJavaSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\x0b' || c == '\f' || c == '\r'
}

// ErrConfigFormat is TopicCommand's message for a --config without '='.
const ErrConfigFormat = `requirement failed: Invalid topic config: all configs to be added must be in the format "key=val".`

// ParseConfigs parses and validates --config values like
// TopicCommand.parseTopicConfigsToBeAdded and LogConfig.validate: last
// duplicate wins, unknown names and ill-typed values are refused with
// Kafka's messages.
func ParseConfigs(values []string) (map[string]string, error) {
	props := map[string]string{}
	var pairs [][]string
	for _, v := range values {
		p := configSplit(v)
		if len(p) != 2 {
			return nil, fmt.Errorf("%s", ErrConfigFormat)
		}
		pairs = append(pairs, p)
	}
	for _, p := range pairs {
		props[strings.TrimSpace(p[0])] = strings.TrimSpace(p[1])
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	// Kafka checks names in HashMap order; any unknown name fails.
	for _, k := range javafmt.HashMapOrder(names, -1) {
		if _, ok := topicConfigs[k]; !ok {
			return nil, fmt.Errorf("Unknown topic config name: %s", k)
		}
	}
	for _, k := range TopicConfigNames() {
		v, ok := props[k]
		if !ok {
			continue
		}
		if err := validateValue(k, v, topicConfigs[k]); err != nil {
			return nil, err
		}
	}
	return props, nil
}

func validateValue(name, v string, d cfgDef) error {
	bad := func(why string) error {
		return fmt.Errorf("Invalid value %s for configuration %s: %s", v, name, why)
	}
	var num int64
	switch d.typ {
	case tInt:
		n, err := javafmt.ParseInt(v, 32) // Integer.parseInt
		if err != nil {
			return bad("Not a number of type INT")
		}
		num = n
	case tLong:
		n, err := javafmt.ParseInt(v, 64) // Long.parseLong
		if err != nil {
			return bad("Not a number of type LONG")
		}
		num = n
	case tBool:
		if !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
			return bad("Expected value to be either true or false")
		}
	case tDouble:
		if _, err := javafmt.ParseDouble(v); err != nil { // Double.parseDouble
			return bad("Not a number of type DOUBLE")
		}
	}
	if d.atLeast != nil && num < *d.atLeast {
		return bad(fmt.Sprintf("Value must be at least %d", *d.atLeast))
	}
	if len(d.oneOf) > 0 {
		items := []string{v}
		if d.typ == tList {
			items = nil
			for _, it := range strings.Split(v, ",") {
				if it = strings.TrimSpace(it); it != "" {
					items = append(items, it)
				}
			}
		}
		for _, it := range items {
			ok := false
			for _, c := range d.oneOf {
				if it == c {
					ok = true
				}
			}
			if !ok {
				return bad("String must be one of: " + strings.Join(d.oneOf, ", "))
			}
		}
	}
	return nil
}
