//! Layouts (parse, compose and decompose snowflake IDs of any layout) and the parser of every
//! ID format (`idmint_parse`, the core's `formats::decode`).

use std::ffi::{CString, c_char};

use idmint_core::Layout;
use idmint_core::formats::{self, Decoded, PartValue};

use crate::ffi::{
    Failure, IdmintError, array, c_string, give_string, handle, opt_text, out, run, text,
};
use crate::kinds::IdmintStatus;

/// A snowflake layout: its fields, tick and epoch. Immutable, so one handle may be used from
/// any number of threads at once; freed with `idmint_layout_free`.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet l = idmint::test_layout(\"redis-lua\");\nlet mut n = 0;\nassert_eq!(unsafe { idmint::idmint_layout_node_count(l, &mut n, std::ptr::null_mut()) }, idmint::IdmintStatus::Ok);\nassert_eq!(n, 1);\nunsafe { idmint::idmint_layout_free(l) };\n```"
)]
pub struct IdmintLayout {
    pub(crate) layout: Layout,
    /// Each node field's name, NUL-terminated, for `idmint_layout_node_name`.
    names: Vec<CString>,
}

impl IdmintLayout {
    pub(crate) fn new(layout: Layout) -> IdmintLayout {
        let names = layout
            .node_fields()
            .map(|f| c_string(f.name().to_string()))
            .collect();
        IdmintLayout { layout, names }
    }
}

/// A layout handle for the examples of this crate's docs (not part of the C API).
#[doc(hidden)]
pub fn test_layout(spec: &str) -> *mut IdmintLayout {
    Box::into_raw(Box::new(IdmintLayout::new(
        Layout::parse(spec).expect("a valid layout"),
    )))
}

/// A node field's name and value, as given to `idmint_layout_compose` and
/// `IdmintSnowflakeOptions.nodes`. The name is UTF-8 of `name_len` bytes (no NUL needed); the
/// value is signed so that a negative value is reported as out of range, not wrapped.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet n = idmint::IdmintNode { name: c\"worker\".as_ptr(), name_len: 6, value: 7 };\nassert_eq!(n.value, 7);\n```"
)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct IdmintNode {
    /// The field's name (`"worker"`).
    pub name: *const c_char,
    /// Its length in bytes.
    pub name_len: usize,
    /// The value.
    pub value: i64,
}

/// The node pairs of a C array, each name read as UTF-8.
///
/// # Safety
///
/// `nodes` is NULL (with `len` 0) or points to `len` pairs whose names are readable.
pub(crate) unsafe fn node_pairs<'a>(
    arg: &str,
    nodes: *const IdmintNode,
    len: usize,
) -> Result<Vec<(&'a str, i128)>, Failure> {
    let nodes = unsafe { array(arg, nodes, len) }?;
    let mut pairs = Vec::with_capacity(nodes.len());
    for n in nodes {
        let name = unsafe { text(&format!("{arg}.name"), n.name, n.name_len) }?;
        pairs.push((name, i128::from(n.value)));
    }
    Ok(pairs)
}

/// Reads a layout: a preset name (`"twitter"`, `"sonyflake"`, `"redis-lua"`, `"baidu"`, ...) or
/// a spec (`"time:41,worker:10,sequence:12,epoch=2020-01-01T00:00:00Z"`), the same grammar as
/// every idmint package (README, "Layouts"). `spec` NULL (with `spec_len` 0) is the default
/// preset, `twitter`. `epoch`, when not NULL, replaces the layout's epoch (unix ms or RFC 3339).
///
/// Ownership: on success `*out` is a new handle the caller frees with `idmint_layout_free`.
/// Errors: `IDMINT_STATUS_INVALID_LAYOUT` (its message says what is wrong),
/// `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL `out`, text that is not UTF-8 or a bad epoch.
/// Thread-safe.
///
/// # Safety
///
/// Text pointers are NULL or point to their length's readable bytes; `out` is writable; `err`
/// is NULL or writable (on failure it receives an error the caller frees).
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet (mut l, mut err) = (std::ptr::null_mut(), std::ptr::null_mut());\nlet spec = \"time:41,worker:10,sequence:12\";\nassert_eq!(unsafe { idmint_layout_new(spec.as_ptr().cast(), spec.len(), std::ptr::null(), 0, &mut l, &mut err) }, IdmintStatus::Ok);\nunsafe { idmint_layout_free(l) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_layout_new(
    spec: *const c_char,
    spec_len: usize,
    epoch: *const c_char,
    epoch_len: usize,
    out: *mut *mut IdmintLayout,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let slot = crate::ffi::out("out", out)?;
            let layout = layout_arg(spec, spec_len, epoch, epoch_len)?;
            *slot = Box::into_raw(Box::new(IdmintLayout::new(layout)));
            Ok(())
        })
    }
}

