package dashboard

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/logdirs"
	"github.com/kboxdev/kbox/pkg/reassign"
	"github.com/kboxdev/kbox/pkg/status"
	"github.com/kboxdev/kbox/pkg/topics"
	"github.com/twmb/franz-go/pkg/kgo"
)

// target is a cluster as pkg/status checks it, on the kept client.
func (s *Server) target(cs *clusterState, sample time.Duration) status.Target {
	return status.Target{
		Name: cs.Name,
		Connect: func(ctx context.Context) (*kgo.Client, func(), error) {
			cl, err := cs.connect(ctx)
			if err != nil {
				return nil, nil, err
			}
			return cl.Client, func() {}, nil
		},
		Options: status.Options{ExpectedBrokers: cs.ExpectedBrokers, Sample: sample, Reader: cs.Reader},
		Err:     cs.Err,
	}
}

// clustersStatus is every cluster's health (pkg/status), checked
// concurrently, with produce/consume rates over a one-second sample.
func (s *Server) clustersStatus(w http.ResponseWriter, r *http.Request) {
	targets := make([]status.Target, 0, len(s.order))
	sample := time.Second
	if r.URL.Query().Get("sample") == "0" {
		sample = 0
	}
	for _, n := range s.order {
		targets = append(targets, s.target(s.clusters[n], sample))
	}
	writeJSON(w, http.StatusOK, status.NewReport(status.CheckAll(r.Context(), targets, s.o.StatusTimeout)))
}

// BrokerHost is a live broker's address from metadata.
type BrokerHost struct {
	ID   int32   `json:"id"`
	Host string  `json:"host"`
	Port int32   `json:"port"`
	Rack *string `json:"rack"`
}

type brokersResponse struct {
	Status  *status.Cluster         `json:"status"`
	Hosts   []BrokerHost            `json:"hosts"`
	Leaders *reassign.LeaderBalance `json:"leaders"`
	Errors  []string                `json:"errors"`
}

// brokers is the cluster's brokers: up or down and disk (pkg/status),
// addresses, and leaders per broker against preferred (pkg/reassign). An
// unreachable cluster is a status saying why (200), not a 502: the status
// check connects first, and the client is asked for only when it could.
func (s *Server) brokers(w http.ResponseWriter, r *http.Request, cs *clusterState) {
	ctx, cancel := s.reqCtx(r)
	defer cancel()
	st := status.CheckAll(ctx, []status.Target{s.target(cs, 0)}, s.o.StatusTimeout)[0]
	out := brokersResponse{Status: st, Hosts: []BrokerHost{}, Errors: []string{}}
	if !st.Reachable {
		writeJSON(w, http.StatusOK, out)
		return
	}
	s.serveClient(w, r.WithContext(ctx), cs, func(w http.ResponseWriter, r *http.Request, _ *clusterState, cl *kafka.Client) {
		ctx := r.Context()
		adm := cl.Admin()
		if md, err := adm.Metadata(ctx); err == nil {
			for _, b := range md.Brokers {
				out.Hosts = append(out.Hosts, BrokerHost{ID: b.NodeID, Host: b.Host, Port: b.Port, Rack: b.Rack})
			}
		} else {
			out.Errors = append(out.Errors, "metadata: "+oneLine(err.Error()))
		}
		sort.Slice(out.Hosts, func(i, j int) bool { return out.Hosts[i].ID < out.Hosts[j].ID })
		svc := &reassign.Service{Client: cl.Client, Admin: adm}
		if bs, err := svc.Brokers(ctx); err == nil {
			if ls, err := svc.Leaders(ctx); err == nil {
				out.Leaders = reassign.Preview(ls, reassign.BrokerIDs(bs))
				// The page shows counts per broker; the misled partitions
				// are the election's preview (write endpoint).
				out.Leaders.Partitions = nil
			} else {
				out.Errors = append(out.Errors, "leaders: "+oneLine(err.Error()))
			}
		} else {
			out.Errors = append(out.Errors, "brokers: "+oneLine(err.Error()))
		}
		writeJSON(w, http.StatusOK, out)
	})
}

