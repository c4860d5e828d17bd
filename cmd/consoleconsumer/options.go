package consoleconsumer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/console"
)

// The option checks of ConsoleConsumerOptions, in Java's order: Run calls
// them one after the other before connecting.

// checkArgs is ConsoleConsumerOptions' checks of the options alone (and
// checkRequiredArgs): the partition asked for, if any.
func (r *runner) checkArgs() (*int32, error) {
	if r.s.Has("property") && r.s.Has("formatter-property") {
		return nil, r.usage("Options --property and --formatter-property cannot be specified together.")
	}
	// Deprecated options: a notice on stdout, as Kafka 4.4 prints it.
	for _, d := range [][2]string{{"consumer-property", "command-property"}, {"consumer.config", "command-config"}, {"property", "formatter-property"}} {
		if r.s.Has(d[0]) {
			fmt.Fprintf(r.out, "Option --%s is deprecated and will be removed in a future version. Use --%s instead.\n", d[0], d[1])
		}
	}
	// checkRequiredArgs.
	if r.s.Has("topic") == r.s.Has("include") {
		return nil, r.usage("Exactly one of the following arguments is required: [topic], [include]")
	}
	var partition *int32
	if r.s.Has("partition") {
		n, _, perr := r.s.Int("partition")
		if perr != nil {
			return nil, r.convError(perr)
		}
		p := int32(n)
		partition = &p
		if !r.s.Has("topic") {
			return nil, r.usage("The topic is required when partition is specified.")
		}
		if r.s.Has("from-beginning") && r.s.Has("offset") {
			return nil, r.usage("Options from-beginning and offset cannot be specified together.")
		}
	} else if r.s.Has("offset") {
		return nil, r.usage("The partition is required when offset is specified.")
	}
	if err := tool.Require(r.f, r.s.Has, "bootstrap-server"); err != nil {
		return nil, err
	}
	return partition, nil
}

// clientSetup is what the options say about the consumer's client.
type clientSetup struct {
	file      string // the config file, if hasFile
	hasFile   bool
	fileProps *config.Properties
	props     *config.Properties // the client properties of the options
	groups    []string           // the group ids given (one at most)
}

// clientProps reads the config file and the client properties of the
// options (checkConsumerGroup, setAutoOffsetResetValue).
func (r *runner) clientProps(partition *int32) (*clientSetup, error) {
	// The config file (--command-config wins over the deprecated name).
	file, hasFile := r.value("command-config")
	if !hasFile {
		file, hasFile = r.value("consumer.config")
	}
	cs := &clientSetup{fileProps: config.NewProperties()}
	fileProps := cs.fileProps
	if hasFile {
		if err := tool.CommandConfig(file, true); err != nil {
			return nil, r.javaMain(err.Error())
		}
		var err error
		if fileProps, err = config.LoadPropertiesFile(file); err != nil {
			return nil, r.javaMain("java.io.IOException: " + err.Error())
		}
	}
	extra := keyValues(append(r.s.Values("consumer-property"), r.s.Values("command-property")...))
	// -X (kbox's client properties, as every native command takes them)
	// wins over --command-property.
	xprops, err := cmdutil.ParseProps(r.s.Values("X"), "-X")
	if err != nil {
		if tool.Native(r.f) {
			return nil, r.usage(err.Error())
		}
		fmt.Fprintf(r.err, "kbox: error: %v\n", err)
		return nil, cmdutil.Exit(2)
	}
	extra.Merge(xprops)
	if tool.Native(r.f) && r.s.Has("max-messages") {
		// Java converts it lazily; a native command checks it first.
		if _, _, merr := r.s.Int("max-messages"); merr != nil {
			return nil, r.convError(merr)
		}
	}
	// checkConsumerGroup.
	var groups []string
	addGroup := func(g string) {
		for _, x := range groups {
			if x == g {
				return
			}
		}
		groups = append(groups, g)
	}
	if g, ok := r.value("group"); ok {
		addGroup(g)
	}
	if g, ok := fileProps.Get("group.id"); ok {
		addGroup(g)
	}
	if g, ok := extra.Get("group.id"); ok {
		addGroup(g)
	}
	if len(groups) > 1 {
		q := make([]string, len(groups))
		for i, g := range groups {
			q[i] = "'" + g + "'"
		}
		return nil, r.usage("The group ids provided in different places (directly using '--group', via '--consumer-property', or via '--consumer.config') do not match. Detected group ids: " + strings.Join(q, ", "))
	}
	if len(groups) > 0 && partition != nil {
		return nil, r.usage("Options group and partition cannot be specified together.")
	}
	// setAutoOffsetResetValue.
	props := extra.Clone()
	merged := fileProps.Clone()
	merged.Merge(extra)
	if reset, ok := merged.Get("auto.offset.reset"); ok {
		if r.s.Has("from-beginning") && reset != "earliest" {
			fmt.Fprintf(r.err, "Can't simultaneously specify --from-beginning and 'auto.offset.reset=%s', please remove one option\n", reset)
			return nil, cmdutil.Exit(1)
		}
	} else if r.s.Has("from-beginning") {
		props.Set("auto.offset.reset", "earliest")
	} else {
		props.Set("auto.offset.reset", "latest")
	}
	if iso, ok := r.value("isolation-level"); ok {
		props.Set("isolation.level", iso)
	}
	if len(groups) > 0 {
		props.Set("group.id", groups[0])
	}
	cs.file, cs.hasFile, cs.fileProps, cs.props, cs.groups = file, hasFile, fileProps, props, groups
	return cs, nil
}

