// Command tbtool is a small helper for test/integration/testbed.sh, the
// script that runs a real Apache Kafka (KRaft) test cluster from Maven jars.
//
// It is built by the script into $KBOX_TESTBED_DIR/bin/tbtool and is not
// meant to be used on its own. Subcommands:
//
//	tbtool freeports N
//	    Print N distinct free loopback TCP ports, one per line.
//	tbtool uuid
//	    Print a random Kafka UUID (22 characters of URL-safe base64), as
//	    "kafka-storage random-uuid" would, without starting a JVM.
//	tbtool wait --bootstrap ADDRS [--brokers N] [--ids 1,2] [--timeout 120s]
//	            [--props FILE] [--pids 123,456]
//	    Poll every address in ADDRS directly with a Metadata request until
//	    each of them answers and lists at least N brokers and every ID in
//	    --ids. Exit 1 with a message on timeout or when one of --pids dies.
//	tbtool httpwait --url URL [--timeout 120s] [--pids 123]
//	    GET URL until it answers 200 OK. Exit 1 with a message on timeout
//	    or when one of --pids dies.
//	tbtool certs DIR
//	    Generate a CA, a broker certificate (SAN 127.0.0.1, localhost) and
//	    a client certificate for mTLS, PEM encoded with PKCS#8 keys.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "freeports":
		err = cmdFreePorts(os.Args[2:])
	case "uuid":
		err = cmdUUID(os.Args[2:])
	case "wait":
		err = cmdWait(os.Args[2:])
	case "httpwait":
		err = cmdHTTPWait(os.Args[2:])
	case "quorumwait":
		err = cmdQuorumWait(os.Args[2:])
	case "certs":
		err = cmdCerts(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "tbtool %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: tbtool freeports N | uuid [N] | wait --bootstrap ADDRS [--brokers N] [--ids LIST] [--timeout D] [--props FILE] [--pids LIST] | httpwait --url URL [--timeout D] [--pids LIST] | quorumwait --bootstrap ADDRS --id N [--since MS] [--timeout D] [--pids LIST] | certs DIR")
	os.Exit(2)
}

// ---------------------------------------------------------------- freeports

// Ports are drawn at random from below the kernel's ephemeral range so that
// outgoing connections (which take ephemeral ports) cannot steal them between
// this check and the broker's bind, and so that two test beds started at the
// same moment are unlikely to pick the same ports.
const (
	portLow  = 20000
	portHigh = 32000
)

func cmdFreePorts(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: tbtool freeports N")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 || n > 1000 {
		return fmt.Errorf("bad count %q", args[0])
	}
	seen := map[int]bool{}
	var ports []int
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	for tries := 0; len(ports) < n; tries++ {
		if tries > 20000 {
			return errors.New("could not find enough free ports")
		}
		p := portLow + mrand.IntN(portHigh-portLow)
		if seen[p] {
			continue
		}
		seen[p] = true
		l, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue
		}
		// Keep it open until all are chosen so the set is distinct and bindable.
		held = append(held, l)
		ports = append(ports, p)
	}
	for _, p := range ports {
		fmt.Println(p)
	}
	return nil
}

// ---------------------------------------------------------------- uuid

// cmdUUID prints N (default 1) random Kafka UUIDs, one per line.
func cmdUUID(args []string) error {
	n := 1
	if len(args) > 0 {
		var err error
		if n, err = strconv.Atoi(args[0]); err != nil || n < 1 {
			return fmt.Errorf("bad count %q", args[0])
		}
	}
	for i := 0; i < n; i++ {
		if err := printUUID(); err != nil {
			return err
		}
	}
	return nil
}

func printUUID() error {
	for {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		s := base64.RawURLEncoding.EncodeToString(b[:])
		// Kafka's Uuid.randomUuid() avoids IDs starting with '-' (they look
		// like command line flags) and the reserved all-zero/one IDs.
		if strings.HasPrefix(s, "-") {
			continue
		}
		fmt.Println(s)
		return nil
	}
}

// ---------------------------------------------------------------- wait

