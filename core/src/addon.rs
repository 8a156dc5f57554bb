//! The stores add-on: what each language's slim default package leaves out, and how a user
//! installs it.
//!
//! Each language ships two builds of one API. The default package holds everything that works
//! inside the process (snowflake with given or random node values, ObjectId,
//! UUIDv7/ULID/TypeID, the parser, templates with in-memory counters, the planner, metrics) and
//! is built without this crate's `segment` feature: no database driver, async runtime, TLS or
//! HTTP client. The add-on (`idmint[stores]`, `idmint-stores`, `io.idmint:idmint-stores`)
//! carries a build with every store, which the default package loads instead when it is
//! installed, so a process holds one native library. In a build without stores, every call that
//! needs one fails with [`Error::StoresNotInstalled`], made by [`missing`]: its message names
//! what installs the add-on in the words of the package that was loaded ([`Package`], which
//! each binding [`register`]s when it loads).

use std::sync::OnceLock;

use crate::Error;

/// Whether this build of the core has the stores: segments, worker leases, Redis-minted
/// snowflakes, counters on a store and the `idmint serve` client (feature `segment`, which every
/// store feature turns on).
///
/// ```
/// assert_eq!(idmint_core::addon::STORES, cfg!(feature = "segment"));
/// ```
pub const STORES: bool = cfg!(feature = "segment");

/// A package of idmint: each installs the stores in its own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Package {
    /// The Rust crate `idmint-core`, used directly: its store features.
    Rust,
    /// `idmint` on PyPI; the add-on is the extra `idmint[stores]` (the wheel `idmint-stores`).
    Python,
    /// `idmint` on npm; the add-on is the package `idmint-stores`.
    Node,
    /// `io.idmint:idmint` on Maven Central; the add-on is `io.idmint:idmint-stores`.
    Jvm,
    /// The C library `libidmint` (`bindings/c`); the stores are its `stores` build.
    C,
    /// The Go module `github.com/idmint/idmint/go`; the stores are its build tag
    /// `idmint_stores`, which links the stores build of the C library it ships.
    Go,
}

impl Package {
    /// The command or dependency that installs this package's stores, at this version.
    ///
    /// ```
    /// use idmint_core::addon::Package;
    /// assert_eq!(Package::Python.install(), "pip install 'idmint[stores]'");
    /// assert!(Package::Jvm.install().contains("io.idmint:idmint-stores:"));
    /// assert!(Package::Go.install().contains("-tags idmint_stores"));
    /// ```
    pub fn install(self) -> String {
        match self {
            Package::Rust => "turn on a store feature of idmint-core (sqlite, postgres, mysql, \
                              redis, etcd, zookeeper, http)"
                .into(),
            Package::Python => "pip install 'idmint[stores]'".into(),
            Package::Node => "npm install idmint-stores".into(),
            Package::Jvm => format!(
                "add the dependency io.idmint:idmint-stores:{} beside io.idmint:idmint",
                env!("CARGO_PKG_VERSION")
            ),
            Package::C => "link the stores build of libidmint (the release's \
                           libidmint-stores archive, or cargo build -p idmint-c --features stores)"
                .into(),
            Package::Go => "build with the tag idmint_stores (go build -tags idmint_stores)".into(),
        }
    }
}

static PACKAGE: OnceLock<Package> = OnceLock::new();

/// Records which package loaded this library, for the messages of [`missing`]. A binding calls
/// it once, when it loads; a later call changes nothing (a process loads one native library).
///
/// ```
/// use idmint_core::addon::{package, register, Package};
/// register(Package::Node);
/// register(Package::Python); // too late: the first one stays
/// assert_eq!(package(), Package::Node);
/// ```
pub fn register(package: Package) {
    let _ = PACKAGE.set(package);
}

/// The package that loaded this library ([`register`]); [`Package::Rust`] when none did.
///
/// ```
/// assert_eq!(idmint_core::addon::package(), idmint_core::addon::Package::Rust);
/// ```
pub fn package() -> Package {
    PACKAGE.get().copied().unwrap_or(Package::Rust)
}

/// The error of `what` (a class and method, as the caller's language spells it) called in a
/// build without stores.
///
/// ```
/// use idmint_core::addon::{missing, register, Package};
/// register(Package::Node);
/// let e = missing("SegmentClient.connect");
/// assert_eq!(e.kind(), "stores_not_installed");
/// assert_eq!(
///     e.to_string(),
///     "SegmentClient.connect needs idmint's stores, which this package does not include: npm install idmint-stores"
/// );
/// ```
pub fn missing(what: &str) -> Error {
    Error::StoresNotInstalled {
        what: what.into(),
        install: package().install(),
    }
}
