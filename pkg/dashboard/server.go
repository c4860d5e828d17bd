// Package dashboard is the HTTP side of `kbox ui`: JSON endpoints over the
// same domain packages the CLI uses (pkg/status, pkg/topics, pkg/configs,
// pkg/groups, pkg/logdirs, pkg/reassign) and the embedded static page that
// draws them. It has no flags and prints nothing; cmd/ui builds the
// clusters from the profiles and runs the server.
package dashboard

import (
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/redact"
	"github.com/kboxdev/kbox/pkg/serde"
	"github.com/kboxdev/kbox/pkg/serve"
	"github.com/twmb/franz-go/pkg/kgo"
)

//go:embed static
var staticFS embed.FS

// Cluster is one cluster the dashboard shows: a profile's name, what the
// browser may see of its connection (bootstrap servers and security
// protocol, never a secret), and how to connect.
type Cluster struct {
	Name             string
	Bootstrap        []string
	SecurityProtocol string
	ExpectedBrokers  int
	// Connect returns a connected admin client, built as the CLI builds
	// its clients (cmd/ui: the command layer's ConnectedClient). The
	// server keeps it for later requests and closes it on Close; a failed
	// connect is retried by the next request.
	Connect func(ctx context.Context) (*kafka.Client, error)
	// Reader, when set, connects a consumer without a group, used to read
	// the record at a group's committed offset (lag in time).
	Reader func(ctx context.Context) (cl *kgo.Client, close func(), err error)
	// Producer, when set, connects a producer that sends a record with
	// Partition >= 0 to that partition (the Messages page's produce,
	// under AllowWrites); it is closed after the one record.
	Producer func(ctx context.Context) (*kafka.Client, error)
	// Registry, when set, is the Schema Registry the Messages page
	// decodes Confluent-framed records with (its secrets stay here).
	Registry *serde.Registry
	// Err, when set, is why the cluster cannot be used at all (its
	// profile did not resolve): every page of it shows this reason.
	Err error
}

// Options configure the server.
type Options struct {
	Clusters []Cluster
	// AllowWrites enables the write endpoints (otherwise they answer 403).
	AllowWrites bool
	// Token, when set, is required on every request (Authorization:
	// Bearer, the kbox_ui_token cookie, or ?token= on a page load).
	Token string
	// Version is shown in the page header.
	Version string
	// RequestTimeout bounds each API request's cluster work (default 30s).
	RequestTimeout time.Duration
	// StatusTimeout bounds each cluster's health check (default 10s).
	StatusTimeout time.Duration
	// RateInterval is the time between two rate samples (default 3s),
	// and how long the log dirs and a topic's offsets read for the topic
	// pages stay in use.
	RateInterval time.Duration
	// ConfirmTTL is how long a write's confirm token stays valid (default 5m).
	ConfirmTTL time.Duration
	// PageSize is the default (and, times 10, the largest) partition page.
	PageSize int
	// Remote: the server listens beyond loopback, so any Host is
	// accepted (a token must be set). Otherwise a request whose Host is
	// not a loopback name or address is refused (DNS rebinding).
	Remote bool
	// CookieName is the cookie that keeps the token (default
	// kbox_ui_token; cmd/ui adds the port, so that two dashboards on one
	// host do not overwrite each other's).
	CookieName string
	// Mask, when set, replaces the value of every JSON field whose name
	// it matches with "***" on the Messages page (--mask-field).
	Mask *regexp.Regexp
	// MaxPending and MaxPendingBytes bound the previews waiting for their
	// confirmation, by count (default 100) and by the bytes they hold
	// (their request body and preview; default 32 MiB): a preview past
	// either is refused with 429 until some are confirmed or expire.
	MaxPending      int
	MaxPendingBytes int64
}

// Server serves the dashboard.
type Server struct {
	o        Options
	clusters map[string]*clusterState
	order    []string
	mux      *http.ServeMux

	mu           sync.Mutex
	pending      map[string]*pending
	pendingBytes int64
	// now is the clock of the pending previews' expiry (time.Now; a test
	// moves it instead of sleeping).
	now    func() time.Time
	ctx    context.Context
	cancel context.CancelFunc
}

type clusterState struct {
	Cluster
	mu     sync.Mutex
	client *kafka.Client
	rates  *rateSampler
	// data is what the topic pages read at most once per rate interval.
	data *clusterData

	// lagWindow judges the groups' verdicts over the commits seen by the
	// groups pages' requests (pkg/groups' sampler, as groups lag --watch).
	lagMu     sync.Mutex
	lagWindow groups.Sampler
}

