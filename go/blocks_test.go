package idmint_test

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	idmint "github.com/idmint/idmint/go"
)

// The layout's bit table against the vectors: every valid ID splits as the core splits it,
// every invalid one is the core's error.
func TestLayoutDecomposeVectors(t *testing.T) {
	var v snowflakeVectors
	load(t, "snowflake.json", &v)
	for _, c := range v.Valid {
		l, err := idmint.ParseLayout(c.Layout)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		id, _ := strconv.ParseUint(c.ID, 10, 64)
		p, err := l.Decompose(id)
		if err != nil || p.TimeMs != c.TimeMs || p.Sequence != uint64(c.Sequence) {
			t.Errorf("%s: %+v %v", c.Name, p, err)
			continue
		}
		names := l.NodeNames()
		if len(names) != len(p.Nodes) {
			t.Errorf("%s: nodes %v, names %v", c.Name, p.Nodes, names)
		}
		for i, name := range names {
			if w, ok := c.Fields[name]; ok && (p.Nodes[i] != idmint.NodeValue{Name: name, Value: int64(w)}) {
				t.Errorf("%s: %s = %+v, want %d", c.Name, name, p.Nodes[i], w)
			}
		}
	}
	checked := 0
	for _, c := range v.InvalidIDs {
		id, err := strconv.ParseUint(c.ID, 10, 64)
		if err != nil {
			continue // not a 64-bit number: Parse's vectors, not Decompose's
		}
		l, err := idmint.ParseLayout(c.Layout)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if _, err := l.Decompose(id); !errors.Is(err, &idmint.Error{Kind: c.Error}) {
			t.Errorf("%s: %v, want %s", c.Name, err, c.Error)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no invalid 64-bit IDs in the vectors")
	}
}

func TestLayoutEdgesAndBuffers(t *testing.T) {
	l, err := idmint.ParseLayout("twitter")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(l.NodeNames()) != "[datacenter worker]" {
		t.Fatalf("%v", l.NodeNames())
	}
	var nodes [2]uint64
	tm, seq, err := l.DecomposeInto(1541815603606036480, nodes[:])
	if err != nil || tm != 1656432460105 || nodes != [2]uint64{11, 26} || seq != 0 {
		t.Fatalf("%d %v %d %v", tm, nodes, seq, err)
	}
	// Bits above twitter's 63: the core's invalid_id, through the slow path.
	if _, _, err := l.DecomposeInto(1<<63, nodes[:]); !errors.Is(err, idmint.ErrInvalidId) {
		t.Fatalf("%v", err)
	}
	if _, _, err := l.DecomposeInto(1, nodes[:1]); !errors.Is(err, idmint.ErrInvalidArgument) {
		t.Fatalf("%v", err)
	}
	// mastodon's time field reaches past the year 9999, where the core stops taking IDs apart.
	m, err := idmint.ParseLayout("mastodon")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Decompose(^uint64(0)); !errors.Is(err, idmint.ErrInvalidId) {
		t.Fatalf("%v", err)
	}
	if _, err := idmint.ParseLayout("twiter"); !errors.Is(err, idmint.ErrInvalidLayout) {
		t.Fatalf("%v", err)
	}
}

func TestSnowflakeLayoutIsTheGenerators(t *testing.T) {
	gen, err := idmint.NewSnowflake("time:41,worker:10,sequence:12", idmint.Node("worker", 513), idmint.Epoch("2020-01-01T00:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	l, err := gen.Layout()
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().UnixMilli()
	id, err := gen.NextID()
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.Decompose(id)
	if err != nil || p.Nodes[0].Value != 513 || p.TimeMs < before-1000 || p.TimeMs > time.Now().UnixMilli()+1000 {
		t.Fatalf("%+v %v", p, err)
	}
	gen.Close()
	if _, err := gen.Layout(); !errors.Is(err, idmint.ErrClosed) {
		t.Fatalf("%v", err)
	}
}

// A block of IDs is dropped once the clock's millisecond has passed: an ID handed out after a
// pause carries a time after the pause, not the time its block was taken.
func TestSnowflakeBlockExpiresWithTheMillisecond(t *testing.T) {
	gen, err := idmint.NewSnowflake("twitter", idmint.RandomNodes())
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	if gen.BlockLen() < 2 {
		t.Fatalf("the core gives twitter blocks of %d: nothing to expire", gen.BlockLen())
	}
	l, _ := gen.Layout()
	first, _ := gen.NextID() // takes a block; the rest stays
	// Only makes the condition true (the clock has moved on); nothing is timed.
	time.Sleep(20 * time.Millisecond)
	second, err := gen.NextID()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := l.Decompose(first)
	b, _ := l.Decompose(second)
	if second <= first || b.TimeMs < a.TimeMs+10 {
		t.Fatalf("after a 20 ms pause: %d (t=%d) then %d (t=%d): handed out of a stale block", first, a.TimeMs, second, b.TimeMs)
	}
}

// The block length is the core's: sonyflake's 8-bit sequence gets none.
func TestSnowflakeBlockLenIsTheCores(t *testing.T) {
	gen, err := idmint.NewSnowflake("sonyflake", idmint.Node("machine", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	// sonyflake's 256 a tick / 1024 rounds up to 1: a call for each ID.
	if gen.BlockLen() != 1 {
		t.Fatalf("%d", gen.BlockLen())
	}
	a, _ := gen.NextID()
	b, err := gen.NextID()
	if err != nil || b <= a {
		t.Fatalf("%d %d %v", a, b, err)
	}
}

// The ObjectId block is dropped once the second has passed: an ObjectId made after the pause
// carries a later second.
func TestObjectIDBlockExpiresWithTheSecond(t *testing.T) {
	first := idmint.NewObjectID()
	next := idmint.NewObjectID()
	if next.Hex() <= first.Hex() {
		t.Fatalf("%s then %s", first, next)
	}
	// Only makes the condition true (the second has passed); nothing is timed.
	time.Sleep(time.Until(time.Unix(time.Now().Unix()+1, 50e6)))
	later := idmint.NewObjectID()
	if seconds(later) <= seconds(next) {
		t.Fatalf("after the second passed: %s then %s, handed out of a stale block", next, later)
	}
}

func seconds(o idmint.ObjectID) uint32 {
	return uint32(o[0])<<24 | uint32(o[1])<<16 | uint32(o[2])<<8 | uint32(o[3])
}

func TestLayoutIDReadsFieldByField(t *testing.T) {
	l, _ := idmint.ParseLayout("twitter")
	f, err := l.ID(1541815603606036480)
	if err != nil {
		t.Fatal(err)
	}
	if f.Value() != 1541815603606036480 || f.TimeMs() != 1656432460105 || f.Node(0) != 11 || f.Node(1) != 26 || f.Sequence() != 0 {
		t.Fatalf("%d %d %d %d %d", f.Value(), f.TimeMs(), f.Node(0), f.Node(1), f.Sequence())
	}
	if _, err := l.ID(1 << 63); !errors.Is(err, idmint.ErrInvalidId) {
		t.Fatalf("%v", err)
	}
}

// The goroutine that watches the clock goes idle after a second without blocks, dropping every
// block, and the next block wakes it: blocks taken after it woke expire again.
func TestBlocksExpireAfterTheWatcherSlept(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 1.2 s for the watcher to go idle")
	}
	gen, err := idmint.NewSnowflake("twitter", idmint.RandomNodes())
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	l, _ := gen.Layout()
	// Only makes the conditions true (the watcher idle, then the clock moved on); nothing is
	// timed.
	first, _ := gen.NextID()
	time.Sleep(1200 * time.Millisecond)
	second, _ := gen.NextID() // a new block: the old one went with the idle bump
	time.Sleep(20 * time.Millisecond)
	third, err := gen.NextID()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := l.Decompose(first)
	b, _ := l.Decompose(second)
	c, _ := l.Decompose(third)
	if b.TimeMs < a.TimeMs+1000 || c.TimeMs < b.TimeMs+10 {
		t.Fatalf("times %d, %d (after 1.2 s), %d (after 20 ms more): handed out of a stale block", a.TimeMs, b.TimeMs, c.TimeMs)
	}
}

// A leased generator takes no blocks: the core admits each ID as it is issued, so no ID minted
// before a lease was lost can be handed out after it.
func TestLeasedSnowflakeTakesNoBlocks(t *testing.T) {
	if !idmint.HasStores() {
		t.Skip("library without stores")
	}
	gen, err := idmint.NewSnowflake("twitter", idmint.Lease("sqlite:"+t.TempDir()+"/leases.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	if gen.BlockLen() != 1 {
		t.Fatalf("a leased generator takes blocks of %d", gen.BlockLen())
	}
	a, _ := gen.NextID()
	b, err := gen.NextID()
	if err != nil || b <= a {
		t.Fatalf("%d %d %v", a, b, err)
	}
}
