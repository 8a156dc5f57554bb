//! Order numbers, in one place: the [`template`] that formats and parses them, with the
//! in-process daily counter, and (feature `segment`) the sequences kept in shared stores,
//! `shared`: daily counters in segment stores or Redis, and a segment tag as the sequence.
//!
//! The public paths are `idmint_core::template` and, for the shared counters,
//! `idmint_core::segment` (where they sit with the stores they count in).

#[cfg(feature = "segment")]
pub(crate) mod shared;
pub mod template;
