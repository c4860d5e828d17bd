package cmdutil

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/serve"
	"github.com/spf13/cobra"
)

// ServeSpec is what differs between kbox's servers (kbox ui, kbox
// exporter) in their common server options.
type ServeSpec struct {
	// Name names the server in its self-signed certificate ("kbox ui");
	// What in messages ("dashboard").
	Name, What string
	// DefaultListen is the default --listen address.
	DefaultListen string
	// TokenEnv is the environment variable that may hold the token.
	TokenEnv string
	// TokenOptional: on loopback the server needs no token unless one is
	// given (beyond loopback one must be given). Otherwise a token is
	// generated when none is given, and --unsafe-no-token turns it off
	// (loopback only).
	TokenOptional bool
}

// ServeFlags are the server options kbox ui and kbox exporter share:
// where to listen, the access token, TLS for remote clients, and the
// server's limits (hidden flags: tests shorten them).
type ServeFlags struct {
	spec          ServeSpec
	listen        string
	allowRemote   bool
	token         string
	tokenFile     string
	unsafeNoToken bool
	tlsCert       string
	tlsKey        string
	tlsSelfSigned bool
	trustedPlain  bool
	limits        serve.Limits
}

// Server is the validated server options.
type Server struct {
	// Token is required on every request when set.
	Token string
	// Loopback: --listen binds loopback only.
	Loopback bool
	// TLS is nil for plain HTTP; Fingerprint is its certificate's.
	TLS         *tls.Config
	Fingerprint string
	Limits      serve.Limits
	listen      string
}

// Register adds the server options to cmd.
func (s *ServeFlags) Register(cmd *cobra.Command, spec ServeSpec) {
	s.spec = spec
	fl := cmd.Flags()
	fl.StringVar(&s.listen, "listen", spec.DefaultListen, "address to listen on (host:port; port 0 picks a free one)")
	fl.BoolVar(&s.allowRemote, "allow-remote", false, "allow a non-loopback --listen address (needs --tls-cert/--tls-key, --tls-self-signed or --plain-http-on-trusted-network)")
	def := "default: generated"
	if spec.TokenOptional {
		def = "default: none on loopback"
	}
	fl.StringVar(&s.token, "token", "", fmt.Sprintf("access token (visible to every user in ps: prefer --token-file or %s; %s)", spec.TokenEnv, def))
	if spec.TokenOptional {
		fl.StringVar(&s.tokenFile, "token-file", "", fmt.Sprintf("read the access token from this file (default: $%s, else none; required with --allow-remote)", spec.TokenEnv))
	} else {
		fl.StringVar(&s.tokenFile, "token-file", "", fmt.Sprintf("read the access token from this file (default: $%s, else generated)", spec.TokenEnv))
		fl.BoolVar(&s.unsafeNoToken, "unsafe-no-token", false, fmt.Sprintf("serve without an access token: ANY USER OF THIS HOST can then use the %s with your credentials (loopback only)", spec.What))
	}
	fl.StringVar(&s.tlsCert, "tls-cert", "", "serve HTTPS with this PEM certificate (chain) file, with --tls-key")
	fl.StringVar(&s.tlsKey, "tls-key", "", "the PEM private key of --tls-cert")
	fl.BoolVar(&s.tlsSelfSigned, "tls-self-signed", false, "serve HTTPS with a self-signed certificate made at start (its SHA-256 fingerprint is printed)")
	fl.BoolVar(&s.trustedPlain, "plain-http-on-trusted-network", false, "with --allow-remote, serve plain HTTP: the token crosses the network in cleartext, so the network must be trusted")
	fl.DurationVar(&s.limits.ReadHeaderTimeout, "read-header-timeout", 0, "time limit of a request's headers and TLS handshake (default 10s)")
	fl.DurationVar(&s.limits.ReadTimeout, "read-timeout", 0, "time limit of a whole request, body included (default 30s)")
	fl.DurationVar(&s.limits.WriteTimeout, "write-timeout", 0, "time limit of a response (default the longer of --timeout and 30s, plus 30s)")
	fl.DurationVar(&s.limits.IdleTimeout, "idle-timeout", 0, "close a keep-alive connection idle this long (default 60s)")
	fl.IntVar(&s.limits.MaxConns, "max-connections", 0, "open connections at most (default 128)")
	for _, n := range []string{"read-header-timeout", "read-timeout", "write-timeout", "idle-timeout", "max-connections"} {
		_ = fl.MarkHidden(n)
	}
}

