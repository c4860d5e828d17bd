package kafka

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/aws"
)

// AWS_MSK_IAM, as the aws-msk-iam-auth Java library's IAMLoginModule takes
// it in sasl.jaas.config:
//
//	software.amazon.msk.auth.iam.IAMLoginModule required
//	    [awsProfileName="p"] [awsRoleArn="arn:..." [awsRoleSessionName="s"]
//	    [awsStsRegion="r"] [awsRoleAccessKeyId="..." awsRoleSecretAccessKey="..."]];
//
// with sasl.client.callback.handler.class=...IAMClientCallbackHandler.
// Credentials come from, in order: the named profile (awsProfileName), the
// environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN),
// the shared config profile $AWS_PROFILE or "default" (~/.aws/credentials and
// ~/.aws/config, or $AWS_SHARED_CREDENTIALS_FILE / $AWS_CONFIG_FILE; static
// keys, credential_process, or role_arn with source_profile). With a role
// ARN, those credentials assume the role through STS (AssumeRole, SigV4).
// Web identity, container and instance-metadata credentials are not
// implemented. The signing region is taken from the broker host name, else
// $AWS_REGION / $AWS_DEFAULT_REGION (franz-go's sasl/aws).

type awsProps struct {
	getenv func(string) string
	now    func() time.Time
	client *http.Client
}

// awsCallbackHandlers are the Java client callback handler classes whose
// behaviour kbox implements for AWS_MSK_IAM.
var awsCallbackHandlers = map[string]bool{
	"software.amazon.msk.auth.iam.IAMClientCallbackHandler": true,
}

func awsRows() map[string]property { return nil }

// awsCreds are AWS credentials; they print as their access key id only.
type awsCreds struct {
	AccessKey, secretKey, sessionToken string
	Expires                            time.Time
	Source                             string
}

func (c awsCreds) String() string { return fmt.Sprintf("%s (%s)", c.AccessKey, c.Source) }

type awsProvider struct {
	p        awsProps
	profile  string // awsProfileName
	roleArn  string
	session  string
	stsReg   string
	roleAKID string
	roleSK   string
	roleTok  string

	mu  sync.Mutex
	cur *awsCreds
}

func (s *Settings) finishAWS(opts map[string]string) error {
	if s.jaas == "" {
		return &PropertyError{"sasl.jaas.config", "not set: AWS_MSK_IAM needs software.amazon.msk.auth.iam.IAMLoginModule required;"}
	}
	known := map[string]bool{"awsProfileName": true, "awsRoleArn": true, "awsRoleSessionName": true, "awsStsRegion": true,
		"awsRoleAccessKeyId": true, "awsRoleSecretAccessKey": true, "awsRoleSessionToken": true, "awsDebugCreds": true,
		"awsMaxRetries": true, "awsMaxBackOffTimeMs": true}
	for k := range opts {
		if !known[k] {
			s.Ignored = append(s.Ignored, Ignored{Name: "sasl.jaas.config", Reason: fmt.Sprintf("unknown IAMLoginModule option %q", k)})
		}
	}
	if (opts["awsRoleAccessKeyId"] == "") != (opts["awsRoleSecretAccessKey"] == "") {
		return &PropertyError{"sasl.jaas.config", "awsRoleAccessKeyId and awsRoleSecretAccessKey must be set together"}
	}
	if opts["awsRoleAccessKeyId"] != "" && opts["awsRoleArn"] == "" {
		return &PropertyError{"sasl.jaas.config", "awsRoleAccessKeyId needs awsRoleArn"}
	}
	p := s.aws
	if p.getenv == nil {
		p.getenv = os.Getenv
	}
	if p.now == nil {
		p.now = time.Now
	}
	if p.client == nil {
		p.client = &http.Client{Timeout: 30 * time.Second}
	}
	session := opts["awsRoleSessionName"]
	if session == "" {
		session = "aws-msk-iam-auth"
	}
	s.awsProv = &awsProvider{p: p, profile: opts["awsProfileName"], roleArn: opts["awsRoleArn"], session: session,
		stsReg: opts["awsStsRegion"], roleAKID: opts["awsRoleAccessKeyId"], roleSK: opts["awsRoleSecretAccessKey"], roleTok: opts["awsRoleSessionToken"]}
	return nil
}

