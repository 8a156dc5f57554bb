//! The snowflake generator: node values given, random or leased from a store.

use std::ffi::c_char;

use idmint_core::{AnyClock, OnExhausted, OnRollback};

use crate::ffi::{Failure, IdmintError, buffer, handle, invalid, opt_text, out, run};
use crate::kinds::IdmintStatus;
use crate::layout::{IdmintLayout, IdmintNode, layout_arg, node_pairs};

type Gen = idmint_core::Snowflake<AnyClock>;

/// A snowflake ID generator for one node: lock-free, every ID greater than every ID before it
/// on any thread. One handle is meant to be shared by all the threads of a process (every call
/// but `idmint_snowflake_free` may run on any number of threads at once); freed with
/// `idmint_snowflake_free`, which releases its lease.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet w = [IdmintNode { name: c\"datacenter\".as_ptr(), name_len: 10, value: 1 }, IdmintNode { name: c\"worker\".as_ptr(), name_len: 6, value: 7 }];\nlet opts = IdmintSnowflakeOptions { nodes: w.as_ptr(), nodes_len: 2, ..Default::default() };\nlet mut generator = std::ptr::null_mut();\nassert_eq!(unsafe { idmint_snowflake_new(&opts, &mut generator, std::ptr::null_mut()) }, IdmintStatus::Ok);\nunsafe { idmint_snowflake_free(generator) };\n```"
)]
pub struct IdmintSnowflake {
    generator: Gen,
}

/// How to build a snowflake generator. Every field zero (`IdmintSnowflakeOptions o = {0};`)
/// is the default, so a caller sets only what it needs. Text fields are UTF-8 pointer and
/// length, NULL (with length 0) when not given.
///
/// Each node field's value comes from exactly one place: `nodes`, `random_nodes` (the fields
/// not in `nodes`) or, for all of them, a lease (`lease_url`). A field without one is
/// `IDMINT_STATUS_MISSING_FIELD`, never a silent 0 (two machines defaulting to 0 is how
/// snowflake IDs repeat); a lease with `nodes` or `random_nodes` is
/// `IDMINT_STATUS_INVALID_ARGUMENT`.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet o = idmint::IdmintSnowflakeOptions { random_nodes: true, ..Default::default() };\nassert!(o.layout.is_null());\n```"
)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct IdmintSnowflakeOptions {
    /// A preset name or a layout spec (README, "Layouts"); NULL: `twitter`.
    pub layout: *const c_char,
    /// Its length in bytes.
    pub layout_len: usize,
    /// An epoch replacing the layout's (unix ms or RFC 3339); NULL: the layout's.
    pub epoch: *const c_char,
    /// Its length in bytes.
    pub epoch_len: usize,
    /// Node field values by name (`nodes_len` of them); NULL with 0: none.
    pub nodes: *const IdmintNode,
    /// How many.
    pub nodes_len: usize,
    /// Draw the node fields not in `nodes` from the OS's random source: for places without a
    /// stable identity; two busy generators collide with probability 2^-bits.
    pub random_nodes: bool,
    /// Lease every node field's value from a store (`sqlite:PATH`, `postgres://…`,
    /// `redis://…`, `etcd://…`, `zk://…`, `http(s)://` an idmint serve): a value no other live
    /// generator holds, renewed in the background, fenced so a reuse never repeats an ID
    /// (docs/leases.md). Building waits for the store. Needs the library's stores
    /// (`idmint_has_stores`); NULL: no lease.
    pub lease_url: *const c_char,
    /// Its length in bytes.
    pub lease_url_len: usize,
    /// Lease only values `lease_first..=lease_last` (when `lease_range` is true).
    pub lease_range: bool,
    /// The range's first value.
    pub lease_first: u64,
    /// The range's last value.
    pub lease_last: u64,
    /// The lease's TTL in ms; 0: the default (10 s).
    pub lease_ttl_ms: u64,
    /// How long an expired value stays frozen, in ms; 0: the default (one TTL).
    pub lease_freeze_ms: u64,
    /// The longest building may wait for the lease, opening the store and the first grant
    /// together, in ms (a caller's deadline); 0: the store calls' own timeouts.
    pub lease_acquire_within_ms: u64,
    /// The holder's name recorded with the lease; NULL: host and process.
    pub lease_holder: *const c_char,
    /// Its length in bytes.
    pub lease_holder_len: usize,
    /// When a tick's sequence is used up: `"wait"` (default) or `"borrow:MS"`.
    pub on_exhausted: *const c_char,
    /// Its length in bytes.
    pub on_exhausted_len: usize,
    /// When the clock is behind the last issued time: `"error"` (default), `"wait:MS"` or
    /// `"continue"`.
    pub on_rollback: *const c_char,
    /// Its length in bytes.
    pub on_rollback_len: usize,
    /// A file keeping the last issued time (written ahead, fsynced), so a restart with the
    /// clock behind cannot reissue; NULL: none.
    pub high_water_mark: *const c_char,
    /// Its length in bytes.
    pub high_water_mark_len: usize,
    /// Mint the 64-bit IDs of an `unsigned` layout (above 2^63-1, which no `int64_t` holds).
    pub unsigned_ids: bool,
}

