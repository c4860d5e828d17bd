package kafka

import "testing"

func TestBoundBufferByBytes(t *testing.T) {
	s := &Settings{BufferMemory: 32 << 20}
	s.BoundBufferByBytes(1024, 0)
	want := (32 << 20) / (1024 + RecordOverhead)
	if s.MaxBufferedRecords != want {
		t.Fatalf("1 KiB records: cap %d, want %d", s.MaxBufferedRecords, want)
	}
	if got := s.ProducerMemory(1024); got > 32<<20 || got < 32<<20-(1024+RecordOverhead) {
		t.Errorf("ProducerMemory %d, want ~32 MiB", got)
	}
	// a budget below buffer.memory lowers the cap; a higher count never raises it
	s.BoundBufferByBytes(16, 8<<20)
	if want := (8 << 20) / (16 + RecordOverhead); s.MaxBufferedRecords != want {
		t.Errorf("8 MiB budget: cap %d, want %d", s.MaxBufferedRecords, want)
	}
	s.BoundBufferByBytes(16, 0)
	if s.MaxBufferedRecords != (8<<20)/(16+RecordOverhead) {
		t.Errorf("cap raised to %d", s.MaxBufferedRecords)
	}
	if got := s.ProducerMemory(16); got > 8<<20 {
		t.Errorf("ProducerMemory %d > 8 MiB", got)
	}
	// tiny buffer.memory still lets one record through
	s = &Settings{BufferMemory: 10}
	s.BoundBufferByBytes(1024, 0)
	if s.MaxBufferedRecords != 1 {
		t.Errorf("cap %d, want 1", s.MaxBufferedRecords)
	}
}

func TestMaxBufferedRecordsOpt(t *testing.T) {
	s := newSettings(Producer)
	s.Bootstrap = []string{"127.0.0.1:9092"}
	s.BoundBufferByBytes(1024, 0)
	if _, err := s.Opts(); err != nil {
		t.Fatal(err)
	}
}

func TestEffectiveFetchMaxBytes(t *testing.T) {
	s := &Settings{}
	if s.EffectiveFetchMaxBytes() != 50<<20 {
		t.Errorf("default %d", s.EffectiveFetchMaxBytes())
	}
	v := 1 << 20
	s.FetchMaxBytes = &v
	if s.EffectiveFetchMaxBytes() != 1<<20 {
		t.Errorf("set %d", s.EffectiveFetchMaxBytes())
	}
}