func cmdWait(args []string) error {
	fs := flag.NewFlagSet("wait", flag.ContinueOnError)
	bootstrap := fs.String("bootstrap", "", "comma-separated host:port list; every address is polled")
	brokers := fs.Int("brokers", 0, "minimum number of registered brokers each address must report")
	idList := fs.String("ids", "", "comma-separated broker IDs that must be registered")
	timeout := fs.Duration("timeout", 120*time.Second, "overall deadline")
	props := fs.String("props", "", "Kafka client properties file (security.protocol, sasl.*, ssl.*)")
	pidList := fs.String("pids", "", "comma-separated PIDs; fail fast when one of them exits")
	quiet := fs.Bool("quiet", false, "no progress messages")
	if err := fs.Parse(args); err != nil {
		return err
	}
	addrs := splitList(*bootstrap)
	if len(addrs) == 0 {
		return errors.New("--bootstrap is required")
	}
	ids, err := intList(*idList)
	if err != nil {
		return fmt.Errorf("--ids: %w", err)
	}
	pids, err := intList(*pidList)
	if err != nil {
		return fmt.Errorf("--pids: %w", err)
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(addrs...),
		kgo.DialTimeout(3 * time.Second),
		kgo.RequestRetries(0),
		kgo.MetadataMinAge(100 * time.Millisecond),
	}
	if *props != "" {
		extra, err := securityOpts(*props)
		if err != nil {
			return err
		}
		opts = append(opts, extra...)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()

	start := time.Now()
	deadline := start.Add(*timeout)
	lastReport := start
	var lastState string
	for {
		for _, pid := range pids {
			if !alive(pid) {
				return fmt.Errorf("process %d exited while waiting for the brokers", pid)
			}
		}
		ok, state := pollOnce(cl, addrs, *brokers, ids)
		if ok {
			if !*quiet {
				fmt.Fprintf(os.Stderr, "tbtool wait: ready after %.1fs: %s\n", time.Since(start).Seconds(), state)
			}
			return nil
		}
		lastState = state
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s: %s", *timeout, lastState)
		}
		if !*quiet && time.Since(lastReport) > 10*time.Second {
			fmt.Fprintf(os.Stderr, "tbtool wait: still waiting (%.0fs): %s\n", time.Since(start).Seconds(), state)
			lastReport = time.Now()
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// cmdQuorumWait waits until node --id is in the metadata quorum (a voter
// or an observer of the leader) as DescribeQuorum over --bootstrap (the
// PLAINTEXT listeners) reports it.
func cmdQuorumWait(args []string) error {
	fs := flag.NewFlagSet("quorumwait", flag.ContinueOnError)
	bootstrap := fs.String("bootstrap", "", "comma-separated host:port list")
	id := fs.Int("id", -1, "the node that must be a voter or an observer")
	timeout := fs.Duration("timeout", 120*time.Second, "overall deadline")
	pidList := fs.String("pids", "", "comma-separated PIDs; fail fast when one of them exits")
	since := fs.Int64("since", 0, "Unix ms: the node's last fetch must be this late (a restarted node has fetched again)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	addrs := splitList(*bootstrap)
	if len(addrs) == 0 || *id < 0 {
		return errors.New("--bootstrap and --id are required")
	}
	pids, err := intList(*pidList)
	if err != nil {
		return fmt.Errorf("--pids: %w", err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.DialTimeout(3*time.Second), kgo.RequestRetries(0))
	if err != nil {
		return err
	}
	defer cl.Close()
	deadline := time.Now().Add(*timeout)
	last := "no answer yet"
	for {
		for _, pid := range pids {
			if !alive(pid) {
				return fmt.Errorf("process %d exited while waiting for node %d in the quorum", pid, *id)
			}
		}
		req := kmsg.NewPtrDescribeQuorumRequest()
		t := kmsg.NewDescribeQuorumRequestTopic()
		t.Topic = "__cluster_metadata"
		t.Partitions = []kmsg.DescribeQuorumRequestTopicPartition{kmsg.NewDescribeQuorumRequestTopicPartition()}
		req.Topics = []kmsg.DescribeQuorumRequestTopic{t}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		resp, err := req.RequestWith(ctx, cl)
		cancel()
		if err != nil {
			last = shortErr(err)
		} else if len(resp.Topics) == 1 && len(resp.Topics[0].Partitions) == 1 {
			p := resp.Topics[0].Partitions[0]
			for _, r := range append(p.CurrentVoters, p.Observers...) {
				if int(r.ReplicaID) == *id && r.LogEndOffset >= 0 && r.LastFetchTimestamp >= *since {
					return nil
				}
			}
			last = fmt.Sprintf("node %d is neither a voter nor an observer yet", *id)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s: %s", *timeout, last)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// pollOnce sends a Metadata request to every seed address directly (not to
// whatever broker the client prefers) and checks each answer.
func cmdHTTPWait(args []string) error {
	fs := flag.NewFlagSet("httpwait", flag.ContinueOnError)
	url := fs.String("url", "", "the URL to GET")
	timeout := fs.Duration("timeout", 120*time.Second, "overall deadline")
	pidList := fs.String("pids", "", "comma-separated PIDs; fail fast when one of them exits")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *url == "" {
		return errors.New("--url is required")
	}
	pids, err := intList(*pidList)
	if err != nil {
		return fmt.Errorf("--pids: %w", err)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(*timeout)
	last := "no answer yet"
	for {
		for _, pid := range pids {
			if !alive(pid) {
				return fmt.Errorf("process %d exited while waiting for %s", pid, *url)
			}
		}
		resp, err := client.Get(*url)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = shortErr(err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s waiting for %s: %s", *timeout, *url, last)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func pollOnce(cl *kgo.Client, addrs []string, minBrokers int, ids []int) (bool, string) {
	seeds := cl.SeedBrokers()
	var states []string
	allOK := true
	for i, b := range seeds {
		addr := "?"
		if i < len(addrs) {
			addr = addrs[i]
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		req := kmsg.NewPtrMetadataRequest()
		req.Topics = []kmsg.MetadataRequestTopic{} // no topics, brokers only
		resp, err := b.Request(ctx, req)
		cancel()
		if err != nil {
			allOK = false
			states = append(states, fmt.Sprintf("%s: %v", addr, shortErr(err)))
			continue
		}
		mr := resp.(*kmsg.MetadataResponse)
		have := map[int]bool{}
		var got []int
		for _, br := range mr.Brokers {
			have[int(br.NodeID)] = true
			got = append(got, int(br.NodeID))
		}
		sort.Ints(got)
		ok := len(mr.Brokers) >= minBrokers
		for _, id := range ids {
			if !have[id] {
				ok = false
			}
		}
		if !ok {
			allOK = false
		}
		states = append(states, fmt.Sprintf("%s: brokers %v", addr, got))
	}
	return allOK, strings.Join(states, "; ")
}

func shortErr(err error) string {
	s := err.Error()
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// A zombie still answers kill -0; look at its state.
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no procfs: trust kill -0
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func intList(s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// securityOpts understands the subset of Kafka client properties that the
// test bed writes: security.protocol, sasl.mechanism (PLAIN, SCRAM-*),
// sasl.jaas.config (username/password), PEM trust and key stores.
func securityOpts(path string) ([]kgo.Opt, error) {
	p, err := readProps(path)
	if err != nil {
		return nil, err
	}
	var opts []kgo.Opt
	proto := strings.ToUpper(p["security.protocol"])
	if proto == "SSL" || proto == "SASL_SSL" {
		tc := &tls.Config{MinVersion: tls.VersionTLS12}
		if loc := p["ssl.truststore.location"]; loc != "" {
			pemBytes, err := os.ReadFile(loc)
			if err != nil {
				return nil, err
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pemBytes) {
				return nil, fmt.Errorf("%s: no certificates", loc)
			}
			tc.RootCAs = pool
		}
		if loc := p["ssl.keystore.location"]; loc != "" {
			pemBytes, err := os.ReadFile(loc)
			if err != nil {
				return nil, err
			}
			cert, err := tls.X509KeyPair(pemBytes, pemBytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", loc, err)
			}
			tc.Certificates = []tls.Certificate{cert}
		}
		opts = append(opts, kgo.DialTLSConfig(tc))
	}
	if proto == "SASL_PLAINTEXT" || proto == "SASL_SSL" {
		user, pass := jaasCreds(p["sasl.jaas.config"])
		var m sasl.Mechanism
		switch strings.ToUpper(p["sasl.mechanism"]) {
		case "PLAIN", "":
			m = plain.Auth{User: user, Pass: pass}.AsMechanism()
		case "SCRAM-SHA-256":
			m = scram.Auth{User: user, Pass: pass}.AsSha256Mechanism()
		case "SCRAM-SHA-512":
			m = scram.Auth{User: user, Pass: pass}.AsSha512Mechanism()
		default:
			return nil, fmt.Errorf("unsupported sasl.mechanism %q", p["sasl.mechanism"])
		}
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}

var jaasRe = regexp.MustCompile(`(username|password)\s*=\s*"([^"]*)"`)

func jaasCreds(s string) (user, pass string) {
	for _, m := range jaasRe.FindAllStringSubmatch(s, -1) {
		if m[1] == "username" {
			user = m[2]
		} else {
			pass = m[2]
		}
	}
	return
}

func readProps(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "!") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, sc.Err()
}

// ---------------------------------------------------------------- certs

func cmdCerts(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: tbtool certs DIR")
	}
	dir := args[0]
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	now := time.Now().Add(-time.Hour)
	notAfter := now.Add(10 * 365 * 24 * time.Hour)

	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "kbox testbed CA", Organization: []string{"kbox"}},
		NotBefore:             now,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}

	leaf := func(cn string, ext []x509.ExtKeyUsage, withSAN bool) ([]byte, *rsa.PrivateKey, error) {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, nil, err
		}
		t := &x509.Certificate{
			SerialNumber: serial(),
			Subject:      pkix.Name{CommonName: cn, Organization: []string{"kbox"}},
			NotBefore:    now,
			NotAfter:     notAfter,
			KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
			ExtKeyUsage:  ext,
		}
		if withSAN {
			t.DNSNames = []string{"localhost"}
			t.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
		}
		der, err := x509.CreateCertificate(rand.Reader, t, caCert, &key.PublicKey, caKey)
		return der, key, err
	}
	brokerDER, brokerKey, err := leaf("localhost",
		[]x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, true)
	if err != nil {
		return err
	}
	clientDER, clientKey, err := leaf("client",
		[]x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, false)
	if err != nil {
		return err
	}

	caPEM := certPEM(caDER)
	caKeyPEM, err := keyPEM(caKey)
	if err != nil {
		return err
	}
	brokerKeyPEM, err := keyPEM(brokerKey)
	if err != nil {
		return err
	}
	clientKeyPEM, err := keyPEM(clientKey)
	if err != nil {
		return err
	}
	files := []struct {
		name string
		data []byte
		mode os.FileMode
	}{
		{"ca.pem", caPEM, 0o644},
		{"ca-key.pem", caKeyPEM, 0o600},
		{"broker-cert.pem", cat(certPEM(brokerDER), caPEM), 0o644},
		{"broker-key.pem", brokerKeyPEM, 0o600},
		// Chain and key in one file, for ssl.keystore.type=PEM.
		{"broker.pem", cat(certPEM(brokerDER), caPEM, brokerKeyPEM), 0o600},
		{"client-cert.pem", certPEM(clientDER), 0o644},
		{"client-key.pem", clientKeyPEM, 0o600},
		// Client chain and key in one file, for Java clients (ssl.keystore.type=PEM).
		{"client.pem", cat(certPEM(clientDER), caPEM, clientKeyPEM), 0o600},
	}
	for _, f := range files {
		if err := writeFileAtomic(filepath.Join(dir, f.name), f.data, f.mode); err != nil {
			return err
		}
	}
	return nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		panic(err)
	}
	return n.Add(n, big.NewInt(1))
}

func certPEM(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// keyPEM encodes PKCS#8 ("BEGIN PRIVATE KEY"); Kafka's PEM key store rejects PKCS#1.
func keyPEM(k *rsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