impl Default for IdmintSnowflakeOptions {
    fn default() -> Self {
        IdmintSnowflakeOptions {
            layout: std::ptr::null(),
            layout_len: 0,
            epoch: std::ptr::null(),
            epoch_len: 0,
            nodes: std::ptr::null(),
            nodes_len: 0,
            random_nodes: false,
            lease_url: std::ptr::null(),
            lease_url_len: 0,
            lease_range: false,
            lease_first: 0,
            lease_last: 0,
            lease_ttl_ms: 0,
            lease_freeze_ms: 0,
            lease_acquire_within_ms: 0,
            lease_holder: std::ptr::null(),
            lease_holder_len: 0,
            on_exhausted: std::ptr::null(),
            on_exhausted_len: 0,
            on_rollback: std::ptr::null(),
            on_rollback_len: 0,
            high_water_mark: std::ptr::null(),
            high_water_mark_len: 0,
            unsigned_ids: false,
        }
    }
}

/// Lease options given without `lease_url` are refused, never dropped silently.
fn check_stray_lease_options(o: &IdmintSnowflakeOptions) -> Result<(), Failure> {
    let stray = [
        ("lease_range", o.lease_range),
        ("lease_ttl_ms", o.lease_ttl_ms != 0),
        ("lease_freeze_ms", o.lease_freeze_ms != 0),
        ("lease_acquire_within_ms", o.lease_acquire_within_ms != 0),
        ("lease_holder", !o.lease_holder.is_null()),
    ];
    match stray.iter().find(|(_, given)| *given) {
        Some((name, _)) => Err(invalid(name, "given", "only with lease_url").into()),
        None => Ok(()),
    }
}

#[cfg(feature = "stores")]
unsafe fn lease_options(
    o: &IdmintSnowflakeOptions,
    url: &str,
) -> Result<idmint_core::lease::LeaseOptions, Failure> {
    let mut l = idmint_core::lease::LeaseOptions::url(url);
    if o.lease_range {
        l = l.range(o.lease_first, o.lease_last);
    }
    if o.lease_ttl_ms != 0 {
        l = l.ttl(std::time::Duration::from_millis(o.lease_ttl_ms));
    }
    if o.lease_freeze_ms != 0 {
        l = l.freeze(std::time::Duration::from_millis(o.lease_freeze_ms));
    }
    if o.lease_acquire_within_ms != 0 {
        l = l.acquire_within(std::time::Duration::from_millis(o.lease_acquire_within_ms));
    }
    if let Some(h) = unsafe { opt_text("lease_holder", o.lease_holder, o.lease_holder_len) }? {
        l = l.holder(h);
    }
    Ok(l)
}

