package replicaverification

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func runArgs(t *testing.T, invoked string, args ...string) cmdtest.Result {
	t.Helper()
	return cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: invoked}, args...)
}

const warn = " WARN This tool is deprecated and may be removed in a future major release. (org.apache.kafka.tools.ReplicaVerificationTool)\n"

// Apache 4.4's messages (captured with testbed.sh apache), before any
// connection: the address is never dialled. Every one follows the
// deprecation WARN line.
func TestApacheValidation(t *testing.T) {
	bs := "127.0.0.1:1"
	cases := []struct {
		args []string
		errL string
	}{
		{nil, tool.Title},
		{[]string{"--fetch-size", "1"}, `Missing required argument "[broker-list]"`},
		{[]string{"--broker-list"}, "Option broker-list requires an argument"},
		{[]string{"--broker-list", "x"}, "Please provide valid host:port like host1:9091,host2:9092"},
		{[]string{"--broker-list", bs, "--bogus"}, "bogus is not a recognized option"},
		{[]string{"--broker-list", bs, "--bootstrap-server", bs}, "bootstrap-server is not a recognized option"},
		{[]string{"--broker-list", bs, "--topics-include", "("}, "( is an invalid regex"},
		{[]string{"--broker-list", bs, "--time", "x"}, "Cannot parse argument 'x' of option time"},
		{[]string{"--broker-list", bs, "--fetch-size", "abc"}, "Cannot parse argument 'abc' of option fetch-size"},
		{[]string{"--broker-list", bs, "--max-wait-ms", "1", "--max-wait-ms", "2"}, "Found multiple arguments for option max-wait-ms, but you asked for only one"},
	}
	for _, c := range cases {
		r := runArgs(t, "kafka-replica-verification", c.args...)
		w, rest, _ := strings.Cut(r.Stderr, "\n")
		first, _, _ := strings.Cut(rest, "\n")
		if r.Code != 1 || r.Stdout != "" || !strings.HasSuffix(w+"\n", warn) || !strings.HasPrefix(first, c.errL) {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %.300q\nwant   %q", c.args, r.Code, r.Stdout, r.Stderr, c.errL)
		}
	}
	r := runArgs(t, "kafka-replica-verification", "--help")
	if _, rest, _ := strings.Cut(r.Stderr, "\n"); r.Code != 1 || rest != tool.Title+"\n"+apacheHelp {
		t.Errorf("--help: exit %d\n%s", r.Code, r.Stderr)
	}
	if r := runArgs(t, "kafka-replica-verification", "--version"); r.Code != 0 || r.Stdout != "4.4.0\n" {
		t.Errorf("--version: %d %q", r.Code, r.Stdout)
	}
}

// kbox replicas verify: flag errors exit 2 before any connection.
func TestNativeFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"verify", "--topic", "("}, "( is an invalid regex."},
		{[]string{"verify", "--fetch-bytes", "0"}, "--fetch-bytes must be positive"},
		{[]string{"verify", "--parallel", "0"}, "--parallel must be positive"},
		{[]string{"verify", "--duration", "-1s"}, "--duration must not be negative"},
		{[]string{"verify", "-o", "csv"}, "unknown output format"},
		{[]string{"verify", "orders"}, `unexpected argument "orders"`},
	} {
		r := runArgs(t, "kbox replicas", c.args...)
		if r.Code != 2 || !strings.Contains(r.Stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, r.Code, r.Stderr, c.msg)
		}
	}
}

// On kfake (one broker: one replica per partition) every partition is verified to its
// high watermark.
func TestNativeVerifyKfake(t *testing.T) {
	bs, _ := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.SeedTopics(3, "orders"))
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bs, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var recs []*kgo.Record
	for i := 0; i < 50; i++ {
		recs = append(recs, &kgo.Record{Topic: "orders", Value: []byte("v")})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	r := runArgs(t, "kbox replicas", "verify", "--bootstrap-server", bs, "--topic", "orders", "--fetch-bytes", "200", "-o", "json")
	var rep struct {
		Partitions []struct {
			Status         string
			HighWatermark  int64 `json:"high_watermark"`
			VerifiedOffset int64 `json:"verified_offset"`
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil || r.Code != 0 || len(rep.Partitions) == 0 {
		t.Fatalf("exit %d %v\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	for _, p := range rep.Partitions {
		if p.Status != "ok" || p.VerifiedOffset != p.HighWatermark {
			t.Errorf("%+v", p)
		}
	}
	total := int64(0)
	for _, p := range rep.Partitions {
		total += p.HighWatermark
	}
	if len(rep.Partitions) != 3 || total != 50 {
		t.Errorf("the 50 records are not all there:\n%s", r.Stdout)
	}
}
