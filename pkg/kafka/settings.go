package kafka

import (
	"context"
	"crypto/tls"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/metrics"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Settings are the effective client settings after Java properties and
// Java defaults are applied. Unset pointers mean "franz-go's default".
type Settings struct {
	Role      Role
	Bootstrap []string
	ClientID  string

	RequestTimeout  time.Duration
	APITimeout      time.Duration
	MetadataMaxAge  time.Duration
	RetryBackoff    time.Duration
	RetryBackoffMax time.Duration
	DialTimeout     time.Duration
	ConnIdle        time.Duration
	MetricsPush     bool
	Retries         *int

	SecurityProtocol string
	SASLMechanism    string
	SASLUser         string
	jaas             string
	saslPassword     string
	// SASLToken: a SCRAM login with a delegation token (ScramLoginModule's
	// tokenauth="true"): the username is the token id, the password its
	// HMAC, and the client sends the tokenauth=true extension.
	SASLToken     bool
	TLS           TLSSettings
	oauth         oauthProps
	tokens        *tokenCache
	aws           awsProps
	awsProv       *awsProvider
	krb           kerberosProps
	krbLogin      *kerberosLogin
	loginHandler  string // sasl.login.callback.handler.class
	clientHandler string // sasl.client.callback.handler.class

	// producer
	Acks                  string // all, 0, 1
	Idempotent            bool
	idempotence           bool
	idempotenceSet        bool
	MaxInFlight           *int
	BatchSize             *int
	MaxRequestSize        *int
	Linger                time.Duration
	Compression           string
	GzipLevel             *int
	LZ4Level              *int
	ZstdLevel             *int
	BufferMemory          int64
	MaxBlock              time.Duration
	DeliveryTimeout       time.Duration
	TransactionalID       string
	TransactionTimeout    time.Duration
	Partitioner           string
	PartitionerIgnoreKeys bool
	PartitionerAdaptive   bool
	// MaxRecordBytes is a hint from the caller (for example a perf test's
	// record size): batches are allowed to grow to hold one such record,
	// as Java lets a large record have a batch of its own.
	MaxRecordBytes int
	// ExplicitPartitions, set by a caller (Options.Tune), sends a record
	// whose Partition is >= 0 to that partition and partitions the others
	// (Partition -1) with the configured partitioner, as Java does for a
	// ProducerRecord with or without a partition.
	ExplicitPartitions bool
	// MaxBufferedRecords caps the records the producer buffers (0: 4M,
	// in effect bytes only, as Java); see BoundBufferByBytes.
	MaxBufferedRecords int

	// consumer
	GroupID                string
	GroupInstanceID        string
	GroupProtocol          string
	RemoteAssignor         string
	SessionTimeout         time.Duration
	HeartbeatInterval      time.Duration
	MaxPollInterval        time.Duration
	MaxPollRecords         int
	AutoCommit             bool
	AutoCommitInterval     time.Duration
	AutoOffsetReset        string
	ResetDuration          time.Duration
	FetchMinBytes          *int
	FetchMaxBytes          *int
	FetchMaxPartitionBytes *int
	FetchMaxWait           time.Duration
	IsolationLevel         string
	Assignors              []string
	Rack                   string
	AllowAutoCreate        bool
	CheckCRCs              bool

	// PushMetrics is PushHttpMetricsReporter's configuration when
	// metric.reporters names it (producers and consumers).
	PushMetrics *metrics.PushConfig
	// MetricsWindow and MetricsSamples are the windows of the measured
	// metrics (metrics.sample.window.ms, metrics.num.samples).
	MetricsWindow  time.Duration
	MetricsSamples int

	metricReporters []string
	reporterProps   map[string]string

	Ignored []Ignored
}

// Java's defaults (Kafka 4.x) where they differ from franz-go's.
func newSettings(role Role) *Settings {
	return &Settings{
		Role:                role,
		RequestTimeout:      30 * time.Second,
		APITimeout:          60 * time.Second,
		DialTimeout:         10 * time.Second,
		MetricsPush:         role != Admin,
		MetricsWindow:       30 * time.Second,
		MetricsSamples:      2,
		SecurityProtocol:    "PLAINTEXT",
		oauth:               defaultOAuthProps(),
		Acks:                "all",
		idempotence:         true,
		Linger:              5 * time.Millisecond,
		Compression:         "none",
		BufferMemory:        32 << 20,
		MaxBlock:            60 * time.Second,
		DeliveryTimeout:     120 * time.Second,
		TransactionTimeout:  60 * time.Second,
		PartitionerAdaptive: true,
		GroupProtocol:       "classic",
		SessionTimeout:      45 * time.Second,
		HeartbeatInterval:   3 * time.Second,
		MaxPollInterval:     5 * time.Minute,
		MaxPollRecords:      500,
		AutoCommit:          true,
		AutoCommitInterval:  5 * time.Second,
		AutoOffsetReset:     "latest",
		FetchMaxWait:        500 * time.Millisecond,
		IsolationLevel:      "read_uncommitted",
		Assignors:           []string{"range", "cooperative-sticky"},
		CheckCRCs:           true,
	}
}

// finish validates cross-property rules, as the Java client's config checks do.
func (s *Settings) finish() error {
	if s.Role&Producer != 0 {
		retries0 := s.Retries != nil && *s.Retries == 0
		inflight := 5
		if s.MaxInFlight != nil {
			inflight = *s.MaxInFlight
		}
		if s.idempotenceSet && s.idempotence {
			switch {
			case s.Acks != "all":
				return &PropertyError{"acks", "Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence."}
			case retries0:
				return &PropertyError{"retries", "Must set retries to non-zero when using the idempotent producer."}
			case inflight > 5:
				return &PropertyError{"max.in.flight.requests.per.connection", fmt.Sprintf("To use the idempotent producer, max.in.flight.requests.per.connection must be set to at most 5. Current value is %d.", inflight)}
			}
		}
		s.Idempotent = s.idempotence
		if !s.idempotenceSet && (s.Acks != "all" || retries0 || inflight > 5) {
			// Java turns idempotence off silently when it conflicts with
			// settings the user made and did not ask for it explicitly.
			s.Idempotent = false
		}
		if s.TransactionalID != "" && !s.Idempotent {
			return &PropertyError{"transactional.id", "Cannot set a transactional.id without also enabling idempotence."}
		}
	}
	if s.Role&Consumer != 0 && s.GroupProtocol == "consumer" && s.RemoteAssignor != "" {
		switch s.RemoteAssignor {
		case "uniform", "range", "org.apache.kafka.coordinator.group.assignor.UniformAssignor", "org.apache.kafka.coordinator.group.assignor.RangeAssignor":
		default:
			return &PropertyError{"group.remote.assignor", fmt.Sprintf("invalid value %q: must be uniform or range", s.RemoteAssignor)}
		}
	}
	if s.Role&Consumer != 0 && s.GroupProtocol == "classic" && s.RemoteAssignor != "" {
		return &PropertyError{"group.remote.assignor", "can only be set when group.protocol=consumer"}
	}
	if err := s.finishMetrics(); err != nil {
		return err
	}
	return s.finishSecurity()
}

func (s *Settings) finishSecurity() error {
	if s.tlsOn() {
		if _, _, skipped, err := s.TLS.versions(); err != nil {
			return err
		} else if len(skipped) > 0 {
			s.Ignored = append(s.Ignored, Ignored{Name: "ssl.enabled.protocols", Reason: fmt.Sprintf("%s not supported by Go's TLS; using TLSv1.2/TLSv1.3 only", strings.Join(skipped, ","))})
		}
		if s.TLS.SkipHostnameVerification {
			s.Ignored = append(s.Ignored, Ignored{Name: "ssl.endpoint.identification.algorithm", Warning: true,
				Reason: "is empty: broker host names are NOT checked against their certificates; any holder of a certificate from your CA can impersonate a broker (set it to https)"})
		}
	}
	sasl := s.SecurityProtocol == "SASL_PLAINTEXT" || s.SecurityProtocol == "SASL_SSL"
	if !sasl {
		return nil
	}
	mech := s.SASLMechanism
	if mech == "" {
		mech = "GSSAPI" // Java's default
	}
	const supported = "supported: GSSAPI, PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER, AWS_MSK_IAM"
	switch mech {
	case "GSSAPI", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "AWS_MSK_IAM":
	default:
		return &PropertyError{"sasl.mechanism", fmt.Sprintf("unknown mechanism %q (%s)", s.SASLMechanism, supported)}
	}
	s.SASLMechanism = mech
	if err := s.checkHandlers(mech); err != nil {
		return err
	}
	var opts map[string]string
	if s.jaas != "" {
		e, err := config.ParseClientJAAS(s.jaas)
		if err != nil {
			return &PropertyError{"sasl.jaas.config", err.Error()}
		}
		opts = e.Options
	}
	switch mech {
	case "OAUTHBEARER":
		return s.finishOAuth(opts)
	case "AWS_MSK_IAM":
		return s.finishAWS(opts)
	case "GSSAPI":
		return s.finishKerberos(opts)
	}
	if s.jaas == "" {
		return &PropertyError{"sasl.jaas.config", "not set: a username and password are required for " + mech}
	}
	user, hasUser := opts["username"]
	pw, hasPw := opts["password"]
	if !hasUser || !hasPw {
		return &PropertyError{"sasl.jaas.config", "username and password options are required for " + mech}
	}
	s.SASLUser, s.saslPassword = user, pw
	// ScramLoginModule: "true".equalsIgnoreCase(tokenauth); PlainLoginModule
	// has no such option.
	s.SASLToken = mech != "PLAIN" && strings.EqualFold(opts["tokenauth"], "true")
	return nil
}

// checkHandlers accepts the Java callback handler classes whose behaviour
// kbox implements for mech, and warns about any other (a custom Java class
// cannot run here).
func (s *Settings) checkHandlers(mech string) error {
	if h := s.loginHandler; h != "" && !(mech == "OAUTHBEARER" && oauthCallbackHandlers[h]) {
		s.Ignored = append(s.Ignored, Ignored{Name: "sasl.login.callback.handler.class", Reason: "Java login callback handlers cannot run in a Go client"})
	}
	if h := s.clientHandler; h != "" && !(mech == "AWS_MSK_IAM" && awsCallbackHandlers[h]) {
		s.Ignored = append(s.Ignored, Ignored{Name: "sasl.client.callback.handler.class", Reason: "Java callback handlers cannot run in a Go client"})
	}
	return nil
}

func (s *Settings) tlsOn() bool {
	return s.SecurityProtocol == "SSL" || s.SecurityProtocol == "SASL_SSL"
}

func (s *Settings) saslMechanism() sasl.Mechanism {
	switch s.SASLMechanism {
	case "PLAIN":
		return plain.Auth{User: s.SASLUser, Pass: s.saslPassword}.AsMechanism()
	case "SCRAM-SHA-256":
		return scram.Auth{User: s.SASLUser, Pass: s.saslPassword, IsToken: s.SASLToken}.AsSha256Mechanism()
	case "SCRAM-SHA-512":
		return scram.Auth{User: s.SASLUser, Pass: s.saslPassword, IsToken: s.SASLToken}.AsSha512Mechanism()
	case "OAUTHBEARER":
		if s.tokens != nil {
			return s.tokens.mechanism()
		}
	case "AWS_MSK_IAM":
		return s.awsMechanism()
	case "GSSAPI":
		return s.kerberosMechanism()
	}
	return nil
}

// backoff is Java's retry backoff: retry.backoff.ms doubling up to
// retry.backoff.max.ms (defaults 100 ms and 1 s).
func (s *Settings) backoff() func(tries int) time.Duration {
	base, max := s.RetryBackoff, s.RetryBackoffMax
	if base <= 0 {
		base = 100 * time.Millisecond
	}
	if max <= 0 {
		max = time.Second
	}
	return func(tries int) time.Duration {
		d := base
		for i := 1; i < tries && d < max; i++ {
			d *= 2
		}
		if d > max {
			d = max
		}
		return d
	}
}

// javaRetries reports whether retries are counted as Java counts them (see
// failover.go): a non-idempotent producer that waits for answers and has a
// finite retries value. franz-go then retries without limit, bounded by
// delivery.timeout.ms.
func (s *Settings) javaRetries() bool {
	return s.Role&Producer != 0 && !s.Idempotent && s.Acks != "0" && s.Retries != nil && *s.Retries < math.MaxInt32
}

// jitteredBackoff is backoff with Java's ±20 % jitter (ExponentialBackoff
// with jitter 0.2), so that clients retrying together spread out.
func (s *Settings) jitteredBackoff() func(tries int) time.Duration {
	b := s.backoff()
	return func(tries int) time.Duration {
		d := float64(b(tries))
		return time.Duration(d * (0.8 + 0.4*rand.Float64()))
	}
}

// failover returns, for a non-idempotent producer with a finite retries
// value, the options that give it Java's behaviour when a partition leader
// fails (see failover.go); nil otherwise.
func (s *Settings) failover() func(tc *tls.Config) []kgo.Opt {
	if !s.javaRetries() {
		return nil
	}
	return func(tc *tls.Config) []kgo.Opt {
		dt := s.DialTimeout
		if dt <= 0 {
			dt = 10 * time.Second
		}
		f := newFailover(dt, tc, *s.Retries)
		// Java refreshes metadata retry.backoff.ms after an error, not
		// franz-go's 5 s minimum.
		return append(f.opts(), kgo.MetadataMinAge(s.backoff()(1)))
	}
}

// Opts converts the settings into kgo options for the settings' role.
func (s *Settings) Opts() ([]kgo.Opt, error) {
	var opts []kgo.Opt
	if len(s.Bootstrap) > 0 {
		opts = append(opts, kgo.SeedBrokers(s.Bootstrap...))
	}
	if s.ClientID != "" {
		opts = append(opts, kgo.ClientID(s.ClientID))
	}
	if s.MetadataMaxAge > 0 {
		opts = append(opts, kgo.MetadataMaxAge(s.MetadataMaxAge))
		if s.MetadataMaxAge < 5*time.Second {
			opts = append(opts, kgo.MetadataMinAge(s.MetadataMaxAge))
		}
	}
	// Java's backoff always, not franz-go's (which grows to 5 s): a
	// request to a group coordinator that moved is retried within 1 s of
	// the move, as Java's is.
	opts = append(opts, kgo.RetryBackoffFn(s.jitteredBackoff()))
	fo := s.failover()
	if s.DialTimeout > 0 && fo == nil {
		opts = append(opts, kgo.DialTimeout(s.DialTimeout))
	}
	if s.ConnIdle > 0 {
		opts = append(opts, kgo.ConnIdleTimeout(s.ConnIdle))
	}
	if !s.MetricsPush {
		opts = append(opts, kgo.DisableClientMetrics())
	}
	var tc *tls.Config
	if s.tlsOn() {
		var err error
		if tc, err = s.TLS.Config(); err != nil {
			return nil, err
		}
		if fo == nil {
			opts = append(opts, kgo.DialTLSConfig(tc))
		}
	}
	if fo != nil {
		opts = append(opts, fo(tc)...)
	}
	if m := s.saslMechanism(); m != nil {
		opts = append(opts, kgo.SASL(m))
	}
	if s.Role&Producer != 0 {
		opts = append(opts, s.producerOpts()...)
	}
	if s.Role&Consumer != 0 {
		opts = append(opts, s.consumerOpts()...)
	}
	return opts, nil
}

func (s *Settings) producerOpts() []kgo.Opt {
	var opts []kgo.Opt
	switch s.Acks {
	case "0":
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()))
	case "1":
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()))
	default:
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	}
	if !s.Idempotent {
		opts = append(opts, kgo.DisableIdempotentWrite())
		inflight := 5
		if s.MaxInFlight != nil {
			inflight = *s.MaxInFlight
		}
		opts = append(opts, kgo.MaxProduceRequestsInflightPerBroker(inflight))
	}
	if s.Retries != nil && !s.javaRetries() {
		opts = append(opts, kgo.RecordRetries(*s.Retries))
	}
	opts = append(opts, kgo.ProducerLinger(s.Linger))
	codec := kgo.NoCompression()
	switch s.Compression {
	case "gzip":
		codec = kgo.GzipCompression()
		if s.GzipLevel != nil && *s.GzipLevel >= 0 {
			codec = codec.WithLevel(*s.GzipLevel)
		}
	case "snappy":
		codec = kgo.SnappyCompression()
	case "lz4":
		codec = kgo.Lz4Compression()
		if s.LZ4Level != nil {
			codec = codec.WithLevel(*s.LZ4Level)
		}
	case "zstd":
		codec = kgo.ZstdCompression()
		if s.ZstdLevel != nil {
			codec = codec.WithLevel(*s.ZstdLevel)
		}
	}
	opts = append(opts, kgo.ProducerBatchCompression(codec))
	if b := s.EffectiveBatchMaxBytes(); b > 0 {
		opts = append(opts, kgo.ProducerBatchMaxBytes(int32(b)))
	}
	if s.MaxRequestSize != nil {
		opts = append(opts, kgo.BrokerMaxWriteBytes(int32(max(*s.MaxRequestSize, 1<<20))+(1<<20)))
	}
	// Java caps the buffer by bytes only; franz-go also caps by record
	// count (50k by default), which throttles small-record workloads.
	maxRecs := 1 << 22
	if s.MaxBufferedRecords > 0 {
		maxRecs = s.MaxBufferedRecords
	}
	opts = append(opts, kgo.MaxBufferedBytes(int(s.BufferMemory)), kgo.MaxBufferedRecords(maxRecs))
	if s.DeliveryTimeout > 0 {
		opts = append(opts, kgo.RecordDeliveryTimeout(s.DeliveryTimeout))
	}
	if s.RequestTimeout > 0 {
		opts = append(opts, kgo.ProduceRequestTimeout(s.RequestTimeout))
	}
	if s.TransactionalID != "" {
		opts = append(opts, kgo.TransactionalID(s.TransactionalID), kgo.TransactionTimeout(s.TransactionTimeout))
	}
	var part kgo.Partitioner
	switch {
	case s.Partitioner == "round-robin":
		part = kgo.RoundRobinPartitioner()
	default:
		bs := 16384
		if s.BatchSize != nil && *s.BatchSize > 0 {
			bs = *s.BatchSize
		}
		part = kgo.UniformBytesPartitioner(bs, s.PartitionerAdaptive, !s.PartitionerIgnoreKeys, nil)
	}
	if s.ExplicitPartitions {
		part = explicitPartitioner{part}
	}
	return append(opts, kgo.RecordPartitioner(part))
}

