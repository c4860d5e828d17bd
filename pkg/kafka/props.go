// Package kafka is the only place that builds franz-go clients. It maps Java
// client properties (as resolved by pkg/config) onto kgo options through one
// table, applies Java's defaults where franz-go's differ, and turns connection
// failures into one-line, actionable errors.
package kafka

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/javafmt"
)

// Role says which kind of Java client a property set configures.
type Role uint8

// Client roles. A property applies when its roles intersect the client's.
const (
	Admin Role = 1 << iota
	Producer
	Consumer
	Common = Admin | Producer | Consumer
)

func (r Role) String() string {
	switch r {
	case Admin:
		return "admin"
	case Producer:
		return "producer"
	case Consumer:
		return "consumer"
	}
	return "client"
}

// Ignored is a property kbox did not apply, with the reason. With Warning
// set, the property was applied but deserves a warning (Reason says why).
type Ignored struct {
	Name    string
	Reason  string
	Warning bool
}

func (i Ignored) String() string {
	if i.Warning {
		return fmt.Sprintf("property %s: %s", i.Name, i.Reason)
	}
	return fmt.Sprintf("ignoring property %s: %s", i.Name, i.Reason)
}

// property is one row of the Java → kgo table.
type property struct {
	roles Role
	// apply parses and records the value; nil means the property is a real
	// Java property with no franz-go equivalent (reason says why).
	apply  func(s *Settings, v string) error
	reason string
}

