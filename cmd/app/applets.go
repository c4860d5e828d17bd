package app

import (
	"sort"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/logdirs"
	"github.com/kboxdev/kbox/cmd/perf"
	"github.com/kboxdev/kbox/cmd/topics"
	"github.com/kboxdev/kbox/cmd/verifiableconsumer"
	"github.com/kboxdev/kbox/cmd/verifiableproducer"
	"github.com/kboxdev/kbox/cmd/verify"
)

// applets is the one table of applets. It drives argv[0] dispatch,
// `kbox --help`, `kbox install-links` and the tests. An applet is added here
// only when it really works.
var applets = []cmdutil.Applet{
	logdirs.Applet,
	perf.ProducerApplet, perf.ConsumerApplet,
	perf.E2EApplet,
	topics.Applet,
	verifiableproducer.Applet, verifiableconsumer.Applet,
}

// natives are kbox's own command groups that have no Apache script name:
// reachable as `kbox ALIAS ...` only, never through a link.
var natives = []cmdutil.Applet{
	perf.NativeApplet,
	verify.NativeApplet,
}

// Applets returns the applet table sorted by name.
func Applets() []cmdutil.Applet {
	out := append([]cmdutil.Applet(nil), applets...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LinkNames returns every name a link may have: each applet with and
// without ".sh".
func LinkNames() []string {
	var out []string
	for _, a := range Applets() {
		out = append(out, a.Name, a.Name+".sh")
	}
	return out
}

// lookupApplet finds an applet by Apache name (".sh" and ".exe" stripped) or
// native alias.
func lookupApplet(name string) (cmdutil.Applet, bool) {
	n := trimName(name)
	for _, a := range applets {
		if a.Name == n || (a.Alias != "" && a.Alias == name) {
			return a, true
		}
	}
	return cmdutil.Applet{}, false
}

func trimName(name string) string {
	name = strings.TrimSuffix(name, ".exe")
	return strings.TrimSuffix(name, ".sh")
}
