// Package ui is `kbox ui`: a local web dashboard over every profile's
// cluster (pkg/dashboard serves it).
package ui

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
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
	conn          cmdutil.ConnFlags
	listen        string
	allowRemote   bool
	token         string
	tokenFile     string
	unsafeNoToken bool
	tlsCert       string
	tlsKey        string
	tlsSelfSigned bool
	trustedPlain  bool
	allowWrites   bool
	duration      time.Duration
	interval      time.Duration
	timeout       time.Duration
	limits        dashboard.Limits
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
change, preferred leader election and consumer-group offset reset, each
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
	fl := cmd.Flags()
	fl.StringVar(&o.listen, "listen", "127.0.0.1:8089", "address to listen on (host:port; port 0 picks a free one)")
	fl.BoolVar(&o.allowRemote, "allow-remote", false, "allow a non-loopback --listen address (needs --tls-cert/--tls-key, --tls-self-signed or --plain-http-on-trusted-network)")
	fl.StringVar(&o.token, "token", "", "access token (visible to every user in ps: prefer --token-file or KBOX_UI_TOKEN; default: generated)")
	fl.StringVar(&o.tokenFile, "token-file", "", "read the access token from this file (default: $KBOX_UI_TOKEN, else generated)")
	fl.BoolVar(&o.unsafeNoToken, "unsafe-no-token", false, "serve without an access token: ANY USER OF THIS HOST can then use the dashboard with your credentials (loopback only)")
	fl.StringVar(&o.tlsCert, "tls-cert", "", "serve HTTPS with this PEM certificate (chain) file, with --tls-key")
	fl.StringVar(&o.tlsKey, "tls-key", "", "the PEM private key of --tls-cert")
	fl.BoolVar(&o.tlsSelfSigned, "tls-self-signed", false, "serve HTTPS with a self-signed certificate made at start (its SHA-256 fingerprint is printed)")
	fl.BoolVar(&o.trustedPlain, "plain-http-on-trusted-network", false, "with --allow-remote, serve plain HTTP: the token crosses the network in cleartext, so the network must be trusted")
	fl.BoolVar(&o.allowWrites, "allow-writes", false, "enable writes (create topic, add partitions, config change, preferred election, offset reset), each confirmed")
	fl.DurationVar(&o.duration, "duration", 0, "stop after this long (0: until SIGINT/SIGTERM)")
	fl.DurationVar(&o.interval, "interval", 3*time.Second, "time between two rate samples of the live charts")
	fl.DurationVar(&o.timeout, "timeout", 10*time.Second, "per-cluster time limit of a health check")
	// The server's limits (docs/ui.md); hidden: tests shorten them.
	fl.DurationVar(&o.limits.ReadHeaderTimeout, "read-header-timeout", 0, "time limit of a request's headers and TLS handshake (default 10s)")
	fl.DurationVar(&o.limits.ReadTimeout, "read-timeout", 0, "time limit of a whole request, body included (default 30s)")
	fl.DurationVar(&o.limits.WriteTimeout, "write-timeout", 0, "time limit of a response (default the longer of --timeout and 30s, plus 30s)")
	fl.DurationVar(&o.limits.IdleTimeout, "idle-timeout", 0, "close a keep-alive connection idle this long (default 60s)")
	fl.IntVar(&o.limits.MaxConns, "max-connections", 0, "open connections at most (default 128)")
	for _, n := range []string{"read-header-timeout", "read-timeout", "write-timeout", "idle-timeout", "max-connections"} {
		_ = fl.MarkHidden(n)
	}
	return cmd
}

// minTokenLen: a shorter token is too easy to guess.
const minTokenLen = 16

// checkToken refuses a token that is empty, blank, short, or holds a
// character a cookie or URL would mangle (white space, quotes, ';', ',',
// '\', control characters).
func checkToken(src, tok string) error {
	if strings.TrimSpace(tok) == "" {
		return cmdutil.FlagErrorf("%s: the token is empty or white space only", src)
	}
	if len(tok) < minTokenLen {
		return cmdutil.FlagErrorf("%s: the token needs at least %d characters", src, minTokenLen)
	}
	for _, c := range []byte(tok) {
		if c <= ' ' || c >= 0x7f || c == '"' || c == ';' || c == ',' || c == '\\' {
			return cmdutil.FlagErrorf("%s: the token may hold printable ASCII characters only, without white space, quotes, ';', ',' or '\\'", src)
		}
	}
	return nil
}

