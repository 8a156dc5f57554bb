// Command genkinds writes kinds.go, the error kinds of package idmint, from the C header's
// IdmintStatus enum (bindings/c/include/idmint.h), which cbindgen generates from the core's
// table of error kinds: the Go list is never a second hand-kept one. Run by `go generate`; the
// package's tests fail while kinds.go differs from what it writes.
//
//	go run ./internal/genkinds HEADER OUTPUT
package main

import (
	"fmt"
	"os"

	"github.com/idmint/idmint/go/internal/kinds"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: genkinds HEADER OUTPUT")
		os.Exit(2)
	}
	header, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	src, err := kinds.Source(string(header))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(os.Args[2], []byte(src), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
