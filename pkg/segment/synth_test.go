package segment

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
)

// TestWriteSynthetic writes the synthetic segment files of
// cmd/dumplog/testdata (records of every generated schema with every field
// set, built from the tables; producer snapshots and transaction indexes)
// when KBOX_SEGMENT_SYNTH names a directory. Apache's kafka-dump-log then
// prints them for the captures (cmd/dumplog/testdata/cases.txt).
func TestWriteSynthetic(t *testing.T) {
	dir := os.Getenv("KBOX_SEGMENT_SYNTH")
	if dir == "" {
		t.Skip("KBOX_SEGMENT_SYNTH not set")
	}
	for name, b := range synthetic() {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The synthetic files Apache printed for the captures are the ones the
// tables make: a change of the tables (a new Kafka's schemas) needs new
// files and new captures.
func TestSyntheticUpToDate(t *testing.T) {
	for name, b := range synthetic() {
		got, err := os.ReadFile(filepath.Join("..", "..", "cmd", "dumplog", "testdata", name))
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("cmd/dumplog/testdata/%s is not what the tables make (%v): run TestWriteSynthetic and capture Apache's output again", name, err)
		}
	}
}

func synthetic() map[string][]byte {
	good := producerSnapshot(1, true)
	return map[string][]byte{
		"00000000000000001000.log":      segmentOf(coordinatorRecords(groupRecords)),
		"00000000000000002000.log":      segmentOf(coordinatorRecords(shareRecords)),
		"00000000000000003000.log":      segmentOf(framedRecords(metadataRecords)),
		"00000000000000004000.log":      segmentOf(framedRecords(remoteRecords)),
		"00000000000000005000.snapshot": good,
		"00000000000000005001.snapshot": producerSnapshot(1, false),
		"00000000000000005002.snapshot": producerSnapshot(2, true),
		"00000000000000005003.snapshot": good[:len(good)-5],
		"00000000000000005004.snapshot": append(good[:6:6], 0, 0, 1, 0),
		"00000000000000005005.snapshot": append(good[:6:6], 0xff, 0xff, 0xff, 0xff),
		"00000000000000005006.snapshot": good[:1],
		"00000000000000005000.txnindex": txnIndex(0),
		"00000000000000005001.txnindex": txnIndex(3),
	}
}

// highest is the highest version a schema's fields name (its newest
// field's first version).
func highest(s *schema) int16 {
	var v int16
	var walk func([]field)
	walk = func(fs []field) {
		for _, f := range fs {
			v = max(v, f.min)
			walk(f.fields)
		}
	}
	walk(s.fields)
	return v
}

func coordinatorRecords(types map[int16]recordType) [][2][]byte {
	var out [][2][]byte
	for _, typ := range sortedKeys(types) {
		rt := types[typ]
		key := binary.BigEndian.AppendUint16(nil, uint16(typ))
		key = rt.key.encode(key, 0)
		v := highest(rt.value)
		value := rt.value.encode(binary.BigEndian.AppendUint16(nil, uint16(v)), v)
		noTags = true
		bare := rt.value.encode(binary.BigEndian.AppendUint16(nil, uint16(v)), v)
		noTags = false
		out = append(out, [2][]byte{key, value}, [2][]byte{key, bare}, [2][]byte{key, nil},
			// truncated values and keys
			[2][]byte{key, value[:len(value)-1]}, [2][]byte{key, value[:len(value)/2]}, [2][]byte{key, value[:3]},
			[2][]byte{key[:len(key)/2+1], value}, [2][]byte{key[:1], value}, [2][]byte{key, value[:1]})
	}
	// a type no coordinator knows
	return append(out, [2][]byte{{0, 99, 0, 0}, {0, 0}})
}

func framedRecords(types map[int]namedSchema) [][2][]byte {
	keys := make([]int, 0, len(types))
	for k := range types {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var out [][2][]byte
	for _, k := range keys {
		s := types[k]
		for _, v := range []int16{0, highest(s.schema)} {
			b := slices.Clip(binary.AppendUvarint(binary.AppendUvarint(binary.AppendUvarint(nil, 1), uint64(k)), uint64(v)))
			noTags = true
			bare := s.encode(b, v)
			noTags = false
			out = append(out, [2][]byte{nil, s.encode(b, v)}, [2][]byte{nil, bare})
		}
	}
	// what Apache's serde refuses: frame versions 0 and 2, an unknown type,
	// a version newer than Apache's, a truncated record, garbage after
	// one, a value too short for its frame, a type too large
	first := keys[0]
	good := types[first].encode([]byte{1, byte(first), 0}, 0)
	if types[2].name == "RemotePartitionDeleteMetadataRecord" { // states Apache does not know
		for _, k := range []int{1, 2} {
			noTags = true
			b := types[k].encode([]byte{1, byte(k), 0}, 0)
			noTags = false
			b[len(b)-2] = 9
			out = append(out, [2][]byte{nil, b})
		}
		// a segment starting at -1, a segment ending before its start
		// (after the frame and the segment id, 48 bytes: the offsets)
		for _, at := range []int{48, 56} {
			b := types[0].encode([]byte{1, 0, 0}, 0)
			binary.BigEndian.PutUint64(b[at:], ^uint64(0))
			out = append(out, [2][]byte{nil, b})
		}
	}
	return append(out, [2][]byte{nil, []byte{0, byte(first), 0}}, [2][]byte{nil, []byte{2, byte(first), 0}},
		[2][]byte{nil, []byte{1, 99, 0, 0}}, [2][]byte{nil, []byte{1, byte(first), 60, 0}},
		[2][]byte{nil, good[:len(good)-2]}, [2][]byte{nil, append(good, 7, 7)}, [2][]byte{nil, []byte{1}},
		[2][]byte{nil, []byte{1, 0xff, 0xff, 0x03, 0}})
}

func sortedKeys(m map[int16]recordType) []int16 {
	var ks []int16
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

// encode appends a message of s at version v whose every field is set
// (tagged fields too, to values other than their defaults, unless
// noTags).
func (s *schema) encode(b []byte, v int16) []byte {
	return encodeFields(b, s.fields, v, s.flexible >= 0 && v >= s.flexible)
}

var noTags bool

func encodeFields(b []byte, fs []field, v int16, flex bool) []byte {
	for i := range fs {
		if f := &fs[i]; f.tag < 0 && f.in(v) {
			b = encodeValue(b, f, v, flex)
		}
	}
	if !flex {
		return b
	}
	var tagged []*field
	for i := range fs {
		if f := &fs[i]; f.tag >= 0 && f.in(v) && !noTags {
			tagged = append(tagged, f)
		}
	}
	sort.Slice(tagged, func(i, j int) bool { return tagged[i].tag < tagged[j].tag })
	b = binary.AppendUvarint(b, uint64(len(tagged)))
	for _, f := range tagged {
		data := encodeValue(nil, f, v, true)
		b = binary.AppendUvarint(binary.AppendUvarint(b, uint64(f.tag)), uint64(len(data)))
		b = append(b, data...)
	}
	return b
}

func appendLen(b []byte, n int, flex, wide bool) []byte {
	switch {
	case flex:
		return binary.AppendUvarint(b, uint64(n+1))
	case wide:
		return binary.BigEndian.AppendUint32(b, uint32(n))
	}
	return binary.BigEndian.AppendUint16(b, uint16(n))
}

func encodeValue(b []byte, f *field, v int16, flex bool) []byte {
	switch f.typ {
	case "bool":
		return append(b, 1)
	case "int8":
		return append(b, 1)
	case "int16":
		return binary.BigEndian.AppendUint16(b, 2)
	case "uint16":
		return binary.BigEndian.AppendUint16(b, 65000)
	case "int32":
		return binary.BigEndian.AppendUint32(b, 3)
	case "uint32":
		return binary.BigEndian.AppendUint32(b, 4000000000)
	case "int64":
		return binary.BigEndian.AppendUint64(b, 1796219786255)
	case "float64":
		return binary.BigEndian.AppendUint64(b, 0x4097700000000000) // 1500.0
	case "uuid":
		return append(b, "kbox-uuid-0123\xfe\xff"...)
	case "string":
		s := "x-" + f.name
		return append(appendLen(b, len(s), flex, false), s...)
	case "bytes":
		return append(appendLen(b, 3, flex, true), 1, 2, 0xff)
	case "struct":
		if f.null >= 0 && v >= f.null {
			b = append(b, 1) // present: a varint 1 or an int8 1
		}
		return encodeFields(b, f.fields, v, flex)
	}
	b = appendLen(b, 2, flex, true)
	for i := range 2 {
		switch f.typ {
		case "[]int16":
			b = binary.BigEndian.AppendUint16(b, uint16(i+7))
		case "[]int32":
			b = binary.BigEndian.AppendUint32(b, uint32(i+1))
		case "[]int64":
			b = binary.BigEndian.AppendUint64(b, uint64(i+1))
		case "[]uuid":
			b = append(b, "kbox-uuid-4567\x00"...)
			b = append(b, byte(i))
		case "[]string":
			b = append(appendLen(b, 2, flex, false), 'e', byte('0'+i))
		default:
			b = encodeFields(b, f.fields, v, flex)
		}
	}
	return b
}

// segmentOf is a log of one batch per record from offset 0 (the name's
// base offset aside: a gap would be reported with the file's absolute path) (keys and values; a nil
// value is a tombstone, a nil key none).
func segmentOf(recs [][2][]byte) []byte {
	var out []byte
	for i, r := range recs {
		out = append(out, batch(int64(i), 0, -1, rawRecord(r[0], r[1]))...)
	}
	return out
}

func rawRecord(key, value []byte) []byte {
	b := []byte{0}
	b = binary.AppendVarint(b, 0)
	b = binary.AppendVarint(b, 0)
	for _, x := range [][]byte{key, value} {
		if x == nil {
			b = binary.AppendVarint(b, -1)
		} else {
			b = binary.AppendVarint(b, int64(len(x)))
			b = append(b, x...)
		}
	}
	b = binary.AppendVarint(b, 0)
	return append(binary.AppendVarint(nil, int64(len(b))), b...)
}

// producerSnapshot is a snapshot of three producers (one in a
// transaction, one whose sequence wraps, one without batches).
func producerSnapshot(version int16, goodCRC bool) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(version))
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, 3)
	type e struct {
		pid            int64
		epoch          int16
		seq            int32
		off            int64
		delta          int32
		ts             int64
		coord          int32
		txnFirstOffset int64
	}
	for _, x := range []e{{1000, 0, 9, 41, 4, 1796219786255, 3, 37}, {1001, 5, 1, 50, 3, 1796219786256, -1, -1}, {1002, 1, -1, -1, 0, -1, 0, -1}} {
		b = binary.BigEndian.AppendUint64(b, uint64(x.pid))
		b = binary.BigEndian.AppendUint16(b, uint16(x.epoch))
		b = binary.BigEndian.AppendUint32(b, uint32(x.seq))
		b = binary.BigEndian.AppendUint64(b, uint64(x.off))
		b = binary.BigEndian.AppendUint32(b, uint32(x.delta))
		b = binary.BigEndian.AppendUint64(b, uint64(x.ts))
		b = binary.BigEndian.AppendUint32(b, uint32(x.coord))
		b = binary.BigEndian.AppendUint64(b, uint64(x.txnFirstOffset))
	}
	crc := crc32.Checksum(b[6:], castagnoli)
	if !goodCRC {
		crc++
	}
	binary.BigEndian.PutUint32(b[2:], crc)
	return b
}

// txnIndex is two aborted transactions, the second of the version given,
// and a partial entry.
func txnIndex(version int16) []byte {
	var b []byte
	for i, v := range []int16{0, version} {
		b = binary.BigEndian.AppendUint16(b, uint16(v))
		for _, x := range []int64{7000 + int64(i), 5000 + 10*int64(i), 5005 + 10*int64(i), 5003 + 10*int64(i)} {
			b = binary.BigEndian.AppendUint64(b, uint64(x))
		}
	}
	return append(b, 0, 0, 1)
}
