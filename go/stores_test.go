package idmint_test

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	idmint "github.com/idmint/idmint/go"
)

// serverURL is the URL of a test server that tests/run.sh started (IDMINT_TEST_<NAME>_URL):
// the test is skipped without it, and fails when IDMINT_REQUIRE_SERVERS=1 (CI) says the
// servers must be there.
func serverURL(t *testing.T, name string) string {
	t.Helper()
	v := "IDMINT_TEST_" + name + "_URL"
	if url := os.Getenv(v); url != "" {
		return url
	}
	if os.Getenv("IDMINT_REQUIRE_SERVERS") == "1" {
		t.Fatalf("%s is not set and IDMINT_REQUIRE_SERVERS=1", v)
	}
	t.Skipf("no server (%s)", v)
	return ""
}

// uniqueTag is a tag no earlier run used: the servers keep their data between runs.
func uniqueTag(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

// storeURL is the store of kind: SQLite in a temp dir, the others the test servers.
func storeURL(t *testing.T, kind string) string {
	if kind == "sqlite" {
		return "sqlite:" + filepath.Join(t.TempDir(), "store.db")
	}
	return serverURL(t, map[string]string{
		"postgres": "POSTGRES", "mysql": "MYSQL", "redis": "REDIS", "etcd": "ETCD", "zk": "ZK",
	}[kind])
}

var storeKinds = []string{"sqlite", "postgres", "mysql", "redis", "etcd", "zk"}

// collect adds ids to seen, failing on a duplicate.
type collect struct {
	mu   sync.Mutex
	seen map[uint64]bool
}

func (c *collect) add(t *testing.T, ids ...uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if c.seen[id] {
			t.Errorf("duplicate %d", id)
		}
		c.seen[id] = true
	}
}

// Every store: a segment client drawn from by 4 goroutines, and two generators leasing node
// values from it at once, minting side by side: no ID twice, no node value shared.
func TestEveryStore(t *testing.T) {
	if !idmint.HasStores() {
		t.Skip("library without stores")
	}
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			url := storeURL(t, kind)
			c, err := idmint.ConnectSegments(url)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			tag := uniqueTag("go")
			ids := collect{seen: map[uint64]bool{}}
			var wg sync.WaitGroup
			for w := 0; w < 4; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < 20000; i++ {
						id, err := c.NextID(tag)
						if err != nil {
							t.Error(err)
							return
						}
						ids.add(t, id)
					}
				}()
			}
			wg.Wait()

			// Each run leases from a range of its own, far from earlier runs' frozen values.
			first, last := leaseRange()
			leased := collect{seen: map[uint64]bool{}}
			nodes := map[string]bool{}
			for g := 0; g < 2; g++ {
				s, err := idmint.NewSnowflake("twitter", idmint.Lease(url), idmint.LeaseRange(first, last))
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				buf := make([]uint64, 20000)
				if err := s.NextIDs(buf); err != nil {
					t.Fatal(err)
				}
				leased.add(t, buf...)
				d, err := idmint.Parse(strconv.FormatUint(buf[0], 10), "twitter")
				if err != nil {
					t.Fatal(err)
				}
				node := ""
				for _, part := range d.Parts {
					if part.Name == "datacenter" || part.Name == "worker" {
						node += fmt.Sprint(part.Name, "=", part.Number, " ")
					}
				}
				if nodes[node] {
					t.Fatalf("two live leases share node values %s", node)
				}
				nodes[node] = true
			}
		})
	}
}

// leaseRange is a range of 2 of twitter's 1024 node values picked at random, so that runs
// against servers that keep their data do not find their earlier values frozen.
func leaseRange() (uint64, uint64) {
	b := make([]byte, 2)
	_, _ = rand.Read(b)
	first := uint64(b[0])<<8 | uint64(b[1])
	first = first % 512 * 2
	return first, first + 1
}

// The drawing child of TestTwoProcessesDrawOneTag: draws IDMINT_GO_DRAW_N IDs of
// IDMINT_GO_DRAW_TAG from IDMINT_GO_DRAW_URL into the file IDMINT_GO_DRAW_OUT.
func TestDrawChild(t *testing.T) {
	url := os.Getenv("IDMINT_GO_DRAW_URL")
	if url == "" {
		t.Skip("the child of TestTwoProcessesDrawOneTag")
	}
	n, _ := strconv.Atoi(os.Getenv("IDMINT_GO_DRAW_N"))
	c, err := idmint.ConnectSegments(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, err := os.Create(os.Getenv("IDMINT_GO_DRAW_OUT"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	for i := 0; i < n; i++ {
		id, err := c.NextID(os.Getenv("IDMINT_GO_DRAW_TAG"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(w, id)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// Two Go processes draw one tag at once, on SQLite (one file) and PostgreSQL: 0 duplicates.
func TestTwoProcessesDrawOneTag(t *testing.T) {
	if !idmint.HasStores() {
		t.Skip("library without stores")
	}
	const n = 100000
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			url, tag, dir := storeURL(t, kind), uniqueTag("go-procs"), t.TempDir()
			var children []*exec.Cmd
			for p := 0; p < 2; p++ {
				cmd := exec.Command(os.Args[0], "-test.run=^TestDrawChild$", "-test.count=1")
				cmd.Env = append(os.Environ(), "IDMINT_GO_DRAW_URL="+url, "IDMINT_GO_DRAW_TAG="+tag,
					"IDMINT_GO_DRAW_N="+strconv.Itoa(n), fmt.Sprintf("IDMINT_GO_DRAW_OUT=%s/%d", dir, p))
				cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				children = append(children, cmd)
			}
			all := collect{seen: map[uint64]bool{}}
			for p, cmd := range children {
				if err := cmd.Wait(); err != nil {
					t.Fatalf("child %d: %v", p, err)
				}
				f, err := os.Open(fmt.Sprintf("%s/%d", dir, p))
				if err != nil {
					t.Fatal(err)
				}
				s := bufio.NewScanner(f)
				for s.Scan() {
					id, err := strconv.ParseUint(s.Text(), 10, 64)
					if err != nil {
						t.Fatal(err)
					}
					all.add(t, id)
				}
				f.Close()
			}
			if len(all.seen) != 2*n {
				t.Fatalf("%d distinct IDs of %d", len(all.seen), 2*n)
			}
		})
	}
}
