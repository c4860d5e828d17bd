// Package dtokens is delegation tokens (KIP-48): create, renew, expire and
// describe them with the CreateDelegationToken, RenewDelegationToken,
// ExpireDelegationToken and DescribeDelegationToken requests, as Apache
// 4.4's admin client sends them, and the texts of Apache's
// DelegationTokenCommand (kafka-delegation-tokens).
//
// A token is a SCRAM credential: a client logs in with the token id as the
// username, the HMAC (base64) as the password and the SCRAM extension
// tokenauth=true (Java: tokenauth="true" in ScramLoginModule's options).
package dtokens

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/javaerr"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Principal is a Kafka principal, TYPE:NAME (User:alice).
type Principal struct {
	Type, Name string
}

// String is KafkaPrincipal.toString.
func (p Principal) String() string { return p.Type + ":" + p.Name }

// ParsePrincipal is SecurityUtils.parseKafkaPrincipal of a value the tool
// trimmed first (String.trim: every character up to ' ' at either end).
func ParsePrincipal(s string) (Principal, error) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	typ, name, ok := strings.Cut(s, ":")
	if !ok {
		return Principal{}, fmt.Errorf("expected a string in format principalType:principalName but got %s", s)
	}
	return Principal{Type: typ, Name: name}, nil
}

// Token is one delegation token. HMAC is its password, base64 as Java's
// DelegationToken.hmacAsBase64String gives it ("" when it is not to be
// shown: HideHMAC).
type Token struct {
	TokenID   string    `json:"token_id"`
	HMAC      string    `json:"hmac,omitempty"`
	Owner     string    `json:"owner"`
	Requester string    `json:"requester"`
	Renewers  []string  `json:"renewers"`
	Issued    time.Time `json:"issue_time"`
	Expires   time.Time `json:"expiry_time"`
	Max       time.Time `json:"max_time"`
}

// Error is a delegation token request the broker refused: its message is
// the Java exception's toString (class and default message), what
// Apache's tool prints first.
type Error struct {
	Code int16
}

func (e *Error) Error() string {
	msg := "The server experienced an unexpected error when processing the request."
	if ke, ok := kerr.ErrorForCode(e.Code).(*kerr.Error); ok {
		msg = ke.Description
	}
	return javaerr.String(e.Code, msg)
}

// expiry is a renewal's or expiry's answer: the new expiry time.
func expiry(code int16, ms int64) (time.Time, error) {
	if err := check(code); err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(ms).UTC(), nil
}

func check(code int16) error {
	if code != 0 {
		return &Error{Code: code}
	}
	return nil
}

// CreateRequest is what --create asks for: the token's renewers, an owner
// other than the caller (nil: the caller) and its maximum lifetime in ms
// (-1: the broker's delegation.token.max.lifetime.ms).
type CreateRequest struct {
	Owner         *Principal
	Renewers      []Principal
	MaxLifetimeMs int64
}

// Create creates a token. Its renewers are the request's, as the Java admin
// client reports them (the response does not carry them).
func Create(ctx context.Context, cl *kgo.Client, r CreateRequest) (*Token, error) {
	req := kmsg.NewPtrCreateDelegationTokenRequest()
	if r.Owner != nil {
		req.OwnerPrincipalType, req.OwnerPrincipalName = &r.Owner.Type, &r.Owner.Name
	}
	req.Renewers = []kmsg.CreateDelegationTokenRequestRenewer{}
	renewers := []string{}
	for _, p := range r.Renewers {
		rr := kmsg.NewCreateDelegationTokenRequestRenewer()
		rr.PrincipalType, rr.PrincipalName = p.Type, p.Name
		req.Renewers = append(req.Renewers, rr)
		renewers = append(renewers, p.String())
	}
	req.MaxLifetimeMillis = r.MaxLifetimeMs
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	if err := check(resp.ErrorCode); err != nil {
		return nil, err
	}
	t := &Token{
		TokenID:   resp.TokenID,
		HMAC:      base64.StdEncoding.EncodeToString(resp.HMAC),
		Owner:     Principal{resp.PrincipalType, resp.PrincipalName}.String(),
		Requester: Principal{resp.TokenRequesterPrincipalType, resp.TokenRequesterPrincipalName}.String(),
		Renewers:  renewers,
		Issued:    time.UnixMilli(resp.IssueTimestamp).UTC(),
		Expires:   time.UnixMilli(resp.ExpiryTimestamp).UTC(),
		Max:       time.UnixMilli(resp.MaxTimestamp).UTC(),
	}
	if resp.Version < 3 {
		t.Requester = t.Owner
	}
	return t, nil
}

// Renew extends the token of hmac by periodMs (-1: the broker's
// delegation.token.expiry.time.ms) and returns its new expiry time.
func Renew(ctx context.Context, cl *kgo.Client, hmac []byte, periodMs int64) (time.Time, error) {
	req := kmsg.NewPtrRenewDelegationTokenRequest()
	req.HMAC, req.RenewTimeMillis = hmac, periodMs
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return time.Time{}, err
	}
	return expiry(resp.ErrorCode, resp.ExpiryTimestamp)
}

// Expire sets the token of hmac to expire periodMs from now (a negative
// period expires it at once: the broker removes it) and returns the new
// expiry time.
func Expire(ctx context.Context, cl *kgo.Client, hmac []byte, periodMs int64) (time.Time, error) {
	req := kmsg.NewPtrExpireDelegationTokenRequest()
	req.HMAC, req.ExpiryPeriodMillis = hmac, periodMs
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return time.Time{}, err
	}
	return expiry(resp.ErrorCode, resp.ExpiryTimestamp)
}

// Describe lists the tokens of owners the broker lets the caller see. nil
// owners are sent as null: every token the caller owns, renews or may
// describe; an empty list, as Apache's tool sends it when no owner is
// named, is answered with no token.
func Describe(ctx context.Context, cl *kgo.Client, owners []Principal) ([]Token, error) {
	req := kmsg.NewPtrDescribeDelegationTokenRequest()
	if owners != nil {
		req.Owners = []kmsg.DescribeDelegationTokenRequestOwner{}
	}
	for _, p := range owners {
		o := kmsg.NewDescribeDelegationTokenRequestOwner()
		o.PrincipalType, o.PrincipalName = p.Type, p.Name
		req.Owners = append(req.Owners, o)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	if err := check(resp.ErrorCode); err != nil {
		return nil, err
	}
	ts := []Token{}
	for _, d := range resp.TokenDetails {
		t := Token{
			TokenID:   d.TokenID,
			HMAC:      base64.StdEncoding.EncodeToString(d.HMAC),
			Owner:     Principal{d.PrincipalType, d.PrincipalName}.String(),
			Requester: Principal{d.TokenRequesterPrincipalType, d.TokenRequesterPrincipalName}.String(),
			Renewers:  []string{},
			Issued:    time.UnixMilli(d.IssueTimestamp).UTC(),
			Expires:   time.UnixMilli(d.ExpiryTimestamp).UTC(),
			Max:       time.UnixMilli(d.MaxTimestamp).UTC(),
		}
		if resp.Version < 3 {
			t.Requester = t.Owner
		}
		for _, r := range d.Renewers {
			t.Renewers = append(t.Renewers, Principal{r.PrincipalType, r.PrincipalName}.String())
		}
		ts = append(ts, t)
	}
	return ts, nil
}
