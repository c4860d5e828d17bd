package acls

import (
	"context"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Result is `kbox acls check`: the decision, and whether the broker's
// super.users could be read.
type Result struct {
	Decision
	// SuperUsersRead is false when super.users could not be read (a
	// broker hides a config it does not define, and 4.4's brokers define
	// neither super.users nor allow.everyone.if.no.acl.found: they
	// describe them as sensitive, without a value) and was not given:
	// super users are then left out of the decision.
	SuperUsersRead bool `json:"super_users_read"`
	// AllowIfNoACLRead is the same for allow.everyone.if.no.acl.found
	// (false, the default, when unread).
	AllowIfNoACLRead bool `json:"allow_if_no_acl_read"`
}

// Settings are the authorizer settings a check takes; a nil field is read
// from the broker configs when they show it.
type Settings struct {
	SuperUsers   []string
	AllowIfNoACL *bool
}

// brokerSettings reads super.users and allow.everyone.if.no.acl.found
// from one broker's configs: the values it shows (nil when hidden or
// unreadable).
func brokerSettings(ctx context.Context, cl *kgo.Client) map[string]*string {
	out := map[string]*string{}
	meta := kmsg.NewPtrMetadataRequest()
	mresp, err := meta.RequestWith(ctx, cl)
	if err != nil || len(mresp.Brokers) == 0 {
		return out
	}
	req := kmsg.NewPtrDescribeConfigsRequest()
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType = kmsg.ConfigResourceTypeBroker
	r.ResourceName = strconv.Itoa(int(mresp.Brokers[0].NodeID))
	r.ConfigNames = []string{"super.users", "allow.everyone.if.no.acl.found"}
	req.Resources = append(req.Resources, r)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil || len(resp.Resources) != 1 || resp.Resources[0].ErrorCode != 0 {
		return out
	}
	for _, c := range resp.Resources[0].Configs {
		if c.Value != nil && !c.IsSensitive {
			out[c.Name] = c.Value
		}
	}
	return out
}

// CheckCluster decides r with the cluster's ACLs and the authorizer
// settings: those given, else those the broker configs show.
func CheckCluster(ctx context.Context, cl *kgo.Client, r Request, given Settings) (*Result, error) {
	all, err := All(ctx, cl)
	if err != nil {
		return nil, err
	}
	az := &Authorizer{ACLs: all, SuperUsers: given.SuperUsers}
	res := &Result{SuperUsersRead: given.SuperUsers != nil, AllowIfNoACLRead: given.AllowIfNoACL != nil}
	if given.AllowIfNoACL != nil {
		az.AllowIfNoACL = *given.AllowIfNoACL
	}
	if given.SuperUsers == nil || given.AllowIfNoACL == nil {
		shown := brokerSettings(ctx, cl)
		if v := shown["super.users"]; v != nil && given.SuperUsers == nil {
			az.SuperUsers, res.SuperUsersRead = ParseSuperUsers(*v), true
		}
		if v := shown["allow.everyone.if.no.acl.found"]; v != nil && given.AllowIfNoACL == nil {
			az.AllowIfNoACL, res.AllowIfNoACLRead = strings.EqualFold(strings.TrimSpace(*v), "true"), true
		}
	}
	d, err := az.Check(r)
	if err != nil {
		return nil, err
	}
	res.Decision = *d
	return res, nil
}
