package perf

// SplittableRandom reproduces java.util.SplittableRandom, so payloads and
// random keys are byte-identical to the Apache tool's for the same seed.
type SplittableRandom struct {
	seed  uint64
	gamma uint64
}

const goldenGamma = 0x9e3779b97f4a7c15

// NewSplittableRandom is `new SplittableRandom(seed)`.
func NewSplittableRandom(seed int64) *SplittableRandom {
	return &SplittableRandom{seed: uint64(seed), gamma: goldenGamma}
}

func mix32(z uint64) int32 {
	z = (z ^ (z >> 33)) * 0x62a9d9ed799705f5
	return int32(((z ^ (z >> 28)) * 0xcb24d0a5c88c35b3) >> 32)
}

func (r *SplittableRandom) nextSeed() uint64 {
	r.seed += r.gamma
	return r.seed
}

// Int32 is nextInt().
func (r *SplittableRandom) Int32() int32 { return mix32(r.nextSeed()) }

// Intn is nextInt(bound) for bound > 0 (Java's bounded rejection algorithm).
func (r *SplittableRandom) Intn(bound int32) int32 {
	rv := r.Int32()
	m := bound - 1
	if bound&m == 0 {
		return rv & m
	}
	u := int32(uint32(rv) >> 1)
	for {
		rv = u % bound
		if u+m-rv >= 0 { // int32 overflow check, as Java's
			return rv
		}
		u = int32(uint32(r.Int32()) >> 1)
	}
}

// FillUpper fills b with uppercase ASCII letters exactly as
// ProducerPerformance does: b[j] = nextInt(26) + 65.
func (r *SplittableRandom) FillUpper(b []byte) {
	for j := range b {
		b[j] = byte(r.Intn(26) + 65)
	}
}
