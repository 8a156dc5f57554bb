package idmint

/*
#include <idmint.h>
*/
import "C"

import (
	"context"
	"time"
)

// NewSnowflakeContext is NewSnowflake bounded by ctx while it waits for a lease (the Lease
// option): ctx's deadline limits the wait for the store in the core (opening it and the first
// grant), and a cancellation returns at once with ctx.Err(), the generator built later being
// closed so its lease goes back. An error that came from the store after ctx ended wraps
// ctx.Err() too: errors.Is(err, context.DeadlineExceeded) and errors.Is(err,
// ErrStoreUnavailable) both hold. Without Lease nothing waits, and ctx is only checked first.
func NewSnowflakeContext(ctx context.Context, layout string, opts ...Option) (*Snowflake, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var within time.Duration
	if deadline, ok := ctx.Deadline(); ok {
		if within = time.Until(deadline); within <= 0 {
			return nil, context.DeadlineExceeded
		}
	}
	if o.lease == "" || ctx.Done() == nil {
		s, err := newSnowflake(layout, o, within)
		return withCause(ctx, s, err)
	}
	type built struct {
		s   *Snowflake
		err error
	}
	done := make(chan built, 1)
	go func() {
		s, err := newSnowflake(layout, o, within)
		done <- built{s, err}
	}()
	select {
	case b := <-done:
		return withCause(ctx, b.s, b.err)
	case <-ctx.Done():
		// The build cannot be interrupted inside the core; its result is not wanted, so a
		// lease it gets is given back as soon as it arrives.
		go func() {
			if b := <-done; b.s != nil {
				_ = b.s.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// withCause adds ctx's error to a core error that came after ctx ended (the core gave up at
// the deadline it was given).
func withCause(ctx context.Context, s *Snowflake, err error) (*Snowflake, error) {
	if e, ok := err.(*Error); ok && ctx.Err() != nil {
		e.cause = ctx.Err()
	}
	return s, err
}

// LeaseRange leases only node values first..last (default: every value of the layout's node
// fields), for deployments that split the values between groups of processes.
func LeaseRange(first, last uint64) Option {
	return func(o *options) { o.leaseRange, o.leaseFirst, o.leaseLast = true, first, last }
}

// LeaseTTL sets how long a lease lasts unless renewed (default 10 s; renewed every third).
func LeaseTTL(ttl time.Duration) Option { return func(o *options) { o.leaseTTL = ttl } }

// LeaseFreeze sets how long a value stays unleasable after its lease expired (default: one
// TTL), so a holder that lost it has stopped before another takes it.
func LeaseFreeze(d time.Duration) Option { return func(o *options) { o.leaseFreeze = d } }

// LeaseHolder names the holder recorded with the lease (default: host and process id).
func LeaseHolder(name string) Option { return func(o *options) { o.leaseHolder = name } }

// millis is d in whole ms for the C options, rounded up so that a positive duration never
// reads as 0 ("the default"); the core refuses values out of its range by name.
func millis(d time.Duration) C.uint64_t {
	if d <= 0 {
		return 0
	}
	return C.uint64_t((d + time.Millisecond - 1) / time.Millisecond)
}
