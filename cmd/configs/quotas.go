package configs

import (
	"context"
	"strings"

	"github.com/kboxdev/kbox/pkg/configs"
	"github.com/kboxdev/kbox/pkg/javafmt"
)

// Client quotas (users, clients, ips) as kafka-configs --alter changes
// them.

var quotaConfigs = map[string]bool{"producer_byte_rate": true, "consumer_byte_rate": true, "request_percentage": true, "controller_mutation_rate": true}

const ipQuotaConfig = "connection_creation_rate"

func checkQuotaValues(alt *alteration) error {
	for _, p := range *alt.add {
		if _, err := javafmt.ParseDouble(p.Value); err != nil {
			return argErrorf("Cannot parse quota configuration value for %s: %s", p.Name, p.Value)
		}
	}
	return nil
}

func quotaType(t string) string {
	switch t {
	case typeUsers:
		return configs.QuotaUser
	case typeClients:
		return configs.QuotaClientID
	}
	return configs.QuotaIP
}

// quotaFilter is getAllClientQuotasConfigs' filter components.
func quotaFilter(types, names []string) []configs.QuotaFilter {
	var out []configs.QuotaFilter
	for i, t := range types {
		f := configs.QuotaFilter{Type: quotaType(t), Match: configs.MatchAny}
		if i < len(names) {
			if names[i] == "" {
				f.Match = configs.MatchDefault
			} else {
				f.Match, f.Name = configs.MatchExact, names[i]
			}
		}
		out = append(out, f)
	}
	return out
}

func alterQuotas(ctx context.Context, svc *configs.Service, types, names []string, alt *alteration) error {
	cur, err := svc.DescribeQuotas(ctx, quotaFilter(types, names))
	if err != nil {
		return err
	}
	have := map[string]bool{}
	if len(cur) > 0 {
		for _, v := range cur[0].Values {
			have[v.Key] = true
		}
	}
	var invalid []string
	for _, d := range alt.del {
		if !have[d] {
			invalid = append(invalid, d)
		}
	}
	if len(invalid) > 0 {
		return argErrorf("Invalid config(s): %s", strings.Join(invalid, ","))
	}
	var entity []configs.QuotaComponent
	for i, t := range types {
		c := configs.QuotaComponent{Type: quotaType(t)}
		if names[i] != "" {
			n := names[i]
			c.Name = &n
		}
		entity = append(entity, c)
	}
	var qops []configs.QuotaOp
	for _, p := range *alt.add {
		v, err := javafmt.ParseDouble(p.Value)
		if err != nil {
			return argErrorf("Cannot parse quota configuration value for %s: %s", p.Name, p.Value)
		}
		qops = append(qops, configs.QuotaOp{Key: p.Name, Value: v})
	}
	for _, d := range alt.del {
		qops = append(qops, configs.QuotaOp{Key: d, Remove: true})
	}
	return svc.AlterQuotas(ctx, entity, qops, false)
}