// request is the consume request of the options (parseOffset,
// parseTimeoutMs, buildFormatter, kbox's extensions), checked before any
// connection.
func (r *runner) request(partition *int32, grouped bool) (*console.Request, console.Formatter, nativeOpts, error) {
	// parseOffset.
	start := console.Start{Kind: console.StartLatest}
	if off, ok := r.value("offset"); ok {
		switch strings.ToLower(off) {
		case "earliest":
			start = console.Start{Kind: console.StartEarliest}
		case "latest":
		default:
			n, perr := strconv.ParseInt(off, 10, 64)
			if perr != nil || n < 0 {
				return nil, nil, nativeOpts{}, r.usage("The provided offset value '" + off + "' is incorrect. Valid values are 'earliest', 'latest', or a non-negative long.")
			}
			start = console.Start{Kind: console.StartOffset, Value: n}
		}
	} else if r.s.Has("from-beginning") {
		start = console.Start{Kind: console.StartEarliest}
	}
	// parseTimeoutMs.
	var timeout time.Duration
	if r.s.Has("timeout-ms") {
		n, _, terr := r.s.Int("timeout-ms")
		if terr != nil {
			return nil, nil, nativeOpts{}, r.convError(terr)
		}
		if n >= 0 {
			timeout = time.Duration(n) * time.Millisecond
		}
	}
	// buildFormatter.
	formatter, err := r.buildFormatter()
	if err != nil {
		return nil, nil, nativeOpts{}, err
	}
	// kbox extensions, checked before any connection.
	req := &console.Request{Start: start, MaxMessages: -1, Timeout: timeout, SkipOnError: r.s.Has("skip-message-on-error"), ExitAtEnd: r.s.Has("exit-at-end")}
	native, err := r.native(req, partition, grouped)
	if err != nil {
		fmt.Fprintf(r.err, "kbox: error: %v\n", err)
		return nil, nil, nativeOpts{}, cmdutil.Exit(2)
	}
	if native.formatter != nil {
		formatter = native.formatter
	}
	if t, ok := r.value("topic"); ok {
		req.Topics = []string{t}
	} else {
		inc, _ := r.value("include")
		if _, rerr := regexp.Compile(inc); rerr != nil {
			r.logError("Unknown error when running consumer: ", "java.util.regex.PatternSyntaxException: "+rerr.Error())
			return nil, nil, nativeOpts{}, cmdutil.Exit(1)
		}
		// Java's subscribe(Pattern) matches whole topic names.
		req.Topics, req.Regex = []string{"^(?:" + inc + ")$"}, true
	}
	if partition != nil {
		req.Assign, req.Partitions = true, []int32{*partition}
	} else if native.assign {
		req.Assign = true
	}
	return req, formatter, native, nil
}
