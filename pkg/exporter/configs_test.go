package exporter

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"gopkg.in/yaml.v3"
)

// metricRef finds the kbox metric names in a PromQL expression.
var metricRef = regexp.MustCompile(`\bkbox_[a-z0-9_]+`)

// checkRefs reports the kbox metric names expr uses that the exporter
// does not serve (a histogram's _bucket, _sum and _count are served).
func checkRefs(t *testing.T, where, expr string) {
	t.Helper()
	known := map[string]bool{}
	for _, f := range Families() {
		known[f.Name] = true
		if f.Type == "histogram" {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				known[f.Name+s] = true
			}
		}
	}
	refs := metricRef.FindAllString(expr, -1)
	if len(refs) == 0 {
		t.Errorf("%s: %q uses no kbox metric", where, expr)
	}
	for _, r := range refs {
		if !known[r] {
			t.Errorf("%s: %q uses %s, which kbox exporter does not serve", where, expr, r)
		}
	}
}

// The Grafana dashboard, checked against what Grafana's dashboard schema
// (kinds/dashboard, schemaVersion 39) requires of a dashboard, its panels,
// rows, targets and template variables (Grafana itself cannot be installed
// here), and every query against the families the exporter serves.
func TestGrafanaDashboard(t *testing.T) {
	b, err := os.ReadFile("../../configs/grafana/kbox-exporter.json")
	if err != nil {
		t.Fatal(err)
	}
	type target struct {
		RefID      string            `json:"refId"`
		Expr       string            `json:"expr"`
		Datasource map[string]string `json:"datasource"`
	}
	type gridPos struct{ H, W, X, Y *int }
	type panel struct {
		ID          *int     `json:"id"`
		Type        string   `json:"type"`
		Title       string   `json:"title"`
		GridPos     *gridPos `json:"gridPos"`
		Targets     []target `json:"targets"`
		FieldConfig *struct {
			Defaults  map[string]any `json:"defaults"`
			Overrides []any          `json:"overrides"`
		} `json:"fieldConfig"`
		Options    map[string]any    `json:"options"`
		Datasource map[string]string `json:"datasource"`
		Collapsed  *bool             `json:"collapsed"`
		Panels     []json.RawMessage `json:"panels"`
	}
	var d struct {
		Title         string   `json:"title"`
		UID           string   `json:"uid"`
		SchemaVersion int      `json:"schemaVersion"`
		Editable      *bool    `json:"editable"`
		GraphTooltip  *int     `json:"graphTooltip"`
		Tags          []string `json:"tags"`
		Time          struct{ From, To string }
		Panels        []panel `json:"panels"`
		Templating    struct {
			List []struct {
				Name       string            `json:"name"`
				Type       string            `json:"type"`
				Query      any               `json:"query"`
				Datasource map[string]string `json:"datasource"`
			} `json:"list"`
		} `json:"templating"`
		Annotations struct {
			List []map[string]any `json:"list"`
		} `json:"annotations"`
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("not a dashboard: %v", err)
	}
	if d.Title == "" || !regexp.MustCompile(`^[a-zA-Z0-9_-]{1,40}$`).MatchString(d.UID) || d.SchemaVersion < 36 ||
		d.Editable == nil || d.GraphTooltip == nil || *d.GraphTooltip < 0 || *d.GraphTooltip > 2 || d.Time.From == "" || d.Time.To == "" {
		t.Fatalf("dashboard header: title %q uid %q schemaVersion %d editable %v graphTooltip %v time %+v", d.Title, d.UID, d.SchemaVersion, d.Editable, d.GraphTooltip, d.Time)
	}
	vars := map[string]bool{}
	varTypes := map[string]bool{"query": true, "adhoc": true, "constant": true, "datasource": true, "interval": true, "textbox": true, "custom": true}
	for _, v := range d.Templating.List {
		if v.Name == "" || !varTypes[v.Type] || v.Query == nil {
			t.Errorf("template variable %+v", v)
		}
		if v.Type == "query" {
			if v.Datasource["uid"] != "${datasource}" {
				t.Errorf("variable %s: datasource %v", v.Name, v.Datasource)
			}
			q, _ := v.Query.(map[string]any)
			checkRefs(t, "variable "+v.Name, q["query"].(string))
		}
		vars[v.Name] = true
	}
	for _, want := range []string{"datasource", "cluster"} {
		if !vars[want] {
			t.Errorf("no $%s variable", want)
		}
	}
	types := map[string]bool{"row": true, "stat": true, "timeseries": true, "table": true, "bargauge": true}
	ids := map[int]bool{}
	var cells [][4]int
	rows, charts := 0, 0
	titles := map[string]bool{}
	for _, p := range d.Panels {
		if p.ID == nil || *p.ID <= 0 || ids[*p.ID] {
			t.Errorf("panel %q: id missing, not positive or repeated", p.Title)
			continue
		}
		ids[*p.ID] = true
		g := p.GridPos
		if !types[p.Type] || g == nil || g.H == nil || g.W == nil || g.X == nil || g.Y == nil || *g.H < 1 || *g.W < 1 || *g.X < 0 || *g.X+*g.W > 24 || *g.Y < 0 {
			t.Errorf("panel %q: type %q gridPos %+v", p.Title, p.Type, g)
			continue
		}
		for _, c := range cells {
			if *g.X < c[0]+c[2] && c[0] < *g.X+*g.W && *g.Y < c[1]+c[3] && c[1] < *g.Y+*g.H {
				t.Errorf("panel %q overlaps another", p.Title)
			}
		}
		cells = append(cells, [4]int{*g.X, *g.Y, *g.W, *g.H})
		titles[p.Title] = true
		if p.Type == "row" {
			rows++
			if p.Collapsed == nil || p.Panels == nil || *g.W != 24 || *g.H != 1 {
				t.Errorf("row %q: collapsed %v panels %v gridPos %+v", p.Title, p.Collapsed, p.Panels, g)
			}
			continue
		}
		charts++
		if p.Title == "" || p.FieldConfig == nil || p.FieldConfig.Defaults == nil || p.FieldConfig.Overrides == nil || p.Options == nil ||
			p.Datasource["uid"] != "${datasource}" || len(p.Targets) == 0 {
			t.Errorf("panel %q: fieldConfig, options, datasource or targets missing", p.Title)
		}
		refs := map[string]bool{}
		for _, tg := range p.Targets {
			if tg.RefID == "" || refs[tg.RefID] || tg.Datasource["uid"] != "${datasource}" {
				t.Errorf("panel %q: target %+v (refId missing or repeated, or no datasource)", p.Title, tg)
			}
			refs[tg.RefID] = true
			checkRefs(t, "panel "+p.Title, tg.Expr)
		}
	}
	// What the issue asks the dashboard to show.
	for _, want := range []string{"Cluster health", "Topics", "Consumer groups", "Disk", "Records in per second", "Lag in seconds", "Log dir volume used"} {
		if !titles[want] {
			t.Errorf("no panel %q", want)
		}
	}
	if rows < 4 || charts < 10 {
		t.Errorf("%d rows, %d panels", rows, charts)
	}
}

