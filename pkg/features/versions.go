package features

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MetadataFeature is the name of the metadata.version feature.
const MetadataFeature = "metadata.version"

// MetadataVersion is one of Apache 4.4's MetadataVersion constants.
type MetadataVersion struct {
	Level      int16
	Name       string // its version(): "4.4-IV2"
	Production bool
}

// metadataVersions are Apache 4.4's MetadataVersion.VERSIONS, in order.
var metadataVersions = []MetadataVersion{
	{7, "3.3-IV3", true},
	{8, "3.4-IV0", true},
	{9, "3.5-IV0", true},
	{10, "3.5-IV1", true},
	{11, "3.5-IV2", true},
	{12, "3.6-IV0", true},
	{13, "3.6-IV1", true},
	{14, "3.6-IV2", true},
	{15, "3.7-IV0", true},
	{16, "3.7-IV1", true},
	{17, "3.7-IV2", true},
	{18, "3.7-IV3", true},
	{19, "3.7-IV4", true},
	{20, "3.8-IV0", true},
	{21, "3.9-IV0", true},
	{22, "4.0-IV0", true},
	{23, "4.0-IV1", true},
	{24, "4.0-IV2", true},
	{25, "4.0-IV3", true},
	{26, "4.1-IV0", true},
	{27, "4.1-IV1", true},
	{28, "4.2-IV0", true},
	{29, "4.2-IV1", true},
	{30, "4.3-IV0", true},
	{31, "4.4-IV0", true},
	{32, "4.4-IV1", true},
	{33, "4.4-IV2", true},
	{34, "4.5-IV0", false},
}

// LatestProduction is Apache 4.4's MetadataVersion.LATEST_PRODUCTION level.
const LatestProduction int16 = 33

// releaseNames are the release names (IBP_VERSIONS' keys without an IV)
// and the last metadata version of each release; the release still in
// development (4.5) has none.
var releaseNames = map[string]int16{
	"3.3": 7, "3.4": 8, "3.5": 11, "3.6": 14, "3.7": 19, "3.8": 20, "3.9": 21,
	"4.0": 25, "4.1": 27, "4.2": 29, "4.3": 30, "4.4": 33,
}

// Feature is one of Apache 4.4's production features (Feature.PRODUCTION_FEATURES).
type Feature struct {
	Name     string
	Versions []FeatureVersion
}

// FeatureVersion is one level of a feature: the metadata version it is
// the default from, and the features it needs.
type FeatureVersion struct {
	Level        int16
	Bootstrap    int16 // bootstrapMetadataVersion's level
	Dependencies []Dependency
}

// Dependency is a feature level another feature level requires.
type Dependency struct {
	Feature string
	Level   int16
}

// ProductionFeatures are Apache 4.4's Feature.PRODUCTION_FEATURES, in
// their order (version-mapping's).
var ProductionFeatures = []Feature{
	{"kraft.version", []FeatureVersion{{0, 7, nil}, {1, 21, nil}}},
	{"transaction.version", []FeatureVersion{{0, 7, nil}, {1, 24, nil}, {2, 24, nil}}},
	{"group.version", []FeatureVersion{{0, 7, nil}, {1, 22, nil}}},
	{"eligible.leader.replicas.version", []FeatureVersion{{0, 7, nil}, {1, 26, []Dependency{{MetadataFeature, 23}}}}},
	{"share.version", []FeatureVersion{{0, 7, nil}, {1, 28, nil}, {2, 31, nil}}},
	{"streams.version", []FeatureVersion{{0, 7, nil}, {1, 29, nil}}},
}

// DefaultLevel is Feature.defaultLevel: the feature's level for a
// cluster at metadata version mv.
func (f Feature) DefaultLevel(mv int16) int16 {
	def := f.Versions[0]
	for _, v := range f.Versions {
		if v.Bootstrap > mv {
			break
		}
		def = v
	}
	return def.Level
}

// MetadataVersionByLevel is MetadataVersion.fromFeatureLevel.
func MetadataVersionByLevel(level int16) (MetadataVersion, error) {
	for _, v := range metadataVersions {
		if v.Level == level {
			return v, nil
		}
	}
	return MetadataVersion{}, fmt.Errorf("No MetadataVersion with feature level %d. Valid feature levels are from %d to %d.",
		level, metadataVersions[0].Level, metadataVersions[len(metadataVersions)-1].Level)
}

