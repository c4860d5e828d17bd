package console

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(t *testing.T, props map[string]string, input string) ([]Record, error) {
	t.Helper()
	cfg, err := NewLineReaderConfig(props)
	if err != nil {
		return nil, err
	}
	lr := NewLineReader(cfg, iotest.OneByteReader(strings.NewReader(input)))
	var out []Record
	for {
		r, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
}

func lineRec(key, value any, headers ...Header) Record {
	r := Record{Topic: "t", Partition: -1, Offset: -1, Timestamp: -1, Headers: headers}
	if key != nil {
		r.Key = []byte(key.(string))
	}
	if value != nil {
		r.Value = []byte(value.(string))
	}
	return r
}

func hdr(k string, v any) Header {
	if v == nil {
		return Header{Key: k}
	}
	return Header{Key: k, Value: []byte(v.(string))}
}

func TestLineReader(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props map[string]string
		in    string
		want  []Record
		err   string
	}{
		{"plain", nil, "a\nb c\n\nlast", []Record{lineRec(nil, "a"), lineRec(nil, "b c"), lineRec(nil, ""), lineRec(nil, "last")}, ""},
		{"crlf and cr", nil, "a\r\nb\rc\n", []Record{lineRec(nil, "a"), lineRec(nil, "b"), lineRec(nil, "c")}, ""},
		{"cr then lf across lines", nil, "a\r\r\nb", []Record{lineRec(nil, "a"), lineRec(nil, ""), lineRec(nil, "b")}, ""},
		{"empty input", nil, "", nil, ""},
		{"key", map[string]string{"parse.key": " TRUE "}, "k\tv\n\tempty key\nk2\tv\tmore\n", []Record{lineRec("k", "v"), lineRec("", "empty key"), lineRec("k2", "v\tmore")}, ""},
		{"key separator", map[string]string{"parse.key": "true", "key.separator": "::"}, "a::b::c\n", []Record{lineRec("a", "b::c")}, ""},
		{"missing key separator", map[string]string{"parse.key": "true"}, "k\tv\nnokey\n", []Record{lineRec("k", "v")}, "No key separator found on line number 2: 'nokey'"},
		{"ignore error", map[string]string{"parse.key": "true", "ignore.error": "true"}, "nokey\n", []Record{lineRec(nil, "nokey")}, ""},
		{"headers", map[string]string{"parse.headers": "true", "parse.key": "true"}, "h1:v1,h2:v2\tk\tv\n", []Record{lineRec("k", "v", hdr("h1", "v1"), hdr("h2", "v2"))}, ""},
		{"header value with separator", map[string]string{"parse.headers": "true"}, "h:a:b\tv\n", []Record{lineRec(nil, "v", hdr("h", "a:b"))}, ""},
		{"empty headers", map[string]string{"parse.headers": "true", "parse.key": "true"}, "h1:v1\tk\tv\n\tk2\tv2\n", []Record{lineRec("k", "v", hdr("h1", "v1"))}, "No header key separator found in pair '' on line number 2"},
		{"trailing separators dropped", map[string]string{"parse.headers": "true"}, "a:1,,b:2,,\tv\n", nil, "No header key separator found in pair '' on line number 1"},
		{"only separators", map[string]string{"parse.headers": "true"}, ",,\tv\n", []Record{lineRec(nil, "v")}, ""},
		{"trailing separators", map[string]string{"parse.headers": "true"}, "a:1,\tv\n", []Record{lineRec(nil, "v", hdr("a", "1"))}, ""},
		{"header without key separator ignored", map[string]string{"parse.headers": "true", "ignore.error": "true"}, "novalue,h:x\tv\n", []Record{lineRec(nil, "v", hdr("novalue", nil), hdr("h", "x"))}, ""},
		{"headers separator is a regex", map[string]string{"parse.headers": "true", "headers.separator": "[;|]"}, "a:1;b:2|c:3\tv\n", []Record{lineRec(nil, "v", hdr("a", "1"), hdr("b", "2"), hdr("c", "3"))}, ""},
		{"missing headers delimiter", map[string]string{"parse.headers": "true"}, "noheaders\n", nil, "No headers delimiter found on line number 1: 'noheaders'"},
		{"custom delimiters", map[string]string{"parse.headers": "true", "parse.key": "true", "headers.delimiter": "|", "headers.separator": ";", "headers.key.separator": "=", "key.separator": "#"}, "a=1;b=2|k#v\n", []Record{lineRec("k", "v", hdr("a", "1"), hdr("b", "2"))}, ""},
		{"null marker", map[string]string{"parse.headers": "true", "parse.key": "true", "null.marker": "NULL"}, "h:NULL\tNULL\tNULL\nNULL\tk\tv\n", []Record{lineRec(nil, nil, hdr("h", nil)), lineRec("k", "v")}, ""},
		{"null marker header key", map[string]string{"parse.headers": "true", "null.marker": "N"}, "N:x\tv\n", nil, "Header keys should not be equal to the null marker 'N' as they can't be null"},
		// Java 17's decoder on each case (captured with BufferedReader).
		{"invalid utf-8", nil, "a\xffb\xe2\x82c\xed\xa0\x80\n\xed\xa0x\n\xf0\x80\x80\x80\n\xf4\x90x\n\xc0\x80\n\xf0\x9f\x98x\n\xe0\x80\x80\n",
			[]Record{lineRec(nil, "a\uFFFDb\uFFFDc\uFFFD"), lineRec(nil, "\uFFFDx"), lineRec(nil, "\uFFFD\uFFFD\uFFFD\uFFFD"), lineRec(nil, "\uFFFD\uFFFDx"), lineRec(nil, "\uFFFD\uFFFD"), lineRec(nil, "\uFFFDx"), lineRec(nil, "\uFFFD\uFFFD\uFFFD")}, ""},
		{"topic from props", map[string]string{"topic": "other"}, "x\n", []Record{{Topic: "other", Partition: -1, Offset: -1, Timestamp: -1, Value: []byte("x")}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			props := map[string]string{"topic": "t"}
			for k, v := range tc.props {
				props[k] = v
			}
			got, err := readAll(t, props, tc.in)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				var re *ReaderError
				if !errors.As(err, &re) || re.Class != "org.apache.kafka.common.KafkaException" {
					t.Errorf("error %#v is not a KafkaException", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("records\n%#v\nwant\n%#v", got, tc.want)
			}
		})
	}
}

func TestLineReaderEmptyKeyIsNotNull(t *testing.T) {
	got, err := readAll(t, map[string]string{"topic": "t", "parse.key": "true"}, "\tv\n")
	if err != nil || len(got) != 1 || got[0].Key == nil || len(got[0].Key) != 0 {
		t.Fatalf("got %#v, %v: want an empty, non-null key", got, err)
	}
}

func TestLineReaderConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		props map[string]string
		err   string
	}{
		{map[string]string{"headers.delimiter": ","}, "headers.delimiter and headers.separator may not be equal"},
		{map[string]string{"headers.key.separator": "\t"}, "headers.delimiter and headers.key.separator may not be equal"},
		{map[string]string{"headers.separator": ":"}, "headers.separator and headers.key.separator may not be equal"},
		{map[string]string{"null.marker": "\t", "key.separator": "\t", "headers.delimiter": "|"}, "null.marker and key.separator may not be equal"},
		{map[string]string{"null.marker": ","}, "null.marker and headers.separator may not be equal"},
		{map[string]string{"null.marker": "|", "headers.delimiter": "|", "key.separator": "#"}, "null.marker and headers.delimiter may not be equal"},
		{map[string]string{"null.marker": ":"}, "null.marker and headers.key.separator may not be equal"},
	} {
		_, err := NewLineReaderConfig(tc.props)
		if err == nil || err.Error() != tc.err {
			t.Errorf("%v: error %v, want %q", tc.props, err, tc.err)
		}
	}
	if _, err := NewLineReaderConfig(map[string]string{"headers.separator": "["}); err == nil {
		t.Error("a bad headers.separator regex was accepted")
	}
}
