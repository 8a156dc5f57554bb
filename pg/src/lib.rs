//! idmint's PostgreSQL extension: every function converts its arguments, makes one call into
//! idmint-core and converts the answer or the error back. Nothing here decides a rule.
//!
//! - `idmint_snowflake()`: one generator per database server. Its whole state (core's slot,
//!   see `idmint_core::snowflake`) is one `AtomicU64` in shared memory; every backend builds
//!   core's `Snowflake` on that cell (`SnowflakeBuilder::shared_state`), so all backends mint as
//!   one generator. Needs `shared_preload_libraries = 'idmint'`; the layout is the setting
//!   `idmint.layout`, the node values the setting `idmint.node`, or, with `idmint.lease` (a
//!   lease store's URL, normally this database's own `idmint_workers` table), leased: a
//!   background worker holds the lease with core's `SharedLease::hold` (the packages' table,
//!   renewals and fence) and publishes it in shared memory, and every backend mints under it
//!   (`SnowflakeBuilder::shared_lease`), refusing while it is not held.
//! - `idmint_parse`, `idmint_time`, `idmint_min_id`, `idmint_max_id`, `idmint_decode`: core's
//!   `Layout` and `formats::decode`.
//! - `idmint_objectid`, `idmint_uuid7`, `idmint_ulid`, `idmint_typeid`: core's generators, one
//!   per backend.
//!
//! Errors are SQL errors: core's message, `kind: <kind>` as DETAIL, and the kind's own SQLSTATE
//! (`idmint_core::sql_script::sql_state`), as the plain-SQL functions of `idmint sql` raise them.

use std::ffi::CString;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

use idmint_core::lease::{parse_range, LeaseOptions, SharedLease};
use idmint_core::segment::SegmentClient;
use idmint_core::sql_script::{self, SqlState};
use idmint_core::{
    args, formats, Error, Layout, MonotonicClock, ObjectIdGenerator, Snowflake, Uuid7Generator,
};
use pgrx::bgworkers::{
    BackgroundWorker, BackgroundWorkerBuilder, BgWorkerStartTime, SignalWakeFlags,
};
use pgrx::datum::{Range, RangeBound};
use pgrx::prelude::*;
use pgrx::{
    pg_shmem_init, GucContext, GucFlags, GucRegistry, GucSetting, JsonB, PGRXSharedMemory, PgAtomic,
};

::pgrx::pg_module_magic!();

/// The one generator's slot, shared by every backend.
static SLOT: PgAtomic<AtomicU64> = unsafe { PgAtomic::new(c"idmint_snowflake_slot") };
static LAYOUT: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(Some(c"twitter"));
static NODE: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
static LEASE_URL: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
static LEASE_RANGE: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
static LEASE_TTL_MS: GucSetting<i32> = GucSetting::<i32>::new(0);
static SEGMENT_STORE: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);

/// The leased generator's shared memory (core's `SharedLease`: the lease as the background
/// worker publishes it, and the slot), used instead of `SLOT` when `idmint.lease` is set.
#[repr(transparent)]
struct Lease(SharedLease);
// SAFETY: only atomics, valid at any address and in every process that maps them.
unsafe impl PGRXSharedMemory for Lease {}
static LEASE: PgAtomic<Lease> = unsafe { PgAtomic::new(c"idmint_snowflake_lease") };

/// Whether the library was loaded at server start, so that `SLOT` exists: set in the
/// postmaster, and so in every backend it forks.
static PRELOADED: AtomicBool = AtomicBool::new(false);

/// The one clock every backend mints with: made in the postmaster, copied into each backend
/// by `fork()`. A clock of each backend's own would fix its own offset between the wall clock
/// and the machine's monotonic clock, and two backends a tick apart would see each other's
/// IDs on the shared slot as a clock rollback.
static CLOCK: OnceLock<MonotonicClock> = OnceLock::new();

