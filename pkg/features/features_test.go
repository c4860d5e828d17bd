package features

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func fixture() *Metadata {
	resp := kmsg.NewPtrApiVersionsResponse()
	for _, f := range []struct {
		name     string
		min, max int16
	}{{"metadata.version", 7, 33}, {"group.version", 0, 1}, {"kraft.version", 0, 1}} {
		s := kmsg.NewApiVersionsResponseSupportedFeature()
		s.Name, s.MinVersion, s.MaxVersion = f.name, f.min, f.max
		resp.SupportedFeatures = append(resp.SupportedFeatures, s)
	}
	for _, f := range []struct {
		name  string
		level int16
	}{{"metadata.version", 30}, {"group.version", 1}} {
		s := kmsg.NewApiVersionsResponseFinalizedFeature()
		s.Name, s.MaxVersionLevel, s.MinVersionLevel = f.name, f.level, f.level
		resp.FinalizedFeatures = append(resp.FinalizedFeatures, s)
	}
	resp.FinalizedFeaturesEpoch = 42
	md, err := FromAPIVersions(resp)
	if err != nil {
		panic(err)
	}
	return md
}

// The describe line is Apache 4.4's: padded columns, sorted by name, a
// metadata version by its name, an unfinalized feature at 0.
func TestWriteApache(t *testing.T) {
	var b bytes.Buffer
	if err := fixture().WriteApache(&b); err != nil {
		t.Fatal(err)
	}
	want := "Feature: group.version                             SupportedMinVersion: 0                SupportedMaxVersion: 1                FinalizedVersionLevel: 1                Epoch: 42\n" +
		"Feature: kraft.version                             SupportedMinVersion: 0                SupportedMaxVersion: 1                FinalizedVersionLevel: 0                Epoch: 42\n" +
		"Feature: metadata.version                          SupportedMinVersion: 3.3-IV3          SupportedMaxVersion: 4.4-IV2          FinalizedVersionLevel: 4.3-IV0          Epoch: 42\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	md := fixture()
	md.Epoch = nil
	md.Finalized["metadata.version"] = 99
	b.Reset()
	_ = md.WriteApache(&b)
	if !strings.Contains(b.String(), "FinalizedVersionLevel: UNKNOWN 99       Epoch: -\n") {
		t.Errorf("unknown level, no epoch: %q", b.String())
	}
}

func TestDescriptionGolden(t *testing.T) {
	golden.JSON(t, "describe.json.golden", fixture().Describe())
}

func TestTables(t *testing.T) {
	cases := []struct {
		in   string
		want int16
		err  string
	}{
		{"4.4-IV2", 33, ""}, {"4.4", 33, ""}, {"3.5", 11, ""}, {"3.3.1", 7, ""}, {"4.5-IV0", 34, ""},
		{"4.4-IV2.7", 33, ""}, {"4.5", 0, "Unknown metadata.version '4.5'. Supported metadata.version are: 3.3-IV3, "},
		{"", 0, "Unknown metadata.version ''."}, {"3.2", 0, "Unknown"},
	}
	for _, c := range cases {
		mv, err := ParseMetadataVersion(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err)):
			t.Errorf("%q: err %v, want %q", c.in, err, c.err)
		case c.err == "" && (err != nil || mv.Level != c.want):
			t.Errorf("%q: %v %v, want %d", c.in, mv, err, c.want)
		}
	}
	if _, err := MetadataVersionByLevel(6); err == nil || err.Error() != "No MetadataVersion with feature level 6. Valid feature levels are from 7 to 34." {
		t.Errorf("level 6: %v", err)
	}
	// Feature.defaultLevel: the last level whose bootstrap version is not
	// past mv (transaction.version skips 1: 1 and 2 start together).
	want := map[string][3]int16{ // at 3.9-IV0 (21), 4.0-IV2 (24), 4.4-IV2 (33)
		"kraft.version": {1, 1, 1}, "transaction.version": {0, 2, 2}, "group.version": {0, 1, 1},
		"eligible.leader.replicas.version": {0, 0, 1}, "share.version": {0, 0, 2}, "streams.version": {0, 0, 1},
	}
	for _, f := range ProductionFeatures {
		for i, mv := range []int16{21, 24, 33} {
			if got := f.DefaultLevel(mv); got != want[f.Name][i] {
				t.Errorf("%s at %d: %d, want %d", f.Name, mv, got, want[f.Name][i])
			}
		}
	}
}

