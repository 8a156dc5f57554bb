package idmint

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