#[pg_guard]
#[allow(non_snake_case)]
pub extern "C-unwind" fn _PG_init() {
    GucRegistry::define_string_guc(
        c"idmint.layout",
        c"The layout of idmint_snowflake(): a preset name or a spec.",
        c"Read at server start: every backend mints with it, as one generator.",
        &LAYOUT,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"idmint.node",
        c"The node values of idmint_snowflake(), e.g. 'datacenter=1,worker=7'.",
        c"Every node field of idmint.layout; no other generator of the layout may use them.",
        &NODE,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"idmint.lease",
        c"Lease the node value of idmint_snowflake() from this lease store (a URL) instead of idmint.node.",
        c"Normally this database's own: postgres://USER@127.0.0.1:PORT/DB, the idmint_workers table the packages lease from. A background worker holds the lease.",
        &LEASE_URL,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"idmint.lease_range",
        c"The node values idmint.lease may take, FIRST..LAST; default: every value of the layout.",
        c"Read at server start.",
        &LEASE_RANGE,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"idmint.lease_ttl",
        c"How long the lease of idmint.lease lasts unless renewed, in ms; 0: idmint's default.",
        c"Read at server start.",
        &LEASE_TTL_MS,
        0,
        i32::MAX,
        GucContext::Postmaster,
        GucFlags::UNIT_MS,
    );
    GucRegistry::define_string_guc(
        c"idmint.segment_store",
        c"The segment store of idmint_segment_next() and idmint_segment_range(), a URL.",
        c"Normally this database's own: postgres://USER@127.0.0.1:PORT/DB, the idmint_segments table the packages and idmint serve draw from. Each backend draws its ranges over a connection of its own, committed at once. A reload reaches running backends: their next draw is from the new store.",
        &SEGMENT_STORE,
        GucContext::Sighup,
        GucFlags::default(),
    );
    if unsafe { pg_sys::process_shared_preload_libraries_in_progress } {
        pg_shmem_init!(SLOT = AtomicU64::new(0));
        pg_shmem_init!(LEASE = Lease(SharedLease::new()));
        CLOCK.get_or_init(MonotonicClock::new);
        PRELOADED.store(true, Ordering::Relaxed);
        if setting(&LEASE_URL).is_some() {
            BackgroundWorkerBuilder::new("idmint lease")
                .set_function("idmint_lease_worker")
                .set_library("idmint")
                .set_start_time(BgWorkerStartTime::RecoveryFinished)
                // Restarted after an error; a SIGTERM (server shutdown) stops it for good.
                .set_restart_time(Some(Duration::from_secs(5)))
                .load();
        }
    }
}

/// The lease options of the settings `idmint.lease`, `idmint.lease_range`, `idmint.lease_ttl`.
fn lease_options(url: &str) -> idmint_core::Result<LeaseOptions> {
    let mut options = LeaseOptions::url(url);
    if let Some(range) = setting(&LEASE_RANGE) {
        let (first, last) = parse_range(&range)?;
        options = options.range(first, last);
    }
    match LEASE_TTL_MS.get() {
        0 => {}
        ms => options = options.ttl(args::duration_ms("idmint.lease_ttl", ms)?),
    }
    Ok(options)
}

/// The background worker holding the lease of `idmint.lease` for every backend: core's
/// `SharedLease::hold`, which leases, renews and re-leases on its own threads and returns once
/// the worker is told to stop (SIGTERM) or the settings can never lease.
#[pg_guard]
#[no_mangle]
pub extern "C-unwind" fn idmint_lease_worker(_arg: pg_sys::Datum) {
    BackgroundWorker::attach_signal_handlers(SignalWakeFlags::SIGHUP | SignalWakeFlags::SIGTERM);
    let Some(url) = setting(&LEASE_URL) else {
        return;
    };
    let held = Layout::parse(&setting(&LAYOUT).unwrap_or_else(|| Layout::DEFAULT_PRESET.into()))
        .and_then(|layout| {
            let options = lease_options(&url)?;
            LEASE.get().0.hold(
                &layout,
                &options,
                |wait| BackgroundWorker::wait_latch(Some(wait)),
                // A WARNING, not a LOG: idmint_snowflake() refuses until the lease is held, and
                // pgrx's level filter on PostgreSQL 13 ranks LOG below the default
                // log_min_messages (warning), dropping it there (tests/pg.sh caught it on 13).
                |err| {
                    warning!(
                        "idmint: leasing a node value failed, trying again: {err} (kind: {})",
                        err.kind()
                    )
                },
            )
        });
    if let Err(err) = held {
        raise(err);
    }
}

