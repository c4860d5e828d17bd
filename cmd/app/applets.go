package app

import (
	"sort"
	"strings"

	"github.com/kboxdev/kbox/cmd/acls"
	"github.com/kboxdev/kbox/cmd/brokerapiversions"
	"github.com/kboxdev/kbox/cmd/clientmetrics"
	"github.com/kboxdev/kbox/cmd/cluster"
	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/configs"
	"github.com/kboxdev/kbox/cmd/consoleconsumer"
	"github.com/kboxdev/kbox/cmd/consoleproducer"
	"github.com/kboxdev/kbox/cmd/consumergroups"
	"github.com/kboxdev/kbox/cmd/consumerperf"
	"github.com/kboxdev/kbox/cmd/delegationtokens"
	"github.com/kboxdev/kbox/cmd/deleterecords"
	"github.com/kboxdev/kbox/cmd/dumplog"
	"github.com/kboxdev/kbox/cmd/e2elatency"
	"github.com/kboxdev/kbox/cmd/exporter"
	"github.com/kboxdev/kbox/cmd/features"
	"github.com/kboxdev/kbox/cmd/getoffsets"
	"github.com/kboxdev/kbox/cmd/kafkagroups"
	"github.com/kboxdev/kbox/cmd/leaderelection"
	"github.com/kboxdev/kbox/cmd/logdirs"
	"github.com/kboxdev/kbox/cmd/metadataquorum"
	"github.com/kboxdev/kbox/cmd/perf"
	"github.com/kboxdev/kbox/cmd/producerperf"
	"github.com/kboxdev/kbox/cmd/profile"
	"github.com/kboxdev/kbox/cmd/reassignpartitions"
	"github.com/kboxdev/kbox/cmd/replicaverification"
	"github.com/kboxdev/kbox/cmd/schema"
	"github.com/kboxdev/kbox/cmd/status"
	"github.com/kboxdev/kbox/cmd/topics"
	"github.com/kboxdev/kbox/cmd/transactions"
	"github.com/kboxdev/kbox/cmd/ui"
	"github.com/kboxdev/kbox/cmd/verifiableconsumer"
	"github.com/kboxdev/kbox/cmd/verifiableproducer"
	"github.com/kboxdev/kbox/cmd/verify"
)

// applets is the one registry: every Apache drop-in, native group and
// native command. It drives argv[0] dispatch, `kbox --help`, `kbox
// install-links` and the tests. An entry is added here only when it really
// works; a new applet plugs in with one line.
var applets = []cmdutil.Applet{
	// Apache drop-ins (links named Name, and `kbox Alias`).
	logdirs.Applet,
	producerperf.Applet, consumerperf.Applet, e2elatency.Applet,
	topics.Applet,
	verifiableproducer.Applet, verifiableconsumer.Applet,
	consumergroups.Applet,
	consoleconsumer.Applet, consoleproducer.Applet,
	reassignpartitions.Applet, leaderelection.Applet,
	getoffsets.Applet, deleterecords.Applet,
	dumplog.Applet,
	metadataquorum.Applet, features.Applet,
	configs.Applet,
	acls.Applet,
	cluster.Applet, brokerapiversions.Applet, kafkagroups.Applet,
	replicaverification.Applet,
	clientmetrics.Applet,
	delegationtokens.Applet,
	transactions.Applet,
	// Native groups and commands (`kbox Alias`).
	perf.Applet,
	profile.Applet,
	verify.NativeApplet,
	installLinksApplet,
	versionApplet,
	playgroundApplet,
	status.Applet, status.TopApplet,
	ui.Applet,
	schema.Applet,
	exporter.Applet,
	genManApplet, genCompletionsApplet,
}

// Applets returns the registry's Apache drop-ins sorted by name.
func Applets() []cmdutil.Applet {
	var out []cmdutil.Applet
	for _, a := range applets {
		if a.Kind == cmdutil.Apache {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// natives returns the registry's native groups and commands sorted by name.
func natives() []cmdutil.Applet {
	var out []cmdutil.Applet
	for _, a := range applets {
		if a.Kind != cmdutil.Apache {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Alias < out[j].Alias })
	return out
}

// LinkNames returns every name a link may have: each Apache drop-in with and
// without ".sh".
func LinkNames() []string {
	var out []string
	for _, a := range Applets() {
		out = append(out, a.Name, a.Name+".sh")
	}
	return out
}

// lookupApplet finds an Apache drop-in by Apache name (".sh" and ".exe"
// stripped) or native alias.
func lookupApplet(name string) (cmdutil.Applet, bool) {
	n := trimName(name)
	for _, a := range applets {
		if a.Kind != cmdutil.Apache {
			continue
		}
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
