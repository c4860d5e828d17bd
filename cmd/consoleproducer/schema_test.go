package consoleproducer

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/serde"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

const orderAvro = `{"type":"record","name":"Order","namespace":"shop","fields":[
 {"name":"id","type":"long"},
 {"name":"customer","type":{"type":"record","name":"Customer","fields":[{"name":"name","type":"string"},{"name":"zip","type":"string"}]}}]}`

func runIn(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{Cmd: run, Invoked: "kbox produce", Stdin: stdin}, args...)
	return r.Stdout, r.ErrOut + r.Msg, r.Code
}

// TestValueSchema: -f json --value-schema encodes each record's value
// with the registered schema; the first one that does not match stops
// the run with the field path; the records before it are produced and
// counted, and read back through the registry.
func TestValueSchema(t *testing.T) {
	reg := srfake.New()
	t.Cleanup(reg.Close)
	if _, _, err := reg.RegisterSchema("orders-value", sr.Schema{Schema: orderAvro, Type: sr.TypeAvro}); err != nil {
		t.Fatal(err)
	}
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"))
	in := `{"key":"k1","value":{"id":1,"customer":{"name":"ann","zip":"1000"}}}
{"value":{"id":2,"customer":{"name":"bob","zip":"2000"}},"value_format":"avro","value_schema_id":1}
{"value":{"id":3,"customer":{"name":"cy","zip":3000}}}
{"value":{"id":4,"customer":{"name":"dee","zip":"4000"}}}
`
	_, errOut, code := runIn(t, in, "--bootstrap-server", c.ListenAddrs()[0], "--topic", "orders", "-f", "json",
		"--value-schema", "orders-value:1", "--schema-registry", reg.URL())
	want := `record 3: the value does not match subject orders-value version 1 (schema 1): $.customer.zip: expected a string, got number 3000 (the 2 records before it: 2 produced, 0 failed)`
	if code != 1 || strings.TrimSpace(errOut) != want {
		t.Fatalf("exit %d, stderr %q\nwant %q", code, errOut, want)
	}
	// Read back: two records, framed with schema 1, decoded by the registry.
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics("orders"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sreg, err := serde.Open(config.NewRegistry([]string{reg.URL()}, "", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	d := &serde.Decoder{Registry: sreg}
	var got []string
	for len(got) < 2 && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			v := d.Decode(ctx, r.Value, serde.Avro)
			got = append(got, string(r.Key)+"="+v.Text+" "+string(v.Format))
		})
	}
	wantRecs := []string{`k1={"id":1,"customer":{"name":"ann","zip":"1000"}} avro`, `={"id":2,"customer":{"name":"bob","zip":"2000"}} avro`}
	if strings.Join(got, "\n") != strings.Join(wantRecs, "\n") {
		t.Errorf("read back:\n%s", strings.Join(got, "\n"))
	}
	// Nothing after the refused record.
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, "orders")
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := ends.Lookup("orders", 0); o.Offset != 2 {
		t.Errorf("end offset %d, want 2", o.Offset)
	}
}

// TestValueSchemaLines: in lines mode each line is the JSON value to
// encode (with parse.key, the key stays text).
func TestValueSchemaLines(t *testing.T) {
	reg := srfake.New()
	t.Cleanup(reg.Close)
	if _, _, err := reg.RegisterSchema("orders-value", sr.Schema{Schema: orderAvro, Type: sr.TypeAvro}); err != nil {
		t.Fatal(err)
	}
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"))
	in := "k1\t{\"id\":1,\"customer\":{\"name\":\"ann\",\"zip\":\"1000\"}}\nk2\t{\"id\":\"two\"}\n"
	_, errOut, code := runIn(t, in, "--bootstrap-server", c.ListenAddrs()[0], "--topic", "orders",
		"--reader-property", "parse.key=true", "--value-schema", "orders-value", "--schema-registry", reg.URL())
	if code != 1 || !strings.Contains(errOut, "record 2: the value does not match subject orders-value version 1 (schema 1): $.id: ") ||
		!strings.Contains(errOut, "(the record before it: 1 produced, 0 failed)") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics("orders"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []*kgo.Record
	for len(got) < 1 && ctx.Err() == nil {
		got = append(got, cl.PollFetches(ctx).Records()...)
	}
	if len(got) != 1 || string(got[0].Key) != "k1" || len(got[0].Value) < 6 || got[0].Value[0] != 0 || got[0].Value[4] != 1 {
		t.Errorf("records %v", got)
	}
}

// TestSchemaFlagErrors: bad schema flags fail before the cluster is
// reached (it is unreachable); the drop-in does not take them.
func TestSchemaFlagErrors(t *testing.T) {
	reg := srfake.New()
	t.Cleanup(reg.Close)
	if _, _, err := reg.RegisterSchema("orders-value", sr.Schema{Schema: orderAvro, Type: sr.TypeAvro}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{
		{"--value-schema", "orders-value:0"},
		{"--value-schema", "nope-value"},
		{"--value-schema", "orders-value:7"},
		{"--value-schema", "orders-value", "--value-message", "x"},
		{"--key-message", "x"},
		{"--schema-registry", reg.URL()},
	} {
		args := append([]string{"--bootstrap-server", "127.0.0.1:1", "--topic", "t", "-f", "json", "--schema-registry", reg.URL()}, bad...)
		_, errOut, code := runIn(t, "", args...)
		if code == 0 || !strings.HasPrefix(errOut, "--") || strings.Count(errOut, "\n") > 1 || strings.Contains(errOut, "127.0.0.1:1") {
			t.Errorf("%q: exit %d, stderr %q", bad, code, errOut)
		}
	}
	_, errOut, code := runArgs(t, "kafka-console-producer", "--bootstrap-server", "b:1", "--topic", "t", "--value-schema", "s")
	if code != 1 || !strings.HasPrefix(errOut, "value-schema is not a recognized option\n") {
		t.Errorf("link name: exit %d, %.100q", code, errOut)
	}
}
