//! How store calls run: the future every store method returns, and the one-worker runtime on
//! which clients without a runtime of their own (blocking callers: Python, the JVM) run them.

use std::future::Future;
use std::pin::Pin;

use crate::{Error, Result};

/// The future a store method returns ([`SegmentStore`](crate::segment::SegmentStore),
/// [`LeaseStore`](crate::lease::LeaseStore)): boxed, so stores can be chosen at run time.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;

/// The one-worker runtime a blocking client runs its store calls and background tasks on.
pub(crate) fn background_runtime(thread_name: &str) -> Result<tokio::runtime::Runtime> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    #[cfg(feature = "zookeeper")]
    builder.on_thread_start(|| std::mem::forget(spawns_core::enter(&ZK_SPAWNER)));
    builder
        .worker_threads(1)
        .thread_name(thread_name)
        .enable_all()
        .build()
        .map_err(|e| Error::InvalidArgument {
            name: "runtime".into(),
            value: "1 worker thread".into(),
            expected: format!("a runtime the OS can start ({e})"),
        })
}

/// Spawns zookeeper-client's tasks (through the `spawns` crate) on the runtime of the thread.
/// `spawns` finds tokio by itself through a `linkme` registration, which a static library
/// (`libidmint.a`) loses when another toolchain links it (Go's cgo: every ZooKeeper store
/// panicked "no spawner"); so idmint's runtimes name the spawner on each of their threads.
#[cfg(feature = "zookeeper")]
struct TokioSpawner;

#[cfg(feature = "zookeeper")]
impl spawns_core::Spawn for TokioSpawner {
    fn spawn(&self, task: spawns_core::Task) {
        tokio::runtime::Handle::current().spawn(Box::into_pin(task.future));
    }
}

#[cfg(feature = "zookeeper")]
static ZK_SPAWNER: TokioSpawner = TokioSpawner;
