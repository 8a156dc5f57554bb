//! The segment client and its tags: numbers that only grow, leased in ranges per tag from a
//! store, double-buffered so a refill is never on the caller's path (docs/segments.md). Only
//! in the library built with `stores`; without it connecting fails with
//! `IDMINT_STATUS_STORES_NOT_INSTALLED` and there is nothing else to call.

use std::ffi::c_char;

#[cfg(feature = "stores")]
use idmint_core::segment::{SegmentClient, TagHandle};

use crate::ffi::{IdmintError, handle, out, run, text};
use crate::kinds::IdmintStatus;

/// A client handing out segment IDs for any number of tags from one store, with a runtime of
/// its own (one thread) for store I/O and background refills. Thread-safe; closed with
/// `idmint_segment_client_close` and freed with `idmint_segment_client_free`.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nunsafe { idmint::idmint_segment_client_free(std::ptr::null_mut()) };\n```"
)]
pub struct IdmintSegmentClient {
    #[cfg(feature = "stores")]
    client: SegmentClient,
}

/// One tag of a segment client, cached: `idmint_tag_next_id` is the hot path (one atomic step
/// while IDs are in memory). Keeps its client's runtime alive; thread-safe; freed with
/// `idmint_tag_free` (before or after its client).
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nunsafe { idmint::idmint_tag_free(std::ptr::null_mut()) };\n```"
)]
pub struct IdmintTag {
    #[cfg(feature = "stores")]
    tag: TagHandle,
}

/// Connects to the store at `url` (`sqlite:PATH`, `postgres://…`, `mysql://…`, `redis://…`,
/// `etcd://…`, `zk://…`, `http(s)://HOST:PORT?token=…` for an idmint serve; README, "Segment
/// IDs") with the core's defaults: refill at 20% used, unknown tags created with step 1000, a
/// 3 s bound on each wait. Blocking: waits for the store (bounded).
///
/// Ownership: `*out` is a new client the caller frees with `idmint_segment_client_free`.
/// Errors: `IDMINT_STATUS_STORE_UNAVAILABLE`, `IDMINT_STATUS_NOT_AUTHORIZED`,
/// `IDMINT_STATUS_INVALID_ARGUMENT` (a URL no store reads, NULL, not UTF-8),
/// `IDMINT_STATUS_STORES_NOT_INSTALLED` in a library built without stores. Thread-safe.
///
/// # Safety
///
/// `url` points to `url_len` readable bytes; `out` writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet dir = std::env::temp_dir().join(format!(\"idmint-c-doc-{}\", std::process::id()));\nstd::fs::create_dir_all(&dir).unwrap();\nlet url = format!(\"sqlite:{}\", dir.join(\"s.db\").display());\nlet (mut c, mut id) = (std::ptr::null_mut(), 0u64);\nlet s = unsafe { idmint_segment_client_connect(url.as_ptr().cast(), url.len(), &mut c, std::ptr::null_mut()) };\nif idmint_has_stores() {\n    assert_eq!(s, IdmintStatus::Ok);\n    unsafe { idmint_segment_client_next_id(c, c\"orders\".as_ptr(), 6, &mut id, std::ptr::null_mut()) };\n    assert_eq!(id, 1);\n} else {\n    assert_eq!(s, IdmintStatus::StoresNotInstalled);\n}\nunsafe { idmint_segment_client_free(c) };\nstd::fs::remove_dir_all(&dir).unwrap();\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_segment_client_connect(
    url: *const c_char,
    url_len: usize,
    out: *mut *mut IdmintSegmentClient,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let slot = crate::ffi::out("out", out)?;
            let url = text("url", url, url_len)?;
            #[cfg(feature = "stores")]
            {
                let client = SegmentClient::builder().store_url(url).connect_blocking()?;
                *slot = Box::into_raw(Box::new(IdmintSegmentClient { client }));
                Ok(())
            }
            #[cfg(not(feature = "stores"))]
            {
                let _ = (slot, url);
                Err(crate::errors::stores_missing(
                    "idmint_segment_client_connect",
                ))
            }
        })
    }
}