// New builds a server. Cluster names must be unique.
func New(o Options) (*Server, error) {
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.StatusTimeout <= 0 {
		o.StatusTimeout = 10 * time.Second
	}
	if o.RateInterval <= 0 {
		o.RateInterval = 3 * time.Second
	}
	if o.ConfirmTTL <= 0 {
		o.ConfirmTTL = 5 * time.Minute
	}
	if o.PageSize <= 0 {
		o.PageSize = 100
	}
	if o.CookieName == "" {
		o.CookieName = "kbox_ui_token"
	}
	if o.MaxPending <= 0 {
		o.MaxPending = 100
	}
	if o.MaxPendingBytes <= 0 {
		o.MaxPendingBytes = 32 << 20
	}
	if o.Remote && o.Token == "" {
		return nil, errors.New("a dashboard reachable beyond loopback needs a token")
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{o: o, clusters: map[string]*clusterState{}, pending: map[string]*pending{}, now: time.Now, ctx: ctx, cancel: cancel}
	for _, c := range o.Clusters {
		if _, dup := s.clusters[c.Name]; dup {
			cancel()
			return nil, fmt.Errorf("cluster %q given twice", c.Name)
		}
		cs := &clusterState{Cluster: c}
		cs.rates = &rateSampler{cs: cs, interval: o.RateInterval}
		cs.data = newClusterData(ctx, o.RateInterval, o.RequestTimeout)
		s.clusters[c.Name] = cs
		s.order = append(s.order, c.Name)
	}
	s.routes()
	return s, nil
}

// Close stops the rate samplers and closes the clients.
func (s *Server) Close() {
	s.cancel()
	for _, cs := range s.clusters {
		cs.rates.wait()
		cs.mu.Lock()
		if cs.client != nil {
			cs.client.Close()
			cs.client = nil
		}
		cs.mu.Unlock()
	}
}

func (s *Server) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	files := http.FileServerFS(static)
	m.Handle("GET /", files)
	m.HandleFunc("GET /api/info", s.info)
	m.HandleFunc("GET /api/clusters", s.clustersStatus)
	m.HandleFunc("GET /api/c/{cluster}/brokers", s.withCluster(s.brokers))
	m.HandleFunc("GET /api/c/{cluster}/topics", s.withClient(s.topicList))
	m.HandleFunc("GET /api/c/{cluster}/topics/{topic}", s.withClient(s.topicPage))
	m.HandleFunc("GET /api/c/{cluster}/topics/{topic}/messages", s.withClient(s.messagesPage))
	m.HandleFunc("GET /api/c/{cluster}/groups", s.withClient(s.groupList))
	m.HandleFunc("GET /api/c/{cluster}/groups/{group}", s.withClient(s.groupPage))
	m.HandleFunc("GET /api/c/{cluster}/rates", s.withCluster(s.ratesHandler))
	m.HandleFunc("GET /api/c/{cluster}/logdirs", s.withClient(s.logDirs))
	m.HandleFunc("POST /api/c/{cluster}/write/{op}", s.withCluster(s.write))
	s.mux = m
}

