package idmint_test

import (
	"errors"
	"fmt"
	"testing"

	idmint "github.com/idmint/idmint/go"
)

func ExampleLayout() {
	l, err := idmint.ParseLayout("sonyflake")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	spec, _ := l.Spec()
	end, _ := l.ExhaustsAt()
	fmt.Println(spec)
	fmt.Println(end)
	id, _ := l.Compose(1700000000120, []idmint.NodeValue{{Name: "machine", Value: 3}}, 5)
	p, _ := l.Decompose(id)
	fmt.Println(p.TimeMs, p.Nodes, p.Sequence)
	// Output:
	// time:39@10ms,sequence:8,machine:16,epoch=1409529600000
	// 2188-11-16T03:28:58.880Z
	// 1700000000120 [{machine 3}] 5
}

func TestLayoutReadsBackTheCoresValues(t *testing.T) {
	l, err := idmint.ParseLayout("discord")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	name, ok, err := l.Preset()
	if err != nil || !ok || name != "discord" {
		t.Fatalf("preset %q %v %v", name, ok, err)
	}
	bits, _ := l.TotalBits()
	unsigned, _ := l.Unsigned()
	if bits != 64 || !unsigned {
		t.Fatalf("bits %d unsigned %v", bits, unsigned)
	}
	custom, _ := idmint.ParseLayout("time:41,worker:10,sequence:12")
	defer custom.Close()
	if name, ok, _ := custom.Preset(); ok || name != "" {
		t.Fatalf("a spec is no preset: %q", name)
	}
	if _, err := idmint.ParseLayout("time:70,worker:1,sequence:1"); !errors.Is(err, idmint.ErrInvalidLayout) {
		t.Fatalf("want invalid_layout, got %v", err)
	}
}

func TestLayoutDecomposeComposeAndTimeRange(t *testing.T) {
	l, _ := idmint.ParseLayout("redis-lua")
	defer l.Close()
	id, err := l.ParseID("5981966696448054276")
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.Decompose(id)
	if err != nil || p.TimeMs != 1426212000000 || p.Nodes[0] != (idmint.NodeValue{Name: "shard", Value: 53}) || p.Sequence != 4 {
		t.Fatalf("%+v %v", p, err)
	}
	back, err := l.Compose(int64(p.TimeMs), p.Nodes, int64(p.Sequence))
	if err != nil || back != id {
		t.Fatalf("compose gave %d, %v", back, err)
	}
	if _, err := l.Compose(int64(p.TimeMs), []idmint.NodeValue{{Name: "worker", Value: 1}}, 0); !errors.Is(err, idmint.ErrUnknownField) {
		t.Fatalf("want unknown_field, got %v", err)
	}
	if _, err := l.ParseID("-1"); !errors.Is(err, idmint.ErrInvalidId) {
		t.Fatalf("want invalid_id, got %v", err)
	}
	lo, err1 := l.MinIDAt(1426212000000)
	hi, err2 := l.MaxIDAt(1426212000000)
	if err1 != nil || err2 != nil || lo > id || id > hi || hi-lo != 1<<22-1 {
		t.Fatalf("range %d..%d (%v, %v)", lo, hi, err1, err2)
	}
	if _, err := l.MinIDAt(-1); !errors.Is(err, idmint.ErrTimeOutOfRange) {
		t.Fatalf("want time_out_of_range, got %v", err)
	}
	l.Close()
	if _, err := l.TotalBits(); !errors.Is(err, idmint.ErrInvalidArgument) {
		t.Fatalf("a closed layout: want invalid_argument, got %v", err)
	}
}
