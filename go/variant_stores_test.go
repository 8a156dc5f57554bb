//go:build idmint_stores

package idmint_test

// storesTag is whether this test binary was built with -tags idmint_stores (cgo_stores.go).
const storesTag = true