/// The layout of a spec and an epoch given as C text (NULL spec: the default preset).
///
/// # Safety
///
/// As [`opt_text`].
pub(crate) unsafe fn layout_arg(
    spec: *const c_char,
    spec_len: usize,
    epoch: *const c_char,
    epoch_len: usize,
) -> Result<Layout, Failure> {
    let spec = unsafe { opt_text("spec", spec, spec_len) }?.unwrap_or(Layout::DEFAULT_PRESET);
    let epoch = unsafe { opt_text("epoch", epoch, epoch_len) }?;
    Ok(Layout::parse_with_epoch(spec, epoch)?)
}

/// Frees a layout. NULL is allowed. Not while another thread uses it, nor twice.
///
/// # Safety
///
/// `layout` is NULL or a layout made by this library and not yet freed.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nunsafe { idmint::idmint_layout_free(idmint::test_layout(\"twitter\")) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_layout_free(layout: *mut IdmintLayout) {
    unsafe { crate::ffi::free_box(layout) };
}

/// The layout's spec (`"time:41@1ms,datacenter:5,worker:5,sequence:12,epoch=..."`, or the
/// preset's name for an unchanged preset), as a string the caller frees with
/// `idmint_string_free`; its length without the NUL in `*len`.
///
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL argument. Thread-safe.
///
/// # Safety
///
/// `layout` is a live layout; `out` and `len` are writable; `err` as everywhere.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet l = test_layout(\"sonyflake\");\nlet (mut s, mut n) = (std::ptr::null_mut(), 0);\nassert_eq!(unsafe { idmint_layout_spec(l, &mut s, &mut n, std::ptr::null_mut()) }, IdmintStatus::Ok);\nassert_eq!(unsafe { std::ffi::CStr::from_ptr(s) }.to_str().unwrap(), \"sonyflake\");\nunsafe { idmint_string_free(s); idmint_layout_free(l) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_layout_spec(
    layout: *const IdmintLayout,
    out: *mut *mut c_char,
    len: *mut usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let l = handle("layout", layout)?;
            let (ptr, len) = (crate::ffi::out("out", out)?, crate::ffi::out("len", len)?);
            let spec = l
                .layout
                .preset_name()
                .map_or_else(|| l.layout.spec(), str::to_string);
            give_string(spec, ptr, len);
            Ok(())
        })
    }
}

/// The number of node fields of the layout (the length of the `nodes` buffer that
/// `idmint_layout_decompose` fills). Thread-safe.
///
/// # Safety
///
/// `layout` is a live layout; `count` writable; `err` as everywhere.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet l = idmint::test_layout(\"twitter\");\nlet mut n = 0;\nunsafe { idmint::idmint_layout_node_count(l, &mut n, std::ptr::null_mut()) };\nassert_eq!(n, 2);\nunsafe { idmint::idmint_layout_free(l) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_layout_node_count(
    layout: *const IdmintLayout,
    count: *mut usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe { crate::ffi::read_into(err, "layout", layout, "count", count, |l| Ok(l.names.len())) }
}

/// The name of node field `index` (0 is the most significant), NUL-terminated and borrowed
/// from the layout (valid until `idmint_layout_free`; do not free it), its length in `*len`.
///
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for an index past the last field or a NULL
/// argument. Thread-safe.
///
/// # Safety
///
/// `layout` is a live layout; `name` and `len` writable; `err` as everywhere.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet l = idmint::test_layout(\"twitter\");\nlet (mut p, mut n) = (std::ptr::null(), 0);\nunsafe { idmint::idmint_layout_node_name(l, 1, &mut p, &mut n, std::ptr::null_mut()) };\nassert_eq!(unsafe { std::ffi::CStr::from_ptr(p) }.to_str().unwrap(), \"worker\");\nunsafe { idmint::idmint_layout_free(l) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_layout_node_name(
    layout: *const IdmintLayout,
    index: usize,
    name: *mut *const c_char,
    len: *mut usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let l = handle("layout", layout)?;
            let (name, len) = (out("name", name)?, out("len", len)?);
            let n = l.names.get(index).ok_or_else(|| {
                crate::ffi::invalid(
                    "index",
                    index.to_string(),
                    &format!("0..{} (the layout's node fields)", l.names.len()),
                )
            })?;
            *name = n.as_ptr();
            *len = n.as_bytes().len();
            Ok(())
        })
    }
}

