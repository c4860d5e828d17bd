package configs

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Quota entity types (ClientQuotaEntity).
const (
	QuotaUser     = "user"
	QuotaClientID = "client-id"
	QuotaIP       = "ip"
)

// QuotaComponent is one part of a quota entity. Name nil is the default
// entity of the type.
type QuotaComponent struct {
	Type string  `json:"type"`
	Name *string `json:"name"`
}

// QuotaValue is one quota of an entity.
type QuotaValue struct {
	Key   string  `json:"key"`
	Value float64 `json:"value"`
}

// Quota is one entity's quotas.
type Quota struct {
	Entity []QuotaComponent `json:"entity"`
	Values []QuotaValue     `json:"values"`
}

// QuotaMatch is how a describe filter component matches.
type QuotaMatch int8

const (
	MatchExact   = QuotaMatch(kmsg.QuotasMatchTypeExact)
	MatchDefault = QuotaMatch(kmsg.QuotasMatchTypeDefault)
	MatchAny     = QuotaMatch(kmsg.QuotasMatchTypeAny)
)

// QuotaFilter is one component of a strict (containsOnly) quota filter.
type QuotaFilter struct {
	Type  string
	Name  string // MatchExact only
	Match QuotaMatch
}

// Quotas is the result of DescribeQuotas: each entity with its quotas.
type Quotas []Quota

// DescribeQuotas describes the quotas of the entities that have exactly
// the filter's components (ClientQuotaFilter.containsOnly).
func (s *Service) DescribeQuotas(ctx context.Context, filter []QuotaFilter) (Quotas, error) {
	req := kmsg.NewPtrDescribeClientQuotasRequest()
	req.Strict = true
	for _, f := range filter {
		c := kmsg.NewDescribeClientQuotasRequestComponent()
		c.EntityType = f.Type
		c.MatchType = kmsg.QuotasMatchType(f.Match)
		if f.Match == MatchExact {
			n := f.Name
			c.Match = &n
		}
		req.Components = append(req.Components, c)
	}
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil {
		return nil, err
	}
	if err := codeErr(resp.ErrorCode, resp.ErrorMessage); err != nil {
		return nil, err
	}
	// Java's admin client puts the entities in a HashMap sized for them,
	// keyed by ClientQuotaEntity (hash: Objects.hash(entries), entries a
	// HashMap<String,String>), each entity's values in a HashMap too.
	var qs []Quota
	var hashes []int32
	for _, e := range resp.Entries {
		var q Quota
		h := int32(0)
		var keys []string
		byKey := map[string]*string{}
		for _, c := range e.Entity {
			if _, ok := byKey[c.Type]; !ok {
				keys = append(keys, c.Type)
			}
			byKey[c.Type] = c.Name
		}
		for _, k := range keys {
			n := byKey[k]
			q.Entity = append(q.Entity, QuotaComponent{Type: k, Name: n})
			vh := int32(0)
			if n != nil {
				vh = javafmt.StringHash(*n)
			}
			h += javafmt.StringHash(k) ^ vh
		}
		var vkeys []string
		vals := map[string]float64{}
		for _, v := range e.Values {
			if _, ok := vals[v.Key]; !ok {
				vkeys = append(vkeys, v.Key)
			}
			vals[v.Key] = v.Value
		}
		for _, k := range javafmt.HashMapOrder(vkeys, len(e.Values)) {
			q.Values = append(q.Values, QuotaValue{Key: k, Value: vals[k]})
		}
		qs = append(qs, q)
		hashes = append(hashes, 31+h)
	}
	out := make(Quotas, 0, len(qs))
	for _, i := range javafmt.HashOrder(hashes, javafmt.HashMapCapacityOf(hashes, len(resp.Entries))) {
		out = append(out, qs[i])
	}
	return out, nil
}

// QuotaOp sets (Remove false) or removes one quota.
type QuotaOp struct {
	Key    string
	Value  float64
	Remove bool
}

// AlterQuotas applies ops to one entity.
func (s *Service) AlterQuotas(ctx context.Context, entity []QuotaComponent, ops []QuotaOp, validateOnly bool) error {
	req := kmsg.NewPtrAlterClientQuotasRequest()
	req.ValidateOnly = validateOnly
	en := kmsg.NewAlterClientQuotasRequestEntry()
	for _, c := range entity {
		ec := kmsg.NewAlterClientQuotasRequestEntryEntity()
		ec.Type = c.Type
		ec.Name = c.Name
		en.Entity = append(en.Entity, ec)
	}
	for _, o := range ops {
		op := kmsg.NewAlterClientQuotasRequestEntryOp()
		op.Key = o.Key
		op.Value = o.Value
		op.Remove = o.Remove
		en.Ops = append(en.Ops, op)
	}
	req.Entries = append(req.Entries, en)
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil {
		return err
	}
	for _, e := range resp.Entries {
		if err := codeErr(e.ErrorCode, e.ErrorMessage); err != nil {
			return err
		}
	}
	return nil
}

// entityText is how ConfigCommand names a quota entity: user, client-id
// and ip parts in that order.
func entityText(ent []QuotaComponent) string {
	var parts []string
	for _, typ := range []struct{ key, text string }{{QuotaUser, "user-principal"}, {QuotaClientID, "client-id"}, {QuotaIP, "ip"}} {
		for _, c := range ent {
			if c.Type != typ.key {
				continue
			}
			if c.Name == nil || *c.Name == "" {
				parts = append(parts, "the default "+typ.text)
			} else {
				parts = append(parts, typ.text+" '"+*c.Name+"'")
			}
		}
	}
	return strings.Join(parts, ", ")
}

