//! The hot paths as raw N-API callbacks: one call into the core and one value back, without the
//! per-call bookkeeping of napi-rs' generated glue (which costs about as much as minting an ID).
//!
//! The functions take *handles*: N-API externals made by [`handle_value`] that own an `Arc` of a
//! core object, tagged with a magic number and kind so a wrong handle is an error, not a crash.
//! They are internal to the npm package (`index.js` keeps handles in private fields).

use std::ffi::{c_void, CString};
use std::ptr;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

use idmint_core::{Layout, ObjectId, Snowflake};
use napi::sys;

const MAGIC: u64 = 0x1d31_7e4e_0de0_0001;

/// What a handle points to.
pub(crate) enum Target {
    /// The generator belongs to its `NativeSnowflake`, whose `close()` drops it (and releases
    /// its lease) while functions bound to it may still be reachable.
    Snowflake(Arc<SnowflakeSlot>),
    Layout(Arc<Layout>),
}

/// How the fast functions reach a generator they do not own.
pub(crate) struct SnowflakeSlot {
    generator: Weak<Snowflake>,
    /// Set by `close()` at once: the generator itself may live on a moment longer, while its
    /// lease is released on another thread.
    closed: AtomicBool,
}

impl SnowflakeSlot {
    pub(crate) fn new(g: &Arc<Snowflake>) -> Arc<SnowflakeSlot> {
        Arc::new(SnowflakeSlot {
            generator: Arc::downgrade(g),
            closed: AtomicBool::new(false),
        })
    }

    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
    }

    /// The generator, or the core's `closed` error.
    #[inline]
    pub(crate) fn get(&self) -> Result<Arc<Snowflake>, idmint_core::Error> {
        match self.generator.upgrade() {
            Some(g) if !self.closed.load(Ordering::Acquire) => Ok(g),
            _ => Err(idmint_core::Error::Closed {
                what: "snowflake generator".into(),
            }),
        }
    }
}

struct Handle {
    magic: u64,
    target: Target,
}

unsafe extern "C" fn finalize(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    // SAFETY: `data` is the Box made in `handle_value`, finalized exactly once by N-API.
    drop(unsafe { Box::from_raw(data as *mut Handle) });
}

/// A new external owning `target`.
pub(crate) fn handle_value(env: sys::napi_env, target: Target) -> napi::Result<sys::napi_value> {
    let data = Box::into_raw(Box::new(Handle {
        magic: MAGIC,
        target,
    }));
    let mut out = ptr::null_mut();
    // SAFETY: valid env from the current call; N-API takes ownership of `data` via `finalize`.
    let status = unsafe {
        sys::napi_create_external(
            env,
            data as *mut c_void,
            Some(finalize),
            ptr::null_mut(),
            &mut out,
        )
    };
    if status != sys::Status::napi_ok {
        // SAFETY: N-API did not take the box.
        drop(unsafe { Box::from_raw(data) });
        return Err(napi::Error::from_reason("cannot create a handle"));
    }
    Ok(out)
}

/// Throw an `Error` with `code` and `message`; returns null for the callback to return.
unsafe fn throw(env: sys::napi_env, code: &str, message: &str) -> sys::napi_value {
    let clean = |s: &str| CString::new(s.replace('\0', "\\0")).unwrap_or_default();
    let (code, message) = (clean(code), clean(message));
    // SAFETY: valid env; the strings live across the call.
    unsafe { sys::napi_throw_error(env, code.as_ptr(), message.as_ptr()) };
    ptr::null_mut()
}

unsafe fn throw_core(env: sys::napi_env, e: idmint_core::Error) -> sys::napi_value {
    unsafe { throw(env, e.kind(), &e.to_string()) }
}

unsafe fn throw_internal(env: sys::napi_env, what: &str) -> sys::napi_value {
    unsafe {
        throw(
            env,
            "invalid_argument",
            &format!("invalid argument `handle` = {what}: an idmint handle (internal API)"),
        )
    }
}