type topicListResponse struct {
	Topics []topics.ListRow `json:"topics"`
	// SizeErrors are brokers whose log dirs could not be read.
	SizeErrors []logdirs.FailedBroker `json:"size_errors"`
}

// topicList is every topic with its partition health (one Metadata
// request, pkg/topics) and size (the log dirs read at most once per rate
// interval, aggregated per topic by pkg/logdirs).
func (s *Server) topicList(w http.ResponseWriter, r *http.Request, cs *clusterState, cl *kafka.Client) {
	ctx := r.Context()
	dirs := make(chan *logDirData, 1)
	go func() {
		// A failed read leaves the sizes unknown (null), as before.
		d, _ := cs.data.readLogDirs(ctx, cl)
		dirs <- d
	}()
	c, err := (&topics.Service{Client: cl.Client, Admin: cl.Admin()}).Metadata(ctx)
	d := <-dirs
	if err != nil {
		httpError(w, http.StatusBadGateway, "%s", err)
		return
	}
	var in *logdirs.Input
	if d != nil {
		in = d.in
	}
	rows, failed := topics.ListRows(c, in)
	writeJSON(w, http.StatusOK, topicListResponse{Topics: rows, SizeErrors: failed})
}

// TopicPage is the topic page (pkg/topics Page) with its configs' error
// as the browser sees it.
type TopicPage struct {
	topics.Page
	ConfigsErr *string `json:"configs_error"`
}

// topicPage is one topic's page (pkg/topics Page): one Metadata request
// and the configs for every request; the offsets and replica sizes from
// what was read at most one rate interval ago, for every page and
// refresh; partitions paged server-side (?offset=&limit=, ?problems=1
// keeps the unhealthy ones).
func (s *Server) topicPage(w http.ResponseWriter, r *http.Request, cs *clusterState, cl *kafka.Client) {
	name := r.PathValue("topic")
	offset, limit, err := page(r, s.o.PageSize)
	if err != nil {
		httpError(w, http.StatusBadRequest, "%s", err)
		return
	}
	svc := &topics.Service{Client: cl.Client, Admin: cl.Admin()}
	pg, err := svc.Page(r.Context(), topics.PageRequest{Topic: name, Offset: offset, Limit: limit, Problems: r.URL.Query().Get("problems") == "1",
		Offsets: func(ctx context.Context) (*topics.Offsets, error) { return cs.data.readOffsets(ctx, cl, name) },
		Sizes: func(ctx context.Context) (logdirs.Sizes, error) {
			d, err := cs.data.readLogDirs(ctx, cl)
			if err != nil {
				return nil, err
			}
			return d.Sizes(), nil
		}})
	switch {
	case errors.Is(err, topics.ErrNoTopic):
		httpError(w, http.StatusNotFound, "topic %q does not exist", name)
		return
	case err != nil:
		httpError(w, http.StatusBadGateway, "%s", err)
		return
	}
	out := TopicPage{Page: *pg}
	if pg.ConfigsErr != nil {
		msg := oneLine(pg.ConfigsErr.Error())
		out.ConfigsErr = &msg
	}
	writeJSON(w, http.StatusOK, out)
}

// page reads ?offset= and ?limit= (limit at most 10 pages).
func page(r *http.Request, def int) (int, int, error) {
	offset, limit := 0, def
	if v := r.URL.Query().Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, 0, errors.New("offset: want a non-negative integer")
		}
		offset = n
	}
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10*def {
			return 0, 0, errors.New("limit: want 1 to " + strconv.Itoa(10*def))
		}
		limit = n
	}
	return offset, limit, nil
}

// GroupRow is one group of the group list: lag totals, no partitions.
type GroupRow struct {
	Group      string `json:"group"`
	State      string `json:"state"`
	Type       string `json:"type"`
	Lag        int64  `json:"lag"`
	TimeLagMs  *int64 `json:"time_lag_ms"`
	CaughtUp   bool   `json:"caught_up"`
	Partitions int    `json:"partitions"`
	// Verdict is Burrow's verdict (groups lag --watch) over the commits
	// the groups pages have seen; null while unknown.
	Verdict groups.Verdict `json:"verdict"`
	Error   string         `json:"error,omitempty"`
}

