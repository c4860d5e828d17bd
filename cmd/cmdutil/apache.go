package cmdutil

import "strings"

// PrepareApache is the command layer's part of running an Apache drop-in.
// It takes kbox's --profile extension (`--profile NAME`, `--profile=NAME`)
// out of args, whatever the applet's own parser, and checks the selected
// profile: one that does not exist is an error naming it, the same in
// every applet. When the arguments name no bootstrap server and the
// profile (or KBOX_BOOTSTRAP_SERVERS) gives some, it adds
// `--bootstrap-server LIST`, so the Apache parsers' required-argument
// checks pass; Connection then drops that value again, so a bootstrap list
// in a --command-config file keeps its precedence over the profile's.
func (f *Factory) PrepareApache(args []string) ([]string, error) {
	out := make([]string, 0, len(args)+2)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		switch {
		case a == "--profile":
			if i+1 >= len(args) {
				return nil, FlagErrorf("flag --profile needs a value")
			}
			f.Globals.Profile = args[i+1]
			i++
			continue
		case strings.HasPrefix(a, "--profile="):
			f.Globals.Profile = strings.TrimPrefix(a, "--profile=")
			continue
		}
		out = append(out, a)
	}
	sel, err := f.Selection()
	if err != nil {
		return nil, err
	}
	if len(sel.Bootstrap) > 0 && hasLongOption(out) && !namesBootstrap(out) {
		bs := strings.Join(sel.Bootstrap, ",")
		f.mu.Lock()
		f.injected = bs
		f.mu.Unlock()
		out = append([]string{"--bootstrap-server", bs}, out...)
	}
	return out, nil
}

// hasLongOption reports whether args use named options at all: a bare
// invocation (which prints usage) or the positional form of a legacy tool
// gets nothing added.
func hasLongOption(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "--") && len(a) > 2 {
			return true
		}
	}
	return false
}

// namesBootstrap reports whether Apache arguments give a bootstrap server
// (--bootstrap-server, --broker-list, or an abbreviation the Java parsers
// accept).
func namesBootstrap(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if !strings.HasPrefix(a, "--") || len(a) < 5 {
			continue
		}
		name, _, _ := strings.Cut(a[2:], "=")
		for _, full := range []string{"bootstrap-server", "bootstrap-servers", "broker-list"} {
			if strings.HasPrefix(full, name) {
				return true
			}
		}
	}
	return false
}

// droppedInjected returns the overrides without a bootstrap list that
// PrepareApache added (it came from the profile, which Resolve applies in
// its own place).
func (f *Factory) droppedInjected(bootstrap string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.injected != "" && bootstrap == f.injected {
		return ""
	}
	return bootstrap
}
