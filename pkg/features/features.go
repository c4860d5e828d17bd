// Package features reads and changes a Kafka cluster's feature flags
// (KIP-584): what each node supports and what the cluster has finalized
// (ApiVersions), feature updates (UpdateFeatures), and Apache 4.4's
// offline tables of metadata versions and production features
// (kafka-features version-mapping and feature-dependencies); and the
// finalized metadata.version against what every broker supports, as kbox
// status and kbox ui show it (MetadataVersionStatus).
package features

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kboxdev/kbox/pkg/quorum"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Range is the range of levels a node supports for a feature.
type Range struct {
	Min int16 `json:"min"`
	Max int16 `json:"max"`
}

// Metadata is one node's view of the features (Admin.describeFeatures):
// what it supports and what the cluster finalized.
type Metadata struct {
	Supported map[string]Range
	// Finalized are the finalized max levels (a feature at level 0 is
	// absent).
	Finalized map[string]int16
	// Epoch is the finalized features' epoch; nil when the node gave
	// none (-1).
	Epoch *int64
}

// FromAPIVersions reads the features of an ApiVersions answer (v3+).
func FromAPIVersions(resp *kmsg.ApiVersionsResponse) (*Metadata, error) {
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, err
	}
	md := &Metadata{Supported: map[string]Range{}, Finalized: map[string]int16{}}
	for _, f := range resp.SupportedFeatures {
		md.Supported[f.Name] = Range{Min: f.MinVersion, Max: f.MaxVersion}
	}
	for _, f := range resp.FinalizedFeatures {
		md.Finalized[f.Name] = f.MaxVersionLevel
	}
	if resp.FinalizedFeaturesEpoch >= 0 {
		e := resp.FinalizedFeaturesEpoch
		md.Epoch = &e
	}
	return md, nil
}

// NewAPIVersionsRequest is an ApiVersions request that names kbox (v3+,
// the versions with features, need a software name).
func NewAPIVersionsRequest(version string) *kmsg.ApiVersionsRequest {
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName = "kbox"
	req.ClientSoftwareVersion = version
	return req
}

// State is one feature in a node's view, for kbox's own output.
type State struct {
	Name string `json:"name"`
	// SupportedMin and SupportedMax are the node's range; Finalized the
	// cluster's level (0 when not finalized).
	SupportedMin int16 `json:"supported_min"`
	SupportedMax int16 `json:"supported_max"`
	Finalized    int16 `json:"finalized"`
	// The same as metadata version names ("4.4-IV2") for
	// metadata.version, null for other features.
	SupportedMinName *string `json:"supported_min_version"`
	SupportedMaxName *string `json:"supported_max_version"`
	FinalizedName    *string `json:"finalized_version"`
}

// Description is kafka-features describe as kbox's report.
type Description struct {
	// Epoch is the finalized features' epoch; null when unknown.
	Epoch    *int64  `json:"epoch"`
	Features []State `json:"features"`
}

// Describe is the report of md: every supported feature, by name.
func (md *Metadata) Describe() *Description {
	d := &Description{Epoch: md.Epoch, Features: []State{}}
	for _, name := range md.names() {
		r := md.Supported[name]
		s := State{Name: name, SupportedMin: r.Min, SupportedMax: r.Max, Finalized: md.Finalized[name]}
		if name == MetadataFeature {
			s.SupportedMinName, s.SupportedMaxName, s.FinalizedName = mvName(r.Min), mvName(r.Max), mvName(s.Finalized)
		}
		d.Features = append(d.Features, s)
	}
	return d
}

func mvName(level int16) *string {
	s := LevelName(MetadataFeature, level)
	return &s
}

