package dashboard

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/kboxdev/kbox/pkg/configs"
	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/reassign"
	"github.com/kboxdev/kbox/pkg/topics"
)

// The write operations.
const (
	OpCreateTopic    = "create-topic"
	OpAddPartitions  = "add-partitions"
	OpAlterConfig    = "alter-config"
	OpElectPreferred = "elect-preferred"
	OpResetOffsets   = "reset-offsets"
	OpProduce        = "produce"
)

// pending is a previewed write waiting for its confirmation: the apply
// closure holds exactly what the preview showed.
type pending struct {
	cluster, op string
	expires     time.Time
	apply       func(ctx context.Context) (any, error)
	size        int64 // the bytes it holds: its request body and preview
}

// WriteResponse is the answer to a write request: a preview and the token
// that confirms it, or (with the token) the result.
type WriteResponse struct {
	Op           string `json:"op"`
	Applied      bool   `json:"applied"`
	Preview      any    `json:"preview,omitempty"`
	ConfirmToken string `json:"confirm_token,omitempty"`
	ExpiresInMs  int64  `json:"expires_in_ms,omitempty"`
	Result       any    `json:"result,omitempty"`
}

// confirmBody is the second step: only the token; the write applied is
// the one previewed.
type confirmBody struct {
	Confirm string `json:"confirm"`
}

// write is every write endpoint: a request without "confirm" is checked
// (validate-only / dry run / plan, through the domain code) and answered
// with a preview and a confirm token; the same endpoint with
// {"confirm": TOKEN} applies what was previewed, once.
func (s *Server) write(w http.ResponseWriter, r *http.Request, cs *clusterState) {
	op := r.PathValue("op")
	if !s.o.AllowWrites {
		refuse(w, http.StatusForbidden, "writes are disabled: start kbox ui with --allow-writes")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		httpError(w, http.StatusBadRequest, "%s", err)
		return
	}
	var cb confirmBody
	if json.Unmarshal(body, &cb) == nil && cb.Confirm != "" {
		ctx, cancel := s.reqCtx(r)
		defer cancel()
		p := s.take(cb.Confirm, cs.Name, op)
		if p == nil {
			httpError(w, http.StatusConflict, "confirm token unknown, expired or already used: preview the change again")
			return
		}
		res, err := p.apply(ctx)
		if err != nil {
			httpError(w, http.StatusBadGateway, "%s", err)
			return
		}
		writeJSON(w, http.StatusOK, WriteResponse{Op: op, Applied: true, Result: res})
		return
	}
	// A preview is refused before any cluster work when the pending
	// previews are at their bound.
	if err := s.room(int64(len(body))); err != nil {
		tooMany(w, err)
		return
	}
	s.serveClient(w, r, cs, func(w http.ResponseWriter, r *http.Request, cs *clusterState, cl *kafka.Client) {
		s.preview(w, r.Context(), cs, cl, op, body)
	})
}

// preview checks a write through the domain code (validate-only, dry run
// or plan) and answers the preview with the token that confirms it.
func (s *Server) preview(w http.ResponseWriter, ctx context.Context, cs *clusterState, cl *kafka.Client, op string, body []byte) {
	var preview any
	var apply func(context.Context) (any, error)
	var err error
	switch op {
	case OpCreateTopic:
		preview, apply, err = planCreate(ctx, cl, body)
	case OpAddPartitions:
		preview, apply, err = planAddPartitions(ctx, cl, body)
	case OpAlterConfig:
		preview, apply, err = planAlterConfig(ctx, cl, body)
	case OpElectPreferred:
		preview, apply, err = planElect(ctx, cl, body)
	case OpResetOffsets:
		preview, apply, err = planReset(ctx, cl, body)
	case OpProduce:
		preview, apply, err = planProduce(ctx, cs, cl, body)
	default:
		httpError(w, http.StatusNotFound, "no write %q", op)
		return
	}
	if err != nil {
		var be *badRequest
		if errors.As(err, &be) {
			httpError(w, http.StatusBadRequest, "%s", be.msg)
		} else {
			httpError(w, http.StatusUnprocessableEntity, "%s", err)
		}
		return
	}
	pj, err := json.Marshal(preview)
	if err != nil {
		httpError(w, http.StatusInternalServerError, "preview: %s", err)
		return
	}
	tok, err := s.put(cs.Name, op, apply, int64(len(body)+len(pj)))
	if err != nil {
		tooMany(w, err)
		return
	}
	writeJSON(w, http.StatusOK, WriteResponse{Op: op, Preview: json.RawMessage(pj), ConfirmToken: tok, ExpiresInMs: s.o.ConfirmTTL.Milliseconds()})
}

