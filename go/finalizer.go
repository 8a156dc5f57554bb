package idmint

import "runtime"

// setFinalizer frees a handle the caller forgot to Close when the garbage collector
// finds it unreachable.
func setFinalizer[T any](obj *T, close func(*T) error) {
	runtime.SetFinalizer(obj, func(o *T) { _ = close(o) })
}