// properties is THE table mapping Java client properties to kbox settings.
// Settings are turned into kgo options by Settings.opts.
var properties = map[string]property{
	// --- common ---
	"bootstrap.servers":                  {roles: Common, apply: func(s *Settings, v string) error { s.Bootstrap = config.SplitList(v); return nil }},
	"client.id":                          {roles: Common, apply: func(s *Settings, v string) error { s.ClientID = v; return nil }},
	"request.timeout.ms":                 {roles: Common, apply: durMs(func(s *Settings) *time.Duration { return &s.RequestTimeout })},
	"default.api.timeout.ms":             {roles: Admin | Consumer, apply: durMs(func(s *Settings) *time.Duration { return &s.APITimeout })},
	"metadata.max.age.ms":                {roles: Common, apply: durMs(func(s *Settings) *time.Duration { return &s.MetadataMaxAge })},
	"retry.backoff.ms":                   {roles: Common, apply: durMs(func(s *Settings) *time.Duration { return &s.RetryBackoff })},
	"retry.backoff.max.ms":               {roles: Common, apply: durMs(func(s *Settings) *time.Duration { return &s.RetryBackoffMax })},
	"socket.connection.setup.timeout.ms": {roles: Common, apply: durMs(func(s *Settings) *time.Duration { return &s.DialTimeout })},
	"connections.max.idle.ms":            {roles: Common, apply: durMs(func(s *Settings) *time.Duration { return &s.ConnIdle })},
	"enable.metrics.push":                {roles: Common, apply: boolp(func(s *Settings) *bool { return &s.MetricsPush })},
	"retries":                            {roles: Producer | Admin, apply: intp(0, math.MaxInt32, func(s *Settings) **int { return &s.Retries })},

	"socket.connection.setup.timeout.max.ms":   {roles: Common, reason: "franz-go has one dial timeout (socket.connection.setup.timeout.ms)"},
	"reconnect.backoff.ms":                     {roles: Common, reason: "franz-go backs off reconnects with retry.backoff.ms"},
	"reconnect.backoff.max.ms":                 {roles: Common, reason: "franz-go backs off reconnects with retry.backoff.ms"},
	"send.buffer.bytes":                        {roles: Common, reason: "socket buffers are left to the OS"},
	"receive.buffer.bytes":                     {roles: Common, reason: "socket buffers are left to the OS"},
	"client.dns.lookup":                        {roles: Common, reason: "franz-go always uses all resolved addresses"},
	"metadata.recovery.strategy":               {roles: Common, reason: "franz-go re-bootstraps from the seed brokers on its own"},
	"metadata.recovery.rebootstrap.trigger.ms": {roles: Common, reason: "franz-go re-bootstraps from the seed brokers on its own"},
	"metrics.recording.level":                  {roles: Common, reason: "Java client metrics do not apply to a Go client"},
	"auto.include.jmx.reporter":                {roles: Common, reason: "Java client metrics do not apply to a Go client"},
	"interceptor.classes":                      {roles: Producer | Consumer, reason: "Java interceptors cannot run in a Go client"},
	"security.providers":                       {roles: Common, reason: "Java security providers do not apply to a Go client"},
	"key.serializer":                           {roles: Producer, reason: "kbox writes raw bytes"},
	"value.serializer":                         {roles: Producer, reason: "kbox writes raw bytes"},
	"key.deserializer":                         {roles: Consumer, reason: "kbox reads raw bytes"},
	"value.deserializer":                       {roles: Consumer, reason: "kbox reads raw bytes"},

	// --- security ---
	"security.protocol":                     {roles: Common, apply: secProto},
	"sasl.mechanism":                        {roles: Common, apply: func(s *Settings, v string) error { s.SASLMechanism = strings.ToUpper(strings.TrimSpace(v)); return nil }},
	"sasl.jaas.config":                      {roles: Common, apply: func(s *Settings, v string) error { s.jaas = v; return nil }},
	"ssl.truststore.type":                   {roles: Common, apply: func(s *Settings, v string) error { s.TLS.TruststoreType = strings.ToUpper(v); return nil }},
	"ssl.truststore.location":               {roles: Common, apply: func(s *Settings, v string) error { s.TLS.TruststoreLocation = v; return nil }},
	"ssl.truststore.password":               {roles: Common, apply: func(s *Settings, v string) error { s.TLS.truststorePassword = v; return nil }},
	"ssl.truststore.certificates":           {roles: Common, apply: func(s *Settings, v string) error { s.TLS.truststoreCerts = v; return nil }},
	"ssl.keystore.type":                     {roles: Common, apply: func(s *Settings, v string) error { s.TLS.KeystoreType = strings.ToUpper(v); return nil }},
	"ssl.keystore.location":                 {roles: Common, apply: func(s *Settings, v string) error { s.TLS.KeystoreLocation = v; return nil }},
	"ssl.keystore.password":                 {roles: Common, apply: func(s *Settings, v string) error { s.TLS.keystorePassword = v; return nil }},
	"ssl.keystore.certificate.chain":        {roles: Common, apply: func(s *Settings, v string) error { s.TLS.keystoreChain = v; return nil }},
	"ssl.keystore.key":                      {roles: Common, apply: func(s *Settings, v string) error { s.TLS.keystoreKey = v; return nil }},
	"ssl.key.password":                      {roles: Common, apply: func(s *Settings, v string) error { s.TLS.keyPassword = v; return nil }},
	"ssl.endpoint.identification.algorithm": {roles: Common, apply: sslEndpointAlg},
	"ssl.protocol":                          {roles: Common, apply: func(s *Settings, v string) error { s.TLS.Protocol = v; return nil }},
	"ssl.enabled.protocols":                 {roles: Common, apply: func(s *Settings, v string) error { s.TLS.EnabledProtocols = config.SplitList(v); return nil }},
	"ssl.cipher.suites":                     {roles: Common, apply: func(s *Settings, v string) error { s.TLS.CipherSuites = config.SplitList(v); return nil }},
	"ssl.keymanager.algorithm":              {roles: Common, reason: "Java key manager algorithms do not apply to Go's TLS"},
	"ssl.trustmanager.algorithm":            {roles: Common, reason: "Java trust manager algorithms do not apply to Go's TLS"},
	"ssl.provider":                          {roles: Common, reason: "Java security providers do not apply to Go's TLS"},
	"ssl.secure.random.implementation":      {roles: Common, reason: "Go's TLS uses crypto/rand"},
	"ssl.engine.factory.class":              {roles: Common, reason: "Java SSL engine factories do not apply to Go's TLS"},
	"sasl.login.callback.handler.class":     {roles: Common, apply: func(s *Settings, v string) error { s.loginHandler = strings.TrimSpace(v); return nil }},
	"sasl.client.callback.handler.class":    {roles: Common, apply: func(s *Settings, v string) error { s.clientHandler = strings.TrimSpace(v); return nil }},
	"sasl.login.class":                      {roles: Common, reason: "Java login classes cannot run in a Go client"},

	// --- producer ---
	"acks":                                     {roles: Producer, apply: acks},
	"enable.idempotence":                       {roles: Producer, apply: boolp(func(s *Settings) *bool { return &s.idempotence }, func(s *Settings) { s.idempotenceSet = true })},
	"max.in.flight.requests.per.connection":    {roles: Producer, apply: intp(1, math.MaxInt32, func(s *Settings) **int { return &s.MaxInFlight })},
	"batch.size":                               {roles: Producer, apply: intp(0, math.MaxInt32, func(s *Settings) **int { return &s.BatchSize })},
	"max.request.size":                         {roles: Producer, apply: intp(1, math.MaxInt32, func(s *Settings) **int { return &s.MaxRequestSize })},
	"linger.ms":                                {roles: Producer, apply: durMs(func(s *Settings) *time.Duration { return &s.Linger })},
	"compression.type":                         {roles: Producer, apply: compression},
	"compression.gzip.level":                   {roles: Producer, apply: intp(-1, 9, func(s *Settings) **int { return &s.GzipLevel })},
	"compression.lz4.level":                    {roles: Producer, apply: intp(1, 17, func(s *Settings) **int { return &s.LZ4Level })},
	"compression.zstd.level":                   {roles: Producer, apply: intp(-131072, 22, func(s *Settings) **int { return &s.ZstdLevel })},
	"buffer.memory":                            {roles: Producer, apply: int64p(func(s *Settings) *int64 { return &s.BufferMemory })},
	"max.block.ms":                             {roles: Producer, apply: durMs(func(s *Settings) *time.Duration { return &s.MaxBlock })},
	"delivery.timeout.ms":                      {roles: Producer, apply: durMs(func(s *Settings) *time.Duration { return &s.DeliveryTimeout })},
	"transactional.id":                         {roles: Producer, apply: func(s *Settings, v string) error { s.TransactionalID = v; return nil }},
	"transaction.timeout.ms":                   {roles: Producer, apply: durMs(func(s *Settings) *time.Duration { return &s.TransactionTimeout })},
	"partitioner.class":                        {roles: Producer, apply: partitionerClass},
	"partitioner.ignore.keys":                  {roles: Producer, apply: boolp(func(s *Settings) *bool { return &s.PartitionerIgnoreKeys })},
	"partitioner.adaptive.partitioning.enable": {roles: Producer, apply: boolp(func(s *Settings) *bool { return &s.PartitionerAdaptive })},
	"partitioner.availability.timeout.ms":      {roles: Producer, reason: "franz-go's adaptive partitioner has no availability timeout"},
	"metadata.max.idle.ms":                     {roles: Producer, reason: "franz-go keeps metadata for every topic it produced to"},

	// --- consumer ---
	"group.id":                      {roles: Consumer, apply: func(s *Settings, v string) error { s.GroupID = v; return nil }},
	"group.instance.id":             {roles: Consumer, apply: func(s *Settings, v string) error { s.GroupInstanceID = v; return nil }},
	"group.protocol":                {roles: Consumer, apply: groupProtocol},
	"group.remote.assignor":         {roles: Consumer, apply: func(s *Settings, v string) error { s.RemoteAssignor = v; return nil }},
	"session.timeout.ms":            {roles: Consumer, apply: durMs(func(s *Settings) *time.Duration { return &s.SessionTimeout })},
	"heartbeat.interval.ms":         {roles: Consumer, apply: durMs(func(s *Settings) *time.Duration { return &s.HeartbeatInterval })},
	"max.poll.interval.ms":          {roles: Consumer, apply: durMs(func(s *Settings) *time.Duration { return &s.MaxPollInterval })},
	"max.poll.records":              {roles: Consumer, apply: intv(1, math.MaxInt32, func(s *Settings) *int { return &s.MaxPollRecords })},
	"enable.auto.commit":            {roles: Consumer, apply: boolp(func(s *Settings) *bool { return &s.AutoCommit })},
	"auto.commit.interval.ms":       {roles: Consumer, apply: durMs(func(s *Settings) *time.Duration { return &s.AutoCommitInterval })},
	"auto.offset.reset":             {roles: Consumer, apply: autoOffsetReset},
	"fetch.min.bytes":               {roles: Consumer, apply: intp(0, math.MaxInt32, func(s *Settings) **int { return &s.FetchMinBytes })},
	"fetch.max.bytes":               {roles: Consumer, apply: intp(0, math.MaxInt32, func(s *Settings) **int { return &s.FetchMaxBytes })},
	"max.partition.fetch.bytes":     {roles: Consumer, apply: intp(0, math.MaxInt32, func(s *Settings) **int { return &s.FetchMaxPartitionBytes })},
	"fetch.max.wait.ms":             {roles: Consumer, apply: durMs(func(s *Settings) *time.Duration { return &s.FetchMaxWait })},
	"isolation.level":               {roles: Consumer, apply: isolation},
	"partition.assignment.strategy": {roles: Consumer, apply: assignment},
	"client.rack":                   {roles: Consumer, apply: func(s *Settings, v string) error { s.Rack = v; return nil }},
	"allow.auto.create.topics":      {roles: Consumer, apply: boolp(func(s *Settings) *bool { return &s.AllowAutoCreate })},
	"check.crcs":                    {roles: Consumer, apply: boolp(func(s *Settings) *bool { return &s.CheckCRCs })},
	"exclude.internal.topics":       {roles: Consumer, reason: "kbox consumes named topics only"},
	"share.acknowledgement.mode":    {roles: Consumer, reason: "share groups are not supported"},
}

