package idmint_test

import (
	"encoding/json"
	"errors"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"

	idmint "github.com/idmint/idmint/go"
	"github.com/idmint/idmint/go/internal/kinds"
)

func TestKindsAreGeneratedFromTheHeader(t *testing.T) {
	header, err := os.ReadFile("../bindings/c/include/idmint.h")
	if err != nil {
		t.Fatal(err)
	}
	want, err := kinds.Source(string(header))
	if err != nil {
		t.Fatal(err)
	}
	have, _ := os.ReadFile("kinds.go")
	if string(have) != want {
		t.Fatal("kinds.go is stale: run `go generate` in go/")
	}
}

type snowflakeVectors struct {
	Valid []struct {
		Name, Layout, ID, Time string
		TimeMs                 int64 `json:"time_ms"`
		Fields                 map[string]int64
		Sequence               int64
	}
	InvalidParts []struct {
		Name, Layout, Error string
		Parts               struct {
			TimeMs   int64 `json:"time_ms"`
			Fields   map[string]int64
			Sequence int64
		}
	} `json:"invalid_parts"`
	InvalidIDs []struct{ Name, Layout, ID, Error string } `json:"invalid_ids"`
}

func load(t *testing.T, name string, v any) {
	data, err := os.ReadFile("../tests/vectors/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}

func TestSnowflakeVectors(t *testing.T) {
	var v snowflakeVectors
	load(t, "snowflake.json", &v)
	if len(v.Valid) == 0 || len(v.InvalidParts) == 0 || len(v.InvalidIDs) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range v.Valid {
		d, err := idmint.Parse(c.ID, c.Layout)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		want, _ := strconv.ParseUint(c.ID, 10, 64)
		if d.Format != "snowflake" || !d.HasValue || d.Value != want || d.TimeMs != c.TimeMs || d.Time != c.Time {
			t.Errorf("%s: %+v", c.Name, d)
		}
		for _, p := range d.Parts {
			if w, ok := c.Fields[p.Name]; ok && uint64(w) != p.Number {
				t.Errorf("%s: %s = %d", c.Name, p.Name, p.Number)
			}
		}
		id, err := idmint.Compose(c.Layout, c.TimeMs, c.Fields, c.Sequence)
		if err != nil || id != want {
			t.Errorf("%s: compose %d %v", c.Name, id, err)
		}
	}
	for _, c := range v.InvalidParts {
		_, err := idmint.Compose(c.Layout, c.Parts.TimeMs, c.Parts.Fields, c.Parts.Sequence)
		var e *idmint.Error
		if !errors.As(err, &e) || e.Kind != c.Error || !errors.Is(err, &idmint.Error{Kind: c.Error}) {
			t.Errorf("%s: %v, not %s", c.Name, err, c.Error)
		}
	}
	for _, c := range v.InvalidIDs {
		_, err := idmint.Parse(c.ID, c.Layout)
		var e *idmint.Error
		// Text that is not decimal is not read as a snowflake at all: still invalid_id.
		if !errors.As(err, &e) || e.Kind != c.Error {
			t.Errorf("%s: %v, not %s", c.Name, err, c.Error)
		}
	}
}

func TestSentinels(t *testing.T) {
	_, err := idmint.NewSnowflake("twiter", idmint.RandomNodes())
	if !errors.Is(err, idmint.ErrInvalidLayout) || errors.Is(err, idmint.ErrInvalidId) {
		t.Fatalf("%v", err)
	}
	_, err = idmint.NewSnowflake("twitter")
	if !errors.Is(err, idmint.ErrMissingField) {
		t.Fatalf("%v", err)
	}
}

func TestNoDuplicatesAcrossGoroutines(t *testing.T) {
	gen, err := idmint.NewSnowflake("twitter", idmint.RandomNodes())
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	const workers, each = 8, 50000
	ids := make([][]uint64, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				id, err := gen.NextID()
				if err != nil {
					t.Error(err)
					return
				}
				if i > 0 && id <= ids[w][i-1] {
					t.Errorf("goroutine %d: %d after %d", w, id, ids[w][i-1])
					return
				}
				ids[w] = append(ids[w], id)
			}
		}(w)
	}
	wg.Wait()
	var all []uint64
	for _, s := range ids {
		all = append(all, s...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("duplicate %d", all[i])
		}
	}
	if len(all) != workers*each {
		t.Fatalf("%d IDs", len(all))
	}
}

func TestClosedGeneratorRefuses(t *testing.T) {
	gen, _ := idmint.NewSnowflake("", idmint.Node("datacenter", 1), idmint.Node("worker", 2))
	gen.Close()
	if _, err := gen.NextID(); !errors.Is(err, idmint.ErrClosed) {
		t.Fatalf("%v", err)
	}
}

func TestObjectIDVectors(t *testing.T) {
	var v struct {
		Valid   []struct{ Hex string }
		Invalid []struct{ Name, Hex, Error string }
	}
	load(t, "objectid.json", &v)
	for _, c := range v.Valid {
		o, err := idmint.ParseObjectID(c.Hex)
		if err != nil || o.Hex() != c.Hex {
			t.Errorf("%s: %s %v", c.Hex, o, err)
		}
	}
	for _, c := range v.Invalid {
		if _, err := idmint.ParseObjectID(c.Hex); !errors.Is(err, &idmint.Error{Kind: c.Error}) {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}

func TestUUIDv7AndTypeIDs(t *testing.T) {
	a, err := idmint.NewUUIDv7()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := idmint.NewUUIDv7()
	if a.String() >= b.String() || len(a.ULID()) != 26 || a.String()[14] != '7' {
		t.Fatalf("%s %s %s", a, b, a.ULID())
	}
	d, err := idmint.Parse(a.String(), "")
	if err != nil || d.Format != "uuid" || !d.HasTime {
		t.Fatalf("%+v %v", d, err)
	}
	users, err := idmint.NewTypeIDs("user")
	if err != nil {
		t.Fatal(err)
	}
	defer users.Close()
	id, err := users.Next()
	if err != nil || len(id) != 31 || id[:5] != "user_" {
		t.Fatalf("%q %v", id, err)
	}
	if _, err := idmint.NewTypeIDs("User"); !errors.Is(err, idmint.ErrInvalidArgument) {
		t.Fatalf("%v", err)
	}
}

func TestSegmentsAndLeasesOnSQLite(t *testing.T) {
	if !idmint.HasStores() {
		t.Skip("library without stores")
	}
	dir := t.TempDir()
	c, err := idmint.ConnectSegments("sqlite:" + dir + "/segments.db")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5000; i++ {
				id, err := c.NextID("orders")
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[id] {
					t.Errorf("duplicate %d", id)
				}
				seen[id] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	c.Close()
	if _, err := c.NextID("orders"); err == nil {
		t.Fatal("a closed client handed out an ID")
	}

	url := "sqlite:" + dir + "/leases.db"
	a, err := idmint.NewSnowflake("twitter", idmint.Lease(url))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := idmint.NewSnowflake("twitter", idmint.Lease(url))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ia, _ := a.NextID()
	ib, _ := b.NextID()
	da, _ := idmint.Parse(strconv.FormatUint(ia, 10), "twitter")
	db, _ := idmint.Parse(strconv.FormatUint(ib, 10), "twitter")
	if da.Parts[1].Number == db.Parts[1].Number && da.Parts[0].Number == db.Parts[0].Number {
		t.Fatalf("two leases share node values: %+v %+v", da.Parts, db.Parts)
	}
}
