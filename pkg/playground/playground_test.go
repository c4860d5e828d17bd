package playground

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return c
}

func client(t *testing.T, p *Playground, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(p.Addrs()...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func TestParseTopic(t *testing.T) {
	for _, tc := range []struct {
		in    string
		want  Topic
		error string
	}{
		{"orders", Topic{"orders", 1}, ""},
		{"orders:6", Topic{"orders", 6}, ""},
		{"a.b_c-D:2", Topic{"a.b_c-D", 2}, ""},
		{"orders:0", Topic{}, "partitions must be a positive number"},
		{"orders:x", Topic{}, "partitions must be a positive number"},
		{":3", Topic{}, "topic name is empty"},
		{"bad/name", Topic{}, "use only letters"},
		{"..", Topic{}, "not allowed"},
	} {
		got, err := ParseTopic(tc.in)
		if tc.error != "" {
			if err == nil || !strings.Contains(err.Error(), tc.error) {
				t.Errorf("ParseTopic(%q) error = %v, want %q", tc.in, err, tc.error)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseTopic(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Brokers: 0}, "--brokers must be at least 1, got 0"},
		{Options{Brokers: 17}, "--brokers must be at most 16"},
		{Options{Brokers: 3, Port: 65534}, "runs past port 65535"},
		{Options{Brokers: 1, Port: -1}, "--port must be between"},
		{Options{Brokers: 1, Topics: []Topic{{"a", 1}, {"a", 2}}}, `topic "a" is given twice`},
	} {
		err := tc.o.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.o, err, tc.want)
		}
		if _, err := Start(tc.o); err == nil {
			t.Errorf("Start(%+v) succeeded", tc.o)
		}
	}
}

func TestStartSeedsTopicsOnFreePorts(t *testing.T) {
	p, err := Start(Options{Brokers: 3, Topics: []Topic{{"orders", 6}, {"audit", 1}}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Brokers() != 3 || len(strings.Split(p.Bootstrap(), ",")) != 3 {
		t.Fatalf("bootstrap %q, want 3 addresses", p.Bootstrap())
	}
	for _, a := range p.Addrs() {
		if !strings.HasPrefix(a, "127.0.0.1:") {
			t.Errorf("address %q is not loopback", a)
		}
	}
	adm := kadm.NewClient(client(t, p))
	md, err := adm.Metadata(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if md.Cluster != "kbox-playground" || len(md.Brokers) != 3 {
		t.Errorf("cluster %q with %d brokers", md.Cluster, len(md.Brokers))
	}
	if n := len(md.Topics["orders"].Partitions); n != 6 {
		t.Errorf("orders has %d partitions, want 6", n)
	}
	if n := len(md.Topics["audit"].Partitions); n != 1 {
		t.Errorf("audit has %d partitions, want 1", n)
	}
}

func TestFixedPortAndPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	busy := ln.Addr().(*net.TCPAddr).Port
	defer ln.Close()
	_, err = Start(Options{Brokers: 1, Port: busy})
	want := "port " + strconv.Itoa(busy) + " on 127.0.0.1 is already in use"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Start on busy port: %v, want one line with %q", err, want)
	}

	// A fixed port that is free: pick one, release it, use it.
	l2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	free := l2.Addr().(*net.TCPAddr).Port
	l2.Close()
	p, err := Start(Options{Brokers: 1, Port: free})
	if err != nil {
		t.Skipf("port %d was taken meanwhile: %v", free, err)
	}
	defer p.Close()
	if got := p.Bootstrap(); got != "127.0.0.1:"+strconv.Itoa(free) {
		t.Errorf("bootstrap %q, want port %d", got, free)
	}
}

func TestSASLAndTLS(t *testing.T) {
	dir := t.TempDir()
	p, err := Start(Options{Brokers: 1, SASL: true, TLS: true, FilesDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.CAFile != filepath.Join(dir, CAFileName) || p.PasswordFile != filepath.Join(dir, "sasl-password") {
		t.Fatalf("files %q %q", p.CAFile, p.PasswordFile)
	}
	st, err := os.Stat(p.PasswordFile)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("password file mode: %v %v", st, err)
	}
	caPEM, err := os.ReadFile(p.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("CA file holds no certificate")
	}
	tlsCfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	good := scram.Auth{User: SASLUser, Pass: p.Password}.AsSha512Mechanism()
	cl := client(t, p, kgo.DialTLSConfig(tlsCfg), kgo.SASL(good))
	if err := cl.Ping(ctx(t)); err != nil {
		t.Fatalf("TLS+SCRAM ping: %v", err)
	}

	bad := scram.Auth{User: SASLUser, Pass: "wrong"}.AsSha512Mechanism()
	c2, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := client(t, p, kgo.DialTLSConfig(tlsCfg), kgo.SASL(bad)).Ping(c2); err == nil {
		t.Fatal("wrong password accepted")
	}
	c3, cancel3 := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel3()
	if err := client(t, p, kgo.DialTLSConfig(&tls.Config{MinVersion: tls.VersionTLS12}), kgo.SASL(good)).Ping(c3); err == nil {
		t.Fatal("untrusted CA accepted")
	}

	// A restart reuses the CA and the password.
	p.Close()
	p2, err := Start(Options{Brokers: 1, SASL: true, TLS: true, FilesDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	if p2.Password != p.Password || !p.PasswordCreated || p2.PasswordCreated {
		t.Error("password changed across restarts")
	}
	caPEM2, _ := os.ReadFile(p2.CAFile)
	if string(caPEM2) != string(caPEM) {
		t.Error("CA changed across restarts")
	}
}

func TestTempFilesRemovedOnClose(t *testing.T) {
	p, err := Start(Options{Brokers: 1, TLS: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.CAFile); err != nil {
		t.Fatal(err)
	}
	p.Close()
	if _, err := os.Stat(p.FilesDir); !os.IsNotExist(err) {
		t.Errorf("temporary files dir %s still exists after Close: %v", p.FilesDir, err)
	}
}

func TestDataDirPersists(t *testing.T) {
	dir := t.TempDir()
	p, err := Start(Options{Brokers: 1, DataDir: dir, Topics: []Topic{{"keep", 2}}})
	if err != nil {
		t.Fatal(err)
	}
	cl := client(t, p)
	for i := 0; i < 5; i++ {
		if err := cl.ProduceSync(ctx(t), &kgo.Record{Topic: "keep", Partition: 0, Value: []byte(strconv.Itoa(i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	cl.Close()
	p.Close()

	p2, err := Start(Options{Brokers: 1, DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	adm := kadm.NewClient(client(t, p2))
	ends, err := adm.ListEndOffsets(ctx(t), "keep")
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	ends.Each(func(o kadm.ListedOffset) { total += o.Offset })
	if total != 5 {
		t.Errorf("after restart topic keep holds %d records, want 5", total)
	}
}