func init() {
	for _, rows := range []map[string]property{oauthRows(), awsRows(), kerberosRows(), metricsRows()} {
		for k, v := range rows {
			if _, dup := properties[k]; dup {
				panic("kafka: duplicate property row " + k)
			}
			properties[k] = v
		}
	}
}

// KnownProperty reports whether name is a Java client property kbox knows,
// and whether it has a franz-go equivalent.
func KnownProperty(name string) (known, mapped bool) {
	p, ok := properties[name]
	return ok, ok && p.apply != nil
}

// PropertyNames returns every property in the table, sorted (docs, tests).
func PropertyNames() []string {
	out := make([]string, 0, len(properties))
	for k := range properties {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Parse applies Java client properties for a client of the given role.
// Malformed values are errors naming the property; properties with no Go
// equivalent, unknown ones, and ones for another kind of client are listed
// in Settings.Ignored.
func Parse(props *config.Properties, role Role) (*Settings, error) {
	s := newSettings(role)
	if props == nil {
		return s, s.finish()
	}
	for _, k := range props.Keys() {
		v, _ := props.Get(k)
		p, ok := properties[k]
		switch {
		case !ok:
			s.Ignored = append(s.Ignored, Ignored{Name: k, Reason: "unknown property"})
		case p.apply == nil:
			if p.roles&role != 0 {
				s.Ignored = append(s.Ignored, Ignored{Name: k, Reason: p.reason})
			}
		case p.roles&role == 0:
			// A valid property for another kind of client (a shared
			// client.properties); Java also skips it with a warning.
			s.Ignored = append(s.Ignored, Ignored{Name: k, Reason: "not used by " + role.String() + " clients"})
		default:
			if err := p.apply(s, v); err != nil {
				return nil, propError(k, v, err)
			}
		}
	}
	return s, s.finish()
}

// PropertyError is a malformed property value.
type PropertyError struct {
	Name string
	Msg  string
}

func (e *PropertyError) Error() string { return fmt.Sprintf("property %s: %s", e.Name, e.Msg) }

func propError(k, v string, err error) error {
	if pe, ok := err.(*PropertyError); ok {
		return pe
	}
	if config.IsSecretKey(k) {
		return &PropertyError{k, err.Error()}
	}
	return &PropertyError{k, fmt.Sprintf("invalid value %q: %v", config.RedactValue(k, v), err)}
}

// --- value parsers ---

func parseInt(v string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("not an integer")
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("must be between %d and %d", lo, hi)
	}
	return n, nil
}

func durMs(field func(*Settings) *time.Duration) func(*Settings, string) error {
	return func(s *Settings, v string) error {
		n, err := parseInt(v, 0, math.MaxInt64/int64(time.Millisecond))
		if err != nil {
			return fmt.Errorf("%v (milliseconds)", err)
		}
		*field(s) = time.Duration(n) * time.Millisecond
		return nil
	}
}

func intp(lo, hi int64, field func(*Settings) **int) func(*Settings, string) error {
	return func(s *Settings, v string) error {
		n, err := parseInt(v, lo, hi)
		if err != nil {
			return err
		}
		x := int(n)
		*field(s) = &x
		return nil
	}
}

func intv(lo, hi int64, field func(*Settings) *int) func(*Settings, string) error {
	return func(s *Settings, v string) error {
		n, err := parseInt(v, lo, hi)
		if err != nil {
			return err
		}
		*field(s) = int(n)
		return nil
	}
}

func int64p(field func(*Settings) *int64) func(*Settings, string) error {
	return func(s *Settings, v string) error {
		n, err := parseInt(v, 0, math.MaxInt64)
		if err != nil {
			return err
		}
		*field(s) = n
		return nil
	}
}

func boolp(field func(*Settings) *bool, also ...func(*Settings)) func(*Settings, string) error {
	return func(s *Settings, v string) error {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			*field(s) = true
		case "false":
			*field(s) = false
		default:
			return fmt.Errorf("expected true or false")
		}
		for _, f := range also {
			f(s)
		}
		return nil
	}
}

