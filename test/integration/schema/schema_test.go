//go:build integration

// Package schema_test runs `kbox schema`, pkg/serde, and kbox produce
// --value-schema and kbox consume --value-format against a real
// Confluent-API-compatible Schema Registry (Apicurio Registry's ccompat
// API, started by testbed.sh schema-registry up) and one broker.
package schema_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/serde"
	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/sr"
)

var (
	registry  *testbed.SchemaRegistry
	kboxBin   string
	bootstrap string
)

func TestMain(m *testing.M) {
	// One broker for kbox produce and kbox consume; it starts while the
	// registry does.
	os.Exit(testbed.Main(m, testbed.Options{Name: "schema", Brokers: 1, SchemaRegistry: true, Ready: func(e testbed.Env) error {
		registry, kboxBin, bootstrap = e.SchemaRegistry, e.Kbox, e.Cluster.Bootstrap
		return nil
	}}))
}

func kbox(t *testing.T, args ...string) testbed.Result {
	t.Helper()
	return testbed.Runner{Timeout: time.Minute, Env: []string{"KBOX_PROFILE=", "KBOX_OUTPUT=", "KBOX_SCHEMA_REGISTRY=" + registry.URL}}.Exec(t, kboxBin, args...)
}

func mustKbox(t *testing.T, args ...string) string {
	t.Helper()
	r := kbox(t, args...)
	if r.Code != 0 {
		t.Fatalf("kbox %v: %s", args, r)
	}
	return r.Stdout
}