// fullError is a preview refused because the pending previews are at
// their bound; retry is when the oldest expires.
type fullError struct {
	msg   string
	retry time.Duration
}

func (e *fullError) Error() string { return e.msg }

func tooMany(w http.ResponseWriter, err error) {
	if fe, ok := err.(*fullError); ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(fe.retry.Seconds())+1))
	}
	httpError(w, http.StatusTooManyRequests, "%s", err)
}

// sweep drops the expired previews; s.mu is held.
func (s *Server) sweep(now time.Time) {
	for k, p := range s.pending {
		if now.After(p.expires) {
			delete(s.pending, k)
			s.pendingBytes -= p.size
		}
	}
}

// room reports whether one more preview of size bytes fits the bounds
// (MaxPending, MaxPendingBytes), after dropping the expired ones.
func (s *Server) room(size int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.roomLocked(s.now(), size)
}

func (s *Server) roomLocked(now time.Time, size int64) error {
	s.sweep(now)
	full := ""
	switch {
	case len(s.pending) >= s.o.MaxPending:
		full = fmt.Sprintf("%d previews are waiting for their confirmation (at most %d)", len(s.pending), s.o.MaxPending)
	case s.pendingBytes+size > s.o.MaxPendingBytes:
		full = fmt.Sprintf("the previews waiting for their confirmation hold %d bytes; this one would pass the bound of %d", s.pendingBytes, s.o.MaxPendingBytes)
	default:
		return nil
	}
	oldest := now.Add(s.o.ConfirmTTL)
	for _, p := range s.pending {
		if p.expires.Before(oldest) {
			oldest = p.expires
		}
	}
	retry := oldest.Sub(now)
	return &fullError{msg: fmt.Sprintf("too many pending previews: %s; confirm some, or retry when the oldest expires (in %s)", full, retry.Round(time.Second)), retry: retry}
}

type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

func badf(format string, a ...any) error { return &badRequest{fmt.Sprintf(format, a...)} }

func decode(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return badf("request body: %s", err)
	}
	return nil
}

func (s *Server) put(cluster, op string, apply func(context.Context) (any, error), size int64) (string, error) {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	tok := hex.EncodeToString(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if err := s.roomLocked(now, size); err != nil {
		return "", err
	}
	s.pending[tok] = &pending{cluster: cluster, op: op, expires: now.Add(s.o.ConfirmTTL), apply: apply, size: size}
	s.pendingBytes += size
	return tok, nil
}

// take removes and returns the pending write of tok, if it is for this
// cluster and operation and not expired.
func (s *Server) take(tok, cluster, op string) *pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pending[tok]
	if !ok || p.cluster != cluster || p.op != op {
		return nil
	}
	delete(s.pending, tok)
	s.pendingBytes -= p.size
	if s.now().After(p.expires) {
		return nil
	}
	return p
}

// CreateTopicRequest is create-topic's body.
type CreateTopicRequest struct {
	Topic             string            `json:"topic"`
	Partitions        int32             `json:"partitions"`         // 0: broker default
	ReplicationFactor int16             `json:"replication_factor"` // 0: broker default
	Configs           map[string]string `json:"configs"`
}

func topicService(cl *kafka.Client) *topics.Service {
	return &topics.Service{Client: cl.Client, Admin: cl.Admin()}
}