func secProto(s *Settings, v string) error {
	switch p := strings.ToUpper(strings.TrimSpace(v)); p {
	case "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL":
		s.SecurityProtocol = p
		return nil
	}
	return fmt.Errorf("must be one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL")
}

func sslEndpointAlg(s *Settings, v string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "":
		s.TLS.SkipHostnameVerification = true
	case "https":
		s.TLS.SkipHostnameVerification = false
	default:
		return fmt.Errorf("must be https or empty")
	}
	return nil
}

func acks(s *Settings, v string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "all", "-1":
		s.Acks = "all"
	case "0":
		s.Acks = "0"
	case "1":
		s.Acks = "1"
	default:
		return fmt.Errorf("must be one of all, -1, 0, 1")
	}
	return nil
}

func compression(s *Settings, v string) error {
	switch c := strings.ToLower(strings.TrimSpace(v)); c {
	case "none", "gzip", "snappy", "lz4", "zstd":
		s.Compression = c
		return nil
	}
	return fmt.Errorf("must be one of none, gzip, snappy, lz4, zstd")
}

func partitionerClass(s *Settings, v string) error {
	switch strings.TrimSpace(v) {
	case "":
		s.Partitioner = ""
	case "org.apache.kafka.clients.producer.RoundRobinPartitioner":
		s.Partitioner = "round-robin"
	case "org.apache.kafka.clients.producer.internals.DefaultPartitioner", "org.apache.kafka.clients.producer.UniformStickyPartitioner":
		s.Partitioner = "sticky"
	default:
		return fmt.Errorf("a custom Java partitioner cannot run in a Go client (supported: RoundRobinPartitioner)")
	}
	return nil
}