func (md *Metadata) names() []string {
	names := make([]string, 0, len(md.Supported))
	for n := range md.Supported {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// WriteApache writes kafka-features describe's lines.
func (md *Metadata) WriteApache(w io.Writer) error {
	epoch := "-"
	if md.Epoch != nil {
		epoch = fmt.Sprint(*md.Epoch)
	}
	var b strings.Builder
	for _, name := range md.names() {
		r := md.Supported[name]
		fmt.Fprintf(&b, "Feature: %-40s  SupportedMinVersion: %-15s  SupportedMaxVersion: %-15s  FinalizedVersionLevel: %-15s  Epoch: %s\n",
			name, LevelName(name, r.Min), LevelName(name, r.Max), LevelName(name, md.Finalized[name]), epoch)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Header implements output.Tabular.
func (d *Description) Header() []string {
	return []string{"FEATURE", "SUPPORTED MIN", "SUPPORTED MAX", "FINALIZED", "EPOCH"}
}

// Rows implements output.Tabular.
func (d *Description) Rows() [][]string {
	epoch := "-"
	if d.Epoch != nil {
		epoch = fmt.Sprint(*d.Epoch)
	}
	rows := make([][]string, 0, len(d.Features))
	for _, f := range d.Features {
		rows = append(rows, []string{f.Name, LevelName(f.Name, f.SupportedMin), LevelName(f.Name, f.SupportedMax), LevelName(f.Name, f.Finalized), epoch})
	}
	return rows
}

// UpgradeType is FeatureUpdate.UpgradeType (UpdateFeatures v1+).
type UpgradeType int8

// The upgrade types.
const (
	Upgrade         UpgradeType = 1
	SafeDowngrade   UpgradeType = 2
	UnsafeDowngrade UpgradeType = 3
)

// Update is one feature's new max level.
type Update struct {
	Feature string
	Level   int16
}

// Sender sends a request where feature updates go (the controller).
type Sender func(ctx context.Context, req kmsg.Request) (kmsg.Response, error)

// Apply sends the updates (validateOnly: a dry run) and returns each
// feature's failure as the Java exception's message, nil entries for
// those that succeeded. An error is the request's own failure.
func Apply(ctx context.Context, send Sender, updates []Update, typ UpgradeType, validateOnly bool) (map[string]*string, error) {
	req := kmsg.NewPtrUpdateFeaturesRequest()
	req.ValidateOnly = validateOnly
	for _, u := range updates {
		fu := kmsg.NewUpdateFeaturesRequestFeatureUpdate()
		fu.Feature, fu.MaxVersionLevel, fu.UpgradeType = u.Feature, u.Level, int8(typ)
		fu.AllowDowngrade = typ != Upgrade // v0
		req.FeatureUpdates = append(req.FeatureUpdates, fu)
	}
	kresp, err := send(ctx, req)
	if err != nil {
		return nil, err
	}
	resp := kresp.(*kmsg.UpdateFeaturesResponse)
	out := make(map[string]*string, len(updates))
	if resp.ErrorCode != 0 {
		msg := javaMessage(resp.ErrorCode, resp.ErrorMessage)
		for _, u := range updates {
			out[u.Feature] = &msg
		}
		return out, nil
	}
	for _, u := range updates {
		out[u.Feature] = nil
	}
	for _, r := range resp.Results { // v0-v1
		if _, ok := out[r.Feature]; ok && r.ErrorCode != 0 {
			msg := javaMessage(r.ErrorCode, r.ErrorMessage)
			out[r.Feature] = &msg
		}
	}
	return out, nil
}

// javaMessage is Errors.forCode(code).exception(msg).getMessage(): the
// message, else the error's default text.
func javaMessage(code int16, msg *string) string {
	if msg != nil {
		return *msg
	}
	var ke *kerr.Error
	if err := kerr.ErrorForCode(code); errors.As(err, &ke) {
		return ke.Description
	}
	return fmt.Sprintf("error code %d", code)
}

// WriteResults writes the tool's line per feature, by name (op is
// upgrade, downgrade or disable), and returns how many failed.
func WriteResults(w io.Writer, op string, updates []Update, results map[string]*string, dryRun bool) (int, error) {
	levels := map[string]int16{}
	names := make([]string, 0, len(results))
	for _, u := range updates {
		levels[u.Feature] = u.Level
	}
	for n := range results {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	failed := 0
	for _, n := range names {
		if msg := results[n]; msg != nil {
			helper := "Could not "
			if dryRun {
				helper = "Can not "
			}
			what := fmt.Sprintf("%s %s to %d", op, n, levels[n])
			if op == "disable" {
				what = "disable " + n
			}
			fmt.Fprintf(&b, "%s%s. %s\n", helper, what, *msg)
			failed++
			continue
		}
		verb := " was "
		if dryRun {
			verb = " can be "
		}
		obj := fmt.Sprintf("%sd to %d.", op, levels[n])
		if op == "disable" {
			obj = "disabled."
		}
		fmt.Fprintf(&b, "%s%s%s\n", n, verb, obj)
	}
	_, err := io.WriteString(w, b.String())
	return failed, err
}

// NoNodeError is a --node-id that names no node the cluster lists; its
// text is the Java admin client's (which waits for its timeout first).
type NoNodeError struct{ ID int32 }

func (e *NoNodeError) Error() string {
	return "org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: describeFeatures"
}

// Describe asks one node for its features (ApiVersions): node, or any
// node when nil; over controllers, a controller.
func Describe(ctx context.Context, t quorum.Target, node *int32, version string) (*Metadata, error) {
	req := NewAPIVersionsRequest(version)
	var (
		resp kmsg.Response
		err  error
	)
	switch {
	case node == nil && t.Controllers:
		seeds := t.Client.SeedBrokers()
		if len(seeds) == 0 {
			return nil, errors.New("no controller to ask")
		}
		resp, err = seeds[0].Request(ctx, req)
	case node == nil:
		resp, err = t.Client.Request(ctx, req)
	default:
		resp, err = askNode(ctx, t, *node, req)
	}
	if err != nil {
		return nil, err
	}
	return FromAPIVersions(resp.(*kmsg.ApiVersionsResponse))
}

func askNode(ctx context.Context, t quorum.Target, id int32, req kmsg.Request) (kmsg.Response, error) {
	nodes, err := t.Nodes(ctx)
	if err != nil {
		return nil, err
	}
	addr, ok := nodes[id]
	if !ok {
		return nil, &NoNodeError{ID: id}
	}
	if !t.Controllers {
		return t.Client.Broker(int(id)).Request(ctx, req)
	}
	if t.Dial == nil {
		return nil, fmt.Errorf("no client for controller %d", id)
	}
	cl, err := t.Dial(addr)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	seeds := cl.SeedBrokers()
	if len(seeds) == 0 {
		return nil, fmt.Errorf("no client for %s", addr)
	}
	return seeds[0].Request(ctx, req)
}