/// Builds a snowflake generator from `options` (NULL: every default, which fails with
/// `IDMINT_STATUS_MISSING_FIELD` since twitter's node fields need values).
///
/// Ownership: on success `*out` is a new generator the caller frees with
/// `idmint_snowflake_free`. Blocking: with `lease_url` it waits for the store (bounded by the
/// lease's timeouts); with `high_water_mark` it reads and writes that file.
///
/// Errors: `IDMINT_STATUS_INVALID_LAYOUT`, `IDMINT_STATUS_UNKNOWN_FIELD`,
/// `IDMINT_STATUS_MISSING_FIELD`, `IDMINT_STATUS_VALUE_OUT_OF_RANGE`,
/// `IDMINT_STATUS_LAYOUT_EXHAUSTED` (a layout whose time field has run out),
/// `IDMINT_STATUS_EPOCH_IN_FUTURE`, `IDMINT_STATUS_INVALID_ARGUMENT` (NULL `out`, text not
/// UTF-8, a bad policy, options that contradict each other); with a lease
/// `IDMINT_STATUS_NO_FREE_LEASE`, `IDMINT_STATUS_STORE_UNAVAILABLE`,
/// `IDMINT_STATUS_NOT_AUTHORIZED`, and `IDMINT_STATUS_STORES_NOT_INSTALLED` in a library built
/// without stores. Thread-safe.
///
/// # Safety
///
/// `options` is NULL or readable, and every pointer in it is NULL or points to its length's
/// readable bytes (pairs, for `nodes`); `out` writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet opts = IdmintSnowflakeOptions { random_nodes: true, ..Default::default() };\nlet (mut generator, mut id) = (std::ptr::null_mut(), 0u64);\nunsafe { idmint_snowflake_new(&opts, &mut generator, std::ptr::null_mut()) };\nassert_eq!(unsafe { idmint_snowflake_next_id(generator, &mut id, std::ptr::null_mut()) }, IdmintStatus::Ok);\nassert!(id > 0);\nunsafe { idmint_snowflake_free(generator) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_snowflake_new(
    options: *const IdmintSnowflakeOptions,
    out: *mut *mut IdmintSnowflake,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let slot = crate::ffi::out("out", out)?;
            let defaults = IdmintSnowflakeOptions::default();
            let o = options.as_ref().unwrap_or(&defaults);
            let layout = layout_arg(o.layout, o.layout_len, o.epoch, o.epoch_len)?;
            let pairs = node_pairs("nodes", o.nodes, o.nodes_len)?;
            let on_exhausted = opt_text("on_exhausted", o.on_exhausted, o.on_exhausted_len)?
                .map(str::parse::<OnExhausted>)
                .transpose()?;
            let on_rollback = opt_text("on_rollback", o.on_rollback, o.on_rollback_len)?
                .map(str::parse::<OnRollback>)
                .transpose()?;
            let mut b =
                idmint_core::Snowflake::with_clock(layout, AnyClock::default()).nodes(pairs);
            if o.unsigned_ids {
                b = b.unsigned();
            }
            if o.random_nodes {
                b = b.random_nodes();
            }
            match opt_text("lease_url", o.lease_url, o.lease_url_len)? {
                None => check_stray_lease_options(o)?,
                #[cfg(feature = "stores")]
                Some(url) => b = b.lease(lease_options(o, url)?),
                // Not the URL itself in the message: it may carry credentials.
                #[cfg(not(feature = "stores"))]
                Some(_) => {
                    return Err(crate::errors::stores_missing(
                        "idmint_snowflake_new with lease_url",
                    ));
                }
            }
            if let Some(path) =
                opt_text("high_water_mark", o.high_water_mark, o.high_water_mark_len)?
            {
                b = b.high_water_mark(path);
            }
            let generator = b
                .on_exhausted(on_exhausted.unwrap_or_default())
                .on_rollback(on_rollback.unwrap_or_default())
                .build()?;
            *slot = Box::into_raw(Box::new(IdmintSnowflake { generator }));
            Ok(())
        })
    }
}

/// Frees a generator: its lease is released (a store round trip) and its high-water mark
/// lowered to the last ID issued. NULL is allowed. Only once every other call on it has
/// returned, and only once.
///
/// # Safety
///
/// `generator` is NULL or a generator made by this library and not yet freed.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nunsafe { idmint::idmint_snowflake_free(std::ptr::null_mut()) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_snowflake_free(generator: *mut IdmintSnowflake) {
    // A lease's release may fail (the store down): it is the core's to log and let expire.
    unsafe { crate::ffi::free_box(generator) };
}

