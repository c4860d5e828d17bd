package schema

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/internal/golden"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

type fake struct {
	*srfake.Registry
	mu       sync.Mutex
	requests []string
}

func newFake(t *testing.T) *fake {
	f := &fake{Registry: srfake.New()}
	t.Cleanup(f.Close)
	f.Intercept(func(_ http.ResponseWriter, r *http.Request) bool {
		f.mu.Lock()
		f.requests = append(f.requests, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
		return false
	})
	return f
}

func (f *fake) seen(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

type result struct {
	out, err string
	code     int
}

// run executes `kbox schema ARGS` against url; stdin is the terminal's
// input when tty is set.
func run(t *testing.T, url string, tty bool, stdin string, args ...string) result {
	t.Helper()
	o := cmdtest.Options{New: NewCmd, Stdin: stdin, Env: map[string]string{"KBOX_SCHEMA_REGISTRY": url}}
	if tty {
		o.Secret = func(string) (string, error) { return "", nil }
	}
	r := cmdtest.Run(t, o, args...)
	return result{r.Stdout, r.Stderr, r.Code}
}

const userV1 = `{"type":"record","name":"User","fields":[{"name":"name","type":"string"}]}`
const userV2 = `{"type":"record","name":"User","fields":[{"name":"name","type":"string"},{"name":"age","type":"int","default":0}]}`

func writeFile(t *testing.T, name, text string) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFlagErrorsBeforeAnyRequest(t *testing.T) {
	f := newFake(t)
	avsc := writeFile(t, "u.avsc", userV1)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"show"}, "give SUBJECT[:VERSION] or --id ID"},
		{[]string{"show", "a", "--id", "3"}, "give SUBJECT[:VERSION] or --id ID"},
		{[]string{"show", "--id", "0"}, "--id 0: must be positive"},
		{[]string{"show", "a:0"}, "positive number or latest"},
		{[]string{"register", "a"}, "--file is required"},
		{[]string{"register", "a", "--file", "x.txt"}, "give --type avro, protobuf or json"},
		{[]string{"register", "a", "--file", avsc, "--type", "xml"}, `--type "xml": want avro, protobuf or json`},
		{[]string{"register", "a", "--file", avsc, "--reference", "common.proto"}, "want NAME=SUBJECT:VERSION"},
		{[]string{"register", "a", "--file", avsc, "--reference", "x=common.proto"}, "with a version number"},
		{[]string{"compatibility", "set", "SIDEWAYS", "a"}, `unknown compatibility level "SIDEWAYS"`},
		{[]string{"compatibility", "set", "FULL"}, "give a SUBJECT or --global"},
		{[]string{"compatibility", "set", "FULL", "a", "--global"}, "give a SUBJECT or --global"},
		{[]string{"delete", "a", "--permanent"}, "confirm with --yes"},
		{[]string{"delete", "a:latest"}, "name the version to delete by its number"},
		{[]string{"list", "-o", "csv"}, `unknown output format "csv"`},
	} {
		r := run(t, f.URL(), false, "", c.args...)
		if r.code != 2 || !strings.Contains(r.err, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.err, c.want)
		}
	}
	if n := f.seen(""); n != 0 {
		t.Fatalf("%d requests for bad flags: %v", n, f.requests)
	}
	// No registry configured anywhere: one line, exit 1.
	r := run(t, "", false, "", "list")
	if r.code != 1 || !strings.Contains(r.err, "no schema registry: set schema-registry.url in the profile, KBOX_SCHEMA_REGISTRY, or --schema-registry") {
		t.Fatalf("no registry: %+v", r)
	}
}

