//! How the native classes settle a call that may wait, in both builds of the addon: the slim
//! default package's, and the stores add-on's with napi-rs' tokio runtime (docs/packages.md,
//! "Slim and stores").

#[cfg(feature = "stores")]
use std::future::Future;

#[cfg(feature = "stores")]
use idmint_core::Error;
use napi::bindgen_prelude::ToNapiValue;
#[cfg(feature = "stores")]
use napi::bindgen_prelude::{execute_tokio_future, spawn_blocking, FromNapiValue, Unknown};
#[cfg(feature = "stores")]
use napi::sys;
use napi::Env;

use crate::{RawValue, Result};

/// A JS Error whose `code` is the core error's kind, as a napi error that rejects a Promise
/// with that very object (napi-rs keeps a reference to it).
#[cfg(feature = "stores")]
fn rejection(env: sys::napi_env, e: &Error) -> napi::Error {
    let make = || -> napi::Result<napi::Error> {
        // SAFETY: valid env (the resolver runs on the JS thread); the values are made here.
        let code = unsafe { ToNapiValue::to_napi_value(env, e.kind())? };
        let message = unsafe { ToNapiValue::to_napi_value(env, e.to_string())? };
        let mut out = std::ptr::null_mut();
        let status = unsafe { sys::napi_create_error(env, code, message, &mut out) };
        if status != sys::Status::napi_ok {
            return Err(napi::Error::from_reason(e.to_string()));
        }
        // SAFETY: `out` is the error value just created in this env.
        let value = unsafe { Unknown::from_napi_value(env, out)? };
        Ok(napi::Error::from(value))
    };
    make().unwrap_or_else(|err| err)
}

/// A Promise of `fut`'s value, run on napi-rs' tokio runtime; it rejects with the core's error
/// as a JS Error whose `code` is the error's kind (the JS layer gives it its class).
#[cfg(feature = "stores")]
pub(crate) fn promise<T, F>(env: &Env, fut: F) -> Result<RawValue>
where
    T: ToNapiValue + Send + 'static,
    F: Future<Output = idmint_core::Result<T>> + Send + 'static,
{
    execute_tokio_future(
        env.raw(),
        async move { Ok::<_, napi::Error>(fut.await) },
        |env, result| match result {
            // SAFETY: valid env from the resolver.
            Ok(value) => unsafe { T::to_napi_value(env, value) },
            Err(e) => Err(rejection(env, &e)),
        },
    )
    .map(RawValue)
    .map_err(crate::napi_err)
}

/// A Promise of `work()`, run on the runtime's blocking threads (for core calls that wait on a
/// store without being async: building a leased generator, releasing it, a shared counter).
#[cfg(feature = "stores")]
pub(crate) fn blocking<T, W>(env: &Env, work: W) -> Result<RawValue>
where
    T: ToNapiValue + Send + 'static,
    W: FnOnce() -> idmint_core::Result<T> + Send + 'static,
{
    promise(env, async move {
        spawn_blocking(work).await.unwrap_or_else(|e| {
            Err(Error::InvalidArgument {
                name: "task".into(),
                value: e.to_string(),
                expected: "a task that finishes (internal)".into(),
            })
        })
    })
}

/// `work()`'s value, for a call the stores add-on settles off the JS thread: in a build without
/// stores nothing such a call does waits (a high-water-mark file, an in-memory counter), and
/// no runtime is linked to wait on, so it runs here. Its callers are `await`ed inside the
/// facade's async functions, where a thrown error rejects as a rejected Promise would.
#[cfg(not(feature = "stores"))]
pub(crate) fn blocking<T, W>(env: &Env, work: W) -> Result<RawValue>
where
    T: ToNapiValue + Send + 'static,
    W: FnOnce() -> idmint_core::Result<T> + Send + 'static,
{
    let value = work().map_err(crate::js_err)?;
    // SAFETY: `env` is the calling thread's, alive for this call.
    unsafe { T::to_napi_value(env.raw(), value) }
        .map(RawValue)
        .map_err(crate::napi_err)
}
