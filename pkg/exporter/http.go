package exporter

import (
	"bytes"
	"compress/gzip"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"

	"github.com/kboxdev/kbox/pkg/serve"
)

// HandlerOptions secure the exporter's HTTP endpoints.
type HandlerOptions struct {
	// Token, when set, is required on /metrics (Authorization: Bearer).
	Token string
	// Remote: the server listens beyond loopback, so any Host is
	// accepted. Otherwise a request whose Host is not a loopback name or
	// address is refused (DNS rebinding).
	Remote bool
}

// Handler serves /metrics (the rendered snapshots and the exporter's own
// metrics), /healthz (the process answers) and /readyz (every cluster
// refreshed once). Only /metrics needs the token: the probes tell nothing
// of the clusters.
func (e *Exporter) Handler(o HandlerOptions) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		if o.Token != "" && !bearer(r, o.Token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="kbox exporter"`)
			http.Error(w, "access token required: send Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
		e.serveMetrics(w, r)
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		ok, msg := e.Ready()
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "not ready: "+msg)
			return
		}
		fmt.Fprintln(w, "ok: "+msg)
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "kbox exporter: /metrics, /healthz, /readyz")
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-store")
		if !o.Remote && !serve.LoopbackHost(r.Host) {
			http.Error(w, fmt.Sprintf("host %q refused: the exporter answers loopback names only", r.Host), http.StatusForbidden)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func bearer(r *http.Request, token string) bool {
	a, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(a), []byte(token)) == 1
}

// serveMetrics writes the rendered page, then the live metrics: two gzip
// members when the scraper accepts gzip (one stream to a gzip reader).
func (e *Exporter) serveMetrics(w http.ResponseWriter, r *http.Request) {
	e.m.scrapes.Inc()
	live, err := e.liveText()
	if err != nil {
		http.Error(w, oneLine(err.Error()), http.StatusInternalServerError)
		return
	}
	gz := acceptsGzip(r)
	page := e.rendered(gz)
	w.Header().Set("Content-Type", string(textFormat))
	if gz {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		_, _ = zw.Write(live)
		_ = zw.Close()
		live = buf.Bytes()
		w.Header().Set("Content-Encoding", "gzip")
	}
	w.Header().Set("Content-Length", fmt.Sprint(len(page)+len(live)))
	_, _ = w.Write(page)
	_, _ = w.Write(live)
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}