// The alert rules file: every rule named, with a severity, a summary and
// a description, a valid `for`, and queries on served families only
// (promtool check rules and promtool test rules run in the integration
// test).
func TestAlertRules(t *testing.T) {
	b, err := os.ReadFile("../../configs/prometheus/kbox-rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				For         string            `yaml:"for"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	alerts := map[string]bool{}
	for _, g := range f.Groups {
		if g.Name == "" || len(g.Rules) == 0 {
			t.Errorf("group %+v", g)
		}
		for _, r := range g.Rules {
			if r.Alert == "" || alerts[r.Alert] || r.Labels["severity"] == "" || r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("rule %+v", r)
			}
			if _, err := model.ParseDuration(r.For); err != nil {
				t.Errorf("%s: for %q: %v", r.Alert, r.For, err)
			}
			alerts[r.Alert] = true
			checkRefs(t, r.Alert, r.Expr)
		}
	}
	// The unhealthy conditions kbox status knows, and the groups'.
	for _, want := range []string{"KafkaOfflinePartitions", "KafkaUnderMinISRPartitions", "KafkaDiskAlmostFull", "KafkaConsumerGroupStalled", "KafkaConsumerGroupLagSeconds", "KafkaBrokersDown"} {
		if !alerts[want] {
			t.Errorf("no alert %s", want)
		}
	}
}

// docs/exporter.md lists every family served, and no other.
func TestFamiliesDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/exporter.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(kbox_[a-z0-9_]+)` \\|").FindAllStringSubmatch(string(b), -1) {
		listed[m[1]] = true
	}
	for _, f := range Families() {
		if !listed[f.Name] {
			t.Errorf("%s is not in docs/exporter.md's table", f.Name)
		}
		delete(listed, f.Name)
	}
	for n := range listed {
		t.Errorf("docs/exporter.md lists %s, which is not served", n)
	}
}
