package serde

import (
	"context"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
	"google.golang.org/protobuf/encoding/protowire"
)

// fakeRegistry is franz-go's in-memory registry behind httptest, counting
// the requests per path.
type fakeRegistry struct {
	*srfake.Registry
	mu    sync.Mutex
	count map[string]int
}

func newFake(t *testing.T, opts ...srfake.Option) *fakeRegistry {
	t.Helper()
	f := &fakeRegistry{Registry: srfake.New(opts...), count: map[string]int{}}
	t.Cleanup(f.Close)
	f.Intercept(func(_ http.ResponseWriter, r *http.Request) bool {
		f.mu.Lock()
		f.count[r.Method+" "+r.URL.Path]++
		f.mu.Unlock()
		return false
	})
	return f
}

func (f *fakeRegistry) requests(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.count[key]
}

func (f *fakeRegistry) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.count = map[string]int{}
}

func (f *fakeRegistry) register(t *testing.T, subject string, s sr.Schema) int {
	t.Helper()
	id, _, err := f.RegisterSchema(subject, s)
	if err != nil {
		t.Fatalf("register %s: %v", subject, err)
	}
	return id
}

func (f *fakeRegistry) registry(t *testing.T) *Registry {
	t.Helper()
	r, err := Open(config.NewRegistry([]string{f.URL()}, "", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func frame(id int, index []byte, payload []byte) []byte {
	b := []byte{0, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], uint32(id))
	return append(append(b, index...), payload...)
}

const orderAvro = `{"type":"record","name":"Order","namespace":"shop","fields":[
 {"name":"id","type":"string"},
 {"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
 {"name":"placed","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"day","type":{"type":"int","logicalType":"date"}},
 {"name":"ref","type":{"type":"string","logicalType":"uuid"}},
 {"name":"customer","type":{"type":"record","name":"Customer","fields":[
   {"name":"name","type":"string"},
   {"name":"address","type":["null",{"type":"record","name":"Address","fields":[
     {"name":"city","type":"string"},{"name":"zip","type":"int"}]}],"default":null}]}},
 {"name":"note","type":["null","string"],"default":null},
 {"name":"payment","type":["string","long",{"type":"record","name":"Card","fields":[{"name":"last4","type":"string"}]}]},
 {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID"]}},
 {"name":"tags","type":{"type":"array","items":"string"}},
 {"name":"attrs","type":{"type":"map","values":"long"}},
 {"name":"hash","type":{"type":"fixed","name":"Hash","size":4}},
 {"name":"ratio","type":"double"}]}`

type avroAddress struct {
	City string `avro:"city"`
	Zip  int    `avro:"zip"`
}

type avroOrder struct {
	ID       string    `avro:"id"`
	Amount   *big.Rat  `avro:"amount"`
	Placed   time.Time `avro:"placed"`
	Day      time.Time `avro:"day"`
	Ref      string    `avro:"ref"`
	Customer struct {
		Name    string       `avro:"name"`
		Address *avroAddress `avro:"address"`
	} `avro:"customer"`
	Note    *string          `avro:"note"`
	Payment map[string]any   `avro:"payment"`
	Status  string           `avro:"status"`
	Tags    []string         `avro:"tags"`
	Attrs   map[string]int64 `avro:"attrs"`
	Hash    [4]byte          `avro:"hash"`
	Ratio   float64          `avro:"ratio"`
}

const orderJSON = `{"id":"o-1","amount":"12.50","placed":"2024-03-01T10:20:30.123Z","day":"2024-03-01",` +
	`"ref":"1b4e28ba-2fa1-11d2-883f-0016d3cca427","customer":{"name":"Ada","address":{"city":"Paris","zip":75001}},` +
	`"note":null,"payment":{"shop.Card":{"last4":"4242"}},"status":"PAID","tags":["a","b"],"attrs":{"x":1},` +
	`"hash":"3q2+7w==","ratio":0.5}`

// avroOrderBytes writes the order with hamba's struct encoder: bytes made
// without the code under test.
func avroOrderBytes(t *testing.T) []byte {
	t.Helper()
	s, err := avro.ParseWithCache(orderAvro, "", &avro.SchemaCache{})
	if err != nil {
		t.Fatal(err)
	}
	o := avroOrder{ID: "o-1", Amount: big.NewRat(1250, 100), Placed: time.Date(2024, 3, 1, 10, 20, 30, 123e6, time.UTC),
		Day: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), Ref: "1b4e28ba-2fa1-11d2-883f-0016d3cca427",
		Payment: map[string]any{"shop.Card": map[string]any{"last4": "4242"}}, Status: "PAID",
		Tags: []string{"a", "b"}, Attrs: map[string]int64{"x": 1}, Hash: [4]byte{0xde, 0xad, 0xbe, 0xef}, Ratio: 0.5}
	o.Customer.Name = "Ada"
	o.Customer.Address = &avroAddress{City: "Paris", Zip: 75001}
	b, err := avro.Marshal(s, o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAvroNestedUnionsLogicalTypes(t *testing.T) {
	f := newFake(t)
	id := f.register(t, "orders-value", sr.Schema{Schema: orderAvro, Type: sr.TypeAvro})
	reg := f.registry(t)
	d := &Decoder{Registry: reg, Subjects: true}
	ctx := context.Background()
	payload := avroOrderBytes(t)
	data := frame(id, nil, payload)

	for _, format := range []Format{Auto, Avro} {
		v := d.Decode(ctx, data, format)
		if v.Err != nil || v.Format != Avro || string(v.JSON) != orderJSON || v.Text != orderJSON {
			t.Fatalf("%s: %+v\nwant %s", format, v, orderJSON)
		}
		if v.SchemaID != id || v.Subject != "orders-value" || v.Version != 1 {
			t.Fatalf("%s: id/subject/version %d %q %d", format, v.SchemaID, v.Subject, v.Version)
		}
	}

	// The decoded JSON encodes back to the very same bytes.
	e, err := reg.Encoder(ctx, "orders-value", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.Encode([]byte(orderJSON))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(data) {
		t.Fatalf("round trip:\n got %x\nwant %x", out, data)
	}
	// Bare union values pick the first branch they fit; a missing field
	// with a default takes it.
	bare := strings.Replace(orderJSON, `"payment":{"shop.Card":{"last4":"4242"}}`, `"payment":42`, 1)
	bare = strings.Replace(bare, `"note":null,`, ``, 1)
	bare = strings.Replace(bare, `"placed":"2024-03-01T10:20:30.123Z"`, `"placed":1709288430123`, 1)
	out, err = e.Encode([]byte(bare))
	if err != nil {
		t.Fatal(err)
	}
	v := d.Decode(ctx, out, Avro)
	want := strings.Replace(orderJSON, `"payment":{"shop.Card":{"last4":"4242"}}`, `"payment":{"long":42}`, 1)
	if v.Err != nil || string(v.JSON) != want {
		t.Fatalf("bare union: %s %v\nwant %s", v.JSON, v.Err, want)
	}
}

func TestAvroEncodeFieldPaths(t *testing.T) {
	f := newFake(t)
	f.register(t, "orders-value", sr.Schema{Schema: orderAvro, Type: sr.TypeAvro})
	e, err := f.registry(t).Encoder(context.Background(), "orders-value", 1, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"zip":75001`, `"zip":"75001"`, `$.customer.address.zip: expected an int, got string "75001"`},
		{`"zip":75001`, `"zip":1e12`, `$.customer.address.zip: expected an int, got number 1e12 (not an integer in range)`},
		{`"name":"Ada",`, ``, `$.customer.name: missing (the field has no default)`},
		{`"status":"PAID"`, `"status":"LOST"`, `$.status: "LOST" is not one of the enum's symbols NEW, PAID`},
		{`"tags":["a","b"]`, `"tags":["a",2]`, `$.tags[1]: expected a string, got number 2`},
		{`"ratio":0.5`, `"ratio":0.5,"extra":1`, `$.extra: not a field of record shop.Order`},
		{`"payment":{"shop.Card":{"last4":"4242"}}`, `"payment":true`, `$.payment: boolean true fits none of the union's types (string, long, shop.Card)`},
		{`"payment":{"shop.Card":{"last4":"4242"}}`, `"payment":{"shop.Card":{"last4":4242}}`, `$.payment["shop.Card"].last4: expected a string, got number 4242`},
		{`"day":"2024-03-01"`, `"day":"March 1st"`, `$.day: expected a date (2006-01-02), got "March 1st"`},
		{`"hash":"3q2+7w=="`, `"hash":"3q2+"`, `$.hash: expected 4 bytes (fixed), got 3`},
		{orderJSON, `[1]`, `$: expected an object (record shop.Order), got an array`},
		{orderJSON, `{"id":`, `$: not JSON: unexpected EOF`},
	} {
		in := strings.Replace(orderJSON, c.from, c.to, 1)
		_, err := e.Encode([]byte(in))
		var fe *FieldError
		if !errors.As(err, &fe) || err.Error() != c.want {
			t.Errorf("%s -> %s: got %v, want %s", c.from, c.to, err, c.want)
		}
	}
}

// TestAvroEvolution reads v1 and v2 records of one subject mixed in one
// stream, each with its own schema.
func TestAvroEvolution(t *testing.T) {
	f := newFake(t)
	v1 := `{"type":"record","name":"User","fields":[{"name":"name","type":"string"}]}`
	v2 := `{"type":"record","name":"User","fields":[{"name":"name","type":"string"},{"name":"email","type":["null","string"],"default":null}]}`
	id1 := f.register(t, "users-value", sr.Schema{Schema: v1})
	id2 := f.register(t, "users-value", sr.Schema{Schema: v2})
	if id1 == id2 {
		t.Fatal("one id for two versions")
	}
	reg := f.registry(t)
	ctx := context.Background()
	e1, err := reg.Encoder(ctx, "users-value", 1, "")
	if err != nil {
		t.Fatal(err)
	}
	e2, err := reg.Encoder(ctx, "users-value", 0, "") // latest: v2
	if err != nil {
		t.Fatal(err)
	}
	if e2.Version != 2 || e2.Schema.ID != id2 {
		t.Fatalf("latest is version %d id %d", e2.Version, e2.Schema.ID)
	}
	d := &Decoder{Registry: reg, Subjects: true}
	inputs := []struct {
		e    *Encoder
		js   string
		want string
		id   int
		ver  int
	}{
		{e1, `{"name":"ada"}`, `{"name":"ada"}`, id1, 1},
		{e2, `{"name":"bob","email":"bob@example.com"}`, `{"name":"bob","email":"bob@example.com"}`, id2, 2},
		{e1, `{"name":"cy"}`, `{"name":"cy"}`, id1, 1},
		{e2, `{"name":"dee"}`, `{"name":"dee","email":null}`, id2, 2},
	}
	for _, in := range inputs {
		b, err := in.e.Encode([]byte(in.js))
		if err != nil {
			t.Fatal(err)
		}
		v := d.Decode(ctx, b, Auto)
		if v.Err != nil || string(v.JSON) != in.want || v.SchemaID != in.id || v.Version != in.ver || v.Subject != "users-value" {
			t.Fatalf("%s: %+v", in.js, v)
		}
	}
	// v1 refuses v2's field.
	if _, err := e1.Encode([]byte(`{"name":"x","email":"x@y"}`)); err == nil || err.Error() != "$.email: not a field of record User" {
		t.Fatalf("v1 with v2's field: %v", err)
	}
}

func TestAvroReferences(t *testing.T) {
	f := newFake(t)
	f.register(t, "address", sr.Schema{Schema: `{"type":"record","name":"Address","namespace":"geo","fields":[{"name":"city","type":"string"}]}`})
	id := f.register(t, "people-value", sr.Schema{
		Schema:     `{"type":"record","name":"Person","fields":[{"name":"home","type":"geo.Address"}]}`,
		References: []sr.SchemaReference{{Name: "geo.Address", Subject: "address", Version: 1}},
	})
	reg := f.registry(t)
	ctx := context.Background()
	e, err := reg.Encoder(ctx, "people-value", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Encode([]byte(`{"home":{"city":"Oslo"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := frame(id, nil, []byte{8, 'O', 's', 'l', 'o'}); string(b) != string(want) {
		t.Fatalf("encoded %x, want %x", b, want)
	}
	v := (&Decoder{Registry: reg}).Decode(ctx, b, Auto)
	if v.Err != nil || string(v.JSON) != `{"home":{"city":"Oslo"}}` {
		t.Fatalf("%+v", v)
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
  enum Status { NEW = 0; PAID = 1; }
  Status status = 5;
}
`

// protoOrderBytes writes shop.Order with protowire: bytes made without the
// code under test.
func protoOrderBytes() (order, line []byte) {
	var money, ln, ts []byte
	money = protowire.AppendTag(money, 1, protowire.BytesType)
	money = protowire.AppendString(money, "EUR")
	money = protowire.AppendTag(money, 2, protowire.VarintType)
	money = protowire.AppendVarint(money, 1250)
	ln = protowire.AppendTag(ln, 1, protowire.BytesType)
	ln = protowire.AppendString(ln, "a")
	ln = protowire.AppendTag(ln, 2, protowire.VarintType)
	ln = protowire.AppendVarint(ln, 2)
	ts = protowire.AppendTag(ts, 1, protowire.VarintType)
	ts = protowire.AppendVarint(ts, uint64(time.Date(2024, 3, 1, 10, 20, 30, 0, time.UTC).Unix()))
	order = protowire.AppendTag(order, 1, protowire.BytesType)
	order = protowire.AppendString(order, "o-1")
	order = protowire.AppendTag(order, 2, protowire.BytesType)
	order = protowire.AppendBytes(order, money)
	order = protowire.AppendTag(order, 3, protowire.BytesType)
	order = protowire.AppendBytes(order, ln)
	order = protowire.AppendTag(order, 4, protowire.BytesType)
	order = protowire.AppendBytes(order, ts)
	order = protowire.AppendTag(order, 5, protowire.VarintType)
	order = protowire.AppendVarint(order, 1)
	return order, ln
}

const orderProtoJSON = `{"id":"o-1","total":{"currency":"EUR","units":"1250"},"lines":[{"sku":"a","qty":2}],"at":"2024-03-01T10:20:30Z","status":"PAID"}`

func TestProtobufImportsNestedMessageIndex(t *testing.T) {
	f := newFake(t)
	f.register(t, "common.proto", sr.Schema{Schema: commonProto, Type: sr.TypeProtobuf})
	id := f.register(t, "orders-value", sr.Schema{Schema: orderProto, Type: sr.TypeProtobuf,
		References: []sr.SchemaReference{{Name: "common.proto", Subject: "common.proto", Version: 1}}})
	reg := f.registry(t)
	d := &Decoder{Registry: reg}
	ctx := context.Background()
	order, line := protoOrderBytes()

	// Message index [1]: the second top-level message (count 1 and index
	// 1, zigzag varints).
	v := d.Decode(ctx, frame(id, []byte{2, 2}, order), Protobuf)
	if v.Err != nil || v.Format != Protobuf || string(v.JSON) != orderProtoJSON || v.Message != "shop.Order" {
		t.Fatalf("Order: %+v\nwant %s", v, orderProtoJSON)
	}
	// Message index [1, 0]: Order.Line, nested.
	v = d.Decode(ctx, frame(id, []byte{4, 2, 0}, line), Auto)
	if v.Err != nil || string(v.JSON) != `{"sku":"a","qty":2}` || v.Message != "shop.Order.Line" {
		t.Fatalf("Order.Line: %+v", v)
	}
	// Index 0 (the one-byte shortcut): Ping.
	v = d.Decode(ctx, frame(id, []byte{0}, []byte{8, 7}), Auto)
	if v.Err != nil || string(v.JSON) != `{"n":7}` || v.Message != "shop.Ping" {
		t.Fatalf("Ping: %+v", v)
	}
	// An index past the schema's messages is shown raw with the reason.
	v = d.Decode(ctx, frame(id, []byte{2, 10}, order), Auto)
	if v.Err == nil || !strings.Contains(v.Err.Error(), "no message 5 at depth 0") || v.Format != Bytes {
		t.Fatalf("bad index: %+v", v)
	}

	// Encoding picks the message by name and frames its index.
	e, err := reg.Encoder(ctx, "orders-value", 0, "Order")
	if err != nil {
		t.Fatal(err)
	}
	if e.Message != "shop.Order" {
		t.Fatalf("message %s", e.Message)
	}
	b, err := e.Encode([]byte(orderProtoJSON))
	if err != nil {
		t.Fatal(err)
	}
	if v := d.Decode(ctx, b, Auto); v.Err != nil || string(v.JSON) != orderProtoJSON || string(b[:7]) != string(frame(id, []byte{2, 2}, nil)) {
		t.Fatalf("round trip %x: %+v", b, v)
	}
	e, err = reg.Encoder(ctx, "orders-value", 0, "shop.Order.Line")
	if err != nil {
		t.Fatal(err)
	}
	if b, err = e.Encode([]byte(`{"sku":"a","qty":2}`)); err != nil || string(b) != string(frame(id, []byte{4, 2, 0}, line)) {
		t.Fatalf("Line: %x %v", b, err)
	}
	if _, err := reg.Encoder(ctx, "orders-value", 0, "Nope"); err == nil || !strings.Contains(err.Error(), `no message "Nope" (top-level messages: shop.Ping, shop.Order)`) {
		t.Fatalf("unknown message: %v", err)
	}
	for _, c := range []struct{ in, want string }{
		{`{"id":"x","lines":[{"sku":1}]}`, `$.lines[0].sku: expected a string, got number 1`},
		{`{"id":"x","total":{"units":"ten"}}`, `$.total.units: expected an integer, got string "ten"`},
		{`{"id":"x","colour":"red"}`, `$.colour: not a field of message shop.Order`},
		{`{"status":"LOST"}`, `$.status: "LOST" is not a value of enum shop.Order.Status`},
	} {
		e, _ := reg.Encoder(ctx, "orders-value", 0, "Order")
		if _, err := e.Encode([]byte(c.in)); err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %s", c.in, err, c.want)
		}
	}
}

func TestJSONSchemaReferences(t *testing.T) {
	f := newFake(t)
	f.register(t, "address.json", sr.Schema{Type: sr.TypeJSON,
		Schema: `{"type":"object","properties":{"zip":{"type":"integer"}},"required":["zip"]}`})
	id := f.register(t, "people-value", sr.Schema{Type: sr.TypeJSON,
		Schema:     `{"type":"object","properties":{"name":{"type":"string"},"address":{"$ref":"address.json"}},"required":["name"]}`,
		References: []sr.SchemaReference{{Name: "address.json", Subject: "address.json", Version: 1}}})
	reg := f.registry(t)
	ctx := context.Background()
	e, err := reg.Encoder(ctx, "people-value", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Encode([]byte(`{ "name": "ada", "address": {"zip": 75001} }`))
	if err != nil {
		t.Fatal(err)
	}
	if want := frame(id, nil, []byte(`{"name":"ada","address":{"zip":75001}}`)); string(b) != string(want) {
		t.Fatalf("encoded %q", b)
	}
	v := (&Decoder{Registry: reg}).Decode(ctx, b, JSONSchema)
	if v.Err != nil || v.Format != JSONSchema || string(v.JSON) != `{"name":"ada","address":{"zip":75001}}` {
		t.Fatalf("%+v", v)
	}
	for _, c := range []struct{ in, want string }{
		{`{"name":"ada","address":{"zip":"75001"}}`, `$.address.zip: got string, want integer`},
		{`{"address":{"zip":1}}`, `$: missing property 'name'`},
		{`{"name":"ada","address":{}}`, `$.address: missing property 'zip'`},
	} {
		if _, err := e.Encode([]byte(c.in)); err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %s", c.in, err, c.want)
		}
	}
}

// TestOneRequestPerSchemaID decodes many records of two schemas from
// several goroutines: each id (and its subjects) is asked for once; an
// unknown id is asked for once too.
func TestOneRequestPerSchemaID(t *testing.T) {
	f := newFake(t)
	id1 := f.register(t, "a-value", sr.Schema{Schema: `"string"`})
	id2 := f.register(t, "b-value", sr.Schema{Schema: `"long"`})
	reg := f.registry(t)
	f.reset()
	d := &Decoder{Registry: reg, Subjects: true}
	recs := [][]byte{frame(id1, nil, []byte{2, 'x'}), frame(id2, nil, []byte{4}), frame(99, nil, []byte{1})}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				d.Decode(context.Background(), recs[i%3], Auto)
			}
		}()
	}
	wg.Wait()
	for _, p := range []string{"/schemas/ids/1", "/schemas/ids/2", "/schemas/ids/99", "/schemas/ids/1/versions", "/schemas/ids/2/versions"} {
		if n := f.requests("GET " + p); n != 1 {
			t.Errorf("GET %s: %d requests, want 1", p, n)
		}
	}
	v := d.Decode(context.Background(), recs[2], Auto)
	if v.Err == nil || !IsNotFound(v.Err) || v.SchemaID != 99 || v.Format != Bytes {
		t.Fatalf("unknown id: %+v", v)
	}
	if v := d.Decode(context.Background(), recs[1], Auto); string(v.JSON) != "2" || v.Subject != "b-value" {
		t.Fatalf("long: %+v", v)
	}
}

// TestUnreachableRetriedAfterBackoff: a 5xx is kept for RetryAfter, then
// asked again; a 404 is kept for the run.
func TestUnreachableRetriedAfterBackoff(t *testing.T) {
	f := newFake(t)
	id := f.register(t, "a-value", sr.Schema{Schema: `"string"`})
	var mu sync.Mutex
	failing := true
	f.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		if failing {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"error_code":50301,"message":"busy"}`))
			return true
		}
		return false
	})
	reg := f.registry(t)
	now := time.Unix(1000, 0)
	reg.now = func() time.Time { return now }
	f.reset()
	d := &Decoder{Registry: reg}
	rec := frame(id, nil, []byte{2, 'x'})
	for i := 0; i < 5; i++ {
		if v := d.Decode(context.Background(), rec, Auto); v.Err == nil || !strings.Contains(v.Err.Error(), "busy (HTTP 503)") {
			t.Fatalf("while failing: %+v", v)
		}
	}
	if n := f.requests("GET /schemas/ids/1"); n != 1 {
		t.Fatalf("%d requests while failing, want 1", n)
	}
	mu.Lock()
	failing = false
	mu.Unlock()
	now = now.Add(reg.RetryAfter)
	if v := d.Decode(context.Background(), rec, Auto); v.Err != nil || string(v.JSON) != `"x"` {
		t.Fatalf("after the backoff: %+v", v)
	}
	if n := f.requests("GET /schemas/ids/1"); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
}

func TestRawWithReason(t *testing.T) {
	f := newFake(t)
	idAvro := f.register(t, "a-value", sr.Schema{Schema: `{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}`})
	reg := f.registry(t)
	ctx := context.Background()
	d := &Decoder{Registry: reg}
	for _, c := range []struct {
		name   string
		dec    *Decoder
		data   []byte
		format Format
		want   Format
		text   string
		reason string
	}{
		{"plain text under auto", d, []byte("hello"), Auto, String, "hello", ""},
		{"binary under auto", d, []byte{0xff, 0xfe}, Auto, Bytes, "//4=", ""},
		{"plain JSON", d, []byte(` {"a": 1} `), JSON, JSON, `{"a":1}`, ""},
		{"not JSON", d, []byte(`{"a":`), JSON, String, `{"a":`, "not JSON"},
		{"not framed but avro asked", d, []byte("hello"), Avro, String, "hello", "not Confluent-framed"},
		{"wrong type asked", d, frame(idAvro, nil, []byte{2, 'x'}), Protobuf, Bytes, "", "schema 1 is AVRO, not PROTOBUF"},
		{"truncated Avro", d, frame(idAvro, nil, []byte{20, 'x'}), Auto, Bytes, "", "schema 1: avro"},
		{"framed without a registry", &Decoder{}, frame(7, nil, []byte("x")), Auto, Bytes, "", "framed with schema id 7, but no schema registry is configured"},
		{"string asked", d, frame(idAvro, nil, []byte("x")), String, String, "\x00\x00\x00\x00\x01x", ""},
		{"bytes asked", d, []byte("hi"), Bytes, Bytes, "aGk=", ""},
	} {
		v := c.dec.Decode(ctx, c.data, c.format)
		if v.Format != c.want || (c.text != "" && v.Text != c.text) {
			t.Errorf("%s: %+v", c.name, v)
		}
		switch {
		case c.reason == "" && v.Err != nil:
			t.Errorf("%s: unexpected error %v", c.name, v.Err)
		case c.reason != "" && (v.Err == nil || !strings.Contains(v.Err.Error(), c.reason)):
			t.Errorf("%s: error %v, want %q", c.name, v.Err, c.reason)
		}
	}
	if v := d.Decode(ctx, nil, Auto); v.Format != Null || v.Err != nil {
		t.Fatalf("null: %+v", v)
	}
}

// TestSecretsNeverInErrors: a registry answer that echoes the password
// does not carry it into the error, and the login reaches the registry.
func TestSecretsNeverInErrors(t *testing.T) {
	const pw = "s3cr3t-pw"
	f := newFake(t, srfake.WithAuth("Basic YWxpY2U6czNjcjN0LXB3")) // alice:s3cr3t-pw
	f.register(t, "a-value", sr.Schema{Schema: `"string"`})
	reg, err := Open(config.NewRegistry([]string{f.URL()}, "alice", pw, ""))
	if err != nil {
		t.Fatal(err)
	}
	if v := (&Decoder{Registry: reg}).Decode(context.Background(), frame(1, nil, []byte{2, 'x'}), Auto); v.Err != nil || string(v.JSON) != `"x"` {
		t.Fatalf("with the login: %+v", v)
	}
	f.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error_code":50001,"message":"bad login alice:` + pw + `"}`))
		return true
	})
	reg2, _ := Open(config.NewRegistry([]string{f.URL()}, "alice", pw, ""))
	v := (&Decoder{Registry: reg2}).Decode(context.Background(), frame(1, nil, []byte{2, 'x'}), Auto)
	if v.Err == nil || strings.Contains(v.Err.Error(), pw) || !strings.Contains(v.Err.Error(), config.RedactedValue) {
		t.Fatalf("error %v", v.Err)
	}
	// A wrong login says so without the password.
	f.ClearInterceptors()
	reg3, _ := Open(config.NewRegistry([]string{f.URL()}, "alice", "wrong", ""))
	_, err = reg3.SchemaByID(context.Background(), 1)
	if err == nil || !strings.Contains(err.Error(), "(403 Forbidden)") || strings.Contains(err.Error(), "wrong") {
		t.Fatalf("wrong login: %v", err)
	}
}

func TestParseFormatAndSubjectVersion(t *testing.T) {
	if f, err := ParseFormat("JSON-Schema"); err != nil || f != JSONSchema {
		t.Fatal(f, err)
	}
	if _, err := ParseFormat("xml"); err == nil || err.Error() != `unknown format "xml" (use auto, avro, protobuf, json-schema, json, string, bytes)` {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in      string
		subject string
		version int
		err     string
	}{
		{"orders-value", "orders-value", 0, ""},
		{"orders-value:3", "orders-value", 3, ""},
		{"orders-value:latest", "orders-value", 0, ""},
		{":.ctx:orders", ":.ctx:orders", 0, ""},
		{"orders:0", "", 0, "positive"},
		{":3", "", 0, "no subject"},
	} {
		s, v, err := ParseSubjectVersion(c.in)
		if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) || s != c.subject || v != c.version {
			t.Errorf("%s: %q %d %v", c.in, s, v, err)
		}
	}
}

// TestTLSAndBearer reaches a registry over HTTPS with the profile's CA
// file and a bearer token.
func TestTLSAndBearer(t *testing.T) {
	f := newFake(t, srfake.WithAuth("Bearer tok-123"))
	f.register(t, "a-value", sr.Schema{Schema: `"string"`})
	srv := httptest.NewTLSServer(f.Handler())
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	conn := config.NewRegistry([]string{srv.URL}, "", "", "tok-123")
	conn.TLSProps = config.NewProperties()
	conn.TLSProps.Set("ssl.truststore.type", "PEM")
	conn.TLSProps.Set("ssl.truststore.location", ca)
	reg, err := Open(conn)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := reg.SchemaByID(context.Background(), 1); err != nil || s.Text != `"string"` {
		t.Fatalf("over TLS: %+v %v", s, err)
	}
	// Without the CA the server is not trusted.
	reg, err = Open(config.NewRegistry([]string{srv.URL}, "", "", "tok-123"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.SchemaByID(context.Background(), 1); err == nil || !strings.Contains(err.Error(), "registry unreachable") || strings.Contains(err.Error(), "tok-123") {
		t.Fatalf("untrusted: %v", err)
	}
}

// BenchmarkDecodeAvro decodes a ~200-byte Avro record (schema cached) to
// JSON: the per-record cost kbox consume pays.
func BenchmarkDecodeAvro(b *testing.B) {
	f := &fakeRegistry{Registry: srfake.New(), count: map[string]int{}}
	defer f.Close()
	id, _, err := f.RegisterSchema("orders-value", sr.Schema{Schema: orderAvro})
	if err != nil {
		b.Fatal(err)
	}
	reg, err := Open(config.NewRegistry([]string{f.URL()}, "", "", ""))
	if err != nil {
		b.Fatal(err)
	}
	e, err := reg.Encoder(context.Background(), "orders-value", 0, "")
	if err != nil {
		b.Fatal(err)
	}
	data, err := e.Encode([]byte(strings.Replace(orderJSON, `"ref":"1b4e28ba-2fa1-11d2-883f-0016d3cca427"`,
		`"ref":"1b4e28ba-2fa1-11d2-883f-0016d3cca427-and-some-more-text-to-reach-about-two-hundred-bytes"`, 1)))
	if err != nil {
		b.Fatal(err)
	}
	d := &Decoder{Registry: reg}
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if v := d.Decode(ctx, data, Auto); v.Err != nil || v.SchemaID != id {
			b.Fatal(v.Err)
		}
	}
}
