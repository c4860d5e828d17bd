package consoleconsumer

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/serde"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

const userAvro = `{"type":"record","name":"User","namespace":"t","fields":[
 {"name":"id","type":"long"},{"name":"name","type":"string"},
 {"name":"password","type":["null","string"],"default":null}]}`

// registryTopic starts a fake registry (counting requests per path) and
// a kfake topic "t" holding: two Avro records of one schema, a text
// value, a binary value and a framed value of a schema id the registry
// does not have.
func registryTopic(t *testing.T) (broker string, reg *srfake.Registry, count func(string) int) {
	t.Helper()
	reg = srfake.New()
	t.Cleanup(reg.Close)
	var mu sync.Mutex
	counts := map[string]int{}
	reg.Intercept(func(_ http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		counts[r.Method+" "+r.URL.Path]++
		mu.Unlock()
		return false
	})
	id, _, err := reg.RegisterSchema("t-value", sr.Schema{Schema: userAvro, Type: sr.TypeAvro})
	if err != nil {
		t.Fatal(err)
	}
	sreg, err := serde.Open(config.NewRegistry([]string{reg.URL()}, "", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := sreg.Encoder(context.Background(), "t-value", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	var values [][]byte
	for _, js := range []string{`{"id":1,"name":"ann","password":"s3cret"}`, `{"id":2,"name":"bob"}`} {
		b, err := enc.Encode([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		values = append(values, b)
	}
	values = append(values, []byte("plain text"), []byte{0xff, 0xfe, 0x01}, []byte{0, 0, 0, 0x03, 0xe7, 2, 3})
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i, v := range values {
		r := &kgo.Record{Topic: "t", Value: v}
		if i == 0 {
			r.Key = []byte("k1")
		}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	counts = map[string]int{} // the run's requests only
	mu.Unlock()
	if id != 1 {
		t.Fatalf("schema id %d, the test expects 1", id)
	}
	return c.ListenAddrs()[0], reg, func(k string) int {
		mu.Lock()
		defer mu.Unlock()
		return counts[k]
	}
}

func runEnv(t *testing.T, env map[string]string, invoked string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{Cmd: Run, Invoked: invoked, Env: env}, args...)
	return r.Stdout, r.ErrOut + r.Msg, r.Code
}

// TestValueFormatJSON: -o json has decoded values as JSON with their
// format, schema id and subject; a value that cannot be read is shown raw
// with the reason and the stream goes on; one registry request per schema
// id (and one for its subjects) for the whole run.
func TestValueFormatJSON(t *testing.T) {
	broker, reg, count := registryTopic(t)
	out, errOut, code := runEnv(t, nil, "kbox consume", "--bootstrap-server", broker, "--topic", "t",
		"--start", "earliest", "-e", "--value-format", "auto", "--schema-registry", reg.URL(), "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := []string{
		`"key":"k1","value":{"id":1,"name":"ann","password":"s3cret"},"value_format":"avro","value_schema_id":1,"value_subject":"t-value","value_schema_version":1,"headers":[]}`,
		`"key":null,"value":{"id":2,"name":"bob","password":null},"value_format":"avro","value_schema_id":1,"value_subject":"t-value","value_schema_version":1,"headers":[]}`,
		`"key":null,"value":"plain text","value_format":"string","headers":[]}`,
		`"key":null,"value":"//4B","value_encoding":"base64","value_format":"bytes","headers":[]}`,
		`"key":null,"value":"AAAAA+cCAw==","value_encoding":"base64","value_format":"bytes","value_schema_id":999,"value_error":"schema 999: `,
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines:\n%s\nstderr %s", len(lines), out, errOut)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d:\n got %s\nwant …%s…", i, lines[i], w)
		}
	}
	if n := count("GET /schemas/ids/1"); n != 1 {
		t.Errorf("GET /schemas/ids/1: %d requests, want 1", n)
	}
	if n := count("GET /schemas/ids/1/versions"); n != 1 {
		t.Errorf("GET /schemas/ids/1/versions: %d requests, want 1", n)
	}
	if n := count("GET /schemas/ids/999"); n != 1 {
		t.Errorf("GET /schemas/ids/999: %d requests, want 1", n)
	}
	if !strings.Contains(errOut, "0 keys and 1 values could not be read as asked") {
		t.Errorf("stderr %q", errOut)
	}
}

// TestValueFormatText: -f and the default formatter print the decoded
// value; --grep matches the decoded text; --mask-field masks at any
// depth; a raw value is warned about once per reason. Without -o json the
// subjects are not looked up: one request per schema id.
func TestValueFormatText(t *testing.T) {
	broker, reg, count := registryTopic(t)
	base := []string{"--bootstrap-server", broker, "--topic", "t", "--start", "earliest", "-e", "--schema-registry", reg.URL()}
	out, errOut, code := runEnv(t, nil, "kbox consume", append(base, "--value-format", "auto", "-f", `%k|%v|%V\n`)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "k1|" + `{"id":1,"name":"ann","password":"s3cret"}|41` + "\n" +
		`|{"id":2,"name":"bob","password":null}|37` + "\n" +
		"|plain text|10\n|//4B|4\n|AAAAA+cCAw==|12\n"
	if out != want {
		t.Errorf("-f:\n got %q\nwant %q", out, want)
	}
	if strings.Count(errOut, "shown raw: schema 999") != 1 {
		t.Errorf("stderr %q", errOut)
	}
	if count("GET /schemas/ids/1") != 1 || count("GET /schemas/ids/1/versions") != 0 {
		t.Errorf("requests: ids/1 %d, ids/1/versions %d", count("GET /schemas/ids/1"), count("GET /schemas/ids/1/versions"))
	}
	// --key-format: the key as text, a null key as nothing (length -1);
	// --value-format bytes: base64.
	out, errOut, code = runEnv(t, nil, "kbox consume", append(base, "--key-format", "auto", "--value-format", "bytes", "-n", "3", "-f", `%k|%K|%v\n`)...)
	lines := strings.Split(out, "\n")
	if code != 0 || len(lines) != 4 || !strings.HasPrefix(lines[0], "k1|2|AAAAAAE") || !strings.HasPrefix(lines[1], "|-1|AAAAAAE") || lines[2] != "|-1|cGxhaW4gdGV4dA==" {
		t.Errorf("--key-format: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// --grep on the decoded text; the default formatter; masking.
	out, errOut, code = runEnv(t, nil, "kbox consume", append(base, "--value-format", "avro", "--grep", `"name":"ann"`, "--mask-field", "^pass")...)
	if code != 0 || out != `{"id":1,"name":"ann","password":"***"}`+"\n" {
		t.Errorf("--grep, --mask-field: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestMaskRaw: --mask-field alone masks JSON values kept as they are.
func TestMaskRaw(t *testing.T) {
	c := abcTopic(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: "t", Value: []byte(`{"user":{"token":"x","n":[1,{"token":{"a":1}}]}}`)}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runEnv(t, nil, "kbox consume", "--bootstrap-server", c.ListenAddrs()[0], "--topic", "t", "--start", "earliest", "-e", "--mask-field", "token", "-o", "json")
	if code != 0 || !strings.Contains(out, `"value":"a"`) || !strings.Contains(out, `"value":"{\"user\":{\"token\":\"***\",\"n\":[1,{\"token\":\"***\"}]}}"`) {
		t.Errorf("exit %d, stdout %s, stderr %s", code, out, errOut)
	}
}

// TestDecodeFlagErrors: bad values fail before any connection (the
// broker is unreachable), and the drop-in does not take the flags.
func TestDecodeFlagErrors(t *testing.T) {
	for _, bad := range [][]string{
		{"--value-format", "xml"}, {"--key-format", "avro2"}, {"--mask-field", "("},
		{"--value-format", "avro"}, // no registry configured
		{"--value-format", "auto", "--formatter", "org.apache.kafka.tools.consumer.NoOpMessageFormatter"},
		{"--value-format", "auto", "--value-deserializer", "org.apache.kafka.common.serialization.StringDeserializer"},
		{"--schema-registry", "http://127.0.0.1:1"},
	} {
		args := append([]string{"--bootstrap-server", "127.0.0.1:1", "--topic", "t"}, bad...)
		_, errOut, code := runArgs(t, "kbox consume", args...)
		if code == 0 || !strings.HasPrefix(errOut, "kbox: error: ") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q", bad, code, errOut)
		}
	}
	_, errOut, code := runArgs(t, "kafka-console-consumer", "--bootstrap-server", "b", "--topic", "t", "--value-format", "auto")
	if code != 1 || !strings.HasPrefix(errOut, "value-format is not a recognized option\nOption ") {
		t.Errorf("link name: exit %d, %.100q", code, errOut)
	}
}
