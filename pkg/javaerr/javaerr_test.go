package javaerr

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// captured is testdata/errors-4.4.0.tsv: code -> [enum name, class].
func captured(t *testing.T) map[int16][2]string {
	t.Helper()
	b, err := os.ReadFile("testdata/errors-4.4.0.tsv")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int16][2]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(line, "\t")
		code, err := strconv.ParseInt(f[0], 10, 16)
		if len(f) != 3 || err != nil {
			t.Fatalf("bad line %q", line)
		}
		out[int16(code)] = [2]string{f[1], f[2]}
	}
	return out
}

// The table is the captured Errors enum, code for code.
func TestTableIsTheCapturedEnum(t *testing.T) {
	want := captured(t)
	if len(want) != len(classes) || len(want) < 130 {
		t.Fatalf("table has %d codes, the capture %d", len(classes), len(want))
	}
	for code, w := range want {
		if got := Class(code); got != w[1] {
			t.Errorf("Class(%d) (%s) = %q, the jar says %q", code, w[0], got, w[1])
		}
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct {
		code                int16
		class, simple, text string
	}{
		{0, "", "", ""},
		{56, "org.apache.kafka.common.errors.KafkaStorageException", "KafkaStorageException", ""},
		{36, "org.apache.kafka.common.errors.TopicExistsException", "TopicExistsException", ""},
		{30, "org.apache.kafka.common.errors.GroupAuthorizationException", "GroupAuthorizationException", ""},
		{7, "org.apache.kafka.common.errors.TimeoutException", "TimeoutException", ""},
		{12, "org.apache.kafka.common.errors.OffsetMetadataTooLarge", "OffsetMetadataTooLarge", ""}, // no Exception suffix in Java
		{87, "org.apache.kafka.common.InvalidRecordException", "InvalidRecordException", ""},
		{-1, "org.apache.kafka.common.errors.UnknownServerException", "UnknownServerException", ""},
		{9999, "org.apache.kafka.common.errors.UnknownServerException", "UnknownServerException", ""}, // Errors.forCode's fallback
	} {
		if got := Class(c.code); got != c.class {
			t.Errorf("Class(%d) = %q, want %q", c.code, got, c.class)
		}
		if got := SimpleName(c.code); got != c.simple {
			t.Errorf("SimpleName(%d) = %q, want %q", c.code, got, c.simple)
		}
	}
	if got := String(3, "This server does not host this topic-partition."); got != "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition." {
		t.Errorf("String = %q", got)
	}
}

// kafkaLib is the test bed's jar cache of Kafka 4.4.0 (testbed.sh), ""
// when it is not there.
func kafkaLib() string {
	root := os.Getenv("KBOX_KAFKA_CACHE")
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		root = filepath.Join(home, ".cache", "kbox")
	}
	lib := filepath.Join(root, "kafka-4.4.0", "lib")
	if _, err := os.Stat(filepath.Join(lib, "kafka-clients-4.4.0.jar")); err != nil {
		return ""
	}
	return lib
}

// Every class of the table is in the kafka-clients jar, and the jar's
// exception classes of org/apache/kafka/common/errors include them all.
func TestClassesInTheJar(t *testing.T) {
	lib := kafkaLib()
	if lib == "" {
		t.Skip("no kafka-clients-4.4.0.jar in the test bed's cache (test/integration/testbed.sh fetches it)")
	}
	zr, err := zip.OpenReader(filepath.Join(lib, "kafka-clients-4.4.0.jar"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	inJar := map[string]bool{}
	errorsDir := 0
	for _, f := range zr.File {
		if name, ok := strings.CutSuffix(f.Name, ".class"); ok && strings.HasPrefix(name, "org/apache/kafka/common/") {
			inJar[strings.ReplaceAll(name, "/", ".")] = true
			if strings.HasPrefix(name, "org/apache/kafka/common/errors/") {
				errorsDir++
			}
		}
	}
	if errorsDir < 100 {
		t.Fatalf("only %d classes under org/apache/kafka/common/errors", errorsDir)
	}
	for code := range classes {
		if !inJar[Class(code)] {
			t.Errorf("code %d: %s is not in the jar", code, Class(code))
		}
	}
}

// With Java on the PATH, the jar's Errors enum is asked directly
// (testdata/Dump.java) and must print the captured list.
func TestCaptureIsTheJarsEnum(t *testing.T) {
	lib := kafkaLib()
	java, err := exec.LookPath("java")
	if lib == "" || err != nil {
		t.Skip("needs java and the test bed's Kafka 4.4.0 jars")
	}
	slf4j, _ := filepath.Glob(filepath.Join(lib, "slf4j-api-*.jar"))
	cp := strings.Join(append([]string{filepath.Join(lib, "kafka-clients-4.4.0.jar")}, slf4j...), string(os.PathListSeparator))
	out, err := exec.Command(java, "-cp", cp, "testdata/Dump.java").Output()
	if err != nil {
		t.Fatalf("java: %v", err)
	}
	want, err := os.ReadFile("testdata/errors-4.4.0.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(want) {
		t.Fatalf("the jar's Errors enum differs from testdata/errors-4.4.0.tsv:\n%s", out)
	}
}
