package kafka

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/metrics"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Client is a franz-go client plus the settings it was built from.
type Client struct {
	*kgo.Client
	Settings       *Settings
	ConnectTimeout time.Duration
	// Controllers: the client talks to the KRaft controllers
	// (--bootstrap-controller, bootstrap.controllers), which answer
	// DescribeCluster and DescribeQuorum but no Metadata request.
	Controllers bool
	// Metrics records the client's activity as the Java client's metrics;
	// nil unless Options.Metrics is set or PushHttpMetricsReporter is
	// configured.
	Metrics *metrics.Recorder
	dials   *dialLog
	pusher  *metrics.Pusher
}

// Options tune client construction.
type Options struct {
	// Tune adjusts the parsed settings before they become kgo options
	// (for example a tool's own defaults that a properties file may override
	// must be applied to the Properties instead).
	Tune func(*Settings)
	// Defaults are a tool's own Java client properties (for example the
	// verifiable producer's retries=0 or a perf tool's client.id). The
	// user's properties override them.
	Defaults *config.Properties
	// Extra kgo options, applied last.
	Extra []kgo.Opt
	// Metrics records the Java client metrics kbox can measure
	// (Client.Metrics), for --print-metrics.
	Metrics bool
	// MetricsPushError receives failed pushes of PushHttpMetricsReporter
	// (Java logs them and keeps pushing); nil drops them.
	MetricsPushError func(error)
}

// NewClient builds a client for role from a resolved connection. It does not
// dial; call Connect to fail fast on a bad address or credentials.
func NewClient(conn *config.Connection, role Role, o Options) (*Client, error) {
	if len(conn.Bootstrap) == 0 {
		return nil, errors.New("no bootstrap servers: pass --bootstrap-server or select a profile (kbox profile list)")
	}
	props := conn.Props
	if o.Defaults != nil {
		props = o.Defaults.Clone()
		props.Merge(conn.Props)
	}
	s, err := Parse(props, role)
	if err != nil {
		return nil, err
	}
	s.Bootstrap = conn.Bootstrap
	if o.Tune != nil {
		o.Tune(s)
	}
	opts, err := s.Opts()
	if err != nil {
		return nil, err
	}
	dl := &dialLog{}
	opts = append(opts, kgo.WithHooks(dl))
	var rec *metrics.Recorder
	if role != Admin && (o.Metrics || s.PushMetrics != nil) {
		id := s.ClientID
		if id == "" {
			id = "kgo" // franz-go's default client.id
		}
		mr := metrics.Producer
		if role == Consumer {
			mr = metrics.Consumer
		}
		reg := metrics.NewRegistryWith(metrics.Config{WindowMs: s.MetricsWindow.Milliseconds(), Samples: s.MetricsSamples})
		rec = metrics.NewRecorder(reg, mr, id)
		rec.ReadCommitted = s.IsolationLevel == "read_committed"
		opts = append(opts, kgo.WithHooks(rec))
	}
	stop := &stopPush{}
	if rec != nil && s.PushMetrics != nil {
		opts = append(opts, kgo.WithHooks(stop))
	}
	opts = append(opts, o.Extra...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("client configuration: %v", err)
	}
	to := conn.ConnectTimeout
	if to <= 0 {
		to = config.DefaultConnectTimeout
	}
	c := &Client{Client: cl, Settings: s, ConnectTimeout: to, dials: dl, Metrics: rec, Controllers: conn.Controllers}
	if rec != nil && s.PushMetrics != nil {
		c.pusher = metrics.StartPush(*s.PushMetrics, rec.Snapshot, rec.ClientID(), o.MetricsPushError)
		stop.set(c.pusher)
	}
	return c, nil
}

// stopPush ends PushHttpMetricsReporter's schedule when the franz-go
// client closes, wherever it is closed from (Java closes its reporters in
// the client's close).
type stopPush struct {
	mu sync.Mutex
	p  *metrics.Pusher
}

func (s *stopPush) set(p *metrics.Pusher) {
	s.mu.Lock()
	s.p = p
	s.mu.Unlock()
}

func (s *stopPush) OnClientClosed(*kgo.Client) {
	s.mu.Lock()
	p := s.p
	s.mu.Unlock()
	if p != nil {
		p.Close()
	}
}

// Close stops PushHttpMetricsReporter's schedule (no final push, as in
// Java) and closes the franz-go client. Closing the franz-go client alone
// stops the schedule too.
func (c *Client) Close() {
	if c.pusher != nil {
		c.pusher.Close()
	}
	c.Client.Close()
}

// Admin returns an admin client whose request timeout follows request.timeout.ms.
func (c *Client) Admin() *kadm.Client {
	adm := kadm.NewClient(c.Client)
	if c.Settings.RequestTimeout > 0 {
		adm.SetTimeoutMillis(int32(c.Settings.RequestTimeout.Milliseconds()))
	}
	return adm
}

// Connect checks within the connect timeout that a broker answers, and turns
// failures into one line naming the address and the cause.
func (c *Client) Connect(ctx context.Context) error {
	// The limit in effect: the connect timeout, or the caller's deadline
	// when it comes first (kbox status --timeout).
	limit := c.ConnectTimeout
	if dl, ok := ctx.Deadline(); ok && (limit <= 0 || time.Until(dl) < limit) {
		limit = time.Until(dl).Round(100 * time.Millisecond)
	}
	ctx, cancel := ctxTimeout(ctx, c.ConnectTimeout)
	defer cancel()
	err := c.Ping(ctx)
	if err == nil {
		return nil
	}
	if _, derr, _ := c.dials.last(); derr == nil && errors.Is(err, context.DeadlineExceeded) {
		// Every connection was made, and no broker answered on it (a
		// hung broker, or a listener that is not Kafka's): not a
		// network timeout.
		return &ConnError{Addr: strings.Join(c.Settings.Bootstrap, ","), Msg: fmt.Sprintf("no broker answered within %s", limit)}
	}
	return c.Explain(err)
}