func TestDependencies(t *testing.T) {
	var b bytes.Buffer
	err := Dependencies(&b, []string{"eligible.leader.replicas.version=1", " metadata.version = +7", "group.version=0", "group.version=2", "x=1"})
	want := "eligible.leader.replicas.version=1 requires:\n    metadata.version=23 (4.0-IV1)\n" +
		"metadata.version=7 (3.3-IV3) has no dependencies.\ngroup.version=0 has no dependencies.\n"
	if b.String() != want || err == nil || err.Error() != "No feature:group.version with feature level 2" {
		t.Errorf("got %q, %v", b.String(), err)
	}
	for in, msg := range map[string]string{
		"x": "Can't parse feature=level string x: equals sign not found.", "x=40000": "Can't parse feature=level string x=40000: unable to parse 40000 as a short.",
		"metadata.version=3": "Unknown metadata.version 3", "nope=1": "Unknown feature: nope",
	} {
		if err := Dependencies(&b, []string{in}); err == nil || err.Error() != msg {
			t.Errorf("%q: %v, want %q", in, err, msg)
		}
	}
}

func TestVersionMapping(t *testing.T) {
	var b bytes.Buffer
	if err := VersionMapping(&b, "4.0"); err != nil {
		t.Fatal(err)
	}
	want := "metadata.version=25 (4.0)\nkraft.version=1\ntransaction.version=2\ngroup.version=1\neligible.leader.replicas.version=0\nshare.version=0\nstreams.version=0\n"
	if b.String() != want {
		t.Errorf("got %q", b.String())
	}
}

// Apply: a top-level error fails every feature with its message; v0-v1
// results fail their own; no message is the error's default text.
func TestApply(t *testing.T) {
	msg := "no way"
	var sent *kmsg.UpdateFeaturesRequest
	send := func(resp *kmsg.UpdateFeaturesResponse) Sender {
		return func(_ context.Context, req kmsg.Request) (kmsg.Response, error) {
			sent = req.(*kmsg.UpdateFeaturesRequest)
			return resp, nil
		}
	}
	ups := []Update{{"b.version", 1}, {"a.version", 0}}
	top := kmsg.NewPtrUpdateFeaturesResponse()
	top.ErrorCode, top.ErrorMessage = 42, &msg
	res, err := Apply(context.Background(), send(top), ups, UnsafeDowngrade, true)
	if err != nil || *res["a.version"] != msg || *res["b.version"] != msg || !sent.ValidateOnly || sent.FeatureUpdates[0].UpgradeType != 3 {
		t.Fatalf("top-level: %v %v %+v", res, err, sent)
	}
	per := kmsg.NewPtrUpdateFeaturesResponse()
	r := kmsg.NewUpdateFeaturesResponseResult()
	r.Feature, r.ErrorCode = "a.version", 42 // INVALID_REQUEST, no message
	per.Results = append(per.Results, r)
	res, _ = Apply(context.Background(), send(per), ups, Upgrade, false)
	if res["b.version"] != nil || res["a.version"] == nil || *res["a.version"] == "" {
		t.Fatalf("per feature: %v", res)
	}
	var b bytes.Buffer
	failed, _ := WriteResults(&b, "upgrade", ups, res, false)
	want := "Could not upgrade a.version to 0. " + *res["a.version"] + "\nb.version was upgraded to 1.\n"
	if failed != 1 || b.String() != want {
		t.Errorf("got %d %q", failed, b.String())
	}
	b.Reset()
	failed, _ = WriteResults(&b, "disable", ups, map[string]*string{"a.version": nil, "b.version": &msg}, true)
	if failed != 1 || b.String() != "a.version can be disabled.\nCan not disable b.version. no way\n" {
		t.Errorf("disable: %d %q", failed, b.String())
	}
}

func broker(min, max, finalized int16, epoch int64) *Metadata {
	return &Metadata{Supported: map[string]Range{MetadataFeature: {min, max}}, Finalized: map[string]int16{MetadataFeature: finalized}, Epoch: &epoch}
}

// The finalized level is the newest epoch's; the supported max the
// lowest of the brokers' maximums; disagreement and an available upgrade
// are flagged.
func TestMetadataVersionStatus(t *testing.T) {
	if s := MetadataVersionStatus(map[int32]*Metadata{1: {Supported: map[string]Range{}}}); s != nil {
		t.Errorf("no metadata.version: %+v", s)
	}
	s := MetadataVersionStatus(map[int32]*Metadata{1: broker(7, 33, 33, 10), 2: broker(7, 33, 33, 10)})
	if s.Summary != "4.4-IV2" || s.UpgradeAvailable || s.BrokersDisagree || len(s.Brokers) != 2 {
		t.Errorf("agreeing: %+v", s)
	}
	s = MetadataVersionStatus(map[int32]*Metadata{3: broker(7, 33, 29, 10), 1: broker(7, 30, 27, 5), 2: broker(7, 33, 29, 10)})
	want := "4.2-IV1 (upgrade available: 4.3-IV0); brokers disagree: 1: 3.3-IV3..4.3-IV0, 2: 3.3-IV3..4.4-IV2, 3: 3.3-IV3..4.4-IV2"
	if s.Summary != want || !s.UpgradeAvailable || !s.BrokersDisagree || s.SupportedMax != 30 || s.Finalized != 29 {
		t.Errorf("disagreeing: %+v\nwant %q", s, want)
	}
}
