package dtokens

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

func TestMain(m *testing.M) {
	time.Local = time.FixedZone("T", 2*3600) // the dates are local time
	m.Run()
}

var (
	issued = time.Date(2026, 12, 2, 15, 22, 40, 0, time.UTC)
	tokA   = Token{TokenID: "rSuVJeXLR2maJzkK8vIbNA", HMAC: "54HMXGaPZO9YmqeUxpAl6c6lXeA4zmU1i4f89LEO0QpY/hpDowCheGyGe9QfzOnXjj239fU6NeEcjcZz/t5KJQ==",
		Owner: "User:admin", Requester: "User:admin", Renewers: []string{"User:alice", "User:bob"},
		Issued: issued, Expires: issued.Add(24 * time.Hour), Max: issued.Add(7 * 24 * time.Hour)}
	tokB = Token{TokenID: "b", HMAC: "YWJj", Owner: "User:x", Requester: "User:admin", Renewers: []string{},
		Issued: issued, Expires: issued, Max: issued}
)

func TestGoldens(t *testing.T) {
	golden.JSON(t, "create.json.golden", &Created{Token: tokA})
	golden.JSON(t, "describe.json.golden", &List{Tokens: []Token{tokA, tokB}})
	l := &List{Tokens: []Token{tokA, tokB}}
	l.HideHMAC()
	golden.JSON(t, "list.json.golden", l)
	if h, r := l.Header(), l.Rows(); len(h) != 7 || h[1] != "OWNER" || len(r[0]) != 7 || r[0][1] != "User:admin" {
		t.Errorf("list without HMAC: %v %v", h, r)
	}
}

