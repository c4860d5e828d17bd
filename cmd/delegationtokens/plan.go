package delegationtokens

import (
	"context"
	"time"

	"github.com/kboxdev/kbox/pkg/dtokens"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/twmb/franz-go/pkg/kgo"
)

// plan reads the action's values in the order Apache reads them; a value
// Apache reads after printing its "Calling ..." line fails with that line
// in call.
func plan(s *jopt.Set) action {
	switch {
	case s.Has("create"):
		return planCreate(s)
	case s.Has("renew"):
		return planChange(s, "renew-time-period", dtokens.RenewCall, dtokens.Renew, dtokens.Renewed)
	case s.Has("expire"):
		return planChange(s, "expiry-time-period", dtokens.ExpireCall, dtokens.Expire, dtokens.Expired)
	}
	return planDescribe(s)
}

// principals is getPrincipals: every value of the option, trimmed and
// parsed.
func principals(s *jopt.Set, name string) ([]dtokens.Principal, error) {
	var ps []dtokens.Principal
	for _, v := range s.Values(name) {
		p, err := dtokens.ParsePrincipal(v)
		if err != nil {
			return nil, fail(err.Error())
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// period is a Long option's value: the option was given (checked before),
// maybe without a value.
func period(s *jopt.Set, name string) (int64, error) {
	v, ok, err := s.Int(name)
	switch {
	case err != nil:
		return 0, fail(err.Error())
	case !ok:
		return 0, fail(nullLong)
	}
	return v, nil
}

func planCreate(s *jopt.Set) action {
	renewers, err := principals(s, "renewer-principal")
	if err != nil {
		return action{err: err}
	}
	maxLife, err := period(s, "max-life-time-period")
	if err != nil {
		return action{err: err}
	}
	call := dtokens.CreateCall(renewers, maxLife)
	owners, err := principals(s, "owner-principal")
	if err != nil {
		return action{call: call, err: err}
	}
	req := dtokens.CreateRequest{Renewers: renewers, MaxLifetimeMs: maxLife}
	if len(owners) > 0 {
		req.Owner = &owners[0]
	}
	return action{call: call, run: func(ctx context.Context, cl *kgo.Client) (output.ApacheWriter, error) {
		t, err := dtokens.Create(ctx, cl, req)
		if err != nil {
			return nil, err
		}
		return &dtokens.Created{Token: *t}, nil
	}}
}

// planChange is --renew and --expire: the HMAC, the period, the line
// echoing both, then the HMAC decoded.
func planChange(s *jopt.Set, periodOpt string,
	callText func(string, int64) string,
	send func(context.Context, *kgo.Client, []byte, int64) (time.Time, error),
	done func(time.Time) string,
) action {
	hmac, given, err := s.Value("hmac")
	if err != nil {
		return action{err: fail(err.Error())}
	}
	p, err := period(s, periodOpt)
	if err != nil {
		return action{err: err}
	}
	shown := hmac
	if !given {
		shown = "null"
	}
	call := callText(shown, p)
	if !given {
		return action{call: call, err: fail(nullHMAC)}
	}
	raw, err := javafmt.DecodeBase64(hmac)
	if err != nil {
		return action{call: call, err: fail(err.Error())}
	}
	return action{call: call, run: func(ctx context.Context, cl *kgo.Client) (output.ApacheWriter, error) {
		t, err := send(ctx, cl, raw, p)
		if err != nil {
			return nil, err
		}
		return text(done(t)), nil
	}}
}

func planDescribe(s *jopt.Set) action {
	owners, err := principals(s, "owner-principal")
	if err != nil {
		return action{err: err}
	}
	if owners == nil {
		owners = []dtokens.Principal{} // an empty list, as Apache sends it
	}
	return action{call: dtokens.DescribeCall(owners), run: func(ctx context.Context, cl *kgo.Client) (output.ApacheWriter, error) {
		ts, err := dtokens.Describe(ctx, cl, owners)
		if err != nil {
			return nil, err
		}
		return &dtokens.List{Tokens: ts}, nil
	}}
}
