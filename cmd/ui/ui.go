// Package ui is `kbox ui`: a local web dashboard over every profile's
// cluster (pkg/dashboard serves it).
package ui

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/groupsnative"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/dashboard"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/serde"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Applet is `kbox ui`. Like `kbox status` it reads the global --profile
// itself, as a comma-separated list of profiles.
var Applet = cmdutil.Applet{Kind: cmdutil.Command, Alias: "ui", NoProfile: true, Short: short, New: NewCmd}

const short = "Local web dashboard: clusters, brokers, topics, messages, groups, live rates, log dirs"

type options struct {
	conn        cmdutil.ConnFlags
	server      cmdutil.ServeFlags
	allowWrites bool
	duration    time.Duration
	interval    time.Duration
	timeout     time.Duration
	maskField   string
	registryURL string
}

// NewCmd builds `kbox ui`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "ui",
		Short: short,
		Long: `Serve a web dashboard of every profile's cluster (or --profile a,b, or one
--bootstrap-server), embedded in the binary (no CDN, nothing to install):
cluster health (as kbox status), brokers, topics (sizes; a topic's partitions,
paged, and configs with their sources), a topic's messages (one bounded page
at a time, from the newest, the oldest, an offset or a time, filtered by
partition and key or value text; Confluent-framed records decoded through the
profile's Schema Registry or --schema-registry, JSON fields masked with
--mask-field), consumer groups with lag in records
and in time, live records/s and bytes/s per topic (sampled every --interval
from end offsets and log-dir sizes, no JMX) and log-dir usage.

Every request needs an access token, on loopback too: any other user of this
host could otherwise read every cluster with your credentials (and write, with
--allow-writes). The token is generated at start, or read from --token-file or
KBOX_UI_TOKEN (--token works but shows the token to every user in ps). The
first line on stdout is the dashboard's URL with the token; opening it keeps
the token in an HttpOnly cookie. Scripts send Authorization: Bearer TOKEN.
--unsafe-no-token turns the token off (loopback only): do that only on a
machine no one else logs in to.

The server listens on loopback only, unless --allow-remote is given; then it
serves HTTPS, with --tls-cert/--tls-key or with --tls-self-signed (a
certificate made at start, whose SHA-256 fingerprint is printed to compare with
the browser's), or plain HTTP with --plain-http-on-trusted-network only.

Read-only unless --allow-writes: then topic create, add partitions, config
change, preferred leader election, consumer-group offset reset and producing a
record, each
previewed first (validate-only, dry run or plan, changing nothing) and applied
only when confirmed. Writes must come from the dashboard's own page
(cross-origin requests are refused). No profile secret ever reaches the
browser: it sees profile names, bootstrap servers and security protocols.

A profile that cannot be used (its password-env variable unset, ...) shows as
an error with its reason; the others work.

Stops on SIGINT/SIGTERM, or after --duration.`,
		Example: `  # every profile; open the printed URL
  kbox ui
  # two profiles, writes enabled, the token from a file
  kbox ui --profile prod,staging --allow-writes --token-file ~/.kbox-ui-token
  # reachable from other machines, over HTTPS with a certificate made at start
  kbox ui --listen 0.0.0.0:8089 --allow-remote --tls-self-signed`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmdutil.Context(cmd), f, cmd, o)
		},
	}
	o.conn.Register(cmd, true)
	o.server.Register(cmd, cmdutil.ServeSpec{Name: "kbox ui", What: "dashboard", DefaultListen: "127.0.0.1:8089", TokenEnv: "KBOX_UI_TOKEN"})
	fl := cmd.Flags()
	fl.BoolVar(&o.allowWrites, "allow-writes", false, "enable writes (create topic, add partitions, config change, preferred election, offset reset, produce a record), each confirmed")
	fl.DurationVar(&o.duration, "duration", 0, "stop after this long (0: until SIGINT/SIGTERM)")
	fl.DurationVar(&o.interval, "interval", 3*time.Second, "time between two rate samples of the live charts, and how long the log dirs and a topic's offsets serve the topic pages")
	fl.DurationVar(&o.timeout, "timeout", 10*time.Second, "per-cluster time limit of a health check")
	fl.StringVar(&o.maskField, "mask-field", "", "on the Messages page, replace the value of every JSON field whose name matches this regular expression with \"***\"")
	cmdutil.AddRegistryFlag(cmd, &o.registryURL)
	return cmd
}