func planCreate(ctx context.Context, cl *kafka.Client, body []byte) (any, func(context.Context) (any, error), error) {
	var req CreateTopicRequest
	if err := decode(body, &req); err != nil {
		return nil, nil, err
	}
	if req.Topic == "" {
		return nil, nil, badf("topic: a name is needed")
	}
	if req.Partitions < 0 || req.ReplicationFactor < 0 {
		return nil, nil, badf("partitions and replication_factor must be positive (0: broker default)")
	}
	cr := topics.CreateRequest{Name: req.Topic, Partitions: -1, ReplicationFactor: -1, Configs: req.Configs}
	if req.Partitions > 0 {
		cr.Partitions = req.Partitions
	}
	if req.ReplicationFactor > 0 {
		cr.ReplicationFactor = req.ReplicationFactor
	}
	dry := cr
	dry.ValidateOnly = true
	res, err := topicService(cl).Create(ctx, dry)
	if err != nil {
		return nil, nil, err
	}
	return res, func(ctx context.Context) (any, error) { return topicService(cl).Create(ctx, cr) }, nil
}

// AddPartitionsRequest is add-partitions' body: the new total count.
type AddPartitionsRequest struct {
	Topic      string `json:"topic"`
	Partitions int32  `json:"partitions"`
}

func planAddPartitions(ctx context.Context, cl *kafka.Client, body []byte) (any, func(context.Context) (any, error), error) {
	var req AddPartitionsRequest
	if err := decode(body, &req); err != nil {
		return nil, nil, err
	}
	if req.Topic == "" || req.Partitions < 1 {
		return nil, nil, badf("topic and partitions (the new total) are needed")
	}
	svc := topicService(cl)
	c, err := svc.Metadata(ctx)
	if err != nil {
		return nil, nil, err
	}
	t, ok := c.Topics[req.Topic]
	if !ok {
		return nil, nil, fmt.Errorf("topic %q does not exist", req.Topic)
	}
	current := map[string]int{req.Topic: len(t.Partitions)}
	if int(req.Partitions) <= len(t.Partitions) {
		return nil, nil, badf("topic %s has %d partitions: the new count must be larger", req.Topic, len(t.Partitions))
	}
	ar := topics.AlterRequest{Topics: []string{req.Topic}, Count: req.Partitions}
	dry := ar
	dry.ValidateOnly = true
	res, err := svc.Alter(ctx, dry, current)
	if err != nil {
		return nil, nil, err
	}
	return res, func(ctx context.Context) (any, error) { return topicService(cl).Alter(ctx, ar, current) }, nil
}

// AlterConfigRequest is alter-config's body.
type AlterConfigRequest struct {
	// ResourceType is "topic" or "broker" (Name "" : the cluster-wide
	// broker defaults).
	ResourceType string            `json:"resource_type"`
	ResourceName string            `json:"resource_name"`
	Set          map[string]string `json:"set"`
	Delete       []string          `json:"delete"`
}

func planAlterConfig(ctx context.Context, cl *kafka.Client, body []byte) (any, func(context.Context) (any, error), error) {
	var req AlterConfigRequest
	if err := decode(body, &req); err != nil {
		return nil, nil, err
	}
	var res configs.Resource
	switch req.ResourceType {
	case "topic":
		if req.ResourceName == "" {
			return nil, nil, badf("resource_name: a topic is needed")
		}
		res = configs.Resource{Type: configs.Topic, Name: req.ResourceName}
	case "broker":
		res = configs.Resource{Type: configs.Broker, Name: req.ResourceName}
	default:
		return nil, nil, badf("resource_type %q: want topic or broker", req.ResourceType)
	}
	var ops []configs.Op
	names := make([]string, 0, len(req.Set))
	for k := range req.Set {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		ops = append(ops, configs.Op{Name: k, Value: req.Set[k], Op: configs.Set})
	}
	for _, k := range req.Delete {
		if _, both := req.Set[k]; both {
			return nil, nil, badf("%s is both set and deleted", k)
		}
		ops = append(ops, configs.Op{Name: k, Op: configs.Delete})
	}
	if len(ops) == 0 {
		return nil, nil, badf("nothing to change: give set or delete")
	}
	svc := &configs.Service{Client: cl.Client}
	preview, err := configs.Change(ctx, svc, res, ops, true)
	if err != nil {
		return nil, nil, err
	}
	return preview, func(ctx context.Context) (any, error) { return configs.Change(ctx, svc, res, ops, false) }, nil
}