/// Raise `err` as an SQL error: core's message, its kind as DETAIL, its kind's SQLSTATE.
fn raise(err: Error) -> ! {
    ereport!(
        ERROR,
        errcode(sql_script::sql_state(&err)),
        err.to_string(),
        format!("kind: {}", err.kind())
    );
}

/// pgrx's name for each of core's SQLSTATEs: no wildcard arm, so a code core adds does not
/// compile here until it is named (never a silent default).
const fn errcode(state: SqlState) -> PgSqlErrorCode {
    match state {
        SqlState::InvalidParameterValue => PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
        SqlState::InvalidTextRepresentation => PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
        SqlState::NumericValueOutOfRange => PgSqlErrorCode::ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
        SqlState::DatetimeFieldOverflow => PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
        SqlState::SequenceGeneratorLimitExceeded => {
            PgSqlErrorCode::ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED
        }
        SqlState::InsufficientPrivilege => PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
        SqlState::UndefinedObject => PgSqlErrorCode::ERRCODE_UNDEFINED_OBJECT,
        SqlState::InsufficientResources => PgSqlErrorCode::ERRCODE_INSUFFICIENT_RESOURCES,
        SqlState::ObjectNotInPrerequisiteState => {
            PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE
        }
        SqlState::LockNotAvailable => PgSqlErrorCode::ERRCODE_LOCK_NOT_AVAILABLE,
        SqlState::SystemError => PgSqlErrorCode::ERRCODE_SYSTEM_ERROR,
        SqlState::FeatureNotSupported => PgSqlErrorCode::ERRCODE_FEATURE_NOT_SUPPORTED,
    }
}

/// PostgreSQL's packing of a five-character SQLSTATE into an int (`MAKE_SQLSTATE`), which is
/// the value of each `PgSqlErrorCode`.
const fn packed(code: &str) -> isize {
    let b = code.as_bytes();
    let mut packed = 0;
    let mut i = 0;
    while i < 5 {
        packed += ((b[i] as isize - b'0' as isize) & 0x3F) << (6 * i);
        i += 1;
    }
    packed
}

// Checked when the extension compiles: each of core's SQLSTATEs is named above by the pgrx
// code that carries the same five characters, so the SQLSTATE a client sees is core's.
const _: () = {
    let mut i = 0;
    while i < SqlState::ALL.len() {
        let state = SqlState::ALL[i];
        assert!(errcode(state) as isize == packed(state.code()));
        i += 1;
    }
};

fn ok<T>(r: idmint_core::Result<T>) -> T {
    r.unwrap_or_else(|e| raise(e))
}

fn setting(s: &GucSetting<Option<CString>>) -> Option<String> {
    s.get().map(|c| c.to_string_lossy().into_owned())
}

fn clock() -> MonotonicClock {
    *CLOCK.get().expect("made in _PG_init with PRELOADED")
}

/// This backend's generator on the shared slot, built on first use.
fn generator() -> &'static Snowflake<MonotonicClock> {
    static GEN: OnceLock<Snowflake> = OnceLock::new();
    if let Some(g) = GEN.get() {
        return g;
    }
    if !PRELOADED.load(Ordering::Relaxed) {
        raise(sql_script::extension::not_preloaded());
    }
    let layout = ok(Layout::parse(
        &setting(&LAYOUT).unwrap_or_else(|| Layout::DEFAULT_PRESET.into()),
    ));
    if let Some(url) = setting(&LEASE_URL) {
        // With a node value set too, core refuses: the lease fills every node field.
        let mut builder = Snowflake::with_clock(layout, clock()).shared_lease(&LEASE.get().0, &url);
        if let Some(node) = setting(&NODE) {
            builder = builder.nodes(
                ok(args::node_pairs("idmint.node", &node))
                    .iter()
                    .map(|(n, v)| (n.as_str(), *v)),
            );
        }
        let built = builder.build();
        return GEN.get_or_init(|| ok(built));
    }
    let node = setting(&NODE).unwrap_or_default();
    let nodes = ok(args::node_pairs("idmint.node", &node));
    let built = Snowflake::with_clock(layout, clock())
        .nodes(nodes.iter().map(|(n, v)| (n.as_str(), *v)))
        .shared_state(SLOT.get())
        .build();
    GEN.get_or_init(|| ok(built))
}

