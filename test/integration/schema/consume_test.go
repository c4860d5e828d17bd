//go:build integration

package schema_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestProduceConsumeThroughRealRegistry: kbox produce --value-schema
// writes Avro (nested records, unions, logical types), Protobuf (an
// import, nested messages, message index > 0), v1 and v2 Avro records
// mixed, and JSON Schema into one topic; a record that does not match is
// refused with its field path after the ones before it; kbox consume
// --value-format auto reads them all back through the real registry.
func TestProduceConsumeThroughRealRegistry(t *testing.T) {
	const topic = "cp-mixed"
	// Schema ids are content ids: the schemas differ from the other
	// tests' (a doc, a description, one more message), so that each id's
	// subject is this test's.
	orderAvro := strings.Replace(orderAvro, `"namespace":"it",`, `"namespace":"it","doc":"cp",`, 1)
	orderProto := orderProto + "message Unused { bool b = 1; }\n"
	userV1 := strings.Replace(userV1, `"namespace":"it",`, `"namespace":"it","doc":"cp",`, 1)
	userV2 := strings.Replace(userV2, `"namespace":"it",`, `"namespace":"it","doc":"cp",`, 1)
	mustKbox(t, "schema", "register", "cp-common.proto", "--file", file(t, "common.proto", commonProto))
	mustKbox(t, "schema", "register", "cp-orders-proto", "--file", file(t, "order.proto", orderProto),
		"--reference", "common.proto=cp-common.proto:1")
	mustKbox(t, "schema", "register", "cp-orders-avro", "--file", file(t, "order.avsc", orderAvro))
	mustKbox(t, "schema", "register", "cp-users", "--file", file(t, "u1.avsc", userV1))
	mustKbox(t, "schema", "register", "cp-users", "--file", file(t, "u2.avsc", userV2))
	mustKbox(t, "schema", "register", "cp-people", "--type", "json", "--file", file(t, "p.json",
		`{"type":"object","description":"cp","properties":{"name":{"type":"string"},"zip":{"type":"integer"}},"required":["name"]}`))
	mustKbox(t, "topics", "--bootstrap-server", bootstrap, "--create", "--topic", topic, "--partitions", "1", "--replication-factor", "1")

	orderJSON := `{"id":"o-1","amount":"12.50","placed":"2024-03-01T10:20:30.123Z","day":"2024-03-01",` +
		`"customer":{"name":"Ada","address":{"city":"Paris"}},"payment":{"it.Card":{"last4":"4242"}}}`
	cash := strings.Replace(orderJSON, `{"it.Card":{"last4":"4242"}}`, `"cash"`, 1)
	produce := func(lines []string, args ...string) {
		t.Helper()
		in := file(t, "in.jsonl", strings.Join(lines, "\n")+"\n")
		mustKbox(t, append([]string{"produce", "--bootstrap-server", bootstrap, "--topic", topic, "-f", "json", "--file", in}, args...)...)
	}
	produce([]string{`{"key":"a1","value":` + orderJSON + `}`, `{"value":` + cash + `}`}, "--value-schema", "cp-orders-avro")
	produce([]string{`{"value":{"id":"o-1","total":{"currency":"EUR","units":"1250"},"lines":[{"sku":"a","qty":2}],"at":"2024-03-01T10:20:30Z"}}`},
		"--value-schema", "cp-orders-proto", "--value-message", "Order")
	produce([]string{`{"value":{"sku":"b","qty":3}}`}, "--value-schema", "cp-orders-proto:1", "--value-message", "shop.Order.Line")
	produce([]string{`{"value":{"name":"ada"}}`}, "--value-schema", "cp-users:1")
	produce([]string{`{"value":{"name":"bob","email":"bob@example.com"}}`}, "--value-schema", "cp-users:2")
	produce([]string{`{"value":{"name":"cy"}}`}, "--value-schema", "cp-users:1")
	// The third record does not match: the two before it are produced.
	in := file(t, "people.jsonl", `{"value":{"name":"dee","zip":75001}}
{"value":{"name":"eve"}}
{"value":{"name":"fay","zip":"x"}}
{"value":{"name":"gus"}}
`)
	r := kbox(t, "produce", "--bootstrap-server", bootstrap, "--topic", topic, "-f", "json", "--file", in, "--value-schema", "cp-people")
	if r.Code != 1 || !strings.Contains(r.Stderr, "record 3: the value does not match subject cp-people version 1") ||
		!strings.Contains(r.Stderr, "$.zip") || !strings.Contains(r.Stderr, "(the 2 records before it: 2 produced, 0 failed)") {
		t.Fatalf("mismatch: %s", r)
	}

	type line struct {
		Key           *string         `json:"key"`
		Value         json.RawMessage `json:"value"`
		Format        string          `json:"value_format"`
		SchemaID      int             `json:"value_schema_id"`
		Subject       string          `json:"value_subject"`
		SchemaVersion int             `json:"value_schema_version"`
		Message       string          `json:"value_message"`
		Error         string          `json:"value_error"`
	}
	want := []struct {
		value, format, subject, message string
		version                         int
	}{
		{orderJSON, "avro", "cp-orders-avro", "", 1},
		{strings.Replace(orderJSON, `{"it.Card":{"last4":"4242"}}`, `{"string":"cash"}`, 1), "avro", "cp-orders-avro", "", 1},
		{`{"id":"o-1","total":{"currency":"EUR","units":"1250"},"lines":[{"sku":"a","qty":2}],"at":"2024-03-01T10:20:30Z"}`, "protobuf", "cp-orders-proto", "shop.Order", 1},
		{`{"sku":"b","qty":3}`, "protobuf", "cp-orders-proto", "shop.Order.Line", 1},
		{`{"name":"ada"}`, "avro", "cp-users", "", 1},
		{`{"name":"bob","email":"bob@example.com"}`, "avro", "cp-users", "", 2},
		{`{"name":"cy"}`, "avro", "cp-users", "", 1},
		{`{"name":"dee","zip":75001}`, "json-schema", "cp-people", "", 1},
		{`{"name":"eve"}`, "json-schema", "cp-people", "", 1},
	}
	out := mustKbox(t, "consume", "--bootstrap-server", bootstrap, "--topic", topic, "--start", "earliest", "-e", "--value-format", "auto", "-o", "json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d records, want %d:\n%s", len(lines), len(want), out)
	}
	ids := map[string]int{}
	for i, w := range want {
		var l line
		if err := json.Unmarshal([]byte(lines[i]), &l); err != nil {
			t.Fatalf("line %d: %v: %s", i, err, lines[i])
		}
		if string(l.Value) != w.value || l.Format != w.format || l.Subject != w.subject || l.Message != w.message ||
			l.SchemaVersion != w.version || l.SchemaID <= 0 || l.Error != "" {
			t.Errorf("record %d:\n got %s\nwant %s (%s %s v%d %s)", i, lines[i], w.value, w.format, w.subject, w.version, w.message)
		}
		if i == 0 && (l.Key == nil || *l.Key != "a1") {
			t.Errorf("record 0 key: %s", lines[i])
		}
		if id, ok := ids[w.subject+w.message+string(rune('0'+w.version))]; ok && id != l.SchemaID {
			t.Errorf("record %d: schema id %d, earlier %d", i, l.SchemaID, id)
		}
		ids[w.subject+w.message+string(rune('0'+w.version))] = l.SchemaID
	}
	// -f gets the decoded value, --grep matches it, --mask-field masks it.
	out = mustKbox(t, "consume", "--bootstrap-server", bootstrap, "--topic", topic, "--start", "earliest", "-e",
		"--value-format", "avro", "--grep", `"name":"Ada"`, "--mask-field", "^(last4|city)$", "-f", `%o %v\n`)
	masked := strings.Replace(strings.Replace(orderJSON, `"Paris"`, `"***"`, 1), `{"last4":"4242"}`, `{"last4":"***"}`, 1)
	maskedCash := strings.Replace(strings.Replace(orderJSON, `"Paris"`, `"***"`, 1), `{"it.Card":{"last4":"4242"}}`, `{"string":"cash"}`, 1)
	if out != "0 "+masked+"\n1 "+maskedCash+"\n" {
		t.Errorf("-f with --grep and --mask-field:\n%s", out)
	}
}
