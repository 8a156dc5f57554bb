package idmint_test

// idmint's rows of docs/bench/go.md. The peers' rows (bwmarrin/snowflake, sony/sonyflake, the
// MongoDB driver's ObjectId) are measured in the same `go test -bench` process by a module
// outside this repository that copies this file beside its own (docs/bench/go.md says how):
// the repository holds none of the peers' code.
//
//	go test -run '^$' -bench . -benchtime 1s -count 5

import (
	"testing"

	idmint "github.com/idmint/idmint/go"
)

// sink keeps the compiler from dropping what a loop computes.
var sink uint64

// BenchmarkIdmintSnowflakeLeaf is bwmarrin/snowflake's layout, the leaf preset (41 bits of
// ms, a 10-bit worker, 12 of sequence, Twitter's epoch), one goroutine. The cap is 4,096 IDs a
// ms: 244 ns/ID.
func BenchmarkIdmintSnowflakeLeaf(b *testing.B) {
	gen := newGen(b, "leaf", idmint.Node("worker", 1))
	for i := 0; i < b.N; i++ {
		id, err := gen.NextID()
		if err != nil {
			b.Fatal(err)
		}
		sink += id
	}
}

// BenchmarkIdmintSnowflakeLeafParallel is one generator of that layout shared by GOMAXPROCS
// goroutines.
func BenchmarkIdmintSnowflakeLeafParallel(b *testing.B) {
	gen := newGen(b, "leaf", idmint.Node("worker", 1))
	parallelIDs(b, gen.NextID)
}

// BenchmarkIdmintSnowflakeSonyflake is the sonyflake preset (39 bits of 10 ms, 8 of sequence,
// 16 machine bits, sonyflake's epoch): capped at 256 IDs a 10 ms tick, 39 µs/ID.
func BenchmarkIdmintSnowflakeSonyflake(b *testing.B) {
	gen := newGen(b, "sonyflake", idmint.Node("machine", 1))
	for i := 0; i < b.N; i++ {
		id, err := gen.NextID()
		if err != nil {
			b.Fatal(err)
		}
		sink += id
	}
}

// BenchmarkIdmintSnowflakeSonyflakeParallel is one sonyflake generator shared by GOMAXPROCS
// goroutines.
func BenchmarkIdmintSnowflakeSonyflakeParallel(b *testing.B) {
	gen := newGen(b, "sonyflake", idmint.Node("machine", 1))
	parallelIDs(b, gen.NextID)
}

// BenchmarkIdmintIDLeaf reads an ID's fields in Go by the core's bit table (Layout.ID, then
// time, node and sequence) at bwmarrin/snowflake's layout, the leaf preset (time 41 bits of
// ms, worker 10, sequence 12, Twitter's epoch): bwmarrin's ParseInt64 and Time/Node/Step.
func BenchmarkIdmintIDLeaf(b *testing.B) {
	l := newLayout(b, "leaf")
	id := uint64(1541815603606036480)
	for i := 0; i < b.N; i++ {
		// A different ID each time (the low bits), so nothing is computed once for all.
		f, err := l.ID(id ^ uint64(i&0xff))
		if err != nil {
			b.Fatal(err)
		}
		sink += uint64(f.TimeMs()) + f.Node(0) + f.Sequence()
	}
}

// BenchmarkIdmintIDTwitter is the same on twitter's layout (two node fields of 5 bits).
func BenchmarkIdmintIDTwitter(b *testing.B) {
	l := newLayout(b, "twitter")
	id := uint64(1541815603606036480)
	for i := 0; i < b.N; i++ {
		f, err := l.ID(id ^ uint64(i&0xff))
		if err != nil {
			b.Fatal(err)
		}
		sink += uint64(f.TimeMs()) + f.Node(0) + f.Node(1) + f.Sequence()
	}
}

// BenchmarkIdmintIDSonyflake reads a sonyflake ID's time, sequence and machine.
func BenchmarkIdmintIDSonyflake(b *testing.B) {
	l := newLayout(b, "sonyflake")
	id := uint64(557956815183970305)
	for i := 0; i < b.N; i++ {
		f, err := l.ID(id ^ uint64(i&0xff))
		if err != nil {
			b.Fatal(err)
		}
		sink += uint64(f.TimeMs()) + f.Sequence() + f.Node(0)
	}
}

// BenchmarkIdmintDecomposeTwitter is Layout.DecomposeInto: every field at once, no allocation.
func BenchmarkIdmintDecomposeTwitter(b *testing.B) {
	l := newLayout(b, "twitter")
	id := uint64(1541815603606036480)
	nodes := make([]uint64, len(l.NodeNames()))
	for i := 0; i < b.N; i++ {
		t, seq, err := l.DecomposeInto(id^uint64(i&0xff), nodes)
		if err != nil {
			b.Fatal(err)
		}
		sink += uint64(t) + seq + nodes[0] + nodes[1]
	}
}

// BenchmarkIdmintDecomposeSonyflake is Layout.Decompose (its nodes allocated), sonyflake's
// Decompose's counterpart.
func BenchmarkIdmintDecomposeSonyflake(b *testing.B) {
	l := newLayout(b, "sonyflake")
	id := uint64(557956815183970305)
	for i := 0; i < b.N; i++ {
		p, err := l.Decompose(id ^ uint64(i&0xff))
		if err != nil {
			b.Fatal(err)
		}
		sink += uint64(p.TimeMs) + p.Sequence + uint64(p.Nodes[0].Value)
	}
}

// BenchmarkIdmintParseText is idmint.Parse (decimal text, through cgo: the parser of every
// format), for comparison with the Layout rows.
func BenchmarkIdmintParseText(b *testing.B) {
	for i := 0; i < b.N; i++ {
		d, err := idmint.Parse("1541815603606036480", "twitter")
		if err != nil {
			b.Fatal(err)
		}
		sink += uint64(d.TimeMs)
	}
}

// BenchmarkIdmintObjectID is NewObjectID, one goroutine. The core's cap is 2^24 a second
// (59.6 ns/ID): past it an ObjectId would repeat, so it waits for the next second.
func BenchmarkIdmintObjectID(b *testing.B) {
	for i := 0; i < b.N; i++ {
		o := idmint.NewObjectID()
		sink += uint64(o[11])
	}
}

// BenchmarkIdmintObjectIDParallel is NewObjectID on GOMAXPROCS goroutines.
func BenchmarkIdmintObjectIDParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		var s uint64
		for pb.Next() {
			o := idmint.NewObjectID()
			s += uint64(o[11])
		}
		sinkAdd(s)
	})
}

func newGen(b *testing.B, layout string, opts ...idmint.Option) *idmint.Snowflake {
	gen, err := idmint.NewSnowflake(layout, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { gen.Close() })
	b.ResetTimer()
	return gen
}

func parallelIDs(b *testing.B, next func() (uint64, error)) {
	b.RunParallel(func(pb *testing.PB) {
		var s uint64
		for pb.Next() {
			id, err := next()
			if err != nil {
				b.Error(err)
				return
			}
			s += id
		}
		sinkAdd(s)
	})
}

func newLayout(b *testing.B, spec string) *idmint.Layout {
	l, err := idmint.ParseLayout(spec)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	return l
}

var sinkMu = make(chan struct{}, 1)

func sinkAdd(s uint64) {
	sinkMu <- struct{}{}
	sink += s
	<-sinkMu
}