// EffectiveBatchMaxBytes is the franz-go batch limit derived from batch.size.
// franz-go also uses it as the largest record it accepts, so it grows to fit
// MaxRecordBytes (up to max.request.size), as Java lets a record larger
// than batch.size go in a batch of its own. 0 means franz-go's default.
func (s *Settings) EffectiveBatchMaxBytes() int {
	if s.BatchSize == nil {
		return 0
	}
	b := max(*s.BatchSize, 1024)
	if s.MaxRecordBytes > 0 {
		need := s.MaxRecordBytes + 512 // record and batch overhead
		limit := 1 << 20
		if s.MaxRequestSize != nil {
			limit = *s.MaxRequestSize
		}
		if need > b {
			b = min(need, max(limit, b))
		}
	}
	return b
}

func (s *Settings) consumerOpts() []kgo.Opt {
	var opts []kgo.Opt
	// Java's consumer bounds its coordinator requests (heartbeat, commit,
	// join) by time, not by a count; franz-go stops after 20 tries, which
	// at Java's backoff (1 s at most) ends the group session some 15 s
	// into a coordinator failover and forces a rebalance that Java's
	// consumer does not make. The time bounds (session timeout for group
	// requests, 30 s for the others) stay.
	opts = append(opts, kgo.RequestRetries(math.MaxInt32))
	opts = append(opts, kgo.FetchMaxWait(s.FetchMaxWait))
	if s.FetchMinBytes != nil {
		opts = append(opts, kgo.FetchMinBytes(int32(*s.FetchMinBytes)))
	}
	if s.FetchMaxBytes != nil {
		opts = append(opts, kgo.FetchMaxBytes(int32(*s.FetchMaxBytes)))
	}
	if s.FetchMaxPartitionBytes != nil {
		opts = append(opts, kgo.FetchMaxPartitionBytes(int32(*s.FetchMaxPartitionBytes)))
	}
	if s.IsolationLevel == "read_committed" {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	if s.Rack != "" {
		opts = append(opts, kgo.Rack(s.Rack))
	}
	if s.AllowAutoCreate {
		opts = append(opts, kgo.AllowAutoTopicCreation())
	}
	if !s.CheckCRCs {
		opts = append(opts, kgo.DisableFetchCRCValidation())
	}
	switch s.AutoOffsetReset {
	case "earliest":
		opts = append(opts, kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	case "none":
		opts = append(opts, kgo.ConsumeResetOffset(kgo.NoResetOffset()))
	case "by_duration":
		opts = append(opts, kgo.ConsumeResetOffset(kgo.NewOffset().AfterMilli(time.Now().Add(-s.ResetDuration).UnixMilli())))
	default:
		opts = append(opts, kgo.ConsumeResetOffset(kgo.NewOffset().AtEnd()))
	}
	if s.GroupID != "" {
		opts = append(opts, s.GroupOpts()...)
	}
	return opts
}

// GroupOpts are the consumer-group options (group id included).
func (s *Settings) GroupOpts() []kgo.Opt {
	opts := []kgo.Opt{kgo.ConsumerGroup(s.GroupID)}
	if s.GroupInstanceID != "" {
		opts = append(opts, kgo.InstanceID(s.GroupInstanceID))
	}
	if !s.AutoCommit {
		opts = append(opts, kgo.DisableAutoCommit())
	} else {
		opts = append(opts, kgo.AutoCommitInterval(s.AutoCommitInterval))
	}
	if s.GroupProtocol == "consumer" {
		b := kgo.StickyBalancer() // "uniform", the broker's default
		if strings.Contains(strings.ToLower(s.RemoteAssignor), "range") {
			b = kgo.RangeBalancer()
		}
		opts = append(opts, kgo.ServerSideBalancer(), kgo.Balancers(b))
		return opts
	}
	opts = append(opts, kgo.SessionTimeout(s.SessionTimeout), kgo.HeartbeatInterval(s.HeartbeatInterval), kgo.RebalanceTimeout(s.MaxPollInterval))
	var bs []kgo.GroupBalancer
	for _, a := range s.Assignors {
		switch a {
		case "range":
			bs = append(bs, kgo.RangeBalancer())
		case "roundrobin":
			bs = append(bs, kgo.RoundRobinBalancer())
		case "sticky":
			bs = append(bs, kgo.StickyBalancer())
		case "cooperative-sticky":
			bs = append(bs, kgo.CooperativeStickyBalancer())
		}
	}
	opts = append(opts, kgo.Balancers(bs...))
	return opts
}

// Effective lists the effective settings as Java property names and values,
// sorted, with secrets redacted: what a perf result "ran with".
func (s *Settings) Effective() map[string]string {
	m := map[string]string{
		"bootstrap.servers": strings.Join(s.Bootstrap, ","),
		"security.protocol": s.SecurityProtocol,
	}
	if s.ClientID != "" {
		m["client.id"] = s.ClientID
	}
	if s.SASLMechanism != "" && s.SecurityProtocol != "PLAINTEXT" && s.SecurityProtocol != "SSL" {
		m["sasl.mechanism"] = s.SASLMechanism
		m["sasl.username"] = s.SASLUser
	}
	if s.Role&Producer != 0 {
		m["acks"] = s.Acks
		m["enable.idempotence"] = strconv.FormatBool(s.Idempotent)
		m["linger.ms"] = strconv.FormatInt(s.Linger.Milliseconds(), 10)
		m["compression.type"] = s.Compression
		m["buffer.memory"] = strconv.FormatInt(s.BufferMemory, 10)
		if b := s.EffectiveBatchMaxBytes(); b > 0 {
			m["batch.size"] = strconv.Itoa(b)
		} else {
			m["batch.size"] = "1000012 (franz-go default)"
		}
		if s.MaxInFlight != nil {
			m["max.in.flight.requests.per.connection"] = strconv.Itoa(*s.MaxInFlight)
		}
		if s.Retries != nil {
			m["retries"] = strconv.Itoa(*s.Retries)
		}
		if s.TransactionalID != "" {
			m["transactional.id"] = s.TransactionalID
		}
	}
	if s.Role&Consumer != 0 {
		m["auto.offset.reset"] = s.AutoOffsetReset
		m["fetch.max.wait.ms"] = strconv.FormatInt(s.FetchMaxWait.Milliseconds(), 10)
		m["max.poll.records"] = strconv.Itoa(s.MaxPollRecords)
		m["isolation.level"] = s.IsolationLevel
		if s.FetchMaxBytes != nil {
			m["fetch.max.bytes"] = strconv.Itoa(*s.FetchMaxBytes)
		}
		if s.FetchMaxPartitionBytes != nil {
			m["max.partition.fetch.bytes"] = strconv.Itoa(*s.FetchMaxPartitionBytes)
		}
		if s.FetchMinBytes != nil {
			m["fetch.min.bytes"] = strconv.Itoa(*s.FetchMinBytes)
		}
		if s.GroupID != "" {
			m["group.id"] = s.GroupID
			m["group.protocol"] = s.GroupProtocol
			m["enable.auto.commit"] = strconv.FormatBool(s.AutoCommit)
		}
	}
	return m
}

// EffectiveSorted returns Effective as "key=value" lines in key order.
func (s *Settings) EffectiveSorted() []string {
	m := s.Effective()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "=" + m[k]
	}
	return out
}

// ctxTimeout returns ctx bounded by d.
func ctxTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
