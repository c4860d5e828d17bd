package features

import (
	"context"
	"fmt"
	"strings"

	"github.com/kboxdev/kbox/pkg/features"
)

// upgradeType is the downgrades' type (--unsafe) or an upgrade's.
func (in *invocation) upgradeType(op string) features.UpgradeType {
	switch {
	case op == "upgrade":
		return features.Upgrade
	case in.ns.Bool("unsafe"):
		return features.UnsafeDowngrade
	}
	return features.SafeDowngrade
}

// upgradeOrDowngrade is handleUpgradeOrDowngrade: every check before the
// first request.
func (in *invocation) upgradeOrDowngrade(ctx context.Context, op string) error {
	metadata, hasMetadata := in.ns.String("metadata")
	specs := in.ns.Strings("feature")
	release, hasRelease := in.ns.String("release_version")
	if hasRelease && (hasMetadata || specs != nil) {
		return fail(in.f, "Can not specify `release-version` with other feature flags.")
	}
	typ := in.upgradeType(op)
	var updates []features.Update
	add := func(name string, level int16) error {
		for _, u := range updates {
			if u.Feature == name {
				return fmt.Errorf("Feature %s was specified more than once.", name)
			}
		}
		updates = append(updates, features.Update{Feature: name, Level: level})
		return nil
	}
	if hasRelease {
		mv, err := features.ParseMetadataVersion(release)
		if err != nil {
			return fail(in.f, err.Error())
		}
		_ = add(features.MetadataFeature, mv.Level)
		for _, ft := range features.ProductionFeatures {
			// Don't send a request to upgrade a feature to 0.
			if lvl := ft.DefaultLevel(mv.Level); typ != features.Upgrade || lvl > 0 {
				_ = add(ft.Name, lvl)
			}
		}
	} else {
		if hasMetadata {
			fmt.Fprintln(in.f.IO.Out, " `metadata` flag is deprecated and may be removed in a future release.")
			mv, err := features.ParseMetadataVersion(metadata)
			if err != nil {
				return fail(in.f, err.Error())
			}
			_ = add(features.MetadataFeature, mv.Level)
		}
		for _, s := range specs {
			name, level, err := features.ParseNameAndLevel(s)
			if err == nil {
				err = add(name, level)
			}
			if err != nil {
				return fail(in.f, err.Error())
			}
		}
	}
	return in.update(ctx, op, updates, typ)
}

// disable is handleDisable: each feature to level 0.
func (in *invocation) disable(ctx context.Context) error {
	var updates []features.Update
	seen := map[string]bool{}
	for _, name := range in.ns.Strings("feature") {
		if seen[name] {
			return fail(in.f, "Feature "+name+" was specified more than once.")
		}
		seen[name] = true
		updates = append(updates, features.Update{Feature: name})
	}
	return in.update(ctx, "disable", updates, in.upgradeType("disable"))
}

// update sends the updates and prints a line per feature.
func (in *invocation) update(ctx context.Context, op string, updates []features.Update, typ features.UpgradeType) error {
	if len(updates) == 0 {
		return fail(in.f, "You must specify at least one feature to "+op)
	}
	for _, u := range updates {
		if strings.TrimFunc(u.Feature, func(r rune) bool { return r <= ' ' }) == "" {
			// The Java admin client's check (Utils.isBlank), before any request.
			return fail(in.f, "Provided feature can not be empty.")
		}
	}
	dry := in.ns.Bool("dry_run")
	t, closeFn, err := in.connect(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	results, err := features.Apply(ctx, t.Request, updates, typ, dry)
	if err != nil {
		return in.failed(err)
	}
	failed, err := features.WriteResults(in.f.IO.Out, op, updates, results, dry)
	if err != nil {
		return err
	}
	if failed > 0 {
		return fail(in.f, fmt.Sprintf("%d out of %d operation(s) failed.", failed, len(updates)))
	}
	return nil
}