func TestRegisterShowVersionsList(t *testing.T) {
	f := newFake(t)
	url := f.URL()
	v1 := writeFile(t, "user.avsc", userV1)
	r := run(t, url, false, "", "register", "users-value", "--file", v1, "-o", "json")
	if r.code != 0 {
		t.Fatalf("register: %+v", r)
	}
	golden.Output(t, "register.json.golden", r.out, run(t, url, false, "", "register", "users-value", "--file", v1, "-o", "yaml").out)
	if r := run(t, url, false, "", "register", "users-value", "--file", v1); r.code != 0 || !strings.Contains(r.out, "users-value") {
		t.Fatalf("register again (same version): %+v", r)
	}

	// --dry-run: compatible (v2 adds a field with a default), nothing registered.
	v2 := writeFile(t, "user2.avsc", userV2)
	before := f.seen("POST /subjects/users-value/versions")
	r = run(t, url, false, "", "register", "users-value", "--file", v2, "--dry-run", "-o", "json")
	if r.code != 0 {
		t.Fatalf("dry run: %+v", r)
	}
	golden.Output(t, "register-dry-run.json.golden", r.out, "")
	if f.seen("POST /subjects/users-value/versions") != before || f.seen("POST /compatibility/subjects/users-value/versions/latest") != 1 {
		t.Fatalf("dry run registered: %v", f.requests)
	}
	// A schema kbox cannot parse is refused before any change.
	bad := writeFile(t, "bad.avsc", `{"type":"record","name":"User","fields":[{"name":"x","type":"nope"}]}`)
	if r := run(t, url, false, "", "register", "users-value", "--file", bad); r.code != 1 || !strings.Contains(r.err, "bad.avsc: the schema: avro schema:") {
		t.Fatalf("bad schema: %+v", r)
	}
	if r := run(t, url, false, "", "register", "users-value", "--file", v2); r.code != 0 {
		t.Fatalf("register v2: %+v", r)
	}

	r = run(t, url, false, "", "versions", "users-value", "-o", "json")
	golden.Output(t, "versions.json.golden", r.out, run(t, url, false, "", "versions", "users-value", "-o", "yaml").out)
	r = run(t, url, false, "", "show", "users-value:1", "-o", "json")
	golden.Output(t, "show.json.golden", r.out, run(t, url, false, "", "show", "users-value:1", "-o", "yaml").out)
	r = run(t, url, false, "", "show", "users-value")
	if r.code != 0 || !strings.Contains(r.out, `"name": "age"`) || !strings.Contains(r.out, "AVRO") {
		t.Fatalf("show latest, table: %+v", r)
	}
	if r := run(t, url, false, "", "show", "--id", "1", "-o", "json"); r.code != 0 || strings.Contains(r.out, `"subject"`) || !strings.Contains(r.out, `"id":1`) {
		t.Fatalf("show --id: %+v", r)
	}
	if r := run(t, url, false, "", "show", "nope"); r.code != 1 || !strings.Contains(r.err, "kbox: error: subject nope latest version:") {
		t.Fatalf("show unknown: %+v", r)
	}
	r = run(t, url, false, "", "list", "-o", "json")
	golden.Output(t, "list.json.golden", r.out, run(t, url, false, "", "list", "-o", "yaml").out)
}

func TestCompatibility(t *testing.T) {
	f := newFake(t)
	url := f.URL()
	if _, _, err := f.RegisterSchema("orders-value", sr.Schema{Schema: userV1}); err != nil {
		t.Fatal(err)
	}
	r := run(t, url, false, "", "compatibility", "set", "full", "orders-value", "-o", "json")
	if r.code != 0 {
		t.Fatalf("set: %+v", r)
	}
	golden.Output(t, "compatibility.json.golden", r.out, run(t, url, false, "", "compat", "get", "orders-value", "-o", "yaml").out)
	if r := run(t, url, false, "", "compat", "get", "orders-value"); r.code != 0 || !strings.Contains(r.out, "FULL") || !strings.Contains(r.out, "subject") {
		t.Fatalf("get after set: %+v", r)
	}
	if r := run(t, url, false, "", "compat", "set", "NONE", "--global"); r.code != 0 || !strings.Contains(r.out, "(global)") {
		t.Fatalf("set global: %+v", r)
	}
	if r := run(t, url, false, "", "compat", "get"); r.code != 0 || !strings.Contains(r.out, "NONE") {
		t.Fatalf("get global: %+v", r)
	}
}

