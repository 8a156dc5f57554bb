//! Noticing `fork()`: a stateful object made before a fork is copied into the child with the
//! parent's state (node values, counters, buffered ranges, open connections), and using it
//! there as it is would repeat IDs the parent also issues.
//!
//! A `pthread_atfork` handler bumps a process-wide generation in the child. Each object
//! records the generation it was made in (or last made good in) and compares it on use: one
//! relaxed atomic load on the hot path, no system call. On a mismatch the object reseeds,
//! re-leases or refuses with [`Error::Forked`](crate::Error::Forked), each by its own rule.

use std::sync::atomic::{AtomicU64, Ordering};

/// Bumped in the child of every `fork()`.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Starts watching for forks (once per process) and returns the current generation: objects
/// call it when they are made, so the handler is in place before any fork they could cross.
pub(crate) fn watch() -> u64 {
    #[cfg(unix)]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        extern "C" fn child() {
            GENERATION.fetch_add(1, Ordering::SeqCst);
        }
        ONCE.call_once(|| unsafe {
            // Safety: registers a handler that only touches an atomic, which is
            // async-signal-safe, as a handler run in the child of a fork must be.
            libc::pthread_atfork(None, None, Some(child));
        });
    }
    current()
}

/// The current generation: differs from the one an object recorded once the process running
/// it is a child forked after the object was made.
#[inline]
pub(crate) fn current() -> u64 {
    GENERATION.load(Ordering::Relaxed)
}

/// Whether the process is a child forked after `generation` was recorded. Always false where
/// there is no process to fork (wasm32-unknown-unknown), which lets the compiler drop the
/// after-fork paths from the browser's module.
#[inline]
pub(crate) fn since(generation: u64) -> bool {
    !cfg!(all(target_arch = "wasm32", target_os = "unknown")) && generation != current()
}

/// Keeps `value` alive for good: used in a forked child for what belongs to the parent (a
/// runtime whose threads did not cross the fork, connections whose sockets the parent still
/// uses), which must be neither used nor dropped, since dropping would close or write to them.
pub(crate) fn abandon<T>(value: T) {
    std::mem::forget(value);
}