func (s *Settings) awsMechanism() sasl.Mechanism {
	if s.awsProv == nil {
		return nil
	}
	prov := s.awsProv
	return aws.ManagedStreamingIAM(func(ctx context.Context) (aws.Auth, error) {
		c, err := prov.get(ctx)
		if err != nil {
			return aws.Auth{}, err
		}
		return aws.Auth{AccessKey: c.AccessKey, SecretKey: c.secretKey, SessionToken: c.sessionToken}, nil
	})
}

// AWSError is a failure to find or obtain AWS credentials.
type AWSError struct{ Msg string }

func (e *AWSError) Error() string { return "AWS_MSK_IAM: " + e.Msg }

// get returns cached credentials until 5 minutes before they expire.
func (a *awsProvider) get(ctx context.Context) (*awsCreds, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cur != nil && (a.cur.Expires.IsZero() || a.p.now().Before(a.cur.Expires.Add(-5*time.Minute))) {
		return a.cur, nil
	}
	c, err := a.resolve(ctx)
	if err != nil {
		return nil, err
	}
	a.cur = c
	return c, nil
}

func (a *awsProvider) resolve(ctx context.Context) (*awsCreds, error) {
	var base *awsCreds
	var err error
	switch {
	case a.roleAKID != "":
		base = &awsCreds{AccessKey: a.roleAKID, secretKey: a.roleSK, sessionToken: a.roleTok, Source: "awsRoleAccessKeyId"}
	case a.profile != "":
		base, err = a.fromProfile(ctx, a.profile, 0)
	default:
		base, err = a.defaultChain(ctx)
	}
	if err != nil {
		return nil, err
	}
	if a.roleArn == "" {
		return base, nil
	}
	return a.assumeRole(ctx, base, a.roleArn, a.session, a.stsReg)
}

func (a *awsProvider) defaultChain(ctx context.Context) (*awsCreds, error) {
	env := a.p.getenv
	if id, sk := env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"); id != "" || sk != "" {
		if id == "" || sk == "" {
			return nil, &AWSError{"AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together"}
		}
		return &awsCreds{AccessKey: id, secretKey: sk, sessionToken: env("AWS_SESSION_TOKEN"), Source: "environment"}, nil
	}
	prof := env("AWS_PROFILE")
	if prof == "" {
		prof = "default"
	}
	if prof == "default" {
		if _, err := a.profileSettings(prof); errors.Is(err, errNoProfile) {
			return nil, &AWSError{"no AWS credentials found (looked at AWS_ACCESS_KEY_ID and the default profile of the shared config files; web identity, container and instance credentials are not supported)"}
		}
	}
	return a.fromProfile(ctx, prof, 0)
}

var errNoProfile = errors.New("no such profile")

func (a *awsProvider) sharedFiles() (creds, conf string) {
	env := a.p.getenv
	home, _ := os.UserHomeDir()
	if h := env("HOME"); h != "" {
		home = h
	}
	creds, conf = env("AWS_SHARED_CREDENTIALS_FILE"), env("AWS_CONFIG_FILE")
	if creds == "" {
		creds = filepath.Join(home, ".aws", "credentials")
	}
	if conf == "" {
		conf = filepath.Join(home, ".aws", "config")
	}
	return creds, conf
}

// profileSettings merges a profile's keys from the config file ([profile
// p], or [default]) and the credentials file ([p]; it wins).
func (a *awsProvider) profileSettings(name string) (map[string]string, error) {
	credsFile, confFile := a.sharedFiles()
	out := map[string]string{}
	found := false
	for _, f := range []struct {
		path, section string
	}{
		{confFile, map[bool]string{true: "default", false: "profile " + name}[name == "default"]},
		{credsFile, name},
	} {
		b, err := os.ReadFile(f.path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil, &AWSError{"cannot read " + fileErr(err)}
		}
		sec, ok := parseINI(b)[f.section]
		if !ok && f.section == "default" {
			sec, ok = parseINI(b)["profile default"]
		}
		if ok {
			found = true
			for k, v := range sec {
				out[k] = v
			}
		}
	}
	if !found {
		return nil, fmt.Errorf("%w", errNoProfile)
	}
	return out, nil
}