// TestIncompatibleDryRunExits1: the fake registry always says compatible,
// so it is told otherwise here.
func TestIncompatibleDryRunExits1(t *testing.T) {
	f := newFake(t)
	if _, _, err := f.RegisterSchema("orders-value", sr.Schema{Schema: userV1}); err != nil {
		t.Fatal(err)
	}
	f.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasPrefix(r.URL.Path, "/compatibility/subjects/orders-value/") {
			_, _ = w.Write([]byte(`{"is_compatible":false,"messages":["READER_FIELD_MISSING_DEFAULT_VALUE: age"]}`))
			return true
		}
		if strings.HasPrefix(r.URL.Path, "/compatibility/subjects/brand-new/") {
			// What Confluent's registry answers (the fake says compatible).
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error_code":40401,"message":"Subject 'brand-new' not found."}`))
			return true
		}
		return false
	})
	p := writeFile(t, "u.avsc", `{"type":"record","name":"User","fields":[{"name":"name","type":"string"},{"name":"age","type":"int"}]}`)
	r := run(t, f.URL(), false, "", "register", "orders-value", "--file", p, "--dry-run")
	if r.code != 1 || !strings.Contains(r.out, "false") || !strings.Contains(r.out, "READER_FIELD_MISSING_DEFAULT_VALUE: age") {
		t.Fatalf("%+v", r)
	}
	// A new subject has nothing to be compatible with.
	r = run(t, f.URL(), false, "", "register", "brand-new", "--file", p, "--dry-run", "-o", "json")
	f.ClearInterceptors()
	if r.code != 0 || !strings.Contains(r.out, `"subject_exists":false`) || !strings.Contains(r.out, `"compatible":true`) {
		t.Fatalf("new subject: %+v", r)
	}
}

func TestDelete(t *testing.T) {
	f := newFake(t)
	url := f.URL()
	for _, s := range []string{userV1, userV2} {
		if _, _, err := f.RegisterSchema("users-value", sr.Schema{Schema: s}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := f.RegisterSchema("old-value", sr.Schema{Schema: `"string"`}); err != nil {
		t.Fatal(err)
	}
	// Soft delete of one version: no question asked.
	r := run(t, url, false, "", "delete", "users-value:1", "-o", "json")
	if r.code != 0 {
		t.Fatalf("soft: %+v", r)
	}
	golden.Output(t, "delete.json.golden", r.out, "")
	if r := run(t, url, false, "", "versions", "users-value"); r.code != 0 || strings.Contains(r.out, "\n1 ") {
		t.Fatalf("versions after soft delete: %+v", r)
	}

	// --permanent on a terminal: "no" deletes nothing, "yes" deletes.
	before := len(f.requests)
	r = run(t, url, true, "no\n", "delete", "old-value", "--permanent")
	if r.code != 1 || !strings.Contains(r.err, `not deleted (answered "no", not yes)`) || !strings.Contains(r.err, "Permanently delete subject old-value (every version)?") || len(f.requests) != before {
		t.Fatalf("answered no: %+v, %d new requests", r, len(f.requests)-before)
	}
	r = run(t, url, true, "yes\n", "delete", "old-value", "--permanent", "-o", "json")
	if r.code != 0 || !strings.Contains(r.out, `"permanent":true`) || !strings.Contains(r.out, `"deleted_versions":[1]`) {
		t.Fatalf("answered yes: %+v", r)
	}
	if f.seen("DELETE /subjects/old-value") != 2 {
		t.Fatalf("want a soft then a hard delete: %v", f.requests)
	}
	if r := run(t, url, false, "", "list", "--deleted"); strings.Contains(r.out, "old-value") {
		t.Fatalf("old-value still listed after a hard delete: %+v", r)
	}
	// --yes without a terminal; the soft-deleted version goes for good.
	if r := run(t, url, false, "", "delete", "users-value:1", "--permanent", "--yes"); r.code != 0 {
		t.Fatalf("--yes: %+v", r)
	}
	if r := run(t, url, false, "", "versions", "users-value", "--deleted"); r.code != 0 || strings.Contains(r.out, "\n1 ") {
		t.Fatalf("version 1 still there: %+v", r)
	}
}