// WriteApache prints the quotas as kafka-configs --describe does.
func (qs Quotas) WriteApache(w io.Writer) error {
	for _, q := range qs {
		vals := make([]string, len(q.Values))
		for i, v := range q.Values {
			vals[i] = v.Key + "=" + javafmt.DoubleToString(v.Value)
		}
		if _, err := fmt.Fprintf(w, "Quota configs for %s are %s\n", entityText(q.Entity), strings.Join(vals, ", ")); err != nil {
			return err
		}
	}
	return nil
}

// ScramCredential is one SCRAM mechanism of a user: never its secret.
type ScramCredential struct {
	Mechanism  string `json:"mechanism"`
	Iterations int32  `json:"iterations"`
}

// ScramUser is one user's SCRAM credentials, or the error the broker
// returned for that user.
type ScramUser struct {
	User        string            `json:"user"`
	Credentials []ScramCredential `json:"credentials"`
	Err         error             `json:"-"`
}

// mechanismName is ScramMechanism.mechanismName.
func mechanismName(m int8) string {
	switch m {
	case 1:
		return "SCRAM-SHA-256"
	case 2:
		return "SCRAM-SHA-512"
	}
	return "UNKNOWN"
}

// Scram mechanisms, as ScramMechanism.forMechanismName knows them, with
// their minimum iterations.
var scramMechanisms = map[string]struct {
	m             kadm.ScramMechanism
	minIterations int
}{
	"SCRAM-SHA-256": {kadm.ScramSha256, 4096},
	"SCRAM-SHA-512": {kadm.ScramSha512, 4096},
}

// IsScram says whether name is a SCRAM mechanism name.
func IsScram(name string) bool {
	_, ok := scramMechanisms[name]
	return ok
}

// DescribeScram describes the SCRAM credentials of users (all users when
// none are given), in the broker's order. Users that have none are left
// out, as the Java admin client leaves them out.
func (s *Service) DescribeScram(ctx context.Context, users []string) ([]ScramUser, error) {
	req := kmsg.NewPtrDescribeUserSCRAMCredentialsRequest()
	if len(users) > 0 {
		for _, u := range users {
			ru := kmsg.NewDescribeUserSCRAMCredentialsRequestUser()
			ru.Name = u
			req.Users = append(req.Users, ru)
		}
	}
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil {
		return nil, err
	}
	if err := codeErr(resp.ErrorCode, resp.ErrorMessage); err != nil {
		return nil, err
	}
	var out []ScramUser
	for _, r := range resp.Results {
		if r.ErrorCode == kerrResourceNotFound {
			continue
		}
		u := ScramUser{User: r.User, Err: codeErr(r.ErrorCode, r.ErrorMessage)}
		for _, c := range r.CredentialInfos {
			u.Credentials = append(u.Credentials, ScramCredential{Mechanism: mechanismName(c.Mechanism), Iterations: c.Iterations})
		}
		out = append(out, u)
	}
	return out, nil
}

const kerrResourceNotFound = 91

// ScramUpsert creates or replaces one mechanism's credential of a user.
// Password is sent salted and hashed, never in clear.
type ScramUpsert struct {
	Mechanism  string
	Iterations int
	Password   string
}

// admin is s.Admin, or an admin client over s.Client.
func (s *Service) admin() *kadm.Client {
	if s.Admin != nil {
		return s.Admin
	}
	return kadm.NewClient(s.Client)
}

// AlterScram deletes mechanisms and upserts credentials of one user.
func (s *Service) AlterScram(ctx context.Context, user string, del []string, upsert []ScramUpsert) error {
	var ds []kadm.DeleteSCRAM
	for _, m := range del {
		ds = append(ds, kadm.DeleteSCRAM{User: user, Mechanism: scramMechanisms[m].m})
	}
	var us []kadm.UpsertSCRAM
	for _, u := range upsert {
		us = append(us, kadm.UpsertSCRAM{User: user, Mechanism: scramMechanisms[u.Mechanism].m, Iterations: int32(u.Iterations), Password: u.Password})
	}
	res, err := s.admin().AlterUserSCRAMs(ctx, ds, us)
	if err != nil {
		return err
	}
	for _, r := range res {
		if r.Err != nil {
			return &Error{Err: r.Err, Message: r.ErrMessage}
		}
	}
	return nil
}

// WriteScramApache prints users' SCRAM credentials as kafka-configs
// --describe does.
func WriteScramApache(w io.Writer, users []ScramUser) error {
	for _, u := range users {
		if u.Err != nil {
			if _, err := fmt.Fprintf(w, "Error retrieving SCRAM credential configs for user-principal '%s': %s\n", u.User, javaException(u.Err)); err != nil {
				return err
			}
			continue
		}
		parts := make([]string, len(u.Credentials))
		for i, c := range u.Credentials {
			parts[i] = fmt.Sprintf("%s=iterations=%d", c.Mechanism, c.Iterations)
		}
		if _, err := fmt.Fprintf(w, "SCRAM credential configs for user-principal '%s' are %s\n", u.User, strings.Join(parts, ", ")); err != nil {
			return err
		}
	}
	return nil
}