// Resolve validates the options, reads the token and makes the TLS
// configuration, before anything listens; work is the longest work of
// one request, which the write timeout must exceed.
func (s *ServeFlags) Resolve(f *Factory, cmd *cobra.Command, work time.Duration) (*Server, error) {
	if (s.tlsCert == "") != (s.tlsKey == "") {
		return nil, FlagErrorf("--tls-cert and --tls-key go together")
	}
	if s.tlsSelfSigned && s.tlsCert != "" {
		return nil, FlagErrorf("--tls-self-signed or --tls-cert/--tls-key: give one")
	}
	tlsOn := s.tlsSelfSigned || s.tlsCert != ""
	if s.trustedPlain && (!s.allowRemote || tlsOn) {
		return nil, FlagErrorf("--plain-http-on-trusted-network goes with --allow-remote and no TLS")
	}
	lim := serve.DefaultLimits(max(work, 30*time.Second))
	for _, d := range []*time.Duration{&s.limits.ReadHeaderTimeout, &s.limits.ReadTimeout, &s.limits.WriteTimeout, &s.limits.IdleTimeout} {
		if *d < 0 {
			return nil, FlagErrorf("server timeouts must not be negative")
		}
	}
	if s.limits.ReadHeaderTimeout > 0 {
		lim.ReadHeaderTimeout = s.limits.ReadHeaderTimeout
	}
	if s.limits.ReadTimeout > 0 {
		lim.ReadTimeout = s.limits.ReadTimeout
	}
	if s.limits.WriteTimeout > 0 {
		lim.WriteTimeout = s.limits.WriteTimeout
	}
	if s.limits.IdleTimeout > 0 {
		lim.IdleTimeout = s.limits.IdleTimeout
	}
	if s.limits.MaxConns < 0 {
		return nil, FlagErrorf("--max-connections %d: must not be negative", s.limits.MaxConns)
	}
	if s.limits.MaxConns > 0 {
		lim.MaxConns = s.limits.MaxConns
	}
	loop, err := serve.IsLoopbackListen(s.listen)
	if err != nil {
		return nil, FlagErrorf("--listen %q: want host:port (%v)", s.listen, err)
	}
	if !loop {
		if !s.allowRemote {
			return nil, FlagErrorf("--listen %s is not a loopback address: add --allow-remote (with HTTPS: --tls-cert/--tls-key or --tls-self-signed)", s.listen)
		}
		if !tlsOn && !s.trustedPlain {
			return nil, FlagErrorf("--allow-remote serves HTTPS: give --tls-cert/--tls-key or --tls-self-signed (or, on a trusted network only, --plain-http-on-trusted-network)")
		}
		if s.unsafeNoToken {
			return nil, FlagErrorf("--unsafe-no-token is for loopback only: a %s reachable from other machines needs a token", s.spec.What)
		}
	}
	token, err := s.resolveToken(f, cmd)
	if err != nil {
		return nil, err
	}
	if token == "" && !loop && s.spec.TokenOptional {
		return nil, FlagErrorf("--allow-remote needs an access token: give --token-file or %s", s.spec.TokenEnv)
	}
	tc, fingerprint, err := s.serverTLS()
	if err != nil {
		return nil, err
	}
	return &Server{Token: token, Loopback: loop, TLS: tc, Fingerprint: fingerprint, Limits: lim, listen: s.listen}, nil
}

// minTokenLen: a shorter token is too easy to guess.
const minTokenLen = 16

// checkToken refuses a token that is empty, blank, short, or holds a
// character a cookie or URL would mangle (white space, quotes, ';', ',',
// '\', control characters).
func checkToken(src, tok string) error {
	if strings.TrimSpace(tok) == "" {
		return FlagErrorf("%s: the token is empty or white space only", src)
	}
	if len(tok) < minTokenLen {
		return FlagErrorf("%s: the token needs at least %d characters", src, minTokenLen)
	}
	for _, c := range []byte(tok) {
		if c <= ' ' || c >= 0x7f || c == '"' || c == ';' || c == ',' || c == '\\' {
			return FlagErrorf("%s: the token may hold printable ASCII characters only, without white space, quotes, ';', ',' or '\\'", src)
		}
	}
	return nil
}