/// Reads a decimal ID as the layout takes them: 1 to 20 digits, at most 2^63-1 (2^64-1 for
/// an `unsigned` layout), and within the layout's bits.
///
/// Errors: `IDMINT_STATUS_INVALID_ID` (negative, too large, not decimal), and
/// `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL argument or text that is not UTF-8.
/// Thread-safe.
///
/// # Safety
///
/// `layout` is a live layout; `id_text` points to `id_len` readable bytes; `id` writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet l = test_layout(\"redis-lua\");\nlet (t, mut id) = (\"5981966696448054276\", 0u64);\nassert_eq!(unsafe { idmint_layout_parse_id(l, t.as_ptr().cast(), t.len(), &mut id, std::ptr::null_mut()) }, IdmintStatus::Ok);\nassert_eq!(id, 5981966696448054276);\nunsafe { idmint_layout_free(l) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_layout_parse_id(
    layout: *const IdmintLayout,
    id_text: *const c_char,
    id_len: usize,
    id: *mut u64,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let l = handle("layout", layout)?;
            let slot = out("id", id)?;
            let text = text("id_text", id_text, id_len)?;
            let value = l.layout.parse_id(text)?;
            // Within the layout's bits too, as a decimal ID of this layout must be.
            l.layout.decompose(value)?;
            *slot = value;
            Ok(())
        })
    }
}

/// An ID's time and sequence, from `idmint_layout_decompose` (its node values go to the
/// caller's buffer).
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet p = idmint::IdmintParts { time_ms: 1426212000000, sequence: 4 };\nassert_eq!(p.sequence, 4);\n```"
)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct IdmintParts {
    /// The start of the ID's tick, unix milliseconds.
    pub time_ms: u64,
    /// The sequence number within the tick.
    pub sequence: u64,
}

/// Takes an ID apart: its time and sequence into `*parts`, each node field's value into
/// `nodes[i]` in layout order (`idmint_layout_node_name(i)`); `nodes_len` must be the layout's
/// node count.
///
/// Errors: `IDMINT_STATUS_INVALID_ID` for an ID that does not fit the layout,
/// `IDMINT_STATUS_INVALID_ARGUMENT` for a buffer of another length or a NULL argument.
/// Thread-safe; nothing is allocated.
///
/// # Safety
///
/// `layout` is a live layout; `parts` writable; `nodes` points to `nodes_len` writable values.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet l = test_layout(\"redis-lua\");\nlet (mut p, mut nodes) = (IdmintParts::default(), [0u64; 1]);\nunsafe { idmint_layout_decompose(l, 5981966696448054276, &mut p, nodes.as_mut_ptr(), 1, std::ptr::null_mut()) };\nassert_eq!((p.time_ms, nodes[0], p.sequence), (1426212000000, 53, 4));\nunsafe { idmint_layout_free(l) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_layout_decompose(
    layout: *const IdmintLayout,
    id: u64,
    parts: *mut IdmintParts,
    nodes: *mut u64,
    nodes_len: usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let l = handle("layout", layout)?;
            let parts = out("parts", parts)?;
            let nodes = crate::ffi::buffer("nodes", nodes, nodes_len)?;
            let (time_ms, sequence) = l.layout.decompose_into(id, nodes)?;
            *parts = IdmintParts { time_ms, sequence };
            Ok(())
        })
    }
}

/// Where one field lies in an ID of a layout: its value is `(id >> shift) & ((1 << bits) - 1)`.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet f = idmint::IdmintField { shift: 12, bits: 5 };\nassert_eq!((1_541_815_603_606_036_480u64 >> f.shift) & ((1 << f.bits) - 1), 26);\n```"
)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IdmintField {
    /// How many bits lie below the field.
    pub shift: u32,
    /// Its width in bits (at most 64).
    pub bits: u32,
}

