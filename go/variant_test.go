package idmint_test

import (
	"errors"
	"testing"

	idmint "github.com/idmint/idmint/go"
)

// The build tag picks the library: the slim one by default, the one with the stores with
// -tags idmint_stores (go/test.sh runs the tests both ways). In the slim one every store call
// fails with the core's stores_not_installed, before it touches the store.
func TestBuildTagPicksTheLibrary(t *testing.T) {
	if idmint.HasStores() != storesTag {
		t.Fatalf("HasStores() = %v in a build with idmint_stores = %v: the cgo directives linked the other library",
			idmint.HasStores(), storesTag)
	}
	if storesTag {
		return
	}
	url := "sqlite:" + t.TempDir() + "/ids.db"
	if _, err := idmint.ConnectSegments(url); !errors.Is(err, idmint.ErrStoresNotInstalled) {
		t.Fatalf("ConnectSegments in the slim build: %v", err)
	}
	if _, err := idmint.NewSnowflake("twitter", idmint.Lease(url)); !errors.Is(err, idmint.ErrStoresNotInstalled) {
		t.Fatalf("a leased snowflake in the slim build: %v", err)
	}
}
