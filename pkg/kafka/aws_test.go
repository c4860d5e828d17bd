package kafka

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// AWS's published SigV4 example (IAM ListUsers, 2015-08-30).
func TestSigV4PublishedVector(t *testing.T) {
	if got := hex.EncodeToString(sigV4Key("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20150830", "us-east-1", "iam")); got != "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9" {
		t.Fatalf("signing key %s", got)
	}
	req, _ := http.NewRequest(http.MethodGet, "https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08", nil)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	ts, _ := time.Parse("20060102T150405Z", "20150830T123600Z")
	signV4(req, nil, &awsCreds{AccessKey: "AKIDEXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"}, "us-east-1", "iam", ts)
	want := "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
	if got := req.Header.Get("Authorization"); got != want {
		t.Fatalf("Authorization\n got %s\nwant %s", got, want)
	}
}

func awsSettings(t *testing.T, env map[string]string, jaasOpts string) *Settings {
	t.Helper()
	s, err := awsParse(t, env, jaasOpts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func awsParse(t *testing.T, env map[string]string, jaasOpts string) (*Settings, error) {
	t.Helper()
	text := "security.protocol=SASL_SSL\nsasl.mechanism=AWS_MSK_IAM\nsasl.client.callback.handler.class=software.amazon.msk.auth.iam.IAMClientCallbackHandler\n" +
		"sasl.jaas.config=software.amazon.msk.auth.iam.IAMLoginModule required " + jaasOpts + ";\n"
	pr := props(t, text)
	s := newSettings(Admin)
	s.aws.getenv = func(k string) string { return env[k] }
	for _, k := range pr.Keys() {
		v, _ := pr.Get(k)
		if err := properties[k].apply(s, v); err != nil {
			return nil, err
		}
	}
	return s, s.finish()
}

// challenge runs the MSK IAM mechanism for host and returns the JSON payload.
func challenge(t *testing.T, s *Settings, host string) (map[string]string, error) {
	t.Helper()
	m := s.saslMechanism()
	if m == nil || m.Name() != "AWS_MSK_IAM" {
		t.Fatalf("mechanism %v", m)
	}
	_, b, err := m.Authenticate(context.Background(), host)
	if err != nil {
		return nil, err
	}
	var out map[string]string
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("payload %s: %v", b, err)
	}
	return out, nil
}

// verifyPresigned recomputes the query-string SigV4 signature of an MSK IAM
// payload with an independent canonicalisation and compares.
func verifyPresigned(t *testing.T, p map[string]string, secret string) {
	t.Helper()
	q := url.Values{}
	for k, v := range p {
		switch k {
		case "version", "host", "user-agent", "x-amz-signature":
			continue
		case "action":
			q.Set("Action", v)
		default:
			// The payload lower-cases the query parameter names.
			names := map[string]string{"x-amz-algorithm": "X-Amz-Algorithm", "x-amz-credential": "X-Amz-Credential", "x-amz-date": "X-Amz-Date",
				"x-amz-expires": "X-Amz-Expires", "x-amz-signedheaders": "X-Amz-SignedHeaders", "x-amz-security-token": "X-Amz-Security-Token"}
			n, ok := names[k]
			if !ok {
				t.Fatalf("unexpected payload field %q", k)
			}
			q.Set(n, v)
		}
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var qs []string
	for _, k := range keys {
		qs = append(qs, awsEscape(k)+"="+awsEscape(q.Get(k)))
	}
	canon := "GET\n/\n" + strings.Join(qs, "&") + "\nhost:" + p["host"] + "\n\nhost\n" + sha256Hex(nil)
	ts := p["x-amz-date"]
	cred := strings.SplitN(p["x-amz-credential"], "/", 2)
	scope := cred[1]
	parts := strings.Split(scope, "/")
	sts := "AWS4-HMAC-SHA256\n" + ts + "\n" + scope + "\n" + sha256Hex([]byte(canon))
	want := hex.EncodeToString(hmacSHA256(sigV4Key(secret, parts[0], parts[1], parts[2]), sts))
	if p["x-amz-signature"] != want {
		t.Fatalf("signature %s, independently computed %s", p["x-amz-signature"], want)
	}
}

const mskHost = "b-1.demo.abc123.c2.kafka.eu-west-1.amazonaws.com:9098"

func TestMSKIAMEnvironmentCredentials(t *testing.T) {
	env := map[string]string{"AWS_ACCESS_KEY_ID": "AKIAENVEXAMPLE", "AWS_SECRET_ACCESS_KEY": "env-secret-key", "AWS_SESSION_TOKEN": "env-session-token"}
	s := awsSettings(t, env, "")
	if len(s.Ignored) != 0 {
		t.Fatalf("IAMClientCallbackHandler reported: %v", s.Ignored)
	}
	p, err := challenge(t, s, mskHost)
	if err != nil {
		t.Fatal(err)
	}
	if p["action"] != "kafka-cluster:Connect" || p["host"] != "b-1.demo.abc123.c2.kafka.eu-west-1.amazonaws.com" || p["version"] != "2020_10_22" ||
		p["x-amz-algorithm"] != "AWS4-HMAC-SHA256" || p["x-amz-expires"] != "900" || p["x-amz-signedheaders"] != "host" ||
		p["x-amz-security-token"] != "env-session-token" ||
		!strings.HasPrefix(p["x-amz-credential"], "AKIAENVEXAMPLE/") || !strings.HasSuffix(p["x-amz-credential"], "/eu-west-1/kafka-cluster/aws4_request") {
		t.Fatalf("payload %v", p)
	}
	verifyPresigned(t, p, "env-secret-key")
	// A host without a region uses AWS_REGION.
	t.Setenv("AWS_REGION", "ap-south-1") // read by franz-go's signer
	p, err = challenge(t, awsSettings(t, env, ""), "127.0.0.1:9098")
	if err != nil || !strings.HasSuffix(p["x-amz-credential"], "/ap-south-1/kafka-cluster/aws4_request") {
		t.Fatalf("AWS_REGION: %v %v", p, err)
	}
	verifyPresigned(t, p, "env-secret-key")
}

func writeAWSFiles(t *testing.T, creds, conf string) map[string]string {
	dir := t.TempDir()
	cf := filepath.Join(dir, "credentials")
	cc := filepath.Join(dir, "config")
	_ = os.WriteFile(cf, []byte(creds), 0o600)
	_ = os.WriteFile(cc, []byte(conf), 0o600)
	return map[string]string{"AWS_SHARED_CREDENTIALS_FILE": cf, "AWS_CONFIG_FILE": cc, "HOME": dir}
}

func TestMSKIAMSharedProfiles(t *testing.T) {
	creds := "[default]\naws_access_key_id = AKIADEFAULT\naws_secret_access_key = default-secret\n\n[ops]\naws_access_key_id=AKIAOPS\naws_secret_access_key=ops-secret\naws_session_token=ops-token\n"
	conf := "[profile proc]\ncredential_process = printf '{\"Version\":1,\"AccessKeyId\":\"AKIAPROC\",\"SecretAccessKey\":\"proc-secret\"}'\n[profile empty]\nregion=us-east-1\n"
	env := writeAWSFiles(t, creds, conf)
	for _, c := range []struct {
		name, opts, profileEnv, akid, secret string
	}{
		{"default profile", "", "", "AKIADEFAULT", "default-secret"},
		{"AWS_PROFILE", "", "ops", "AKIAOPS", "ops-secret"},
		{"awsProfileName", `awsProfileName="ops"`, "", "AKIAOPS", "ops-secret"},
		{"credential_process", `awsProfileName="proc"`, "", "AKIAPROC", "proc-secret"},
	} {
		e := map[string]string{}
		for k, v := range env {
			e[k] = v
		}
		if c.profileEnv != "" {
			e["AWS_PROFILE"] = c.profileEnv
		}
		p, err := challenge(t, awsSettings(t, e, c.opts), mskHost)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !strings.HasPrefix(p["x-amz-credential"], c.akid+"/") {
			t.Fatalf("%s: credential %s", c.name, p["x-amz-credential"])
		}
		verifyPresigned(t, p, c.secret)
	}
	for _, c := range []struct{ opts, want string }{
		{`awsProfileName="missing"`, `AWS_MSK_IAM: profile "missing" not found`},
		{`awsProfileName="empty"`, `AWS_MSK_IAM: profile "empty" has no credentials`},
	} {
		_, err := challenge(t, awsSettings(t, env, c.opts), mskHost)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.opts, err)
		}
	}
	_, err := challenge(t, awsSettings(t, map[string]string{"HOME": t.TempDir()}, ""), mskHost)
	if err == nil || !strings.Contains(err.Error(), "no AWS credentials found") {
		t.Errorf("no credentials: %v", err)
	}
}

