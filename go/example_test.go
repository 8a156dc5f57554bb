package idmint_test

import (
	"errors"
	"fmt"
	"os"

	idmint "github.com/idmint/idmint/go"
)

func ExampleSnowflake() {
	gen, err := idmint.NewSnowflake("twitter", idmint.Node("datacenter", 1), idmint.Node("worker", 7))
	if err != nil {
		panic(err)
	}
	defer gen.Close()
	id, _ := gen.NextID()
	d, _ := idmint.Parse(fmt.Sprint(id), "twitter")
	fmt.Println(d.Format, d.Parts[0], d.Parts[1])
	// Output: snowflake {datacenter 1  false} {worker 7  false}
}

func ExampleParse() {
	d, err := idmint.Parse("5981966696448054276", "redis-lua")
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Format, d.Time, d.Parts[0].Name, d.Parts[0].Number)
	d, _ = idmint.Parse("01ARZ3NDEKTSV4RRFFQ69G5FAV", "")
	fmt.Println(d.Format, d.Time)
	// Output:
	// snowflake 2015-03-13T02:00:00.000Z shard 53
	// ulid 2016-07-30T23:54:10.259Z
}

func ExampleObjectID() {
	o, err := idmint.ParseObjectID("507F1F77BCF86CD799439011")
	if err != nil {
		panic(err)
	}
	fmt.Println(o.Hex(), idmint.NewObjectID() != o)
	// Output: 507f1f77bcf86cd799439011 true
}

func ExampleError() {
	_, err := idmint.Compose("twitter", 1426212000000, map[string]int64{"datacenter": 0, "worker": 32}, 0)
	var e *idmint.Error
	fmt.Println(errors.Is(err, idmint.ErrValueOutOfRange), errors.As(err, &e) && e.Kind == "value_out_of_range")
	fmt.Println(err)
	fmt.Println(e.Fields["field"], e.Fields["value"], e.Fields["max"])
	// Output:
	// true true
	// worker value 32 is out of range: valid values are 0..=31
	// worker 32 31
}

func ExampleUUID() {
	u, err := idmint.NewUUIDv7()
	if err != nil {
		panic(err)
	}
	fmt.Println(len(u.String()), len(u.ULID()), u.String()[14:15])
	// Output: 36 26 7
}

func ExampleTypeIDs() {
	users, err := idmint.NewTypeIDs("user")
	if err != nil {
		panic(err)
	}
	defer users.Close()
	id, _ := users.Next()
	fmt.Println(id[:5], len(id))
	// Output: user_ 31
}

func ExampleSegmentClient() {
	if !idmint.HasStores() {
		fmt.Println(1, 2)
		return
	}
	dir, _ := os.MkdirTemp("", "idmint-example")
	defer os.RemoveAll(dir)
	c, err := idmint.ConnectSegments("sqlite:" + dir + "/ids.db")
	if err != nil {
		panic(err)
	}
	defer c.Close()
	a, _ := c.NextID("orders")
	b, _ := c.NextID("orders")
	fmt.Println(a, b)
	// Output: 1 2
}

func ExampleLayout_ID() {
	l, err := idmint.ParseLayout("redis-lua")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	id, err := l.ID(5981966696448054276) // checked once; each field then a shift and a mask
	if err != nil {
		panic(err)
	}
	fmt.Println(id.TimeMs(), l.NodeNames(), id.Node(0), id.Sequence())
	// Output: 1426212000000 [shard] 53 4
}