func run(ctx context.Context, f *cmdutil.Factory, cmd *cobra.Command, o *options) error {
	if o.duration < 0 {
		return cmdutil.FlagErrorf("--duration %s: must not be negative", o.duration)
	}
	if o.interval < time.Second {
		return cmdutil.FlagErrorf("--interval %s: must be at least 1s", o.interval)
	}
	if o.timeout <= 0 {
		return cmdutil.FlagErrorf("--timeout %s: must be positive", o.timeout)
	}
	var mask *regexp.Regexp
	if o.maskField != "" {
		var err error
		if mask, err = regexp.Compile(o.maskField); err != nil {
			return cmdutil.FlagErrorf("--mask-field: %v", err)
		}
	}
	sv, err := o.server.Resolve(f, cmd, o.timeout)
	if err != nil {
		return err
	}
	clusters, err := buildClusters(f, o)
	if err != nil {
		return err
	}
	ln, base, port, err := sv.Listen()
	if err != nil {
		return err
	}
	srv, err := dashboard.New(dashboard.Options{Clusters: clusters, AllowWrites: o.allowWrites, Token: sv.Token, Remote: !sv.Loopback,
		CookieName: "kbox_ui_token_" + port, Version: f.Version, Mask: mask, RateInterval: o.interval, StatusTimeout: o.timeout})
	if err != nil {
		ln.Close()
		return err
	}
	defer srv.Close()
	u := base + "/"
	if sv.Token != "" {
		u += "?token=" + url.QueryEscape(sv.Token)
	}
	fmt.Fprintln(f.IO.Out, u)
	if sv.Fingerprint != "" {
		fmt.Fprintf(f.IO.Out, "TLS certificate SHA-256 fingerprint: %s\n", sv.Fingerprint)
	}
	mode := "read-only"
	if o.allowWrites {
		mode = "writes enabled"
	}
	fmt.Fprintf(f.IO.ErrOut, "kbox ui: %d cluster(s), %s; stop with Ctrl-C\n", len(clusters), mode)
	if sv.Token == "" {
		f.Warn("--unsafe-no-token: any user of this host can use this dashboard with your clusters' credentials")
	}

	return sv.Serve(ctx, ln, srv, o.duration)
}

// buildClusters resolves every selected cluster's connection before the
// server starts, as kbox status does; clients connect on the first request.
func buildClusters(f *cmdutil.Factory, o *options) ([]dashboard.Cluster, error) {
	clusters, err := cmdutil.Clusters(f, &o.conn, "shows")
	if err != nil {
		return nil, err
	}
	out := make([]dashboard.Cluster, 0, len(clusters))
	for _, c := range clusters {
		if c.Err != nil {
			// A profile that did not resolve: shown with its reason.
			out = append(out, dashboard.Cluster{Name: c.Name, Err: c.Err})
			continue
		}
		dc := cluster(f, c.Name, c.Conn, c.ExpectedBrokers)
		profile := c.Name
		if o.conn.Bootstrap != "" {
			profile = f.Globals.Profile
		}
		dc.Registry = registry(f, profile, o.registryURL)
		out = append(out, dc)
	}
	return out, nil
}

// registry is a profile's Schema Registry for the Messages page (nil
// when it has none: framed records are shown raw, with the reason). One
// that cannot be opened is warned about; the cluster still works.
func registry(f *cmdutil.Factory, profile, url string) *serde.Registry {
	conn, err := f.Loader().Registry(profile, url)
	if errors.Is(err, config.ErrNoRegistry) {
		return nil
	}
	var reg *serde.Registry
	if err == nil {
		reg, err = serde.Open(conn)
	}
	if err != nil {
		f.Warn("profile %s: schema registry: %v (framed records are shown raw)", profile, err)
		return nil
	}
	return reg
}

// cluster is one connection as the dashboard sees it: the bootstrap list
// and security protocol only, never a property that may hold a secret.
func cluster(f *cmdutil.Factory, name string, conn *config.Connection, expected int) dashboard.Cluster {
	proto := "PLAINTEXT"
	if conn.Props != nil {
		if v, ok := conn.Props.Get("security.protocol"); ok && v != "" {
			proto = strings.ToUpper(v)
		}
	}
	return dashboard.Cluster{
		Name:             name,
		Bootstrap:        append([]string(nil), conn.Bootstrap...),
		SecurityProtocol: proto,
		ExpectedBrokers:  expected,
		Connect: func(ctx context.Context) (*kafka.Client, error) {
			return f.ConnectedClient(ctx, conn, kafka.Admin, kafka.Options{})
		},
		Producer: func(ctx context.Context) (*kafka.Client, error) {
			return f.ConnectedClient(ctx, conn, kafka.Producer, kafka.Options{Tune: func(s *kafka.Settings) { s.ExplicitPartitions = true }})
		},
		Reader: func(context.Context) (*kgo.Client, func(), error) {
			r, err := groupsnative.NewReader(f, conn)
			if err != nil {
				return nil, nil, err
			}
			return r.Client, r.Close, nil
		},
	}
}
