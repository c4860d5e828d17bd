package cmdutil

import "strings"

// ApacheName reports whether the program was invoked by an Apache tool's
// name (a link named kafka-topics, or `kbox kafka-topics`) rather than by
// a kbox name (`kbox topics`, a native command). Under an Apache name the
// tool prints what Apache's would: the environment and the profile do not
// choose its output format, only an explicit -o does.
func (f *Factory) ApacheName() bool {
	return f.Invoked != "" && !strings.HasPrefix(f.Invoked, "kbox")
}

// PrepareApache is the command layer's part of running the Apache drop-in
// a. It takes kbox's --profile extension (`--profile NAME`,
// `--profile=NAME`) out of args, whatever the applet's own parser, and
// checks the selected profile: one that does not exist is an error naming
// it, the same in every applet.
//
// When the arguments name no connection (none of a.ConnOptions) and the
// profile (or KBOX_BOOTSTRAP_SERVERS) gives bootstrap servers, it adds
// `--bootstrap-server LIST`, so the Apache parsers' required-argument
// checks pass; Connection then drops that value again, so a bootstrap list
// in a --command-config file keeps its precedence over the profile's.
// When they name one, nothing is added, and under the Apache name the
// connection is the arguments' own: the config file's current profile and
// KBOX_BOOTSTRAP_SERVERS do not apply to it (a profile chosen by --profile
// or KBOX_PROFILE does).
func (f *Factory) PrepareApache(a Applet, args []string) ([]string, error) {
	out := make([]string, 0, len(args)+2)
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			out = append(out, args[i:]...)
			break
		}
		switch {
		case arg == "--profile":
			if i+1 >= len(args) {
				return nil, FlagErrorf("flag --profile needs a value")
			}
			f.Globals.Profile = args[i+1]
			i++
			continue
		case strings.HasPrefix(arg, "--profile="):
			f.Globals.Profile = strings.TrimPrefix(arg, "--profile=")
			continue
		}
		out = append(out, arg)
	}
	sel, err := f.Selection()
	if err != nil {
		return nil, err
	}
	if a.Offline {
		return out, nil
	}
	if a.NamesConnection(out) {
		if f.ApacheName() {
			f.mu.Lock()
			f.argsConn = true
			f.mu.Unlock()
		}
		return out, nil
	}
	if a.ConnAfterCommand && !a.namesApacheCommand(out) {
		return out, nil // no subcommand: no place for connection options
	}
	opt, list := "--bootstrap-server", sel.Bootstrap
	if len(list) == 0 && a.Controllers {
		// A profile with controllers only (bootstrap-controllers), for a
		// tool that can talk to them.
		opt, list = "--bootstrap-controller", sel.Controllers
	}
	if len(list) > 0 && (hasLongOption(out) || a.namesApacheCommand(out)) {
		bs := strings.Join(list, ",")
		f.mu.Lock()
		f.injected = bs
		f.mu.Unlock()
		if a.ConnAfterCommand && a.namesApacheCommand(out) {
			return append([]string{out[0], opt, bs}, out[1:]...), nil
		}
		out = append([]string{opt, bs}, out...)
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

// NamesConnection reports whether the Apache arguments give one of the
// drop-in's connection options (ConnOptions): `--NAME`, `--NAME=VALUE`,
// or, for a tool whose parser takes abbreviations, a prefix of NAME; or
// one of their short forms (ConnShort: `-b`, `-bVALUE`).
func (a Applet) NamesConnection(args []string) bool {
	for _, arg := range args {
		if arg == "--" {
			return false
		}
		for _, short := range a.ConnShort {
			if strings.HasPrefix(arg, short) {
				return true
			}
		}
		if !strings.HasPrefix(arg, "--") || len(arg) < 3 {
			continue
		}
		name, _, _ := strings.Cut(arg[2:], "=")
		for _, full := range a.ConnOptions {
			if name == full || (a.AbbrevOptions && strings.HasPrefix(full, name)) {
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

// Injected is the bootstrap list PrepareApache added to the arguments as
// `--bootstrap-server LIST` ("" when none): a drop-in whose tool names
// its servers otherwise (kafka-replica-verification's --broker-list)
// takes it under its own option.
func (f *Factory) Injected() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.injected
}