/// The next ID, greater than every ID this generator issued before, on any thread.
///
/// Waits at most one tick, and only when the tick's sequence is used up (policy `wait`).
/// Errors: `IDMINT_STATUS_CLOCK_MOVED_BACKWARDS` (retryable), `IDMINT_STATUS_LAYOUT_EXHAUSTED`,
/// `IDMINT_STATUS_LEASE_LOST` (a leased generator whose renewals failed; it recovers by itself),
/// `IDMINT_STATUS_FORKED` (a generator with node values given, used in a `fork()`ed child),
/// `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL argument. Thread-safe, lock-free.
///
/// # Safety
///
/// `generator` is a live generator; `id` writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet mut id = 0;\nassert_eq!(unsafe { idmint_snowflake_next_id(std::ptr::null(), &mut id, std::ptr::null_mut()) }, IdmintStatus::InvalidArgument);\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_snowflake_next_id(
    generator: *const IdmintSnowflake,
    id: *mut u64,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let g = handle("generator", generator)?;
            let slot = out("id", id)?;
            *slot = g.generator.next_id()?;
            Ok(())
        })
    }
}

/// Fills `ids[0..n]` with increasing IDs in one call (one atomic step per tick they span):
/// the call a caller that refills a buffer makes, at a fraction of `n` single calls' cost.
/// `n` is at most 2^24 (`IDMINT_STATUS_INVALID_ARGUMENT` above it); 0 does nothing.
///
/// On error the buffer is partly filled and must be discarded: the IDs reserved for it are
/// never issued again. Errors as `idmint_snowflake_next_id`. Thread-safe; may wait for ticks.
///
/// # Safety
///
/// `generator` is a live generator; `ids` points to `n` writable values nothing else uses during
/// the call; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet opts = IdmintSnowflakeOptions { random_nodes: true, ..Default::default() };\nlet mut generator = std::ptr::null_mut();\nunsafe { idmint_snowflake_new(&opts, &mut generator, std::ptr::null_mut()) };\nlet mut ids = [0u64; 1000];\nassert_eq!(unsafe { idmint_snowflake_next_ids(generator, ids.as_mut_ptr(), ids.len(), std::ptr::null_mut()) }, IdmintStatus::Ok);\nassert!(ids.windows(2).all(|w| w[0] < w[1]));\nunsafe { idmint_snowflake_free(generator) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_snowflake_next_ids(
    generator: *const IdmintSnowflake,
    ids: *mut u64,
    n: usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let g = handle("generator", generator)?;
            // The core's limit on one call's count, and its error.
            idmint_core::args::count("n", n as i128)?;
            let buf = buffer("ids", ids, n)?;
            g.generator.next_ids_into(buf)?;
            Ok(())
        })
    }
}

/// How many IDs a caller that hands IDs out of a buffer may take in one
/// `idmint_snowflake_next_ids` call, and hand out one by one only while the system clock's
/// millisecond has not passed since it made the call (then it drops the rest, which are never
/// issued): the core's rule (`Snowflake::block_len`). 1, a call for each ID, for a generator
/// with a lease or a high-water mark, whose IDs are admitted as they are issued. Thread-safe.
///
/// # Safety
///
/// `generator` is a live generator; `len` writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet opts = IdmintSnowflakeOptions { random_nodes: true, ..Default::default() };\nlet (mut generator, mut len) = (std::ptr::null_mut(), 0);\nunsafe { idmint_snowflake_new(&opts, &mut generator, std::ptr::null_mut()) };\nassert_eq!(unsafe { idmint_snowflake_block_len(generator, &mut len, std::ptr::null_mut()) }, IdmintStatus::Ok);\nassert_eq!(len, 4); // twitter: 4096 a tick / 1024\nunsafe { idmint_snowflake_free(generator) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_snowflake_block_len(
    generator: *const IdmintSnowflake,
    len: *mut usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        crate::ffi::read_into(err, "generator", generator, "len", len, |g| {
            Ok(g.generator.block_len())
        })
    }
}