// ElectRequest is elect-preferred's body: the topics (none: all).
type ElectRequest struct {
	Topics []string `json:"topics"`
}

// ElectOutcome is one partition's preferred election.
type ElectOutcome struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Error     string `json:"error,omitempty"`
}

// ElectResult is elect-preferred applied: the outcomes and the leader
// balance read back.
type ElectResult struct {
	Elected []ElectOutcome          `json:"elected"`
	After   *reassign.LeaderBalance `json:"after"`
}

func planElect(ctx context.Context, cl *kafka.Client, body []byte) (any, func(context.Context) (any, error), error) {
	var req ElectRequest
	if len(body) > 0 {
		if err := decode(body, &req); err != nil {
			return nil, nil, err
		}
	}
	svc := &reassign.Service{Client: cl.Client, Admin: cl.Admin()}
	bs, err := svc.Brokers(ctx)
	if err != nil {
		return nil, nil, err
	}
	ids := reassign.BrokerIDs(bs)
	ls, err := svc.Leaders(ctx, req.Topics...)
	if err != nil {
		return nil, nil, err
	}
	bal := reassign.Preview(ls, ids)
	var tps []reassign.TP
	for _, m := range bal.Partitions {
		if m.Electable {
			tps = append(tps, reassign.TP{Topic: m.Topic, Partition: m.Partition})
		}
	}
	return bal, func(ctx context.Context) (any, error) {
		out := &ElectResult{Elected: []ElectOutcome{}}
		if len(tps) > 0 {
			res, err := svc.Elect(ctx, reassign.Preferred, tps, 30000)
			if err != nil {
				return nil, err
			}
			for _, r := range res {
				o := ElectOutcome{Topic: r.Topic, Partition: r.Partition}
				if r.Err != nil && !r.NotNeeded() {
					o.Error = r.Err.JavaString()
				}
				out.Elected = append(out.Elected, o)
			}
		}
		if ls, err := svc.Leaders(ctx, req.Topics...); err == nil {
			out.After = reassign.Preview(ls, ids)
		}
		return out, nil
	}, nil
}

// ResetRequest is reset-offsets' body.
type ResetRequest struct {
	Group string `json:"group"`
	// Topics: "t" or "t:0,1"; none: every partition the group committed.
	Topics []string `json:"topics"`
	// To is earliest, latest, offset, shift-by or datetime.
	To          string `json:"to"`
	Offset      int64  `json:"offset"`
	TimestampMs int64  `json:"timestamp_ms"`
}

var resetKinds = map[string]groups.ResetKind{
	"earliest": groups.ToEarliest, "latest": groups.ToLatest, "offset": groups.ToOffset,
	"shift-by": groups.ShiftBy, "datetime": groups.ToDatetime,
}

func planReset(ctx context.Context, cl *kafka.Client, body []byte) (any, func(context.Context) (any, error), error) {
	var req ResetRequest
	if err := decode(body, &req); err != nil {
		return nil, nil, err
	}
	if req.Group == "" {
		return nil, nil, badf("group: a name is needed")
	}
	kind, ok := resetKinds[req.To]
	if !ok {
		return nil, nil, badf("to %q: want earliest, latest, offset, shift-by or datetime", req.To)
	}
	spec := groups.ResetSpec{Groups: []string{req.Group}, AllTopics: len(req.Topics) == 0, Topics: req.Topics, Kind: kind, Offset: req.Offset, TimestampMs: req.TimestampMs}
	c := groups.New(cl.Client)
	plan, err := c.PlanReset(ctx, spec)
	if err != nil {
		return nil, nil, err
	}
	for _, g := range plan.Groups {
		if g.Refused {
			return nil, nil, fmt.Errorf("%s", groups.RefusalReason(g.Group, g.State))
		}
	}
	return plan, func(ctx context.Context) (any, error) {
		if err := c.ApplyReset(ctx, plan); err != nil {
			return nil, err
		}
		return plan, nil
	}, nil
}