/// A layout's bit table, from `idmint_layout_bits`: what `idmint_layout_decompose` does to an
/// ID, as numbers, for a caller that takes IDs apart without a call for each (a binding whose
/// calls into C cost more than the shifts, such as Go's through cgo).
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet b = idmint::IdmintLayoutBits::default();\nassert_eq!(b.tick_ms, 0);\n```"
)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IdmintLayoutBits {
    /// The time field: its value counts ticks since the epoch.
    pub time: IdmintField,
    /// The length of one tick in ms.
    pub tick_ms: u64,
    /// The epoch, unix ms.
    pub epoch_ms: u64,
    /// The sequence field.
    pub sequence: IdmintField,
    /// The largest ID `idmint_layout_decompose` takes apart: it refuses every ID above (bits
    /// above the layout's, a time past the year 9999) and splits every ID from 0 to it as
    /// `time_ms = time value * tick_ms + epoch_ms`, with the sequence and node values as
    /// `IdmintField` says.
    pub max_id: u64,
}

/// The layout's bit table into `*bits`, and where each node field lies into `nodes[i]`, in
/// layout order (`idmint_layout_node_name(i)`); `nodes_len` must be the layout's node count.
/// The numbers are the core's: an ID from 0 to `bits->max_id` splits into the same time,
/// node values and sequence as `idmint_layout_decompose` gives, and any other ID is one that
/// `idmint_layout_decompose` refuses (call it for the error).
///
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a buffer of another length or a NULL argument.
/// Thread-safe.
///
/// # Safety
///
/// `layout` is a live layout; `bits` writable; `nodes` points to `nodes_len` writable values.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet l = test_layout(\"redis-lua\");\nlet (mut b, mut nodes) = (IdmintLayoutBits::default(), [IdmintField::default(); 1]);\nassert_eq!(unsafe { idmint_layout_bits(l, &mut b, nodes.as_mut_ptr(), 1, std::ptr::null_mut()) }, IdmintStatus::Ok);\nlet id = 5981966696448054276u64;\nlet field = |f: IdmintField| (id >> f.shift) & ((1 << f.bits) - 1);\nassert_eq!((field(b.time) * b.tick_ms + b.epoch_ms, field(nodes[0]), field(b.sequence)), (1426212000000, 53, 4));\nassert_eq!(b.max_id, i64::MAX as u64);\nunsafe { idmint_layout_free(l) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_layout_bits(
    layout: *const IdmintLayout,
    bits: *mut IdmintLayoutBits,
    nodes: *mut IdmintField,
    nodes_len: usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let l = handle("layout", layout)?;
            let slot = out("bits", bits)?;
            if nodes_len != l.names.len() {
                return Err(crate::ffi::invalid(
                    "nodes_len",
                    nodes_len.to_string(),
                    &format!("the layout's node count, {}", l.names.len()),
                )
                .into());
            }
            let nodes = crate::ffi::buffer("nodes", nodes, nodes_len)?;
            let layout = &l.layout;
            let field = |f: &idmint_core::layout::Field| IdmintField {
                shift: f.shift(),
                bits: f.bits(),
            };
            for (slot, f) in nodes.iter_mut().zip(layout.node_fields()) {
                *slot = field(f);
            }
            // The last tick decompose accepts is the core's own bound on times (the time
            // field's end, and the year 9999 past which no time is printed), so every ID up
            // to that tick's largest splits by the table and every one above is refused.
            let end = layout
                .exhausts_at_ms()
                .min(idmint_core::MAX_TIME_MS.saturating_add(1));
            *slot = IdmintLayoutBits {
                time: IdmintField {
                    shift: layout.total_bits() - layout.time_bits(),
                    bits: layout.time_bits(),
                },
                tick_ms: layout.tick_ms(),
                epoch_ms: layout.epoch_ms(),
                sequence: field(layout.sequence_field()),
                max_id: layout.max_id_at(i128::from(end) - 1)?,
            };
            Ok(())
        })
    }
}

/// Puts an ID together from a time (unix ms, floored to its tick), a value for every node
/// field (by name, any order) and a sequence; the inverse of `idmint_layout_decompose`.
///
/// Errors: `IDMINT_STATUS_TIME_OUT_OF_RANGE` (before the epoch, past the time field),
/// `IDMINT_STATUS_VALUE_OUT_OF_RANGE` (a value that does not fit its field, negative ones
/// too), `IDMINT_STATUS_UNKNOWN_FIELD`, `IDMINT_STATUS_MISSING_FIELD`, and
/// `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL argument or a name that is not UTF-8.
/// Thread-safe.
///
/// # Safety
///
/// `layout` is a live layout; `nodes` points to `nodes_len` readable pairs; `id` writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet l = test_layout(\"redis-lua\");\nlet shard = [IdmintNode { name: c\"shard\".as_ptr(), name_len: 5, value: 53 }];\nlet mut id = 0;\nunsafe { idmint_layout_compose(l, 1426212000000, shard.as_ptr(), 1, 4, &mut id, std::ptr::null_mut()) };\nassert_eq!(id, 5981966696448054276);\nunsafe { idmint_layout_free(l) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_layout_compose(
    layout: *const IdmintLayout,
    time_ms: i64,
    nodes: *const IdmintNode,
    nodes_len: usize,
    sequence: i64,
    id: *mut u64,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let l = handle("layout", layout)?;
            let slot = out("id", id)?;
            let pairs = node_pairs("nodes", nodes, nodes_len)?;
            *slot = l
                .layout
                .compose_values(time_ms.into(), pairs, sequence.into())?;
            Ok(())
        })
    }
}