/// The handle of `tag` (1-128 of `A-Z a-z 0-9 _ . : -`), loading it from the store on first use
/// (one round trip; created with step 1000 if unknown).
///
/// Ownership: `*out` is a new handle the caller frees with `idmint_tag_free`.
/// Errors: `IDMINT_STATUS_INVALID_TAG`, `IDMINT_STATUS_UNKNOWN_TAG`,
/// `IDMINT_STATUS_STORE_UNAVAILABLE`, `IDMINT_STATUS_CLOSED`, `IDMINT_STATUS_FORKED` (a client
/// made before `fork()`, used in the child), `IDMINT_STATUS_INVALID_ARGUMENT`. Thread-safe.
///
/// # Safety
///
/// `client` is live; `tag` points to `tag_len` readable bytes; `out` writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet mut t = std::ptr::null_mut();\nassert_eq!(unsafe { idmint::idmint_segment_client_tag(std::ptr::null(), c\"t\".as_ptr(), 1, &mut t, std::ptr::null_mut()) }, idmint::IdmintStatus::InvalidArgument);\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_segment_client_tag(
    client: *const IdmintSegmentClient,
    tag: *const c_char,
    tag_len: usize,
    out: *mut *mut IdmintTag,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let c = handle("client", client)?;
            let slot = crate::ffi::out("out", out)?;
            let tag = text("tag", tag, tag_len)?;
            #[cfg(feature = "stores")]
            {
                let tag = c.client.tag(tag)?;
                *slot = Box::into_raw(Box::new(IdmintTag { tag }));
            }
            #[cfg(not(feature = "stores"))]
            let _ = (c, slot, tag);
            Ok(())
        })
    }
}

/// The next ID of `tag` (as `idmint_segment_client_tag` then `idmint_tag_next_id`, the tag
/// cached in the client). Errors as those two. Thread-safe.
///
/// # Safety
///
/// `client` is live; `tag` points to `tag_len` readable bytes; `id` writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet mut id = 0;\nassert_eq!(unsafe { idmint::idmint_segment_client_next_id(std::ptr::null(), c\"t\".as_ptr(), 1, &mut id, std::ptr::null_mut()) }, idmint::IdmintStatus::InvalidArgument);\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_segment_client_next_id(
    client: *const IdmintSegmentClient,
    tag: *const c_char,
    tag_len: usize,
    id: *mut u64,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let c = handle("client", client)?;
            let slot = out("id", id)?;
            let tag = text("tag", tag, tag_len)?;
            #[cfg(feature = "stores")]
            {
                *slot = c.client.next_id(tag)?;
            }
            #[cfg(not(feature = "stores"))]
            let _ = (c, slot, tag);
            Ok(())
        })
    }
}

/// Closes the client: the unused tails of its buffered ranges go back to the store where
/// nobody allocated after them (bounded by its timeouts), and every later call on it or its
/// tags fails with `IDMINT_STATUS_CLOSED`. Closing twice is harmless. The handle still needs
/// `idmint_segment_client_free`.
///
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL `client`. Thread-safe.
///
/// # Safety
///
/// `client` is live; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nassert_eq!(unsafe { idmint::idmint_segment_client_close(std::ptr::null(), std::ptr::null_mut()) }, idmint::IdmintStatus::InvalidArgument);\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_segment_client_close(
    client: *const IdmintSegmentClient,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let c = handle("client", client)?;
            #[cfg(feature = "stores")]
            c.client.close();
            #[cfg(not(feature = "stores"))]
            let _ = c;
            Ok(())
        })
    }
}

/// Frees a client (closing it first if still open). NULL is allowed; only once, after every
/// other call on it. Its tags stay usable until freed (they keep its runtime) but hand out
/// nothing once it is closed. In a `fork()`ed child it leaves the parent's connections alone.
///
/// # Safety
///
/// `client` is NULL or live.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nunsafe { idmint::idmint_segment_client_free(std::ptr::null_mut()) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_segment_client_free(client: *mut IdmintSegmentClient) {
    unsafe { crate::ffi::free_box(client) };
}