// Explain rewrites a client error as an actionable one-line error.
func (c *Client) Explain(err error) error {
	if err == nil {
		return nil
	}
	if addr, derr, connecting := c.dials.last(); derr != nil {
		if connecting && c.Settings.tlsOn() && errors.Is(derr, io.EOF) {
			return &ConnError{addr, "the broker closed the connection during the TLS handshake (is this a TLS listener? check security.protocol)"}
		}
		if e := explainDial(addr, derr, c.Settings); e != nil {
			return e
		}
	}
	if e := explainDial(strings.Join(c.Settings.Bootstrap, ","), err, c.Settings); e != nil {
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &ConnError{Addr: strings.Join(c.Settings.Bootstrap, ","), Msg: fmt.Sprintf("no broker answered within %s", c.ConnectTimeout)}
	}
	return err
}

// ConnError is a failure to reach or authenticate to a broker.
type ConnError struct {
	Addr string
	Msg  string
}

func (e *ConnError) Error() string { return fmt.Sprintf("cannot connect to %s: %s", e.Addr, e.Msg) }

func explainDial(addr string, err error, s *Settings) error {
	var (
		unknownCA  x509.UnknownAuthorityError
		hostErr    x509.HostnameError
		invalidErr x509.CertificateInvalidError
		recHdr     tls.RecordHeaderError
		alert      tls.AlertError
		dnsErr     *net.DNSError
	)
	switch {
	case errors.Is(err, kerr.SaslAuthenticationFailed) && s.SASLMechanism == "OAUTHBEARER":
		return &ConnError{addr, "authentication failed: the broker rejected the OAUTHBEARER token (check its signature, issuer, audience, scope and expiry)"}
	case errors.Is(err, kerr.SaslAuthenticationFailed):
		return &ConnError{addr, fmt.Sprintf("authentication failed for user %q with %s (check the username and password)", s.SASLUser, s.SASLMechanism)}
	case errors.Is(err, kerr.UnsupportedSaslMechanism):
		return &ConnError{addr, fmt.Sprintf("the broker does not accept SASL mechanism %s", s.SASLMechanism)}
	case errors.Is(err, kerr.IllegalSaslState):
		return &ConnError{addr, "SASL handshake failed (is this listener SASL-enabled? check security.protocol)"}
	case errors.As(err, &unknownCA):
		return &ConnError{addr, "TLS check failed: the broker certificate is signed by an unknown authority (check ssl.truststore.location)"}
	case errors.As(err, &hostErr):
		return &ConnError{addr, fmt.Sprintf("TLS check failed: host name: %v", hostErr)}
	case errors.As(err, &invalidErr):
		return &ConnError{addr, fmt.Sprintf("TLS check failed: certificate: %v", invalidErr)}
	case errors.As(err, &recHdr):
		return &ConnError{addr, "TLS handshake failed: the listener does not speak TLS (check security.protocol)"}
	case errors.As(err, &alert), strings.Contains(err.Error(), "tls: "):
		msg := err.Error()
		if strings.Contains(msg, "certificate required") || strings.Contains(msg, "bad certificate") {
			return &ConnError{addr, "TLS check failed: the broker requires a valid client certificate (set ssl.keystore.*)"}
		}
		return &ConnError{addr, "TLS handshake failed: " + lastColon(msg)}
	case errors.As(err, &dnsErr):
		return &ConnError{addr, fmt.Sprintf("cannot resolve host %s", dnsErr.Name)}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &ConnError{addr, "connection refused"}
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return &ConnError{addr, "host unreachable"}
	case isTimeout(err):
		return &ConnError{addr, "connection timed out"}
	case errors.Is(err, io.EOF) && (s.SecurityProtocol == "SASL_SSL" || s.SecurityProtocol == "SASL_PLAINTEXT"):
		return &ConnError{addr, fmt.Sprintf("the broker closed the connection during authentication (wrong credentials for %q or wrong security.protocol?)", s.SASLUser)}
	case errors.Is(err, io.EOF):
		return &ConnError{addr, "the broker closed the connection (wrong security.protocol for this listener?)"}
	}
	return nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func lastColon(s string) string {
	if i := strings.LastIndex(s, "tls: "); i >= 0 {
		return s[i+len("tls: "):]
	}
	return s
}

// dialLog remembers the last connection failure, which kgo otherwise
// hides behind retries and a context deadline.
type dialLog struct {
	mu         sync.Mutex
	addr       string
	err        error
	connecting bool // the error happened while connecting (TCP + TLS handshake)
}

var (
	_ kgo.HookBrokerConnect = (*dialLog)(nil)
	_ kgo.HookBrokerWrite   = (*dialLog)(nil)
)

func (d *dialLog) OnBrokerConnect(meta kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil {
		d.addr, d.err, d.connecting = net.JoinHostPort(meta.Host, fmt.Sprint(meta.Port)), err, true
	}
}

func (d *dialLog) OnBrokerWrite(meta kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	// SASL failures surface on the authenticate write/read; keep them.
	if err == nil || (key != 36 && key != 17) {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.addr, d.err, d.connecting = net.JoinHostPort(meta.Host, fmt.Sprint(meta.Port)), err, false
}

func (d *dialLog) last() (string, error, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.addr, d.err, d.connecting
}