// resolveToken picks the token: --token, --token-file, KBOX_UI_TOKEN, or
// a new random one ("" with --unsafe-no-token).
func resolveToken(f *cmdutil.Factory, cmd *cobra.Command, o *options) (string, error) {
	given := cmd.Flags().Changed("token")
	if given && o.tokenFile != "" {
		return "", cmdutil.FlagErrorf("--token and --token-file: give one")
	}
	env := f.Getenv("KBOX_UI_TOKEN")
	if o.unsafeNoToken {
		if given || o.tokenFile != "" {
			return "", cmdutil.FlagErrorf("--unsafe-no-token cannot be combined with --token or --token-file")
		}
		return "", nil
	}
	switch {
	case given:
		f.Warn("--token on the command line is visible to every user of this host (ps, /proc); use --token-file or KBOX_UI_TOKEN")
		return o.token, checkToken("--token", o.token)
	case o.tokenFile != "":
		b, err := os.ReadFile(o.tokenFile)
		if err != nil {
			return "", cmdutil.FlagErrorf("--token-file: %v", err)
		}
		if st, err := os.Stat(o.tokenFile); err == nil && st.Mode().Perm()&0o077 != 0 {
			f.Warn("--token-file %s is readable by other users (mode %04o); run chmod 600 %s", o.tokenFile, st.Mode().Perm(), o.tokenFile)
		}
		tok := strings.TrimSpace(string(b))
		return tok, checkToken("--token-file "+o.tokenFile, tok)
	case env != "":
		return env, checkToken("KBOX_UI_TOKEN", env)
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// serverTLS is the TLS configuration asked for, with the certificate's
// fingerprint, or nil for plain HTTP.
func serverTLS(o *options) (*tls.Config, string, error) {
	var cert tls.Certificate
	switch {
	case o.tlsSelfSigned:
		c, err := dashboard.SelfSigned(dashboard.LocalHosts())
		if err != nil {
			return nil, "", fmt.Errorf("self-signed certificate: %v", err)
		}
		cert = c
	case o.tlsCert != "":
		c, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
		if err != nil {
			return nil, "", cmdutil.FlagErrorf("--tls-cert/--tls-key: %v", err)
		}
		cert = c
	default:
		return nil, "", nil
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}, dashboard.Fingerprint(cert.Certificate[0]), nil
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
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return cmdutil.FlagErrorf("--tls-cert and --tls-key go together")
	}
	if o.tlsSelfSigned && o.tlsCert != "" {
		return cmdutil.FlagErrorf("--tls-self-signed or --tls-cert/--tls-key: give one")
	}
	tlsOn := o.tlsSelfSigned || o.tlsCert != ""
	if o.trustedPlain && (!o.allowRemote || tlsOn) {
		return cmdutil.FlagErrorf("--plain-http-on-trusted-network goes with --allow-remote and no TLS")
	}
	lim := dashboard.DefaultLimits(max(o.timeout, 30*time.Second))
	for _, d := range []*time.Duration{&o.limits.ReadHeaderTimeout, &o.limits.ReadTimeout, &o.limits.WriteTimeout, &o.limits.IdleTimeout} {
		if *d < 0 {
			return cmdutil.FlagErrorf("server timeouts must not be negative")
		}
	}
	if o.limits.ReadHeaderTimeout > 0 {
		lim.ReadHeaderTimeout = o.limits.ReadHeaderTimeout
	}
	if o.limits.ReadTimeout > 0 {
		lim.ReadTimeout = o.limits.ReadTimeout
	}
	if o.limits.WriteTimeout > 0 {
		lim.WriteTimeout = o.limits.WriteTimeout
	}
	if o.limits.IdleTimeout > 0 {
		lim.IdleTimeout = o.limits.IdleTimeout
	}
	if o.limits.MaxConns < 0 {
		return cmdutil.FlagErrorf("--max-connections %d: must not be negative", o.limits.MaxConns)
	}
	if o.limits.MaxConns > 0 {
		lim.MaxConns = o.limits.MaxConns
	}
	loop, err := dashboard.IsLoopbackListen(o.listen)
	if err != nil {
		return cmdutil.FlagErrorf("--listen %q: want host:port (%v)", o.listen, err)
	}
	if !loop {
		if !o.allowRemote {
			return cmdutil.FlagErrorf("--listen %s is not a loopback address: add --allow-remote (with HTTPS: --tls-cert/--tls-key or --tls-self-signed)", o.listen)
		}
		if !tlsOn && !o.trustedPlain {
			return cmdutil.FlagErrorf("--allow-remote serves HTTPS: give --tls-cert/--tls-key or --tls-self-signed (or, on a trusted network only, --plain-http-on-trusted-network)")
		}
		if o.unsafeNoToken {
			return cmdutil.FlagErrorf("--unsafe-no-token is for loopback only: a dashboard reachable from other machines needs a token")
		}
	}
	token, err := resolveToken(f, cmd, o)
	if err != nil {
		return err
	}
	tc, fingerprint, err := serverTLS(o)
	if err != nil {
		return err
	}
	clusters, err := buildClusters(f, o)
	if err != nil {
		return err
	}
	tcp, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %s", o.listen, strings.TrimPrefix(err.Error(), "listen tcp "+o.listen+": "))
	}
	host, port, _ := net.SplitHostPort(tcp.Addr().String())
	if h, _, _ := net.SplitHostPort(o.listen); h != "" && !net.ParseIP(h).Equal(net.ParseIP(host)) {
		host = h // a name (localhost) as given
	}
	srv, err := dashboard.New(dashboard.Options{Clusters: clusters, AllowWrites: o.allowWrites, Token: token, Remote: !loop,
		CookieName: "kbox_ui_token_" + port, Version: f.Version, RateInterval: o.interval, StatusTimeout: o.timeout})
	if err != nil {
		tcp.Close()
		return err
	}
	defer srv.Close()
	ln := dashboard.LimitListener(tcp, lim.MaxConns)
	scheme := "http"
	if tc != nil {
		ln, scheme = tls.NewListener(ln, tc), "https"
	}
	u := scheme + "://" + net.JoinHostPort(strings.Trim(dashboard.URLHost(host), "[]"), port) + "/"
	if token != "" {
		u += "?token=" + url.QueryEscape(token)
	}
	fmt.Fprintln(f.IO.Out, u)
	if fingerprint != "" {
		fmt.Fprintf(f.IO.Out, "TLS certificate SHA-256 fingerprint: %s\n", fingerprint)
	}
	mode := "read-only"
	if o.allowWrites {
		mode = "writes enabled"
	}
	fmt.Fprintf(f.IO.ErrOut, "kbox ui: %d cluster(s), %s; stop with Ctrl-C\n", len(clusters), mode)
	if token == "" {
		f.Warn("--unsafe-no-token: any user of this host can use this dashboard with your clusters' credentials")
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	hs := srv.HTTPServer(lim)
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
