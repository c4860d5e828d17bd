package cmdutil

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kboxdev/kbox/pkg/config"
)

// Cluster is one cluster a multi-cluster command (kbox status, kbox ui)
// shows: its name (the profile's, or the address given), its resolved
// connection, and the brokers its profile expects (0: not said).
type Cluster struct {
	Name            string
	Conn            *config.Connection
	ExpectedBrokers int
	// Err is why the profile's connection could not be resolved (its
	// password-env variable unset, a password file unreadable, ...); Conn
	// is nil then. The command shows the cluster as an error with this
	// reason and goes on with the others.
	Err error
}

// Clusters resolves the clusters a multi-cluster command shows, every
// connection before any request (a password prompt, if any, happens here,
// one at a time): the one --bootstrap-server given (with the selected
// profile's other settings, security included, as every command reads
// it), else the --profile list (or KBOX_PROFILE), else every profile of
// the file by name. verb says what the command does with one cluster, for
// the error of --bootstrap-server with several profiles ("checks").
func Clusters(f *Factory, conn *ConnFlags, verb string) ([]Cluster, error) {
	if conn.Bootstrap != "" {
		ov, err := conn.Overrides(nil)
		if err != nil {
			return nil, err
		}
		if strings.Contains(f.Globals.Profile, ",") {
			return nil, FlagErrorf("--bootstrap-server %s one cluster: give at most one --profile", verb)
		}
		c, err := f.Connection(ov)
		if err != nil {
			return nil, err
		}
		return []Cluster{{Name: conn.Bootstrap, Conn: c}}, nil
	}
	file, _, err := f.Loader().File()
	if err != nil {
		return nil, err
	}
	names := profileNames(f.Globals.Profile, file)
	if len(names) == 0 {
		return nil, fmt.Errorf("no profiles in %s: add one (kbox profile) or give --bootstrap-server", f.Loader().ConfigPath())
	}
	var out []Cluster
	for _, name := range names {
		p, ok := file.Profiles[name]
		if !ok {
			return nil, fmt.Errorf("profile %q not found in %s", name, f.Loader().ConfigPath())
		}
		ov, err := conn.Overrides(nil)
		if err != nil {
			return nil, err
		}
		ov.Profile = name
		c, err := f.Connection(ov)
		if err != nil {
			err = fmt.Errorf("profile %s: %s", name, strings.TrimPrefix(err.Error(), fmt.Sprintf("profile %q: ", name)))
		}
		out = append(out, Cluster{Name: name, Conn: c, ExpectedBrokers: p.ExpectedBrokers, Err: err})
	}
	// One broken profile shows as an error while the others work; an
	// error every profile shares (a bad --command-config) is the
	// command's.
	if len(out) > 0 && out[0].Err != nil {
		same := true
		for _, c := range out[1:] {
			same = same && c.Err != nil && sameCause(c.Err, c.Name, out[0].Err, out[0].Name)
		}
		if same {
			return nil, out[0].Err
		}
	}
	return out, nil
}

// sameCause reports whether two profiles' errors are the same but for
// the profile's name.
func sameCause(a error, an string, b error, bn string) bool {
	return strings.ReplaceAll(a.Error(), an, "") == strings.ReplaceAll(b.Error(), bn, "")
}

// profileNames are the profiles selected: the --profile list (or
// KBOX_PROFILE) in its order without repeats, else every profile of the
// file by name.
func profileNames(sel string, file *config.File) []string {
	var names []string
	if sel != "" {
		seen := map[string]bool{}
		for _, n := range config.SplitList(sel) {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		return names
	}
	for n := range file.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