// ServeHTTP checks the host, the token (before any byte of a body is
// read), the query and, for a POST, that the request comes from the
// dashboard's own page; then routes it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	defer func() {
		// A handler's panic is a 500 with a message, not an empty reply
		// (the query checks below are meant to leave none).
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			refuse(w, http.StatusInternalServerError, "internal error: %v", v)
		}
	}()
	if !s.o.Remote && !serve.LoopbackHost(r.Host) {
		// The server only listens on loopback: a request naming another
		// host is a DNS-rebinding attempt.
		refuse(w, http.StatusForbidden, "host %q refused: the dashboard answers loopback names only", r.Host)
		return
	}
	if s.o.Token != "" && !s.authorized(w, r) {
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if err := sameOrigin(r); err != nil {
			refuse(w, http.StatusForbidden, "%s", err)
			return
		}
	}
	_, pattern := s.mux.Handler(r)
	if err := checkQuery(pattern, r.URL.RawQuery, s.o.PageSize); err != nil {
		refuse(w, http.StatusBadRequest, "%s", err)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// refuse answers an error without reading the request's body, then
// closes the connection: "Connection: close" keeps net/http from reading
// the body before it answers, and a read deadline already past keeps it
// from reading (and waiting for) the body after it.
func refuse(w http.ResponseWriter, code int, format string, a ...any) {
	w.Header().Set("Connection", "close")
	httpError(w, code, format, a...)
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

// authorized checks the token (constant time). A page load with ?token=
// sets the cookie and redirects to the page: always "/", this server's
// own path, never a place the request names (//evil.example/?token=
// would otherwise leave for another site).
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if q := r.URL.Query().Get("token"); q != "" && r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/api/") {
		if !s.tokenOK(q) {
			refuse(w, http.StatusUnauthorized, "bad token")
			return false
		}
		http.SetCookie(w, &http.Cookie{Name: s.o.CookieName, Value: q, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
		w.Header().Set("Location", "/")
		w.WriteHeader(http.StatusSeeOther)
		return false
	}
	if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") && s.tokenOK(strings.TrimPrefix(a, "Bearer ")) {
		return true
	}
	if c, err := r.Cookie(s.o.CookieName); err == nil && s.tokenOK(c.Value) {
		return true
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="kbox ui"`)
	refuse(w, http.StatusUnauthorized, "access token required (open the URL kbox ui printed, or send Authorization: Bearer TOKEN)")
	return false
}

func (s *Server) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.o.Token)) == 1
}

// WriteHeader is the header every write request must carry: a custom
// header a cross-origin page cannot send without a CORS preflight, which
// the server never grants.
const WriteHeader = "X-Kbox-Request"

// sameOrigin refuses a state-changing request that does not come from the
// dashboard's page: it must carry WriteHeader and a JSON body, and its
// Origin (when sent) must be the server itself.
func sameOrigin(r *http.Request) error {
	if r.Header.Get(WriteHeader) == "" {
		return fmt.Errorf("missing %s header (writes come from the dashboard page only)", WriteHeader)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("content type %q refused: want application/json", ct)
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			return fmt.Errorf("cross-origin request from %q refused", o)
		}
	}
	if sf := r.Header.Get("Sec-Fetch-Site"); sf != "" && sf != "same-origin" && sf != "none" {
		return fmt.Errorf("cross-site request (%s) refused", sf)
	}
	return nil
}

func (s *Server) withCluster(h func(http.ResponseWriter, *http.Request, *clusterState)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		cs, ok := s.clusters[r.PathValue("cluster")]
		if !ok {
			httpError(w, http.StatusNotFound, "no cluster %q", r.PathValue("cluster"))
			return
		}
		h(w, r, cs)
	}
}

// clientHandler is a handler of a cluster's data: r's context carries
// the request's time limit, cl is the cluster's connected client.
type clientHandler func(w http.ResponseWriter, r *http.Request, cs *clusterState, cl *kafka.Client)

// withClient is the prologue of every handler that reads or writes a
// cluster: the cluster named in the path (404 when none), the request's
// time limit, and the cluster's client (a 502 with the reason when it
// cannot connect).
func (s *Server) withClient(h clientHandler) http.HandlerFunc {
	return s.withCluster(func(w http.ResponseWriter, r *http.Request, cs *clusterState) {
		s.serveClient(w, r, cs, h)
	})
}

// serveClient runs h within the request's time limit with the cluster's
// client (withClient; the write endpoint calls it once its own checks,
// which need no cluster, have passed).
func (s *Server) serveClient(w http.ResponseWriter, r *http.Request, cs *clusterState, h clientHandler) {
	ctx, cancel := s.reqCtx(r)
	defer cancel()
	cl, err := cs.connect(ctx)
	if err != nil {
		httpError(w, http.StatusBadGateway, "%s", err)
		return
	}
	h(w, r.WithContext(ctx), cs, cl)
}

// connect returns the cluster's connected client, connecting on first use.
func (cs *clusterState) connect(ctx context.Context) (*kafka.Client, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.client != nil {
		return cs.client, nil
	}
	if cs.Err != nil {
		return nil, cs.Err
	}
	if cs.Connect == nil {
		return nil, errors.New("no connection")
	}
	cl, err := cs.Connect(ctx)
	if err != nil {
		return nil, err
	}
	cs.client = cl
	return cl, nil
}

func (s *Server) reqCtx(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), s.o.RequestTimeout)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	_ = enc.Encode(v)
}

// apiError is the body of every error answer.
type apiError struct {
	Error string `json:"error"`
}

func httpError(w http.ResponseWriter, code int, format string, a ...any) {
	writeJSON(w, code, apiError{Error: oneLine(fmt.Sprintf(format, a...))})
}

// oneLine is an error as the browser sees it: on one line, and without
// the credentials a URL in it may carry (redact.URLs).
func oneLine(s string) string { return redact.URLs(strings.Join(strings.Fields(s), " ")) }

// ClusterView is what the browser sees of a profile: never a secret.
type ClusterView struct {
	Name             string   `json:"name"`
	BootstrapServers []string `json:"bootstrap_servers"`
	SecurityProtocol string   `json:"security_protocol"`
}

type infoResponse struct {
	Version     string        `json:"version"`
	AllowWrites bool          `json:"allow_writes"`
	Clusters    []ClusterView `json:"clusters"`
}

func (s *Server) info(w http.ResponseWriter, _ *http.Request) {
	out := infoResponse{Version: s.o.Version, AllowWrites: s.o.AllowWrites, Clusters: []ClusterView{}}
	for _, n := range s.order {
		c := s.clusters[n]
		bs := c.Bootstrap
		if bs == nil {
			bs = []string{}
		}
		out.Clusters = append(out.Clusters, ClusterView{Name: c.Name, BootstrapServers: bs, SecurityProtocol: c.SecurityProtocol})
	}
	writeJSON(w, http.StatusOK, out)
}