// resolveToken picks the token: --token, --token-file, the environment,
// else a new random one ("" with --unsafe-no-token, or when the token is
// optional).
func (s *ServeFlags) resolveToken(f *Factory, cmd *cobra.Command) (string, error) {
	given := cmd.Flags().Changed("token")
	if given && s.tokenFile != "" {
		return "", FlagErrorf("--token and --token-file: give one")
	}
	env := f.Getenv(s.spec.TokenEnv)
	if s.unsafeNoToken {
		if given || s.tokenFile != "" {
			return "", FlagErrorf("--unsafe-no-token cannot be combined with --token or --token-file")
		}
		return "", nil
	}
	switch {
	case given:
		f.Warn("--token on the command line is visible to every user of this host (ps, /proc); use --token-file or %s", s.spec.TokenEnv)
		return s.token, checkToken("--token", s.token)
	case s.tokenFile != "":
		b, err := os.ReadFile(s.tokenFile)
		if err != nil {
			return "", FlagErrorf("--token-file: %v", err)
		}
		if st, err := os.Stat(s.tokenFile); err == nil && st.Mode().Perm()&0o077 != 0 {
			f.Warn("--token-file %s is readable by other users (mode %04o); run chmod 600 %s", s.tokenFile, st.Mode().Perm(), s.tokenFile)
		}
		tok := strings.TrimSpace(string(b))
		return tok, checkToken("--token-file "+s.tokenFile, tok)
	case env != "":
		return env, checkToken(s.spec.TokenEnv, env)
	case s.spec.TokenOptional:
		return "", nil
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// serverTLS is the TLS configuration asked for, with the certificate's
// fingerprint, or nil for plain HTTP.
func (s *ServeFlags) serverTLS() (*tls.Config, string, error) {
	var cert tls.Certificate
	switch {
	case s.tlsSelfSigned:
		c, err := serve.SelfSigned(s.spec.Name, serve.LocalHosts())
		if err != nil {
			return nil, "", fmt.Errorf("self-signed certificate: %v", err)
		}
		cert = c
	case s.tlsCert != "":
		c, err := tls.LoadX509KeyPair(s.tlsCert, s.tlsKey)
		if err != nil {
			return nil, "", FlagErrorf("--tls-cert/--tls-key: %v", err)
		}
		cert = c
	default:
		return nil, "", nil
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}, serve.Fingerprint(cert.Certificate[0]), nil
}

// Listen opens the listener (connection cap, TLS) and returns it with the
// server's base URL (scheme://host:port, no path) and port. For all
// interfaces the URL names this host.
func (s *Server) Listen() (ln net.Listener, base, port string, err error) {
	tcp, err := net.Listen("tcp", s.listen)
	if err != nil {
		return nil, "", "", fmt.Errorf("--listen %s: %s", s.listen, strings.TrimPrefix(err.Error(), "listen tcp "+s.listen+": "))
	}
	host, port, _ := net.SplitHostPort(tcp.Addr().String())
	if h, _, _ := net.SplitHostPort(s.listen); h != "" && !net.ParseIP(h).Equal(net.ParseIP(host)) {
		host = h // a name (localhost) as given
	}
	ln = serve.LimitListener(tcp, s.Limits.MaxConns)
	scheme := "http"
	if s.TLS != nil {
		ln, scheme = tls.NewListener(ln, s.TLS), "https"
	}
	return ln, scheme + "://" + net.JoinHostPort(strings.Trim(serve.URLHost(host), "[]"), port), port, nil
}

// Serve serves h on ln (with the server's limits) until SIGINT or SIGTERM,
// ctx's end or, when positive, duration; then it shuts the server down,
// giving requests in flight 5 seconds.
func (s *Server) Serve(ctx context.Context, ln net.Listener, h http.Handler, duration time.Duration) error {
	defer CancelOnInterrupt(ctx)()
	if duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, duration)
		defer cancel()
	}
	hs := serve.NewHTTPServer(h, s.Limits)
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