// fakeSTS answers AssumeRole after checking the request's SigV4 signature
// against the base credentials.
func fakeSTS(t *testing.T, akid, secret string, calls *atomic.Int32) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(body))
		auth := r.Header.Get("Authorization")
		ts, _ := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
		check, _ := http.NewRequest(r.Method, "http://"+r.Host+r.URL.String(), nil)
		check.Header.Set("Content-Type", r.Header.Get("Content-Type"))
		region := strings.Split(strings.Split(auth, "Credential=")[1], "/")[2]
		signV4(check, body, &awsCreds{AccessKey: akid, secretKey: secret, sessionToken: r.Header.Get("X-Amz-Security-Token")}, region, "sts", ts)
		if auth != check.Header.Get("Authorization") || form.Get("Action") != "AssumeRole" {
			w.WriteHeader(403)
			fmt.Fprint(w, `<ErrorResponse><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message></Error></ErrorResponse>`)
			return
		}
		fmt.Fprintf(w, `<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>ASIAROLE</AccessKeyId><SecretAccessKey>role-secret</SecretAccessKey><SessionToken>role-token-%s</SessionToken><Expiration>%s</Expiration></Credentials></AssumeRoleResult></AssumeRoleResponse>`,
			form.Get("RoleSessionName"), time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	}))
}