func jsonOut(t *testing.T, v any, args ...string) {
	t.Helper()
	out := mustKbox(t, append(args, "-o", "json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("kbox %v: %v\n%s", args, err, out)
	}
}

func file(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const (
	userV1  = `{"type":"record","name":"User","namespace":"it","fields":[{"name":"name","type":"string"}]}`
	userV2  = `{"type":"record","name":"User","namespace":"it","fields":[{"name":"name","type":"string"},{"name":"email","type":["null","string"],"default":null}]}`
	userBad = `{"type":"record","name":"User","namespace":"it","fields":[{"name":"name","type":"long"}]}`
)

// TestSchemaCommands drives every kbox schema command against the real
// registry.
func TestSchemaCommands(t *testing.T) {
	const subj = "cmd-users-value"
	var reg struct {
		Subject string `json:"subject"`
		Version int    `json:"version"`
		ID      int    `json:"id"`
		Type    string `json:"type"`
	}
	jsonOut(t, &reg, "schema", "register", subj, "--file", file(t, "u1.avsc", userV1))
	if reg.Subject != subj || reg.Version != 1 || reg.ID <= 0 || reg.Type != "AVRO" {
		t.Fatalf("register v1: %+v", reg)
	}
	id1 := reg.ID
	mustKbox(t, "schema", "compatibility", "set", "BACKWARD", subj)
	var comp struct {
		Subject, Compatibility, Source string
	}
	jsonOut(t, &comp, "schema", "compatibility", "get", subj)
	if comp.Compatibility != "BACKWARD" || comp.Source != "subject" {
		t.Fatalf("compatibility get: %+v", comp)
	}

	// An incompatible change: dry run says no (exit 1), nothing registered.
	r := kbox(t, "schema", "register", subj, "--file", file(t, "bad.avsc", userBad), "--dry-run", "-o", "json")
	var check struct {
		Compatible    bool `json:"compatible"`
		SubjectExists bool `json:"subject_exists"`
	}
	if r.Code != 1 || json.Unmarshal([]byte(r.Stdout), &check) != nil || check.Compatible || !check.SubjectExists {
		t.Fatalf("incompatible dry run: %s", r)
	}
	// A compatible one: dry run yes, then registered as version 2.
	v2 := file(t, "u2.avsc", userV2)
	jsonOut(t, &check, "schema", "register", subj, "--file", v2, "--dry-run")
	if !check.Compatible {
		t.Fatalf("compatible dry run: %+v", check)
	}
	var vl struct {
		Versions []struct{ Version, ID int } `json:"versions"`
	}
	jsonOut(t, &vl, "schema", "versions", subj)
	if len(vl.Versions) != 1 {
		t.Fatalf("the dry run registered: %+v", vl)
	}
	jsonOut(t, &reg, "schema", "register", subj, "--file", v2)
	if reg.Version != 2 || reg.ID == id1 {
		t.Fatalf("register v2: %+v", reg)
	}
	// The registry refuses an incompatible registration with its reason.
	if r := kbox(t, "schema", "register", subj, "--file", file(t, "bad2.avsc", userBad)); r.Code != 1 || !strings.Contains(r.Stderr, "kbox: error: register under "+subj+":") {
		t.Fatalf("incompatible register: %s", r)
	}
	// A brand-new subject: nothing to be compatible with.
	jsonOut(t, &check, "schema", "register", "cmd-new-value", "--file", v2, "--dry-run")
	if !check.Compatible || check.SubjectExists {
		t.Fatalf("new subject dry run: %+v", check)
	}

	var show struct {
		Subject string `json:"subject"`
		Version int    `json:"version"`
		ID      int    `json:"id"`
		Schema  string `json:"schema"`
	}
	jsonOut(t, &show, "schema", "show", subj)
	if show.Version != 2 || show.ID != reg.ID || !strings.Contains(show.Schema, "email") {
		t.Fatalf("show latest: %+v", show)
	}
	jsonOut(t, &show, "schema", "show", subj+":1")
	if show.Version != 1 || show.ID != id1 {
		t.Fatalf("show v1: %+v", show)
	}
	if out := mustKbox(t, "schema", "show", "--id", "1"); !strings.Contains(out, "AVRO") && !strings.Contains(out, "PROTOBUF") && !strings.Contains(out, "JSON") {
		t.Fatalf("show --id:\n%s", out)
	}
	if out := mustKbox(t, "schema", "list"); !strings.Contains(out, subj) {
		t.Fatalf("list:\n%s", out)
	}

	// Global level: set and read back, then restored.
	jsonOut(t, &comp, "schema", "compatibility", "get")
	old := comp.Compatibility
	jsonOut(t, &comp, "schema", "compatibility", "set", "FULL", "--global")
	if comp.Compatibility != "FULL" || comp.Source != "global" {
		t.Fatalf("set global: %+v", comp)
	}
	jsonOut(t, &comp, "schema", "compatibility", "get")
	if comp.Compatibility != "FULL" {
		t.Fatalf("get global: %+v", comp)
	}
	mustKbox(t, "schema", "compatibility", "set", old, "--global")

	// Deletes: a version softly; the subject for good, only with --yes.
	var del struct {
		Versions  []int `json:"deleted_versions"`
		Permanent bool  `json:"permanent"`
	}
	jsonOut(t, &del, "schema", "delete", subj+":1")
	if len(del.Versions) != 1 || del.Versions[0] != 1 || del.Permanent {
		t.Fatalf("soft delete of version 1: %+v", del)
	}
	if r := kbox(t, "schema", "delete", subj, "--permanent"); r.Code != 2 || !strings.Contains(r.Stderr, "--yes") {
		t.Fatalf("hard delete without --yes: %s", r)
	}
	if out := mustKbox(t, "schema", "list"); !strings.Contains(out, subj) {
		t.Fatalf("the refused hard delete deleted:\n%s", out)
	}
	jsonOut(t, &del, "schema", "delete", subj, "--permanent", "--yes")
	if !del.Permanent {
		t.Fatalf("hard delete: %+v", del)
	}
	if out := mustKbox(t, "schema", "list", "--deleted"); strings.Contains(out, subj+"\n") {
		t.Fatalf("subject still there after a hard delete:\n%s", out)
	}
	if r := kbox(t, "schema", "versions", subj); r.Code != 1 || !strings.Contains(r.Stderr, "kbox: error: subject "+subj+":") {
		t.Fatalf("versions of a deleted subject: %s", r)
	}
}

const commonProto = `syntax = "proto3";
package common;
message Money { string currency = 1; int64 units = 2; }
`

const orderProto = `syntax = "proto3";
package shop;
import "common.proto";
import "google/protobuf/timestamp.proto";
message Ping { int32 n = 1; }
message Order {
  string id = 1;
  common.Money total = 2;
  message Line { string sku = 1; int32 qty = 2; }
  repeated Line lines = 3;
  google.protobuf.Timestamp at = 4;
}
`

const orderAvro = `{"type":"record","name":"Order","namespace":"it","fields":[
 {"name":"id","type":"string"},
 {"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
 {"name":"placed","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"day","type":{"type":"int","logicalType":"date"}},
 {"name":"customer","type":{"type":"record","name":"Customer","fields":[
   {"name":"name","type":"string"},
   {"name":"address","type":["null",{"type":"record","name":"Address","fields":[{"name":"city","type":"string"}]}],"default":null}]}},
 {"name":"payment","type":["string","long",{"type":"record","name":"Card","fields":[{"name":"last4","type":"string"}]}]}]}`

// countingTransport counts the GETs of schemas by id.
type countingTransport struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.n[r.Method+" "+r.URL.Path[strings.Index(r.URL.Path, "/apis/ccompat/v7")+len("/apis/ccompat/v7"):]]++
	c.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// TestSerdeThroughRealRegistry writes records with kbox's encoder (the
// schemas registered through kbox schema) and reads them back through the
// real registry: Avro with nested records, unions and logical types;
// Protobuf with an import, a nested message and message index > 0; JSON
// Schema; v1 and v2 records mixed. Each schema id is fetched once.
func TestSerdeThroughRealRegistry(t *testing.T) {
	mustKbox(t, "schema", "register", "sd-common.proto", "--file", file(t, "common.proto", commonProto))
	mustKbox(t, "schema", "register", "sd-orders-proto", "--file", file(t, "order.proto", orderProto),
		"--reference", "common.proto=sd-common.proto:1")
	mustKbox(t, "schema", "register", "sd-orders-avro", "--file", file(t, "order.avsc", orderAvro))
	mustKbox(t, "schema", "register", "sd-users", "--file", file(t, "u1.avsc", userV1))
	mustKbox(t, "schema", "register", "sd-users", "--file", file(t, "u2.avsc", userV2))
	mustKbox(t, "schema", "register", "sd-people", "--type", "json", "--file", file(t, "p.json",
		`{"type":"object","properties":{"name":{"type":"string"},"zip":{"type":"integer"}},"required":["name"]}`))

	ct := &countingTransport{n: map[string]int{}}
	cl, err := sr.NewClient(sr.URLs(registry.URL), sr.HTTPClient(&http.Client{Transport: ct, Timeout: 10 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	reg := serde.NewRegistry(cl)
	ctx := context.Background()
	enc := func(subject string, version int, message string) *serde.Encoder {
		t.Helper()
		e, err := reg.Encoder(ctx, subject, version, message)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	type rec struct {
		e          *serde.Encoder
		in, want   string
		format     serde.Format
		message    string
		subject    string
		subjectVer int
	}
	orderJSON := `{"id":"o-1","amount":"12.50","placed":"2024-03-01T10:20:30.123Z","day":"2024-03-01",` +
		`"customer":{"name":"Ada","address":{"city":"Paris"}},"payment":{"it.Card":{"last4":"4242"}}}`
	recs := []rec{
		{e: enc("sd-orders-avro", 0, ""), in: orderJSON, want: orderJSON, format: serde.Avro, subject: "sd-orders-avro", subjectVer: 1},
		{e: enc("sd-orders-avro", 0, ""), in: strings.Replace(orderJSON, `{"it.Card":{"last4":"4242"}}`, `"cash"`, 1),
			want: strings.Replace(orderJSON, `{"it.Card":{"last4":"4242"}}`, `{"string":"cash"}`, 1), format: serde.Avro, subject: "sd-orders-avro", subjectVer: 1},
		{e: enc("sd-orders-proto", 0, "Order"), in: `{"id":"o-1","total":{"currency":"EUR","units":"1250"},"lines":[{"sku":"a","qty":2}],"at":"2024-03-01T10:20:30Z"}`,
			want:   `{"id":"o-1","total":{"currency":"EUR","units":"1250"},"lines":[{"sku":"a","qty":2}],"at":"2024-03-01T10:20:30Z"}`,
			format: serde.Protobuf, message: "shop.Order", subject: "sd-orders-proto", subjectVer: 1},
		{e: enc("sd-orders-proto", 0, "shop.Order.Line"), in: `{"sku":"b","qty":3}`, want: `{"sku":"b","qty":3}`,
			format: serde.Protobuf, message: "shop.Order.Line", subject: "sd-orders-proto", subjectVer: 1},
		{e: enc("sd-users", 1, ""), in: `{"name":"ada"}`, want: `{"name":"ada"}`, format: serde.Avro, subject: "sd-users", subjectVer: 1},
		{e: enc("sd-users", 2, ""), in: `{"name":"bob","email":"bob@example.com"}`, want: `{"name":"bob","email":"bob@example.com"}`, format: serde.Avro, subject: "sd-users", subjectVer: 2},
		{e: enc("sd-users", 1, ""), in: `{"name":"cy"}`, want: `{"name":"cy"}`, format: serde.Avro, subject: "sd-users", subjectVer: 1},
		{e: enc("sd-people", 0, ""), in: `{"name":"dee", "zip": 75001}`, want: `{"name":"dee","zip":75001}`, format: serde.JSONSchema, subject: "sd-people", subjectVer: 1},
	}
	// A fresh registry cache reads them back, as a consumer would.
	ct.mu.Lock()
	ct.n = map[string]int{}
	ct.mu.Unlock()
	dec := &serde.Decoder{Registry: serde.NewRegistry(cl), Subjects: true}
	ids := map[int]bool{}
	for round := 0; round < 3; round++ {
		for _, r := range recs {
			b, err := r.e.Encode([]byte(r.in))
			if err != nil {
				t.Fatalf("encode %s: %v", r.in, err)
			}
			v := dec.Decode(ctx, b, serde.Auto)
			if v.Err != nil || v.Format != r.format || string(v.JSON) != r.want || v.Message != r.message ||
				v.Subject != r.subject || v.Version != r.subjectVer || v.SchemaID != r.e.Schema.ID {
				t.Fatalf("decode %s:\n got %+v\nwant %s (%s %s v%d)", r.in, v, r.want, r.format, r.subject, r.subjectVer)
			}
			ids[v.SchemaID] = true
		}
	}
	ct.mu.Lock()
	for id := range ids {
		for _, p := range []string{"/schemas/ids/%d", "/schemas/ids/%d/versions"} {
			k := "GET " + strings.Replace(p, "%d", strconv.Itoa(id), 1)
			if ct.n[k] != 1 {
				t.Errorf("%s: %d requests, want 1 (all: %v)", k, ct.n[k], ct.n)
			}
		}
	}
	// The one reference (common.proto) was read once too.
	if n := ct.n["GET /subjects/sd-common.proto/versions/1"]; n != 1 {
		t.Errorf("reference read %d times, want 1 (all: %v)", n, ct.n)
	}
	ct.mu.Unlock()

	// A value that does not match is refused with its field path.
	if _, err := enc("sd-orders-avro", 0, "").Encode([]byte(strings.Replace(orderJSON, `"city":"Paris"`, `"city":7`, 1))); err == nil ||
		err.Error() != "$.customer.address.city: expected a string, got number 7" {
		t.Fatalf("mismatch: %v", err)
	}
	// Profile settings reach the same registry.
	rc, err := (&config.Loader{Path: filepath.Join(t.TempDir(), "none.yaml"), Getenv: func(k string) string {
		if k == "KBOX_SCHEMA_REGISTRY" {
			return registry.URL
		}
		return ""
	}}).Registry("", "")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := serde.Open(rc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r2.SchemaByID(ctx, recs[0].e.Schema.ID); err != nil {
		t.Fatal(err)
	}
}