/// Runs the body of a raw N-API callback, turning a panic into a thrown JS `Error` (code
/// `GenericFailure`, as napi-rs' `catch_unwind` does for the generated functions): a panic may
/// not unwind into N-API, where it would abort the process.
fn no_unwind(env: sys::napi_env, body: impl FnOnce() -> sys::napi_value) -> sys::napi_value {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("a panic without a message");
            // SAFETY: valid env of the current call.
            unsafe {
                throw(
                    env,
                    "GenericFailure",
                    &format!("panic in idmint: {message}"),
                )
            }
        }
    }
}

/// A raw N-API callback `fn name(env, info) { body }` whose body runs under [`no_unwind`].
macro_rules! callback {
    ($(#[$attr:meta])* fn $name:ident($env:ident, $info:ident) $body:block) => {
        $(#[$attr])*
        unsafe extern "C" fn $name($env: sys::napi_env, $info: sys::napi_callback_info) -> sys::napi_value {
            no_unwind($env, || $body)
        }
    };
}

/// Up to `N` arguments of the current call.
unsafe fn args<const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> Option<[sys::napi_value; N]> {
    let mut argv = [ptr::null_mut(); N];
    let mut argc = N;
    // SAFETY: argv has room for N values.
    let status = unsafe {
        sys::napi_get_cb_info(
            env,
            info,
            &mut argc,
            argv.as_mut_ptr(),
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    (status == sys::Status::napi_ok && argc >= N).then_some(argv)
}

/// The target of a handle argument, or None when it is not one of ours.
unsafe fn target<'a>(env: sys::napi_env, value: sys::napi_value) -> Option<&'a Target> {
    let mut data = ptr::null_mut();
    // SAFETY: fails with a status for non-externals.
    let status = unsafe { sys::napi_get_value_external(env, value, &mut data) };
    if status != sys::Status::napi_ok || data.is_null() {
        return None;
    }
    // SAFETY: externals given to these functions are made by `handle_value` (checked by magic);
    // N-API keeps the data alive while the external is reachable, which it is during the call.
    let h = unsafe { &*(data as *const Handle) };
    (h.magic == MAGIC).then_some(&h.target)
}

unsafe fn snowflake(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> Result<Arc<Snowflake>, sys::napi_value> {
    let Some([h]) = (unsafe { args::<1>(env, info) }) else {
        return Err(unsafe { throw_internal(env, "missing") });
    };
    match unsafe { target(env, h) } {
        Some(Target::Snowflake(s)) => live(env, s),
        _ => Err(unsafe { throw_internal(env, "not a Snowflake handle") }),
    }
}

/// The generator, or a thrown `closed` error once its `NativeSnowflake` was closed.
fn live(env: sys::napi_env, g: &SnowflakeSlot) -> Result<Arc<Snowflake>, sys::napi_value> {
    g.get().map_err(|e| unsafe { throw_core(env, e) })
}

callback! {
/// `fastNextId(handle) -> bigint`
fn fast_next_id(env, info) {
    let g = match unsafe { snowflake(env, info) } {
        Ok(g) => g,
        Err(v) => return v,
    };
    match g.next_id() {
        Ok(id) => {
            let mut out = ptr::null_mut();
            // SAFETY: valid env and out-pointer.
            unsafe { sys::napi_create_bigint_uint64(env, id, &mut out) };
            out
        }
        Err(e) => unsafe { throw_core(env, e) },
    }
}
}

callback! {
/// `fastNextIdString(handle) -> string`
fn fast_next_id_string(env, info) {
    let g = match unsafe { snowflake(env, info) } {
        Ok(g) => g,
        Err(v) => return v,
    };
    match g.next_id() {
        Ok(id) => {
            let mut buf = itoa::Buffer::new();
            let s = buf.format(id);
            let mut out = ptr::null_mut();
            // SAFETY: ASCII digits, length given.
            unsafe {
                sys::napi_create_string_latin1(env, s.as_ptr().cast(), s.len() as isize, &mut out)
            };
            out
        }
        Err(e) => unsafe { throw_core(env, e) },
    }
}
}

thread_local! {
    /// The unix seconds of this thread's last [`fast_object_id_block`].
    static OBJECT_ID_BLOCK_SECONDS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

callback! {
/// `fastObjectIdBlock() -> Buffer`: up to [`ObjectId::BLOCK_LEN`] new ObjectIds of one second
/// from the process-wide generator ([`ObjectId::new_block_hex`]), their hex one after the other (24 ASCII bytes each); the
/// facade hands them out. A Buffer keeps the hex outside the JS heap, so the IDs an app holds
/// cost the garbage collector only their objects. Their seconds: `fastObjectIdBlockSeconds()`.
fn fast_object_id_block(env, _info) {
    let mut hex = [0u8; 24 * ObjectId::BLOCK_LEN];
    let (n, seconds) = ObjectId::new_block_hex(&mut hex);
    OBJECT_ID_BLOCK_SECONDS.with(|s| s.set(seconds));
    let mut out = ptr::null_mut();
    let mut data = ptr::null_mut();
    // SAFETY: copies `n * 24` bytes of `hex` into a new Buffer.
    unsafe { sys::napi_create_buffer_copy(env, n * 24, hex.as_ptr().cast(), &mut data, &mut out) };
    out
}
}

callback! {
/// `fastObjectIdBlockSeconds() -> number`: the unix seconds of this thread's last
/// `fastObjectIdBlock()`.
fn fast_object_id_block_seconds(env, _info) {
    let mut out = ptr::null_mut();
    // SAFETY: valid env and out-pointer.
    unsafe { sys::napi_create_uint32(env, OBJECT_ID_BLOCK_SECONDS.with(|s| s.get()), &mut out) };
    out
}
}

callback! {
/// `fastDecompose(layoutHandle, id: bigint, out: Float64Array)`: writes the time in unix ms and
/// then every field below the time field, in layout order, as exact numbers. Only for layouts
/// whose fields are all at most 53 bits wide (index.js uses `decompose` for the others); a
/// bigint outside 0..2^64 is an error (index.js sends those as text).
fn fast_decompose(env, info) {
    let Some([h, id, out]) = (unsafe { args::<3>(env, info) }) else {
        return unsafe { throw_internal(env, "missing arguments") };
    };
    let layout = match unsafe { target(env, h) } {
        Some(Target::Layout(l)) => l,
        _ => return unsafe { throw_internal(env, "not a Layout handle") },
    };
    let mut value = 0u64;
    let mut lossless = false;
    // SAFETY: valid env, out-pointers.
    let status = unsafe { sys::napi_get_value_bigint_uint64(env, id, &mut value, &mut lossless) };
    if status != sys::Status::napi_ok || !lossless {
        return unsafe {
            throw(
                env,
                "invalid_argument",
                "invalid argument `id`: a bigint 0..2^64 (internal API)",
            )
        };
    }
    let mut kind = 0;
    let mut len = 0usize;
    let mut data = ptr::null_mut();
    // SAFETY: fails with a status for non-typed-arrays.
    let status = unsafe {
        sys::napi_get_typedarray_info(
            env,
            out,
            &mut kind,
            &mut len,
            &mut data,
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    let fields = layout.fields();
    if status != sys::Status::napi_ok
        || kind != sys::TypedarrayType::float64_array
        || len < fields.len() + 1
        || data.is_null()
        || fields.iter().any(|f| f.bits() > 53)
    {
        return unsafe {
            throw(
                env,
                "invalid_argument",
                "invalid argument `out`: a Float64Array of 1 + fields, for a layout of fields up to 53 bits (internal API)",
            )
        };
    }
    // SAFETY: `data` points at `len` f64s (checked above), not aliased during the call.
    let out = unsafe { std::slice::from_raw_parts_mut(data as *mut f64, len) };
    match decompose_to(layout, value, |i, v| out[i] = v) {
        // A null result is `undefined` to JS.
        Ok(()) => ptr::null_mut(),
        Err(e) => unsafe { throw_core(env, e) },
    }
}
}

/// Most node fields a layout can have: 64 bits, at least one of them time and one sequence.
const MAX_NODE_FIELDS: usize = 62;

/// Decompose `id` with [`Layout::decompose_into`] (no allocation) and hand `put` slot 0 the time
/// in unix ms, then slot 1.. each field below the time field in layout order, as numbers (exact:
/// the callers only take layouts of fields up to 53 bits).
#[inline]
fn decompose_to(
    layout: &Layout,
    id: u64,
    mut put: impl FnMut(usize, f64),
) -> Result<(), idmint_core::Error> {
    let mut nodes = [0u64; MAX_NODE_FIELDS];
    let fields = layout.fields();
    let n = fields.len() - 1;
    let (time_ms, sequence) = layout.decompose_into(id, nodes.get_mut(..n).unwrap_or(&mut []))?;
    put(0, time_ms as f64);
    let mut node = nodes.iter();
    for (i, f) in fields.iter().enumerate() {
        let v = match f.kind() {
            idmint_core::FieldKind::Sequence => sequence,
            idmint_core::FieldKind::Node => node.next().copied().unwrap_or(0),
        };
        put(i + 1, v as f64);
    }
    Ok(())
}

/// Add the raw functions to `exports`.
pub(crate) fn register(env: sys::napi_env, exports: sys::napi_value) -> napi::Result<()> {
    type Cb = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;
    let fns: [(&str, Cb); 5] = [
        ("fastNextId", fast_next_id),
        ("fastNextIdString", fast_next_id_string),
        ("fastObjectIdBlock", fast_object_id_block),
        ("fastObjectIdBlockSeconds", fast_object_id_block_seconds),
        ("fastDecompose", fast_decompose),
    ];
    for (name, cb) in fns {
        let mut f = ptr::null_mut();
        // SAFETY: valid env from module init; name and callback live for the process.
        let status = unsafe {
            sys::napi_create_function(
                env,
                name.as_ptr().cast(),
                name.len() as isize,
                Some(cb),
                ptr::null_mut(),
                &mut f,
            )
        };
        let c_name = CString::new(name).unwrap_or_default();
        if status != sys::Status::napi_ok
            || unsafe { sys::napi_set_named_property(env, exports, c_name.as_ptr(), f) }
                != sys::Status::napi_ok
        {
            return Err(napi::Error::from_reason(format!("cannot export {name}")));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Bound functions: the target travels as the function's own data pointer (no handle argument,
// no external lookup), and `decompose` writes into memory it owns, which JS sees as a
// Float64Array over an external ArrayBuffer (no typed-array lookup per call).

/// The data of a bound function: freed by the function's finalizer.
struct Bound {
    target: Target,
    /// For `decompose`: the scratch the results go to, shared with the ArrayBuffer JS reads.
    scratch: Option<Rc<Scratch>>,
}

/// Result slots: written by Rust during a call, read by JS after it, on the JS thread only.
struct Scratch {
    slots: Box<[std::cell::Cell<f64>]>,
}

unsafe extern "C" fn finalize_bound(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    // SAFETY: `data` is the Box made in `bound_function`, finalized exactly once.
    drop(unsafe { Box::from_raw(data as *mut Bound) });
}

unsafe extern "C" fn finalize_scratch(_env: sys::napi_env, _data: *mut c_void, hint: *mut c_void) {
    // SAFETY: `hint` is the Rc leaked in `scratch_array` (JS thread only), released exactly once here.
    drop(unsafe { Box::from_raw(hint as *mut Rc<Scratch>) });
}

/// The data of the function being called.
unsafe fn bound<'a, const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> Option<(&'a Bound, [sys::napi_value; N])> {
    let mut argv = [ptr::null_mut(); N];
    let mut argc = N;
    let mut data = ptr::null_mut();
    // SAFETY: argv has room for N values.
    let status = unsafe {
        sys::napi_get_cb_info(
            env,
            info,
            &mut argc,
            argv.as_mut_ptr(),
            ptr::null_mut(),
            &mut data,
        )
    };
    if status != sys::Status::napi_ok || data.is_null() || argc < N {
        return None;
    }
    // SAFETY: only `bound_function` creates functions with these callbacks, with a live Bound
    // (freed by the function's finalizer, so alive while the function can be called).
    Some((unsafe { &*(data as *const Bound) }, argv))
}

callback! {
fn bound_next_id(env, info) {
    let Some((
        Bound {
            target: Target::Snowflake(g),
            ..
        },
        [],
    )) = (unsafe { bound::<0>(env, info) })
    else {
        return unsafe { throw_internal(env, "not bound to a Snowflake") };
    };
    let g = match live(env, g) {
        Ok(g) => g,
        Err(v) => return v,
    };
    match g.next_id() {
        Ok(id) => {
            let mut out = ptr::null_mut();
            // SAFETY: valid env and out-pointer.
            unsafe { sys::napi_create_bigint_uint64(env, id, &mut out) };
            out
        }
        Err(e) => unsafe { throw_core(env, e) },
    }
}
}

callback! {
fn bound_next_id_string(env, info) {
    let Some((
        Bound {
            target: Target::Snowflake(g),
            ..
        },
        [],
    )) = (unsafe { bound::<0>(env, info) })
    else {
        return unsafe { throw_internal(env, "not bound to a Snowflake") };
    };
    let g = match live(env, g) {
        Ok(g) => g,
        Err(v) => return v,
    };
    match g.next_id() {
        Ok(id) => {
            let mut buf = itoa::Buffer::new();
            let s = buf.format(id);
            let mut out = ptr::null_mut();
            // SAFETY: ASCII digits, length given.
            unsafe {
                sys::napi_create_string_latin1(env, s.as_ptr().cast(), s.len() as isize, &mut out)
            };
            out
        }
        Err(e) => unsafe { throw_core(env, e) },
    }
}
}

callback! {
/// `decompose(id: bigint)`: the time in unix ms, then each field in layout order, into the
/// scratch; for layouts of fields up to 53 bits (the caller checks).
fn bound_decompose(env, info) {
    let Some((
        Bound {
            target: Target::Layout(layout),
            scratch: Some(scratch),
        },
        [id],
    )) = (unsafe { bound::<1>(env, info) })
    else {
        return unsafe { throw_internal(env, "not bound to a Layout, or no id") };
    };
    let mut value = 0u64;
    let mut lossless = false;
    // SAFETY: valid env, out-pointers.
    let status = unsafe { sys::napi_get_value_bigint_uint64(env, id, &mut value, &mut lossless) };
    if status != sys::Status::napi_ok || !lossless {
        return unsafe {
            throw(
                env,
                "invalid_argument",
                "invalid argument `id`: a bigint 0..2^64 (internal API)",
            )
        };
    }
    let slots = &scratch.slots;
    match decompose_to(layout, value, |i, v| slots[i].set(v)) {
        Ok(()) => ptr::null_mut(),
        Err(e) => unsafe { throw_core(env, e) },
    }
}
}

type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

/// A JS function calling `cb` with `data` bound; the function's finalizer frees `data`.
fn bound_function(
    env: sys::napi_env,
    name: &str,
    cb: Callback,
    data: Bound,
) -> napi::Result<sys::napi_value> {
    let data = Box::into_raw(Box::new(data));
    let mut f = ptr::null_mut();
    // SAFETY: valid env; `data` outlives the function (freed by its finalizer below).
    let status = unsafe {
        sys::napi_create_function(
            env,
            name.as_ptr().cast(),
            name.len() as isize,
            Some(cb),
            data as *mut c_void,
            &mut f,
        )
    };
    if status != sys::Status::napi_ok {
        drop(unsafe { Box::from_raw(data) });
        return Err(napi::Error::from_reason(format!("cannot create {name}")));
    }
    // SAFETY: the finalizer runs once when `f` is collected.
    let status = unsafe {
        sys::napi_add_finalizer(
            env,
            f,
            data as *mut c_void,
            Some(finalize_bound),
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    if status != sys::Status::napi_ok {
        // Leaking is safe; freeing while `f` may still be called is not.
        return Err(napi::Error::from_reason(format!("cannot finalize {name}")));
    }
    Ok(f)
}

/// A Float64Array over `scratch`'s memory, or None where external buffers are not allowed.
fn scratch_array(env: sys::napi_env, scratch: &Rc<Scratch>) -> Option<sys::napi_value> {
    let len = scratch.slots.len();
    let hint = Box::into_raw(Box::new(scratch.clone()));
    let mut ab = ptr::null_mut();
    // SAFETY: the memory stays alive while the ArrayBuffer holds its Rc (released in the
    // finalizer); Cell<f64> has f64's layout.
    let status = unsafe {
        sys::napi_create_external_arraybuffer(
            env,
            scratch.slots.as_ptr() as *mut c_void,
            len * std::mem::size_of::<f64>(),
            Some(finalize_scratch),
            hint as *mut c_void,
            &mut ab,
        )
    };
    if status != sys::Status::napi_ok {
        drop(unsafe { Box::from_raw(hint) });
        return None;
    }
    let mut ta = ptr::null_mut();
    let status = unsafe {
        sys::napi_create_typedarray(env, sys::TypedarrayType::float64_array, len, ab, 0, &mut ta)
    };
    (status == sys::Status::napi_ok).then_some(ta)
}

fn set(
    env: sys::napi_env,
    obj: sys::napi_value,
    name: &str,
    value: sys::napi_value,
) -> napi::Result<()> {
    let c_name = CString::new(name).unwrap_or_default();
    // SAFETY: valid env and values.
    if unsafe { sys::napi_set_named_property(env, obj, c_name.as_ptr(), value) }
        != sys::Status::napi_ok
    {
        return Err(napi::Error::from_reason(format!("cannot set {name}")));
    }
    Ok(())
}

/// `{ nextId, nextIdString }` bound to a generator.
pub(crate) fn bind_snowflake(
    env: sys::napi_env,
    g: &Arc<SnowflakeSlot>,
) -> napi::Result<sys::napi_value> {
    let mut obj = ptr::null_mut();
    unsafe { sys::napi_create_object(env, &mut obj) };
    let mk = |t: &Arc<SnowflakeSlot>| Bound {
        target: Target::Snowflake(t.clone()),
        scratch: None,
    };
    set(
        env,
        obj,
        "nextId",
        bound_function(env, "nextId", bound_next_id, mk(g))?,
    )?;
    set(
        env,
        obj,
        "nextIdString",
        bound_function(env, "nextIdString", bound_next_id_string, mk(g))?,
    )?;
    Ok(obj)
}

/// `{ decompose, out }` bound to a layout of fields up to 53 bits, or `null` where external
/// buffers are not allowed (the caller then uses `fastDecompose`).
pub(crate) fn bind_layout(env: sys::napi_env, l: &Arc<Layout>) -> napi::Result<sys::napi_value> {
    let scratch = Rc::new(Scratch {
        slots: (0..l.fields().len() + 1)
            .map(|_| std::cell::Cell::new(0.0))
            .collect(),
    });
    let Some(out) = scratch_array(env, &scratch) else {
        let mut null = ptr::null_mut();
        unsafe { sys::napi_get_null(env, &mut null) };
        return Ok(null);
    };
    let mut obj = ptr::null_mut();
    unsafe { sys::napi_create_object(env, &mut obj) };
    let f = bound_function(
        env,
        "decompose",
        bound_decompose,
        Bound {
            target: Target::Layout(l.clone()),
            scratch: Some(scratch),
        },
    )?;
    set(env, obj, "decompose", f)?;
    set(env, obj, "out", out)?;
    Ok(obj)
}