/// The generator's layout, as a new handle the caller frees with `idmint_layout_free`: to
/// take its IDs apart (`idmint_layout_decompose`) or find its node fields. Thread-safe.
///
/// # Safety
///
/// `generator` is a live generator; `out` writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet opts = IdmintSnowflakeOptions { random_nodes: true, ..Default::default() };\nlet (mut generator, mut l, mut n) = (std::ptr::null_mut(), std::ptr::null_mut(), 0);\nunsafe { idmint_snowflake_new(&opts, &mut generator, std::ptr::null_mut()) };\nunsafe { idmint_snowflake_layout(generator, &mut l, std::ptr::null_mut()) };\nunsafe { idmint_layout_node_count(l, &mut n, std::ptr::null_mut()) };\nassert_eq!(n, 2);\nunsafe { idmint_layout_free(l); idmint_snowflake_free(generator) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_snowflake_layout(
    generator: *const IdmintSnowflake,
    out: *mut *mut IdmintLayout,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let g = handle("generator", generator)?;
            let slot = crate::ffi::out("out", out)?;
            *slot = Box::into_raw(Box::new(IdmintLayout::new(g.generator.layout().clone())));
            Ok(())
        })
    }
}

/// The value of node field `name` this generator mints with (given, drawn or leased: a leased
/// one may change when the lease is taken again).
///
/// Errors: `IDMINT_STATUS_UNKNOWN_FIELD` for a name the layout lacks,
/// `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL argument or text that is not UTF-8.
/// Thread-safe.
///
/// # Safety
///
/// `generator` is live; `name` points to `name_len` readable bytes; `value` writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet w = [IdmintNode { name: c\"datacenter\".as_ptr(), name_len: 10, value: 1 }, IdmintNode { name: c\"worker\".as_ptr(), name_len: 6, value: 7 }];\nlet opts = IdmintSnowflakeOptions { nodes: w.as_ptr(), nodes_len: 2, ..Default::default() };\nlet (mut generator, mut v) = (std::ptr::null_mut(), 0);\nunsafe { idmint_snowflake_new(&opts, &mut generator, std::ptr::null_mut()) };\nunsafe { idmint_snowflake_node(generator, c\"worker\".as_ptr(), 6, &mut v, std::ptr::null_mut()) };\nassert_eq!(v, 7);\nunsafe { idmint_snowflake_free(generator) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_snowflake_node(
    generator: *const IdmintSnowflake,
    name: *const c_char,
    name_len: usize,
    value: *mut u64,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let g = handle("generator", generator)?;
            let slot = out("value", value)?;
            let name = crate::ffi::text("name", name, name_len)?;
            let nodes = g.generator.nodes();
            match nodes.iter().find(|(n, _)| n == name) {
                Some((_, v)) => *slot = *v,
                None => {
                    return Err(idmint_core::Error::UnknownField {
                        field: name.to_string(),
                        valid: nodes
                            .iter()
                            .map(|(n, _)| n.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    }
                    .into());
                }
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(o: &IdmintSnowflakeOptions) -> Result<*mut IdmintSnowflake, (IdmintStatus, String)> {
        let (mut generator, mut err) = (std::ptr::null_mut(), std::ptr::null_mut());
        let s = unsafe { idmint_snowflake_new(o, &mut generator, &mut err) };
        if s == IdmintStatus::Ok {
            return Ok(generator);
        }
        let mut len = 0;
        let m = unsafe { std::ffi::CStr::from_ptr(crate::idmint_error_message(err, &mut len)) };
        let m = m.to_str().unwrap().to_string();
        unsafe { crate::idmint_error_free(err) };
        Err((s, m))
    }

    #[test]
    fn no_node_values_is_a_missing_field_never_a_zero() {
        let (s, m) = build(&IdmintSnowflakeOptions::default()).unwrap_err();
        assert_eq!(s, IdmintStatus::MissingField, "{m}");
        let (s, _) = unsafe {
            let (mut generator, mut err) = (std::ptr::null_mut(), std::ptr::null_mut());
            let s = idmint_snowflake_new(std::ptr::null(), &mut generator, &mut err);
            crate::idmint_error_free(err);
            (s, ())
        };
        assert_eq!(s, IdmintStatus::MissingField);
    }

    #[test]
    fn lease_options_without_a_url_are_refused() {
        let o = IdmintSnowflakeOptions {
            random_nodes: true,
            lease_ttl_ms: 5000,
            ..Default::default()
        };
        let (s, m) = build(&o).unwrap_err();
        assert_eq!(s, IdmintStatus::InvalidArgument);
        assert!(m.contains("lease_ttl_ms"), "{m}");
    }

    #[test]
    fn a_bad_policy_is_the_cores_error() {
        let p = "sometimes";
        let o = IdmintSnowflakeOptions {
            random_nodes: true,
            on_rollback: p.as_ptr().cast(),
            on_rollback_len: p.len(),
            ..Default::default()
        };
        let (s, _) = build(&o).unwrap_err();
        assert_eq!(s, IdmintStatus::InvalidArgument);
    }

    #[test]
    fn batches_above_the_cap_are_refused_before_touching_the_buffer() {
        let generator = build(&IdmintSnowflakeOptions {
            random_nodes: true,
            ..Default::default()
        })
        .unwrap();
        let s = unsafe {
            idmint_snowflake_next_ids(
                generator,
                std::ptr::null_mut(),
                usize::MAX,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(s, IdmintStatus::InvalidArgument);
        let s = unsafe {
            idmint_snowflake_next_ids(generator, std::ptr::null_mut(), 0, std::ptr::null_mut())
        };
        assert_eq!(s, IdmintStatus::Ok);
        unsafe { idmint_snowflake_free(generator) };
    }

    #[test]
    fn unknown_node_names_are_unknown_fields() {
        let generator = build(&IdmintSnowflakeOptions {
            random_nodes: true,
            ..Default::default()
        })
        .unwrap();
        let mut v = 0;
        let s = unsafe {
            idmint_snowflake_node(
                generator,
                c"shard".as_ptr(),
                5,
                &mut v,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(s, IdmintStatus::UnknownField);
        unsafe { idmint_snowflake_free(generator) };
    }

    #[cfg(feature = "stores")]
    #[test]
    fn a_lease_from_sqlite_fills_every_node_field() {
        let dir = std::env::temp_dir().join(format!("idmint-c-lease-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite:{}", dir.join("leases.db").display());
        let o = IdmintSnowflakeOptions {
            lease_url: url.as_ptr().cast(),
            lease_url_len: url.len(),
            lease_range: true,
            lease_first: 3,
            lease_last: 3,
            ..Default::default()
        };
        let generator = build(&o).unwrap();
        let mut id = 0;
        assert_eq!(
            unsafe { idmint_snowflake_next_id(generator, &mut id, std::ptr::null_mut()) },
            IdmintStatus::Ok
        );
        // Value 3 of twitter's 10 node bits: datacenter 0, worker 3.
        let mut w = 0;
        unsafe {
            idmint_snowflake_node(
                generator,
                c"worker".as_ptr(),
                6,
                &mut w,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(w, 3);
        // The only value of the range is held: a second generator finds none free.
        let (s, _) = build(&o).unwrap_err();
        assert_eq!(s, IdmintStatus::NoFreeLease);
        unsafe { idmint_snowflake_free(generator) };
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(feature = "stores")]
    #[test]
    fn lease_acquire_within_ms_ends_the_wait_for_a_silent_store() {
        // A Redis that accepts and never answers; the caller allows 200 ms, under the store
        // calls' own limits (seconds), so only the option can end the wait with these words.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("redis://{}", listener.local_addr().unwrap());
        let held = std::thread::spawn(move || listener.accept().map(|(conn, _)| conn));
        let o = IdmintSnowflakeOptions {
            lease_url: url.as_ptr().cast(),
            lease_url_len: url.len(),
            lease_acquire_within_ms: 200,
            ..Default::default()
        };
        let (s, m) = build(&o).unwrap_err();
        assert_eq!(s, IdmintStatus::StoreUnavailable, "{m}");
        assert!(m.contains("within the caller's limit of 200 ms"), "{m}");
        drop(held.join());
        // Without a lease it is a stray option, refused by name.
        let o = IdmintSnowflakeOptions {
            lease_acquire_within_ms: 200,
            random_nodes: true,
            ..Default::default()
        };
        let (s, m) = build(&o).unwrap_err();
        assert_eq!(s, IdmintStatus::InvalidArgument, "{m}");
        assert!(m.contains("lease_acquire_within_ms"), "{m}");
    }
}