/// The smallest (`max` false) or largest (`max` true) ID of the tick holding `time_ms`: the
/// bounds of a time-range query on an ID column (`WHERE id BETWEEN min AND max`).
///
/// Errors: `IDMINT_STATUS_TIME_OUT_OF_RANGE` outside the layout's times,
/// `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL argument. Thread-safe.
///
/// # Safety
///
/// `layout` is a live layout; `id` writable; `err` as everywhere.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet l = test_layout(\"twitter\");\nlet mut id = 0;\nunsafe { idmint_layout_id_at(l, 1656432460105, false, &mut id, std::ptr::null_mut()) };\nassert_eq!(id, 1541815603604488192);\nunsafe { idmint_layout_free(l) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_layout_id_at(
    layout: *const IdmintLayout,
    time_ms: i64,
    max: bool,
    id: *mut u64,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let l = handle("layout", layout)?;
            let slot = out("id", id)?;
            let t = i128::from(time_ms);
            *slot = if max {
                l.layout.max_id_at(t)?
            } else {
                l.layout.min_id_at(t)?
            };
            Ok(())
        })
    }
}

/// The first instant, unix ms, that the layout's time field can no longer hold: a generator
/// refuses to mint from then on. Thread-safe.
///
/// # Safety
///
/// `layout` is a live layout; `ms` writable; `err` as everywhere.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet l = idmint::test_layout(\"twitter\");\nlet mut ms = 0;\nunsafe { idmint::idmint_layout_exhausts_at_ms(l, &mut ms, std::ptr::null_mut()) };\nassert_eq!(ms, 3487858230209);\nunsafe { idmint::idmint_layout_free(l) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_layout_exhausts_at_ms(
    layout: *const IdmintLayout,
    ms: *mut u64,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        crate::ffi::read_into(err, "layout", layout, "ms", ms, |l| {
            Ok(l.layout.exhausts_at_ms())
        })
    }
}

/// An ID taken apart by `idmint_parse`: its format, canonical text, value, time and named
/// parts. Immutable: readable from any thread at once; freed with `idmint_decoded_free`.
/// Strings read from it are borrowed (valid until it is freed; never freed by the caller).
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet (t, mut d) = (\"507f1f77bcf86cd799439011\", std::ptr::null_mut());\nassert_eq!(unsafe { idmint_parse(t.as_ptr().cast(), t.len(), std::ptr::null(), &mut d, std::ptr::null_mut()) }, IdmintStatus::Ok);\nunsafe { idmint_decoded_free(d) };\n```"
)]
pub struct IdmintDecoded {
    format: CString,
    id: CString,
    value: Option<u64>,
    time_ms: Option<i64>,
    time: Option<CString>,
    layout: Option<CString>,
    parts: Vec<(CString, PartValue, Option<CString>)>,
}

impl From<Decoded> for IdmintDecoded {
    fn from(d: Decoded) -> Self {
        IdmintDecoded {
            format: c_string(d.format.name().to_string()),
            id: c_string(d.id),
            value: d.value,
            time_ms: d.time_ms,
            time: d.time.map(c_string),
            layout: d.layout.map(c_string),
            parts: d
                .parts
                .into_iter()
                .map(|(name, v)| {
                    let text = v.as_str().map(|t| c_string(t.to_string()));
                    (c_string(name), v, text)
                })
                .collect(),
        }
    }
}

/// Recognises and takes apart an ID given as text: a snowflake (decimal, read with `layout`),
/// a 64-bit integer (decimal without a layout), an ObjectId, a UUID of any version, a ULID, a
/// KSUID, an xid, a TSID or a TypeID (docs/formats.md). `layout` may be NULL.
///
/// Ownership: on success `*out` is a new `IdmintDecoded` the caller frees with
/// `idmint_decoded_free`. Errors: `IDMINT_STATUS_INVALID_ID` (text no format reads; the
/// message names every format tried), `IDMINT_STATUS_INVALID_OBJECT_ID`,
/// `IDMINT_STATUS_INVALID_UUID`, `IDMINT_STATUS_INVALID_ARGUMENT` (NULL, not UTF-8).
/// Thread-safe.
///
/// # Safety
///
/// `text` points to `len` readable bytes; `layout` is NULL or a live layout; `out` writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet (t, mut d) = (\"01ARZ3NDEKTSV4RRFFQ69G5FAV\", std::ptr::null_mut());\nunsafe { idmint_parse(t.as_ptr().cast(), t.len(), std::ptr::null(), &mut d, std::ptr::null_mut()) };\nlet mut ms = 0;\nassert!(unsafe { idmint_decoded_time_ms(d, &mut ms) });\nassert_eq!(ms, 1469922850259);\nunsafe { idmint_decoded_free(d) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_parse(
    text: *const c_char,
    len: usize,
    layout: *const IdmintLayout,
    out: *mut *mut IdmintDecoded,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let slot = crate::ffi::out("out", out)?;
            let text = crate::ffi::text("text", text, len)?;
            let layout = layout.as_ref().map(|l| &l.layout);
            let d = formats::decode(text, layout)?;
            *slot = Box::into_raw(Box::new(IdmintDecoded::from(d)));
            Ok(())
        })
    }
}