func (a *awsProvider) fromProfile(ctx context.Context, name string, depth int) (*awsCreds, error) {
	if depth > 4 {
		return nil, &AWSError{fmt.Sprintf("profile %q: source_profile chain too long", name)}
	}
	m, err := a.profileSettings(name)
	if errors.Is(err, errNoProfile) {
		credsFile, confFile := a.sharedFiles()
		return nil, &AWSError{fmt.Sprintf("profile %q not found in %s or %s: %v", name, credsFile, confFile, errNoProfile)}
	}
	if err != nil {
		return nil, err
	}
	src := "profile " + name
	if role := m["role_arn"]; role != "" {
		var base *awsCreds
		switch {
		case m["source_profile"] != "" && m["source_profile"] != name:
			base, err = a.fromProfile(ctx, m["source_profile"], depth+1)
		case m["aws_access_key_id"] != "":
			base = &awsCreds{AccessKey: m["aws_access_key_id"], secretKey: m["aws_secret_access_key"], sessionToken: m["aws_session_token"], Source: src}
		default:
			return nil, &AWSError{fmt.Sprintf("profile %q: role_arn needs source_profile (credential_source is not supported)", name)}
		}
		if err != nil {
			return nil, err
		}
		session := m["role_session_name"]
		if session == "" {
			session = "kbox-" + strconv.FormatInt(a.p.now().Unix(), 10)
		}
		return a.assumeRole(ctx, base, role, session, m["sts_regional_endpoints_region"])
	}
	if id := m["aws_access_key_id"]; id != "" {
		if m["aws_secret_access_key"] == "" {
			return nil, &AWSError{fmt.Sprintf("profile %q: aws_access_key_id without aws_secret_access_key", name)}
		}
		return &awsCreds{AccessKey: id, secretKey: m["aws_secret_access_key"], sessionToken: m["aws_session_token"], Source: src}, nil
	}
	if cmd := m["credential_process"]; cmd != "" {
		return a.credentialProcess(ctx, name, cmd)
	}
	return nil, &AWSError{fmt.Sprintf("profile %q has no credentials (aws_access_key_id, credential_process or role_arn; SSO and web identity are not supported)", name)}
}

func (a *awsProvider) credentialProcess(ctx context.Context, profile, command string) (*awsCreds, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return nil, &AWSError{fmt.Sprintf("profile %q: credential_process failed: %v", profile, err)}
	}
	var v struct {
		Version         int
		AccessKeyID     string `json:"AccessKeyId"`
		SecretAccessKey string
		SessionToken    string
		Expiration      string
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil || v.Version != 1 || v.AccessKeyID == "" || v.SecretAccessKey == "" {
		return nil, &AWSError{fmt.Sprintf("profile %q: credential_process printed no Version 1 credentials", profile)}
	}
	c := &awsCreds{AccessKey: v.AccessKeyID, secretKey: v.SecretAccessKey, sessionToken: v.SessionToken, Source: "credential_process of profile " + profile}
	if v.Expiration != "" {
		c.Expires, _ = time.Parse(time.RFC3339, v.Expiration)
	}
	return c, nil
}

// parseINI reads the AWS shared config format: [section] headers and
// key = value lines (# and ; comments).
func parseINI(b []byte) map[string]map[string]string {
	out := map[string]map[string]string{}
	var cur map[string]string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' && strings.HasSuffix(line, "]") {
			name := strings.Join(strings.Fields(line[1:len(line)-1]), " ")
			cur = out[name]
			if cur == nil {
				cur = map[string]string{}
				out[name] = cur
			}
			continue
		}
		if cur == nil {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			cur[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
	}
	return out
}

