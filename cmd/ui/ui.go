// Package ui is `kbox ui`: a local web dashboard over every profile's
// cluster (pkg/dashboard serves it).
package ui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/groupsnative"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/dashboard"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Applet is `kbox ui`. Like `kbox status` it reads the global --profile
// itself, as a comma-separated list of profiles.
var Applet = cmdutil.Applet{Kind: cmdutil.Command, Alias: "ui", NoProfile: true, Short: short, New: NewCmd}

const short = "Local web dashboard: clusters, brokers, topics, groups, live rates, log dirs"

type options struct {
	conn        cmdutil.ConnFlags
	listen      string
	allowRemote bool
	token       string
	allowWrites bool
	duration    time.Duration
	interval    time.Duration
	timeout     time.Duration
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
paged, and configs with their sources), consumer groups with lag in records
and in time, live records/s and bytes/s per topic (sampled every --interval
from end offsets and log-dir sizes, no JMX) and log-dir usage.

The first line on stdout is the dashboard's URL (with --listen 127.0.0.1:0 the
port is chosen). The server listens on loopback only, unless --allow-remote is
given; a non-loopback --listen then needs an access token: --token (or
KBOX_UI_TOKEN), else one is generated and printed once, in the URL. Every
request must then carry it (the URL sets a cookie); a request without it is
refused (401).

Read-only unless --allow-writes: then topic create, add partitions, config
change, preferred leader election and consumer-group offset reset, each
previewed first (validate-only, dry run or plan, changing nothing) and applied
only when confirmed. Writes must come from the dashboard's own page
(cross-origin requests are refused). No profile secret ever reaches the
browser: it sees profile names, bootstrap servers and security protocols.

Stops on SIGINT/SIGTERM, or after --duration.`,
		Example: `  # every profile, on a chosen port
  kbox ui
  # two profiles, writes enabled
  kbox ui --profile prod,staging --allow-writes
  # reachable from other machines, with a generated token
  kbox ui --listen 0.0.0.0:8089 --allow-remote`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmdutil.Context(cmd), f, o)
		},
	}
	o.conn.Register(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&o.listen, "listen", "127.0.0.1:8089", "address to listen on (host:port; port 0 picks a free one)")
	fl.BoolVar(&o.allowRemote, "allow-remote", false, "allow a non-loopback --listen address (an access token is then required)")
	fl.StringVar(&o.token, "token", "", "access token every request must carry (default: $KBOX_UI_TOKEN; generated with --allow-remote)")
	fl.BoolVar(&o.allowWrites, "allow-writes", false, "enable writes (create topic, add partitions, config change, preferred election, offset reset), each confirmed")
	fl.DurationVar(&o.duration, "duration", 0, "stop after this long (0: until SIGINT/SIGTERM)")
	fl.DurationVar(&o.interval, "interval", 3*time.Second, "time between two rate samples of the live charts")
	fl.DurationVar(&o.timeout, "timeout", 10*time.Second, "per-cluster time limit of a health check")
	return cmd
}

// minTokenLen: a shorter token is too easy to guess.
const minTokenLen = 16

func run(ctx context.Context, f *cmdutil.Factory, o *options) error {
	if o.duration < 0 {
		return cmdutil.FlagErrorf("--duration %s: must not be negative", o.duration)
	}
	if o.interval < time.Second {
		return cmdutil.FlagErrorf("--interval %s: must be at least 1s", o.interval)
	}
	if o.timeout <= 0 {
		return cmdutil.FlagErrorf("--timeout %s: must be positive", o.timeout)
	}
	if o.token == "" {
		o.token = f.Getenv("KBOX_UI_TOKEN")
	}
	if o.token != "" && len(o.token) < minTokenLen {
		return cmdutil.FlagErrorf("--token: at least %d characters", minTokenLen)
	}
	loop, err := dashboard.IsLoopbackListen(o.listen)
	if err != nil {
		return cmdutil.FlagErrorf("--listen %q: want host:port (%v)", o.listen, err)
	}
	generated := false
	if !loop {
		if !o.allowRemote {
			return cmdutil.FlagErrorf("--listen %s is not a loopback address: add --allow-remote (an access token is then required)", o.listen)
		}
		if o.token == "" {
			b := make([]byte, 24)
			if _, err := rand.Read(b); err != nil {
				return err
			}
			o.token, generated = hex.EncodeToString(b), true
		}
	}
	clusters, err := buildClusters(f, o)
	if err != nil {
		return err
	}
	srv, err := dashboard.New(dashboard.Options{Clusters: clusters, AllowWrites: o.allowWrites, Token: o.token, Version: f.Version, RateInterval: o.interval, StatusTimeout: o.timeout})
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %s", o.listen, strings.TrimPrefix(err.Error(), "listen tcp "+o.listen+": "))
	}
	u := "http://" + ln.Addr().String() + "/"
	if generated {
		u += "?token=" + o.token
	}
	fmt.Fprintln(f.IO.Out, u)
	mode := "read-only"
	if o.allowWrites {
		mode = "writes enabled"
	}
	fmt.Fprintf(f.IO.ErrOut, "kbox ui: %d cluster(s), %s; stop with Ctrl-C\n", len(clusters), mode)

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	<-served
	return nil
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
		out = append(out, cluster(f, c.Name, c.Conn, c.ExpectedBrokers))
	}
	return out, nil
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
		Connect: func(ctx context.Context) (*kgo.Client, error) {
			cl, err := f.ConnectedClient(ctx, conn, kafka.Admin, kafka.Options{})
			if err != nil {
				return nil, err
			}
			return cl.Client, nil
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