/// Frees a decoded ID. NULL is allowed. Not while another thread reads it, nor twice.
///
/// # Safety
///
/// `decoded` is NULL or made by `idmint_parse` and not yet freed.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nunsafe { idmint::idmint_decoded_free(std::ptr::null_mut()) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_decoded_free(decoded: *mut IdmintDecoded) {
    unsafe { crate::ffi::free_box(decoded) };
}

fn borrowed(s: &CString, len: *mut usize) -> *const c_char {
    if let Some(len) = unsafe { len.as_mut() } {
        *len = s.as_bytes().len();
    }
    s.as_ptr()
}

/// The format's name (`"snowflake"`, `"integer"`, `"objectid"`, `"uuid"`, `"ulid"`,
/// `"ksuid"`, `"xid"`, `"tsid"`, `"typeid"`), borrowed; its length in `*len` when `len` is not
/// NULL. NULL for a NULL `decoded`. Never fails otherwise; thread-safe.
///
/// # Safety
///
/// `decoded` is NULL or live; `len` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nassert!(unsafe { idmint::idmint_decoded_format(std::ptr::null(), std::ptr::null_mut()) }.is_null());\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_decoded_format(
    decoded: *const IdmintDecoded,
    len: *mut usize,
) -> *const c_char {
    unsafe { decoded.as_ref() }.map_or(std::ptr::null(), |d| borrowed(&d.format, len))
}

/// The ID's canonical text (decimal; lowercase hex for ObjectIds and UUIDs; upper case for
/// ULIDs and TSIDs), borrowed; its length in `*len`. NULL for a NULL `decoded`.
///
/// # Safety
///
/// `decoded` is NULL or live; `len` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nassert!(unsafe { idmint::idmint_decoded_id(std::ptr::null(), std::ptr::null_mut()) }.is_null());\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_decoded_id(
    decoded: *const IdmintDecoded,
    len: *mut usize,
) -> *const c_char {
    unsafe { decoded.as_ref() }.map_or(std::ptr::null(), |d| borrowed(&d.id, len))
}

/// The ID as a 64-bit integer into `*value`, for the formats that are one (snowflake,
/// integer, TSID): returns whether it has one (false, `*value` untouched, otherwise).
///
/// # Safety
///
/// `decoded` is NULL or live; `value` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nassert!(!unsafe { idmint::idmint_decoded_value(std::ptr::null(), std::ptr::null_mut()) });\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_decoded_value(
    decoded: *const IdmintDecoded,
    value: *mut u64,
) -> bool {
    match (unsafe { decoded.as_ref() }.and_then(|d| d.value), unsafe {
        value.as_mut()
    }) {
        (Some(v), Some(slot)) => {
            *slot = v;
            true
        }
        _ => false,
    }
}

/// The time the ID carries, unix ms (floored; negative before 1970), into `*time_ms`: returns
/// whether it carries one.
///
/// # Safety
///
/// `decoded` is NULL or live; `time_ms` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nassert!(!unsafe { idmint::idmint_decoded_time_ms(std::ptr::null(), std::ptr::null_mut()) });\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_decoded_time_ms(
    decoded: *const IdmintDecoded,
    time_ms: *mut i64,
) -> bool {
    match (
        unsafe { decoded.as_ref() }.and_then(|d| d.time_ms),
        unsafe { time_ms.as_mut() },
    ) {
        (Some(v), Some(slot)) => {
            *slot = v;
            true
        }
        _ => false,
    }
}

/// That time as RFC 3339 UTC at the format's precision, borrowed; its length in `*len`. NULL
/// when the ID has no time (or one past the year 9999).
///
/// # Safety
///
/// `decoded` is NULL or live; `len` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nassert!(unsafe { idmint::idmint_decoded_time(std::ptr::null(), std::ptr::null_mut()) }.is_null());\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_decoded_time(
    decoded: *const IdmintDecoded,
    len: *mut usize,
) -> *const c_char {
    match unsafe { decoded.as_ref() }.and_then(|d| d.time.as_ref()) {
        Some(t) => borrowed(t, len),
        None => std::ptr::null(),
    }
}

