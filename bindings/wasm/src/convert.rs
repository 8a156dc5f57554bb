//! What both wasm modules share (bindings/wasm, and bindings/wasm-extras, which includes this
//! file by path): the allocator, a core error as a JS `Error`, a JS integer as the core's wide
//! integer.

use idmint_core::Error;
use wasm_bindgen::JsValue;

/// The allocator: talc in place of std's dlmalloc, for a smaller module (web/README.md, "Size").
// SAFETY: a wasm32-unknown-unknown module runs on one thread (no atomics, no shared memory).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::TalckWasm = unsafe { talc::TalckWasm::new_global() };

/// A core error as a JS `Error` whose `kind` is [`Error::kind`].
pub(crate) fn to_js(e: Error) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    let _ = js_sys::Reflect::set(&err, &"kind".into(), &e.kind().into());
    err.into()
}

/// A JS integer (a safe-integer number or any bigint) as the core's wide integer; anything
/// else is the core's `invalid_argument` naming `what`.
///
/// `index.js` passes bigints. One beyond ±2^127 is clamped: it is out of every field's range,
/// and the core reports it so.
pub(crate) fn wide(v: &JsValue, what: &str) -> Result<i128, JsValue> {
    if v.is_bigint() {
        return Ok(i128::try_from(v.clone()).unwrap_or_else(|_| {
            if v.lt(&JsValue::from(0)) {
                i128::MIN
            } else {
                i128::MAX
            }
        }));
    }
    match v.as_f64() {
        Some(f) if f.is_finite() && f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_991.0 => {
            Ok(f as i128)
        }
        _ => Err(to_js(Error::InvalidArgument {
            name: what.to_string(),
            value: v.js_typeof().as_string().unwrap_or_default(),
            expected: "a whole number (a number up to 2^53-1, or a bigint)".to_string(),
        })),
    }
}