// lag runs pkg/groups Lag with a reader for the lag in time, and judges
// the verdicts over the cluster's window of commits: each request is a
// sample (the groups page reloads itself while open).
func (s *Server) lag(ctx context.Context, cs *clusterState, cl *kafka.Client, req groups.LagRequest) (*groups.LagReport, error) {
	if cs.Reader != nil {
		rcl, closeFn, err := cs.Reader(ctx)
		if err == nil {
			defer closeFn()
			req.Reader = rcl
			req.TimeLagTimeout = 5 * time.Second
		}
	}
	rep, err := groups.Lag(ctx, cl.Client, req)
	if err != nil {
		return nil, err
	}
	cs.lagMu.Lock()
	cs.lagWindow.Add(rep)
	cs.lagMu.Unlock()
	rep.Filter(false, groups.SortLag)
	return rep, nil
}

// groupList is every consumer group's lag in records and time.
func (s *Server) groupList(w http.ResponseWriter, r *http.Request, cs *clusterState, cl *kafka.Client) {
	rep, err := s.lag(r.Context(), cs, cl, groups.LagRequest{})
	if err != nil {
		httpError(w, http.StatusBadGateway, "%s", err)
		return
	}
	out := struct {
		Groups []GroupRow `json:"groups"`
	}{Groups: []GroupRow{}}
	for _, g := range rep.Groups {
		out.Groups = append(out.Groups, GroupRow{Group: g.Group, State: g.State, Type: g.Type, Lag: g.Lag, TimeLagMs: g.TimeLagMs, CaughtUp: g.CaughtUp, Partitions: len(g.Partitions), Verdict: g.Verdict, Error: oneLine(g.Error)})
	}
	writeJSON(w, http.StatusOK, out)
}

// groupPage is one group's lag per partition.
func (s *Server) groupPage(w http.ResponseWriter, r *http.Request, cs *clusterState, cl *kafka.Client) {
	name := r.PathValue("group")
	rep, err := s.lag(r.Context(), cs, cl, groups.LagRequest{Groups: []string{name}})
	if err != nil {
		httpError(w, http.StatusBadGateway, "%s", err)
		return
	}
	for _, g := range rep.Groups {
		if g.Group == name && (g.State != "Dead" || len(g.Partitions) > 0) {
			writeJSON(w, http.StatusOK, g)
			return
		}
	}
	httpError(w, http.StatusNotFound, "group %q not found", name)
}

type logDirsResponse struct {
	Brokers       []logdirs.BrokerUsage  `json:"brokers"`
	Dirs          []logdirs.DirUsage     `json:"dirs"`
	FailedBrokers []logdirs.FailedBroker `json:"failed_brokers"`
}

// logDirs is the log-dir usage per broker and per dir (pkg/logdirs),
// from the log dirs read at most once per rate interval.
func (s *Server) logDirs(w http.ResponseWriter, r *http.Request, cs *clusterState, cl *kafka.Client) {
	d, err := cs.data.readLogDirs(r.Context(), cl)
	if err != nil {
		httpError(w, http.StatusBadGateway, "%s", err)
		return
	}
	br := logdirs.BuildReport(*d.in, logdirs.ReportOptions{View: logdirs.AggBroker})
	dr := logdirs.BuildReport(*d.in, logdirs.ReportOptions{View: logdirs.AggDir})
	out := logDirsResponse{Brokers: []logdirs.BrokerUsage{}, Dirs: []logdirs.DirUsage{}, FailedBrokers: br.FailedBrokers}
	if br.Brokers != nil {
		out.Brokers = *br.Brokers
	}
	if dr.Dirs != nil {
		out.Dirs = *dr.Dirs
	}
	writeJSON(w, http.StatusOK, out)
}