func TestMSKIAMAssumeRole(t *testing.T) {
	var calls atomic.Int32
	sts := fakeSTS(t, "AKIABASE", "base-secret", &calls)
	defer sts.Close()
	env := writeAWSFiles(t, "[base]\naws_access_key_id=AKIABASE\naws_secret_access_key=base-secret\n", "[profile role]\nrole_arn=arn:aws:iam::123456789012:role/kafka\nsource_profile=base\nrole_session_name=from-profile\n")
	env["AWS_ENDPOINT_URL_STS"] = sts.URL
	for _, c := range []struct{ name, opts, session string }{
		{"awsRoleArn with awsProfileName", `awsProfileName="base" awsRoleArn="arn:aws:iam::123456789012:role/kafka" awsRoleSessionName="kbox-test" awsStsRegion="eu-west-1"`, "kbox-test"},
		{"awsRoleArn with role keys", `awsRoleArn="arn:aws:iam::123456789012:role/kafka" awsRoleAccessKeyId="AKIABASE" awsRoleSecretAccessKey="base-secret"`, "aws-msk-iam-auth"},
		{"profile with role_arn + source_profile", `awsProfileName="role"`, "from-profile"},
	} {
		s := awsSettings(t, env, c.opts)
		p, err := challenge(t, s, mskHost)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !strings.HasPrefix(p["x-amz-credential"], "ASIAROLE/") || p["x-amz-security-token"] != "role-token-"+c.session {
			t.Fatalf("%s: payload %v", c.name, p)
		}
		verifyPresigned(t, p, "role-secret")
		// Cached until shortly before expiry.
		n := calls.Load()
		if _, err := challenge(t, s, mskHost); err != nil || calls.Load() != n {
			t.Fatalf("%s: assumed credentials not cached", c.name)
		}
	}
	// Wrong base secret: STS refuses; one line, no secret.
	_, err := challenge(t, awsSettings(t, env, `awsRoleArn="arn:aws:iam::123456789012:role/kafka" awsRoleAccessKeyId="AKIABASE" awsRoleSecretAccessKey="wrong-aws-secret"`), mskHost)
	if err == nil || !strings.Contains(err.Error(), "STS answered HTTP 403 SignatureDoesNotMatch") {
		t.Fatalf("wrong secret: %v", err)
	}
	assertNoSecret(t, "sts", err, "wrong-aws-secret", "base-secret")
}

func TestMSKIAMConfigErrors(t *testing.T) {
	for _, c := range []struct{ opts, want string }{
		{`awsRoleAccessKeyId="A"`, "awsRoleAccessKeyId and awsRoleSecretAccessKey must be set together"},
		{`awsRoleAccessKeyId="A" awsRoleSecretAccessKey="s3"`, "awsRoleAccessKeyId needs awsRoleArn"},
	} {
		if _, err := awsParse(t, nil, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.opts, err)
		}
	}
	s := awsSettings(t, map[string]string{"AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "B"}, `awsBogus="x"`)
	if len(s.Ignored) != 1 || !strings.Contains(s.Ignored[0].String(), "awsBogus") {
		t.Errorf("unknown option not reported: %v", s.Ignored)
	}
	if _, err := challenge(t, awsSettings(t, map[string]string{"AWS_ACCESS_KEY_ID": "A"}, ""), mskHost); err == nil || !strings.Contains(err.Error(), "must be set together") {
		t.Errorf("half env credentials: %v", err)
	}
}