/// The tag's next ID: one atomic step while IDs are in memory; the caller waits on the store
/// only when both buffered ranges are used up, for at most the client's bound (3 s), then gets
/// `IDMINT_STATUS_STORE_UNAVAILABLE` (retryable).
///
/// Errors also: `IDMINT_STATUS_CLOSED`, `IDMINT_STATUS_FORKED`, `IDMINT_STATUS_TAG_EXHAUSTED`,
/// `IDMINT_STATUS_RANGE_BELOW_ISSUED`, `IDMINT_STATUS_INVALID_ARGUMENT`. Thread-safe.
///
/// # Safety
///
/// `tag` is live; `id` writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet mut id = 0;\nassert_eq!(unsafe { idmint::idmint_tag_next_id(std::ptr::null(), &mut id, std::ptr::null_mut()) }, idmint::IdmintStatus::InvalidArgument);\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_tag_next_id(
    tag: *const IdmintTag,
    id: *mut u64,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let t = handle("tag", tag)?;
            let slot = out("id", id)?;
            #[cfg(feature = "stores")]
            {
                *slot = t.tag.next_id()?;
            }
            #[cfg(not(feature = "stores"))]
            let _ = (t, slot);
            Ok(())
        })
    }
}

/// `n` contiguous IDs of the tag (1..=2^40): `*first` to `*first + n - 1`. Up to the tag's step
/// they come from the buffered ranges; above it, straight from the store in one round trip.
/// Errors as `idmint_tag_next_id`, and `IDMINT_STATUS_INVALID_ARGUMENT` for `n` out of range.
/// Thread-safe.
///
/// # Safety
///
/// `tag` is live; `first` writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet mut first = 0;\nassert_eq!(unsafe { idmint::idmint_tag_next_ids(std::ptr::null(), 5, &mut first, std::ptr::null_mut()) }, idmint::IdmintStatus::InvalidArgument);\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_tag_next_ids(
    tag: *const IdmintTag,
    n: u64,
    first: *mut u64,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let t = handle("tag", tag)?;
            let slot = out("first", first)?;
            #[cfg(feature = "stores")]
            {
                *slot = t.tag.next_ids(n)?.start;
            }
            #[cfg(not(feature = "stores"))]
            let _ = (t, slot, n);
            Ok(())
        })
    }
}

/// Frees a tag handle. NULL is allowed; only once, after every other call on it.
///
/// # Safety
///
/// `tag` is NULL or live.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nunsafe { idmint::idmint_tag_free(std::ptr::null_mut()) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_tag_free(tag: *mut IdmintTag) {
    unsafe { crate::ffi::free_box(tag) };
}

#[cfg(all(test, feature = "stores"))]
mod tests {
    use super::*;

    #[test]
    fn tags_hand_out_growing_ids_until_closed() {
        let url = "memory:";
        let mut c = std::ptr::null_mut();
        assert_eq!(
            unsafe {
                idmint_segment_client_connect(
                    url.as_ptr().cast(),
                    url.len(),
                    &mut c,
                    std::ptr::null_mut(),
                )
            },
            IdmintStatus::Ok
        );
        let mut t = std::ptr::null_mut();
        unsafe {
            idmint_segment_client_tag(c, c"orders".as_ptr(), 6, &mut t, std::ptr::null_mut())
        };
        let (mut a, mut b) = (0, 0);
        unsafe { idmint_tag_next_id(t, &mut a, std::ptr::null_mut()) };
        unsafe { idmint_tag_next_ids(t, 10, &mut b, std::ptr::null_mut()) };
        assert!(b > a);
        unsafe { idmint_segment_client_close(c, std::ptr::null_mut()) };
        assert_eq!(
            unsafe { idmint_tag_next_id(t, &mut a, std::ptr::null_mut()) },
            IdmintStatus::Closed
        );
        unsafe {
            idmint_segment_client_free(c);
            idmint_tag_free(t);
        }
    }

    #[test]
    fn a_bad_tag_is_invalid_tag() {
        let url = "memory:";
        let mut c = std::ptr::null_mut();
        unsafe {
            idmint_segment_client_connect(
                url.as_ptr().cast(),
                url.len(),
                &mut c,
                std::ptr::null_mut(),
            )
        };
        let mut t = std::ptr::null_mut();
        let s = unsafe {
            idmint_segment_client_tag(c, c"no pe".as_ptr(), 5, &mut t, std::ptr::null_mut())
        };
        assert_eq!(s, IdmintStatus::InvalidTag);
        unsafe { idmint_segment_client_free(c) };
    }
}