// Apache 4.4's texts, as captured from the tool (TZ two hours east of UTC).
func TestApacheText(t *testing.T) {
	const head = "\nTOKENID         HMAC                           OWNER           REQUESTER       RENEWERS                  ISSUEDATE       EXPIRYDATE      MAXDATE        \n"
	rowA := "\nrSuVJeXLR2maJzkK8vIbNA 54HMXGaPZO9YmqeUxpAl6c6lXeA4zmU1i4f89LEO0QpY/hpDowCheGyGe9QfzOnXjj239fU6NeEcjcZz/t5KJQ== User:admin      User:admin      [User:alice, User:bob]    2026-12-02T17:22 2026-12-03T17:22 2026-12-09T17:22\n"
	rowB := "\nb               YWJj                           User:x          User:admin      []                        2026-12-02T17:22 2026-12-02T17:22 2026-12-02T17:22\n"
	var b bytes.Buffer
	if err := (&Created{Token: tokA}).WriteApache(&b); err != nil {
		t.Fatal(err)
	}
	if want := "Created delegation token with tokenId : rSuVJeXLR2maJzkK8vIbNA\n" + head + rowA; b.String() != want {
		t.Errorf("create:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	if err := (&List{Tokens: []Token{tokA, tokB}}).WriteApache(&b); err != nil {
		t.Fatal(err)
	}
	if want := "Total number of tokens : 2" + head + rowA + rowB; b.String() != want {
		t.Errorf("describe:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	if err := (&List{}).WriteApache(&b); err != nil {
		t.Fatal(err)
	}
	if want := "Total number of tokens : 0" + head; b.String() != want {
		t.Errorf("describe none:\n%q\nwant\n%q", b.String(), want)
	}
	p := []Principal{{"User", "a"}, {"Group", "b:c"}}
	for got, want := range map[string]string{
		CreateCall(nil, -1):          "Calling create token operation with renewers :[] , max-life-time-period :-1\n",
		CreateCall(p, 5):             "Calling create token operation with renewers :[User:a, Group:b:c] , max-life-time-period :5\n",
		RenewCall("null", 1):         "Calling renew token operation with hmac :null , renew-time-period :1\n",
		ExpireCall("YWJj", -1):       "Calling expire token operation with hmac :YWJj , expire-time-period :-1\n",
		Renewed(issued):              "Completed renew operation. New expiry date : 2026-12-02T17:22",
		Expired(issued):              "Completed expire operation. New expiry date : 2026-12-02T17:22",
		DescribeCall(nil):            "Calling describe token operation for current user.\n",
		DescribeCall(p[:1]):          "Calling describe token operation for owners: [User:a]\n",
		(&Error{Code: 62}).Error():   "org.apache.kafka.common.errors.DelegationTokenNotFoundException: Delegation Token is not found on server.",
		(&Error{Code: 64}).Error():   "org.apache.kafka.common.errors.UnsupportedByAuthenticationException: Delegation Token requests are not allowed on PLAINTEXT/1-way SSL channels and on delegation token authenticated channels.",
		(&Error{Code: 9999}).Error(): "org.apache.kafka.common.errors.UnknownServerException: The server experienced an unexpected error when processing the request.",
	} {
		if got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	}
}

func TestParsePrincipal(t *testing.T) {
	for in, want := range map[string]string{"User:a": "User:a", " User:a \t": "User:a", "User:": "User:", ":x": ":x", "G:a:b": "G:a:b"} {
		p, err := ParsePrincipal(in)
		if err != nil || p.String() != want {
			t.Errorf("%q: %v %v", in, p, err)
		}
	}
	for in, msg := range map[string]string{"bad": "bad", "": "", "  ": ""} {
		_, err := ParsePrincipal(in)
		if err == nil || err.Error() != "expected a string in format principalType:principalName but got "+msg {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// The requests on a kfake cluster (which has no delegation tokens: a
// control function answers them), as Apache's admin client sends them.
func TestRequests(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// kfake does not advertise the delegation token keys: Kafka 4.4 does.
	c.ControlKey(int16(kmsg.ApiVersions), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		resp := r.(*kmsg.ApiVersionsRequest).ResponseKind().(*kmsg.ApiVersionsResponse)
		kversion.Stable().EachMaxKeyVersion(func(k, v int16) {
			resp.ApiKeys = append(resp.ApiKeys, kmsg.ApiVersionsResponseApiKey{ApiKey: k, MaxVersion: v})
		})
		return resp, nil, true
	})
	c.ControlKey(int16(kmsg.CreateDelegationToken), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := r.(*kmsg.CreateDelegationTokenRequest)
		resp := req.ResponseKind().(*kmsg.CreateDelegationTokenResponse)
		if req.OwnerPrincipalName == nil || *req.OwnerPrincipalName != "bob" || len(req.Renewers) != 1 || req.MaxLifetimeMillis != -1 {
			resp.ErrorCode = 42
			return resp, nil, true
		}
		resp.PrincipalType, resp.PrincipalName = *req.OwnerPrincipalType, *req.OwnerPrincipalName
		resp.TokenRequesterPrincipalType, resp.TokenRequesterPrincipalName = "User", "admin"
		resp.TokenID, resp.HMAC = "id", []byte("abc")
		resp.IssueTimestamp, resp.ExpiryTimestamp, resp.MaxTimestamp = issued.UnixMilli(), issued.UnixMilli()+1, issued.UnixMilli()+2
		return resp, nil, true
	})
	var owners []kmsg.DescribeDelegationTokenRequestOwner
	c.ControlKey(int16(kmsg.DescribeDelegationToken), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := r.(*kmsg.DescribeDelegationTokenRequest)
		owners = req.Owners
		resp := req.ResponseKind().(*kmsg.DescribeDelegationTokenResponse)
		if len(req.Owners) == 0 {
			return resp, nil, true
		}
		d := kmsg.NewDescribeDelegationTokenResponseTokenDetail()
		d.PrincipalType, d.PrincipalName, d.TokenID, d.HMAC = "User", "bob", "id", []byte("abc")
		d.Renewers = []kmsg.DescribeDelegationTokenResponseTokenDetailRenewer{{PrincipalType: "User", PrincipalName: "r"}}
		resp.TokenDetails = append(resp.TokenDetails, d)
		return resp, nil, true
	})
	c.ControlKey(int16(kmsg.ExpireDelegationToken), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := r.(*kmsg.ExpireDelegationTokenRequest)
		resp := req.ResponseKind().(*kmsg.ExpireDelegationTokenResponse)
		if string(req.HMAC) != "abc" {
			resp.ErrorCode = 62
		}
		resp.ExpiryTimestamp = issued.UnixMilli() + req.ExpiryPeriodMillis
		return resp, nil, true
	})
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()

	tok, err := Create(ctx, cl, CreateRequest{Owner: &Principal{"User", "bob"}, Renewers: []Principal{{"User", "r"}}, MaxLifetimeMs: -1})
	if err != nil {
		t.Fatal(err)
	}
	if tok.TokenID != "id" || tok.HMAC != "YWJj" || tok.Owner != "User:bob" || tok.Requester != "User:admin" || len(tok.Renewers) != 1 || !tok.Max.Equal(issued.Add(2*time.Millisecond)) {
		t.Errorf("create: %+v", tok)
	}
	var te *Error
	if _, err := Create(ctx, cl, CreateRequest{MaxLifetimeMs: 1}); !errors.As(err, &te) || te.Code != 42 {
		t.Errorf("create refused: %v", err)
	}

	ts, err := Describe(ctx, cl, []Principal{})
	if err != nil || len(ts) != 0 || owners == nil || len(owners) != 0 {
		t.Errorf("describe for the current user: an empty owner list (not null) and no token: %v %v %#v", ts, err, owners)
	}
	if _, err := Describe(ctx, cl, nil); err != nil || owners != nil {
		t.Errorf("describe every token: owners null: %v %#v", err, owners)
	}
	ts, err = Describe(ctx, cl, []Principal{{"User", "bob"}})
	if err != nil || len(ts) != 1 || ts[0].Owner != "User:bob" || ts[0].HMAC != "YWJj" || ts[0].Renewers[0] != "User:r" || len(owners) != 1 {
		t.Errorf("describe bob: %+v %v", ts, err)
	}

	at, err := Expire(ctx, cl, []byte("abc"), 60000)
	if err != nil || !at.Equal(issued.Add(time.Minute)) {
		t.Errorf("expire: %v %v", at, err)
	}
	if _, err := Expire(ctx, cl, []byte("nope"), -1); !errors.As(err, &te) || te.Code != 62 {
		t.Errorf("expire unknown: %v", err)
	}
}