func groupProtocol(s *Settings, v string) error {
	switch p := strings.ToLower(strings.TrimSpace(v)); p {
	case "classic", "consumer":
		s.GroupProtocol = p
		return nil
	}
	return fmt.Errorf("must be classic or consumer")
}

func autoOffsetReset(s *Settings, v string) error {
	v = strings.TrimSpace(v)
	switch l := strings.ToLower(v); {
	case l == "earliest" || l == "latest" || l == "none":
		s.AutoOffsetReset = l
		return nil
	case strings.HasPrefix(l, "by_duration:"):
		// Java: Duration.parse, and a negative duration is refused.
		iso := v[len("by_duration:"):]
		d, err := javafmt.ParseDuration(strings.TrimSpace(iso))
		if err != nil || d < 0 {
			return fmt.Errorf("invalid ISO-8601 duration %q (e.g. P1D, PT1H30M)", iso)
		}
		s.AutoOffsetReset = "by_duration"
		s.ResetDuration = d
		return nil
	}
	return fmt.Errorf("must be earliest, latest, none or by_duration:<ISO-8601 duration>")
}

func isolation(s *Settings, v string) error {
	switch l := strings.ToLower(strings.TrimSpace(v)); l {
	case "read_committed", "read_uncommitted":
		s.IsolationLevel = l
		return nil
	}
	return fmt.Errorf("must be read_committed or read_uncommitted")
}

var assignors = map[string]string{
	"org.apache.kafka.clients.consumer.rangeassignor":             "range",
	"org.apache.kafka.clients.consumer.roundrobinassignor":        "roundrobin",
	"org.apache.kafka.clients.consumer.stickyassignor":            "sticky",
	"org.apache.kafka.clients.consumer.cooperativestickyassignor": "cooperative-sticky",
	"range":              "range",
	"roundrobin":         "roundrobin",
	"sticky":             "sticky",
	"cooperative-sticky": "cooperative-sticky",
}

func assignment(s *Settings, v string) error {
	var out []string
	for _, a := range config.SplitList(v) {
		n, ok := assignors[strings.ToLower(a)]
		if !ok {
			return fmt.Errorf("unknown assignor %q (use range, roundrobin, sticky, cooperative-sticky or their Java class names)", a)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return fmt.Errorf("empty list")
	}
	s.Assignors = out
	return nil
}