// assumeRole calls STS AssumeRole with base credentials.
func (a *awsProvider) assumeRole(ctx context.Context, base *awsCreds, role, session, region string) (*awsCreds, error) {
	endpoint := a.p.getenv("AWS_ENDPOINT_URL_STS")
	if region == "" {
		region = "us-east-1"
	}
	if endpoint == "" {
		endpoint = "https://sts." + region + ".amazonaws.com"
	}
	form := url.Values{"Action": {"AssumeRole"}, "Version": {"2011-06-15"}, "RoleArn": {role}, "RoleSessionName": {session}, "DurationSeconds": {"3600"}}
	body := form.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/", strings.NewReader(body))
	if err != nil {
		return nil, &AWSError{fmt.Sprintf("bad STS endpoint %q", endpoint)}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	signV4(req, []byte(body), base, region, "sts", a.p.now())
	resp, err := a.p.client.Do(req)
	if err != nil {
		return nil, &AWSError{fmt.Sprintf("assuming role %s: %v", role, redactURLErr(err))}
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct{ Code, Message string } `xml:"Error"`
		}
		_ = xml.Unmarshal(rb, &e)
		return nil, &AWSError{fmt.Sprintf("assuming role %s with %s credentials: STS answered HTTP %d %s %s", role, base.Source, resp.StatusCode, e.Error.Code, oneLineText(e.Error.Message))}
	}
	var v struct {
		Creds struct {
			AccessKeyID     string `xml:"AccessKeyId"`
			SecretAccessKey string
			SessionToken    string
			Expiration      string
		} `xml:"AssumeRoleResult>Credentials"`
	}
	if err := xml.Unmarshal(rb, &v); err != nil || v.Creds.AccessKeyID == "" {
		return nil, &AWSError{fmt.Sprintf("assuming role %s: malformed STS response", role)}
	}
	c := &awsCreds{AccessKey: v.Creds.AccessKeyID, secretKey: v.Creds.SecretAccessKey, sessionToken: v.Creds.SessionToken, Source: "role " + role}
	c.Expires, _ = time.Parse(time.RFC3339, v.Creds.Expiration)
	return c, nil
}

// --- SigV4 (header signing) for STS requests ---

func hmacSHA256(key []byte, s string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(s))
	return h.Sum(nil)
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// sigV4Key derives the SigV4 signing key.
func sigV4Key(secret, date, region, service string) []byte {
	k := hmacSHA256([]byte("AWS4"+secret), date)
	k = hmacSHA256(k, region)
	k = hmacSHA256(k, service)
	return hmacSHA256(k, "aws4_request")
}

// signV4 adds X-Amz-Date, X-Amz-Security-Token and Authorization headers.
func signV4(req *http.Request, body []byte, c *awsCreds, region, service string, now time.Time) {
	ts := now.UTC().Format("20060102T150405Z")
	date := ts[:8]
	req.Header.Set("X-Amz-Date", ts)
	if c.sessionToken != "" {
		req.Header.Set("X-Amz-Security-Token", c.sessionToken)
	}
	host := req.URL.Host
	if req.Host != "" {
		host = req.Host
	}
	hdrs := map[string]string{"host": host}
	for k, v := range req.Header {
		hdrs[strings.ToLower(k)] = strings.Join(strings.Fields(strings.Join(v, ",")), " ")
	}
	names := make([]string, 0, len(hdrs))
	for k := range hdrs {
		if k == "authorization" || k == "user-agent" {
			continue
		}
		names = append(names, k)
	}
	sort.Strings(names)
	var canonHdrs strings.Builder
	for _, k := range names {
		canonHdrs.WriteString(k + ":" + hdrs[k] + "\n")
	}
	signed := strings.Join(names, ";")
	path := req.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	canon := strings.Join([]string{req.Method, path, canonicalQuery(req.URL.Query()), canonHdrs.String(), signed, sha256Hex(body)}, "\n")
	scope := date + "/" + region + "/" + service + "/aws4_request"
	sts := "AWS4-HMAC-SHA256\n" + ts + "\n" + scope + "\n" + sha256Hex([]byte(canon))
	sig := hex.EncodeToString(hmacSHA256(sigV4Key(c.secretKey, date, region, service), sts))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+c.AccessKey+"/"+scope+", SignedHeaders="+signed+", Signature="+sig)
}

func canonicalQuery(q url.Values) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		vs := append([]string(nil), q[k]...)
		sort.Strings(vs)
		for _, v := range vs {
			parts = append(parts, awsEscape(k)+"="+awsEscape(v))
		}
	}
	return strings.Join(parts, "&")
}

func awsEscape(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}