/// The layout a snowflake was read with (its preset name or spec), borrowed; NULL for other
/// formats.
///
/// # Safety
///
/// `decoded` is NULL or live; `len` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nassert!(unsafe { idmint::idmint_decoded_layout(std::ptr::null(), std::ptr::null_mut()) }.is_null());\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_decoded_layout(
    decoded: *const IdmintDecoded,
    len: *mut usize,
) -> *const c_char {
    match unsafe { decoded.as_ref() }.and_then(|d| d.layout.as_ref()) {
        Some(t) => borrowed(t, len),
        None => std::ptr::null(),
    }
}

/// The number of named parts (0 for a NULL `decoded`).
///
/// # Safety
///
/// `decoded` is NULL or live.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nassert_eq!(unsafe { idmint::idmint_decoded_part_count(std::ptr::null()) }, 0);\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_decoded_part_count(decoded: *const IdmintDecoded) -> usize {
    unsafe { decoded.as_ref() }.map_or(0, |d| d.parts.len())
}

/// One named part, in the order of the ID's bits (most significant first): a number
/// (`*text` NULL, the value in `*number`) or text (lowercase hex bytes or a name: `*text`
/// borrowed, its length in `*text_len`). The name is borrowed too. Any out pointer may be
/// NULL.
///
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL `decoded` or an index past the last
/// part. Thread-safe.
///
/// # Safety
///
/// `decoded` is live; each out pointer is NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet (t, mut d) = (\"507f1f77bcf86cd799439011\", std::ptr::null_mut());\nunsafe { idmint_parse(t.as_ptr().cast(), t.len(), std::ptr::null(), &mut d, std::ptr::null_mut()) };\nlet (mut name, mut n, mut text, mut tl, mut num) = (std::ptr::null(), 0, std::ptr::null(), 0, 0);\nunsafe { idmint_decoded_part(d, 2, &mut name, &mut n, &mut num, &mut text, &mut tl, std::ptr::null_mut()) };\nassert_eq!((text.is_null(), num), (true, 4427793));\nunsafe { idmint_decoded_free(d) };\n```"
)]
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn idmint_decoded_part(
    decoded: *const IdmintDecoded,
    index: usize,
    name: *mut *const c_char,
    name_len: *mut usize,
    number: *mut u64,
    text: *mut *const c_char,
    text_len: *mut usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let d = handle("decoded", decoded)?;
            let (n, v, t) = d.parts.get(index).ok_or_else(|| {
                crate::ffi::invalid(
                    "index",
                    index.to_string(),
                    &format!("0..{} (the ID's parts)", d.parts.len()),
                )
            })?;
            if let Some(slot) = name.as_mut() {
                *slot = borrowed(n, name_len);
            }
            if let (Some(slot), Some(x)) = (number.as_mut(), v.as_u64()) {
                *slot = x;
            }
            if let Some(slot) = text.as_mut() {
                *slot = match t {
                    Some(t) => borrowed(t, text_len),
                    None => std::ptr::null(),
                };
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(spec: &str) -> *mut IdmintLayout {
        test_layout(spec)
    }

    /// The bit table splits every ID decompose takes as decompose does, up to `max_id`, and
    /// decompose refuses the one above: for presets of each tick, and unsigned ones (mastodon's
    /// time field reaches past the year 9999, where decompose stops).
    #[test]
    fn the_bit_table_agrees_with_decompose_up_to_its_max_id() {
        for spec in ["twitter", "sonyflake", "baidu", "discord", "mastodon"] {
            let l = layout(spec);
            let mut count = 0;
            unsafe { idmint_layout_node_count(l, &mut count, std::ptr::null_mut()) };
            let mut b = IdmintLayoutBits::default();
            let mut fields = vec![IdmintField::default(); count];
            let s = unsafe {
                idmint_layout_bits(l, &mut b, fields.as_mut_ptr(), count, std::ptr::null_mut())
            };
            assert_eq!(s, IdmintStatus::Ok, "{spec}");
            let value = |id: u64, f: IdmintField| (id >> f.shift) & (u64::MAX >> (64 - f.bits));
            let mut rng = 0x9e37_79b9_7f4a_7c15u64;
            let mut ids = vec![0, 1, b.max_id, b.max_id - 1, b.max_id / 2];
            for _ in 0..1000 {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                ids.push(rng % b.max_id);
            }
            for id in ids {
                let (mut p, mut nodes) = (IdmintParts::default(), vec![0u64; count]);
                let s = unsafe {
                    idmint_layout_decompose(
                        l,
                        id,
                        &mut p,
                        nodes.as_mut_ptr(),
                        count,
                        std::ptr::null_mut(),
                    )
                };
                assert_eq!(s, IdmintStatus::Ok, "{spec} {id}");
                assert_eq!(
                    p.time_ms,
                    value(id, b.time) * b.tick_ms + b.epoch_ms,
                    "{spec} {id}"
                );
                assert_eq!(p.sequence, value(id, b.sequence), "{spec} {id}");
                let table: Vec<u64> = fields.iter().map(|f| value(id, *f)).collect();
                assert_eq!(nodes, table, "{spec} {id}");
            }
            if b.max_id < u64::MAX {
                let (mut p, mut nodes) = (IdmintParts::default(), vec![0u64; count]);
                let s = unsafe {
                    idmint_layout_decompose(
                        l,
                        b.max_id + 1,
                        &mut p,
                        nodes.as_mut_ptr(),
                        count,
                        std::ptr::null_mut(),
                    )
                };
                assert_eq!(s, IdmintStatus::InvalidId, "{spec}");
            }
            let s = unsafe {
                idmint_layout_bits(
                    l,
                    &mut b,
                    fields.as_mut_ptr(),
                    count + 1,
                    std::ptr::null_mut(),
                )
            };
            assert_eq!(s, IdmintStatus::InvalidArgument, "{spec}");
            unsafe { idmint_layout_free(l) };
        }
    }

    #[test]
    fn compose_refuses_negative_values_as_out_of_range() {
        let l = layout("twitter");
        let nodes = [
            IdmintNode {
                name: c"datacenter".as_ptr(),
                name_len: 10,
                value: -1,
            },
            IdmintNode {
                name: c"worker".as_ptr(),
                name_len: 6,
                value: 0,
            },
        ];
        let mut id = 0;
        let mut err = std::ptr::null_mut();
        let s = unsafe {
            idmint_layout_compose(l, 1426212000000, nodes.as_ptr(), 2, 0, &mut id, &mut err)
        };
        assert_eq!(s, IdmintStatus::ValueOutOfRange);
        let mut len = 0;
        let m = unsafe { std::ffi::CStr::from_ptr(crate::idmint_error_message(err, &mut len)) };
        assert!(m.to_str().unwrap().contains("-1"));
        unsafe {
            crate::idmint_error_free(err);
            idmint_layout_free(l);
        }
    }

    #[test]
    fn decompose_checks_the_buffer_length() {
        let l = layout("twitter");
        let mut nodes = [0u64; 3];
        let mut p = IdmintParts::default();
        let s = unsafe {
            idmint_layout_decompose(l, 1, &mut p, nodes.as_mut_ptr(), 3, std::ptr::null_mut())
        };
        assert_eq!(s, IdmintStatus::InvalidArgument);
        unsafe { idmint_layout_free(l) };
    }

    #[test]
    fn a_null_spec_is_the_default_preset() {
        let mut l = std::ptr::null_mut();
        let s = unsafe {
            idmint_layout_new(
                std::ptr::null(),
                0,
                std::ptr::null(),
                0,
                &mut l,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(s, IdmintStatus::Ok);
        assert_eq!(unsafe { &*l }.layout.preset_name(), Some("twitter"));
        unsafe { idmint_layout_free(l) };
    }

    #[test]
    fn parse_id_rejects_text_outside_the_layout() {
        let l = layout("time:35@100ms,sequence:10,node:8");
        let mut id = 0;
        let t = "9007199254740992";
        let s = unsafe {
            idmint_layout_parse_id(l, t.as_ptr().cast(), t.len(), &mut id, std::ptr::null_mut())
        };
        assert_eq!(s, IdmintStatus::InvalidId);
        unsafe { idmint_layout_free(l) };
    }

    #[test]
    fn decoded_parts_give_numbers_and_text() {
        let t = "507f1f77bcf86cd799439011";
        let mut d = std::ptr::null_mut();
        assert_eq!(
            unsafe {
                idmint_parse(
                    t.as_ptr().cast(),
                    t.len(),
                    std::ptr::null(),
                    &mut d,
                    std::ptr::null_mut(),
                )
            },
            IdmintStatus::Ok
        );
        assert_eq!(unsafe { idmint_decoded_part_count(d) }, 3);
        let (mut text, mut tl) = (std::ptr::null(), 0);
        let s = unsafe {
            idmint_decoded_part(
                d,
                1,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut text,
                &mut tl,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(s, IdmintStatus::Ok);
        assert_eq!(
            unsafe { std::ffi::CStr::from_ptr(text) }.to_str().unwrap(),
            "bcf86cd799"
        );
        assert_eq!(tl, 10);
        let s = unsafe {
            idmint_decoded_part(
                d,
                3,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        assert_eq!(s, IdmintStatus::InvalidArgument);
        unsafe { idmint_decoded_free(d) };
    }
}