/// The next snowflake ID of the server's one generator (`idmint.layout`, `idmint.node`);
/// `layout`, when given, must be that layout (a check that a column default says what it
/// expects).
#[pg_extern(volatile, parallel_unsafe)]
fn idmint_snowflake(layout: default!(Option<&str>, "NULL")) -> i64 {
    let g = generator();
    if let Some(spec) = layout {
        ok(sql_script::extension::same_layout(spec, g.layout()));
    }
    ok(args::bigint("id", ok(g.next_id())))
}

/// This backend's segment client on `idmint.segment_store`, built on first use. Its ranges are
/// taken over its own connection and committed at once, outside the caller's transaction: a
/// caller that rolls back loses its IDs (as a sequence does) but never gets them handed out
/// again, and no row lock is held until the caller commits.
///
/// The setting is reloadable (SIGHUP), and PostgreSQL applies a reload to a backend between
/// statements: each call compares it with the URL the client was opened on (a string compare)
/// and, when it changed, opens a client on the new store. That is sound for uniqueness: the
/// new client takes fresh ranges from its store, and the old one, dropped, gives the unused
/// rest of its ranges back only where nobody drew after it (core's `SegmentClient::close`).
fn segments() -> SegmentClient {
    // A static, not a thread-local: never dropped at the backend's exit (glibc runs
    // thread-local destructors in exit()), where a close would wait on the store. Locked only
    // to read or swap it, never across a call that may raise, so an error never poisons it.
    static CLIENT: Mutex<Option<(String, SegmentClient)>> = Mutex::new(None);
    let url = ok(sql_script::extension::segment_store(setting(
        &SEGMENT_STORE,
    )));
    let current = |c: &Option<(String, SegmentClient)>| match c {
        Some((opened_on, client)) if *opened_on == url => Some(client.clone()),
        _ => None,
    };
    let lock = || CLIENT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(client) = current(&lock()) {
        return client;
    }
    // The old client (its last clone) is dropped, so closed, first: the backend never holds
    // two stores' connections at once.
    let old = lock().take();
    drop(old);
    let client = ok(SegmentClient::builder().store_url(&url).connect_blocking());
    *lock() = Some((url, client.clone()));
    client
}

/// The next ID of segment tag `tag`, from the `idmint_segments` table of `idmint.segment_store`
/// (the one the packages and `idmint serve` use).
#[pg_extern(volatile, parallel_unsafe)]
fn idmint_segment_next(tag: &str) -> i64 {
    ok(args::bigint("id", ok(segments().next_id(tag))))
}

/// `n` consecutive IDs of segment tag `tag`, as the range `[first, last + 1)`.
#[pg_extern(volatile, parallel_unsafe)]
fn idmint_segment_range(tag: &str, n: i64) -> Range<i64> {
    let n = ok(args::count("n", n)) as u64;
    let range = ok(segments().next_ids(tag, n));
    Range::new(
        ok(args::bigint("first id", range.start)),
        RangeBound::Exclusive(ok(args::bigint("the range's end", range.end))),
    )
}

fn layout_of(spec: Option<&str>) -> Layout {
    ok(Layout::parse(spec.unwrap_or(Layout::DEFAULT_PRESET)))
}

/// The ID taken apart, as `idmint parse --layout LAYOUT ID` prints it.
#[pg_extern(immutable, parallel_safe)]
fn idmint_parse(id: i64, layout: default!(Option<&str>, "NULL")) -> JsonB {
    let layout = layout_of(layout);
    ok(layout.decompose_wide(id as i128));
    let decoded = ok(formats::decode(&id.to_string(), Some(&layout)));
    JsonB(serde_json::to_value(&decoded).expect("a decoded ID serializes"))
}