// LevelName is the describe output's text of a level: a metadata
// version's name (or "UNKNOWN n"), else the number.
func LevelName(feature string, level int16) string {
	if feature != MetadataFeature {
		return strconv.Itoa(int(level))
	}
	mv, err := MetadataVersionByLevel(level)
	if err != nil {
		return "UNKNOWN " + strconv.Itoa(int(level))
	}
	return mv.Name
}

// ParseMetadataVersion is MetadataVersion.fromVersionString(s, true):
// "4.4-IV2", a release "4.4", or a longer version whose first two
// parts name a release ("4.4.1").
func ParseMetadataVersion(s string) (MetadataVersion, error) {
	key := s
	if parts := javaSplitDot(s); len(parts) > 2 {
		key = parts[0] + "." + parts[1]
	}
	if lvl, ok := releaseNames[key]; ok {
		return MetadataVersionByLevel(lvl)
	}
	for _, v := range metadataVersions {
		if v.Name == key {
			return v, nil
		}
	}
	names := make([]string, len(metadataVersions))
	for i, v := range metadataVersions {
		names[i] = v.Name
	}
	return MetadataVersion{}, fmt.Errorf("Unknown metadata.version '%s'. Supported metadata.version are: %s", s, strings.Join(names, ", "))
}

// javaSplitDot is String.split("\\."): trailing empty strings dropped.
func javaSplitDot(s string) []string {
	parts := strings.Split(s, ".")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// DefaultRelease is version-mapping's default: the latest production
// metadata version's name.
func DefaultRelease() string { return LevelName(MetadataFeature, LatestProduction) }

// VersionMapping writes version-mapping's lines for release:
// metadata.version's level, then each production feature's default
// level.
func VersionMapping(w io.Writer, release string) error {
	mv, err := ParseMetadataVersion(release)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s=%d (%s)\n", MetadataFeature, mv.Level, release)
	for _, f := range ProductionFeatures {
		fmt.Fprintf(&b, "%s=%d\n", f.Name, f.DefaultLevel(mv.Level))
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// ParseNameAndLevel is the tool's "feature=level" parser (the level a
// Java short, spaces around either part trimmed).
func ParseNameAndLevel(s string) (string, int16, error) {
	i := strings.Index(s, "=")
	if i < 0 {
		return "", 0, fmt.Errorf("Can't parse feature=level string %s: equals sign not found.", s)
	}
	name, lv := javaTrim(s[:i]), javaTrim(s[i+1:])
	n, err := parseShort(lv)
	if err != nil {
		return "", 0, fmt.Errorf("Can't parse feature=level string %s: unable to parse %s as a short.", s, lv)
	}
	return name, n, nil
}

// parseShort is Short.parseShort for ASCII digits (an optional sign,
// base 10).
func parseShort(s string) (int16, error) {
	n, err := strconv.ParseInt(s, 10, 16)
	return int16(n), err
}

// javaTrim is String.trim: every char up to ' ' removed at both ends.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

// Dependencies writes feature-dependencies' lines for each feature=level
// in turn; the first error stops it (the lines before it are written).
func Dependencies(w io.Writer, specs []string) error {
	for _, spec := range specs {
		name, level, err := ParseNameAndLevel(spec)
		if err != nil {
			return err
		}
		var b strings.Builder
		if name == MetadataFeature {
			mv, err := MetadataVersionByLevel(level)
			if err != nil {
				return fmt.Errorf("Unknown metadata.version %d", level)
			}
			fmt.Fprintf(&b, "%s=%d (%s) has no dependencies.\n", name, level, mv.Name)
		} else if err := featureDependencies(&b, name, level); err != nil {
			return err
		}
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}

func featureDependencies(b *strings.Builder, name string, level int16) error {
	var fv *FeatureVersion
	found := false
	for _, f := range ProductionFeatures {
		if f.Name != name {
			continue
		}
		found = true
		for i := range f.Versions {
			if f.Versions[i].Level == level {
				fv = &f.Versions[i]
			}
		}
	}
	switch {
	case !found:
		return fmt.Errorf("Unknown feature: %s", name)
	case fv == nil:
		return fmt.Errorf("No feature:%s with feature level %d", name, level)
	case len(fv.Dependencies) == 0:
		fmt.Fprintf(b, "%s=%d has no dependencies.\n", name, level)
		return nil
	}
	fmt.Fprintf(b, "%s=%d requires:\n", name, level)
	for _, d := range fv.Dependencies {
		if d.Feature == MetadataFeature {
			fmt.Fprintf(b, "    %s=%d (%s)\n", d.Feature, d.Level, LevelName(MetadataFeature, d.Level))
		} else {
			fmt.Fprintf(b, "    %s=%d\n", d.Feature, d.Level)
		}
	}
	return nil
}
