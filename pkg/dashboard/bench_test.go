package dashboard

import (
	"io"
	"net/http"
	"testing"

	"github.com/kboxdev/kbox/pkg/playground"
)

// BenchmarkTopicPage10k is one refresh of the topic page of a
// 10,000-partition topic (kfake in the same process: its CPU counts too).
func BenchmarkTopicPage10k(b *testing.B) {
	pg, err := playground.Start(playground.Options{Brokers: 1, Topics: []playground.Topic{{Name: "big", Partitions: 10000}}})
	if err != nil {
		b.Fatal(err)
	}
	defer pg.Close()
	s, err := New(Options{Clusters: []Cluster{clusterOf("a", pg)}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/api/c/a/topics/big?offset=0&limit=100", nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := &discard{h: http.Header{}}
		s.ServeHTTP(w, req)
		if w.code != 0 && w.code != 200 {
			b.Fatalf("status %d", w.code)
		}
	}
}

type discard struct {
	h    http.Header
	code int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return io.Discard.Write(p) }
func (d *discard) WriteHeader(c int)           { d.code = c }