/// Any ID core reads (a snowflake with `layout`, an ObjectId, a UUID, a ULID, a KSUID, an xid,
/// a TSID), as `idmint parse` prints it.
#[pg_extern(immutable, parallel_safe)]
fn idmint_decode(text: &str, layout: default!(Option<&str>, "NULL")) -> JsonB {
    let layout = layout.map(|s| ok(Layout::parse(s)));
    let decoded = ok(formats::decode(text, layout.as_ref()));
    JsonB(serde_json::to_value(&decoded).expect("a decoded ID serializes"))
}

/// Microseconds between the Unix epoch and PostgreSQL's (2000-01-01).
const PG_EPOCH_US: i64 = 946_684_800_000_000;

/// The start of the ID's tick.
#[pg_extern(immutable, parallel_safe)]
fn idmint_time(id: i64, layout: default!(Option<&str>, "NULL")) -> TimestampWithTimeZone {
    let parts = ok(layout_of(layout).decompose_wide(id as i128));
    // Core's times end at 9999-12-31 (MAX_TIME_MS), so the microseconds fit an i64 with room
    // to spare; computed wide and converted checked all the same, never wrapped.
    i64::try_from(i128::from(parts.time_ms) * 1000 - i128::from(PG_EPOCH_US))
        .ok()
        .and_then(|us| TimestampWithTimeZone::try_from(us).ok())
        .expect("a layout's times are PostgreSQL times")
}

/// Unix ms of a timestamptz, floored; infinite times are refused.
fn unix_ms(ts: TimestampWithTimeZone) -> i128 {
    if ts.is_infinity() || ts.is_neg_infinity() {
        raise(Error::InvalidArgument {
            name: "time".into(),
            value: "infinity".into(),
            expected: "a finite time".into(),
        });
    }
    let us: i64 = pg_sys::TimestampTz::from(ts);
    (us as i128 + PG_EPOCH_US as i128).div_euclid(1000)
}

/// The smallest ID of the tick holding `ts`: `WHERE id >= idmint_min_id(now() - interval '1
/// day')` is a range scan of the ID's index.
#[pg_extern(immutable, parallel_safe)]
fn idmint_min_id(ts: TimestampWithTimeZone, layout: default!(Option<&str>, "NULL")) -> i64 {
    ok(args::bigint(
        "min id",
        ok(layout_of(layout).min_id_at(unix_ms(ts))),
    ))
}

/// The largest ID of the tick holding `ts`.
#[pg_extern(immutable, parallel_safe)]
fn idmint_max_id(ts: TimestampWithTimeZone, layout: default!(Option<&str>, "NULL")) -> i64 {
    ok(args::bigint(
        "max id",
        ok(layout_of(layout).max_id_at(unix_ms(ts))),
    ))
}

/// A MongoDB-compatible ObjectId, 24 hex digits.
#[pg_extern(volatile, parallel_safe)]
fn idmint_objectid() -> String {
    static GEN: OnceLock<ObjectIdGenerator> = OnceLock::new();
    GEN.get_or_init(ObjectIdGenerator::new).next_id().to_hex()
}

fn uuid7() -> idmint_core::Uuid7 {
    static GEN: OnceLock<Uuid7Generator> = OnceLock::new();
    ok(GEN.get_or_init(Uuid7Generator::new).next_uuid())
}

/// A UUIDv7.
#[pg_extern(volatile, parallel_safe)]
fn idmint_uuid7() -> pgrx::Uuid {
    pgrx::Uuid::from_bytes(uuid7().to_bytes())
}

/// A ULID (the same 128 bits as a UUIDv7, in Crockford base32).
#[pg_extern(volatile, parallel_safe)]
fn idmint_ulid() -> String {
    uuid7().to_ulid()
}

/// A TypeID with `prefix` (`user_01h455vb4pex5vsknk084sn02q`).
#[pg_extern(volatile, parallel_safe)]
fn idmint_typeid(prefix: &str) -> String {
    ok(idmint_core::typeid::TypeId::new(
        prefix,
        u128::from_be_bytes(uuid7().to_bytes()),
    ))
    .to_string()
}

#[cfg(test)]
pub mod pg_test {
    pub fn setup(_options: Vec<&str>) {}
    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec!["shared_preload_libraries = 'idmint'"]
    }
}
