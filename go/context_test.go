package idmint_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	idmint "github.com/idmint/idmint/go"
)

// silentStore listens on loopback and accepts connections without ever answering: a store
// behind a network that drops replies. accepted gets a value per connection.
func silentStore(t *testing.T) (url string, accepted chan struct{}) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = make(chan struct{}, 16)
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			select {
			case accepted <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		l.Close()
		for _, c := range conns {
			c.Close()
		}
	})
	return "redis://" + l.Addr().String(), accepted
}

func TestLeaseWaitEndsAtTheContextsDeadline(t *testing.T) {
	if !idmint.HasStores() {
		t.Skip("library without stores")
	}
	url, _ := silentStore(t)
	// The core's own limit for a store call here is a minute (a TTL/4 of 4 minutes would be
	// the lease's): only the context's 300 ms can end the wait with its error.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := idmint.NewSnowflakeContext(ctx, "twitter", idmint.Lease(url))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want context.DeadlineExceeded, got %v", err)
	}
}

func TestLeaseWaitEndsWhenTheContextIsCanceled(t *testing.T) {
	if !idmint.HasStores() {
		t.Skip("library without stores")
	}
	url, accepted := silentStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-accepted // the build is waiting on the store now
		cancel()
	}()
	_, err := idmint.NewSnowflakeContext(ctx, "twitter", idmint.Lease(url))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
}

func TestAnEndedContextBuildsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := idmint.NewSnowflakeContext(ctx, "twitter", idmint.RandomNodes()); !errors.Is(err, context.Canceled) {
		t.Fatalf("%v", err)
	}
	// Without a lease nothing waits: a live context changes nothing.
	s, err := idmint.NewSnowflakeContext(context.Background(), "twitter", idmint.RandomNodes())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

func TestClosedObjectsGiveTheCoresError(t *testing.T) {
	s, _ := idmint.NewSnowflake("", idmint.RandomNodes())
	s.Close()
	_, err := s.NextID()
	var e *idmint.Error
	if !errors.As(err, &e) || e.Kind != "closed" || e.Message != "this snowflake generator is closed" {
		t.Fatalf("%#v", err)
	}
	if !idmint.HasStores() {
		return
	}
	c, err := idmint.ConnectSegments("sqlite:" + t.TempDir() + "/s.db")
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := c.NextID("orders"); !errors.Is(err, idmint.ErrClosed) || err.Error() != "this segment client is closed" {
		t.Fatalf("%v", err)
	}
}

func TestTheSlimLibraryNamesTheBuildTag(t *testing.T) {
	if idmint.HasStores() {
		t.Skip("library with stores")
	}
	_, err := idmint.NewSnowflake("twitter", idmint.Lease("sqlite:"+t.TempDir()+"/l.db"))
	if !errors.Is(err, idmint.ErrStoresNotInstalled) || !strings.Contains(err.Error(), "-tags idmint_stores") {
		t.Fatalf("%v", err)
	}
}
