//! The two builds of this library (docs/packages.md, "Slim and stores"): the jar's
//! `io.idmint:idmint` without the stores, and the add-on's `io.idmint:idmint-stores` with them
//! (feature `stores`).
//!
//! Both export the same functions with the same signatures: the generated Java checks every
//! function's checksum when it loads the library, so a library lacking one would not load. In
//! the build without stores, the objects that hold a store (a segment client, its tags, a
//! Redis-minted snowflake) cannot be made: their constructors and the free functions that
//! reach a store return the core's `stores_not_installed` error ([`stores!`]), and their
//! methods are never reached.

/// Records the package at load, for the core's messages, and says whether this build has the
/// stores. `NativeLibrary.ensureLoaded()` calls it first.
#[uniffi::export]
pub fn library_loaded() -> bool {
    idmint_core::addon::register(idmint_core::addon::Package::Jvm);
    cfg!(feature = "stores")
}

/// The body of a call that reaches a store. With the stores: the body. Without: the core's
/// `stores_not_installed` error of `$what` (as Java names the call) for a constructor or a free
/// function; for a method of an object that holds a store, `unreachable`, since no such object
/// can be made in this build.
#[cfg(feature = "stores")]
macro_rules! stores {
    ($what:literal, $body:block) => {
        $body
    };
    (unreachable $body:block) => {
        $body
    };
}

#[cfg(not(feature = "stores"))]
macro_rules! stores {
    ($what:literal, $body:block) => {
        return Err($crate::errors::ffi_error(idmint_core::addon::missing(
            $what,
        )))
    };
    (unreachable $body:block) => {
        unreachable!("an object that holds a store, in a build without stores")
    };
}

pub(crate) use stores;
