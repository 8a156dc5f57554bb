//! Plain SQL for a layout: functions a database without idmint's extension (a managed
//! PostgreSQL: RDS, Aurora, Supabase) runs to decode the layout's IDs, bound time-range queries
//! on them and mint them, as `idmint sql --dialect postgres` prints it.
//!
//! Every constant in the script (shifts, masks, tick, epoch, the range of times) comes from the
//! [`Layout`], and every error it raises is core's [`Error`] with core's message: the script
//! builds each message from the `Display` of the error itself, with the values only known when
//! the function runs spliced in. The kind goes in the error's `DETAIL` as `kind: <kind>`, and
//! each kind has its own SQLSTATE ([`sql_state`]).
//!
//! # Minting: `idmint_next_id()`
//!
//! Uniqueness rests on one sequence, `idmint_counter`, whose values are the time field and the
//! sequence field side by side (`tick << sequence_bits | sequence`): a value is never handed
//! out twice (sequences are non-transactional, so a caller's rollback gives nothing back), and
//! the ID is an injective function of it, so IDs never repeat either. Nothing holds a row lock:
//! concurrent callers meet only in `nextval`.
//!
//! - When the counter's tick is behind the clock's (the database was idle), the caller moves it
//!   forward to the clock's tick with `setval`, under an exclusive advisory lock that every
//!   `nextval` of the function holds shared: the read-then-set cannot race with a `nextval` and
//!   so never moves the counter backwards. A caller that cannot take it at once uses its value
//!   as it is (an ID of an earlier tick, still unique) and leaves the move to the next call.
//! - **The per-tick limit** is the sequence field's: `2^sequence_bits` IDs per tick. Past it, the
//!   counter runs into the next tick, and the caller waits until the clock reaches that tick
//!   before returning the ID, so no ID is dated in the future; the same when the clock was set
//!   back. It waits at most `max_wait_ms` ([`SqlScript::max_wait_ms`]); past that it raises
//!   `clock_moved_backwards`, never repeats an ID.
//! - PostgreSQL writes a sequence's advance to its log before any transaction that used the
//!   value commits, so after a crash the counter is past every ID a committed row holds. (An ID
//!   read by a transaction that wrote nothing, and used outside the database, is not covered by
//!   that log write: PostgreSQL's own caveat for `nextval` after a crash.)

use crate::{format_time_ms, Error, Layout, Result, MAX_TIME_MS};

/// How long `idmint_next_id()` waits for the clock to reach its counter's tick (the tick's
/// sequence used up, or the clock set back) before refusing: one second.
///
/// ```
/// assert_eq!(idmint_core::sql_script::DEFAULT_MAX_WAIT_MS, 1000);
/// ```
pub const DEFAULT_MAX_WAIT_MS: u64 = 1000;

/// The advisory lock key of `idmint_next_id()`'s counter ("idmint" in ASCII, then "c1"): one
/// bigint, as `pg_advisory_lock(bigint)` takes it.
///
/// ```
/// assert_eq!(&idmint_core::sql_script::COUNTER_LOCK_KEY.to_be_bytes()[..6], b"idmint");
/// ```
pub const COUNTER_LOCK_KEY: i64 = 0x6964_6d69_6e74_6331;

/// A standard PostgreSQL SQLSTATE, one of those an [`Error`] is raised with in SQL
/// ([`sql_state`]). Only standard codes: the class (the first two characters) is what drivers
/// turn into an exception class (psycopg's `DataError` for class 22), and PostgreSQL's own
/// errors of the same condition carry the same code (`22P02` for text that does not parse,
/// `2200H` for a sequence at its limit).
///
/// Not `#[non_exhaustive]`, on purpose: the extension (`pg/`) turns each into its own
/// `PgSqlErrorCode` with a `match` that has no wildcard arm, so a code added here fails to
/// compile there until it is mapped.
///
/// ```
/// use idmint_core::sql_script::SqlState;
/// assert_eq!(SqlState::InvalidTextRepresentation.code(), "22P02");
/// assert_eq!(SqlState::InvalidTextRepresentation.condition(), "invalid_text_representation");
/// assert!(SqlState::ALL.contains(&SqlState::LockNotAvailable));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SqlState {
    /// `22023` invalid_parameter_value.
    InvalidParameterValue,
    /// `22P02` invalid_text_representation.
    InvalidTextRepresentation,
    /// `22003` numeric_value_out_of_range.
    NumericValueOutOfRange,
    /// `22008` datetime_field_overflow.
    DatetimeFieldOverflow,
    /// `2200H` sequence_generator_limit_exceeded.
    SequenceGeneratorLimitExceeded,
    /// `42501` insufficient_privilege.
    InsufficientPrivilege,
    /// `42704` undefined_object.
    UndefinedObject,
    /// `53000` insufficient_resources.
    InsufficientResources,
    /// `55000` object_not_in_prerequisite_state.
    ObjectNotInPrerequisiteState,
    /// `55P03` lock_not_available.
    LockNotAvailable,
    /// `58000` system_error.
    SystemError,
    /// `0A000` feature_not_supported.
    FeatureNotSupported,
}

impl SqlState {
    /// Every code, in declaration order.
    ///
    /// ```
    /// assert_eq!(idmint_core::sql_script::SqlState::ALL.len(), 12);
    /// ```
    pub const ALL: &'static [SqlState] = &[
        SqlState::InvalidParameterValue,
        SqlState::InvalidTextRepresentation,
        SqlState::NumericValueOutOfRange,
        SqlState::DatetimeFieldOverflow,
        SqlState::SequenceGeneratorLimitExceeded,
        SqlState::InsufficientPrivilege,
        SqlState::UndefinedObject,
        SqlState::InsufficientResources,
        SqlState::ObjectNotInPrerequisiteState,
        SqlState::LockNotAvailable,
        SqlState::SystemError,
        SqlState::FeatureNotSupported,
    ];

    /// The five-character code (`RAISE ... USING ERRCODE`, `SIGNAL SQLSTATE`).
    ///
    /// ```
    /// assert_eq!(idmint_core::sql_script::SqlState::SequenceGeneratorLimitExceeded.code(), "2200H");
    /// ```
    pub const fn code(self) -> &'static str {
        match self {
            SqlState::InvalidParameterValue => "22023",
            SqlState::InvalidTextRepresentation => "22P02",
            SqlState::NumericValueOutOfRange => "22003",
            SqlState::DatetimeFieldOverflow => "22008",
            SqlState::SequenceGeneratorLimitExceeded => "2200H",
            SqlState::InsufficientPrivilege => "42501",
            SqlState::UndefinedObject => "42704",
            SqlState::InsufficientResources => "53000",
            SqlState::ObjectNotInPrerequisiteState => "55000",
            SqlState::LockNotAvailable => "55P03",
            SqlState::SystemError => "58000",
            SqlState::FeatureNotSupported => "0A000",
        }
    }

    /// PostgreSQL's condition name for the code, as PL/pgSQL's `EXCEPTION WHEN` takes it.
    ///
    /// ```
    /// assert_eq!(idmint_core::sql_script::SqlState::LockNotAvailable.condition(), "lock_not_available");
    /// ```
    pub const fn condition(self) -> &'static str {
        match self {
            SqlState::InvalidParameterValue => "invalid_parameter_value",
            SqlState::InvalidTextRepresentation => "invalid_text_representation",
            SqlState::NumericValueOutOfRange => "numeric_value_out_of_range",
            SqlState::DatetimeFieldOverflow => "datetime_field_overflow",
            SqlState::SequenceGeneratorLimitExceeded => "sequence_generator_limit_exceeded",
            SqlState::InsufficientPrivilege => "insufficient_privilege",
            SqlState::UndefinedObject => "undefined_object",
            SqlState::InsufficientResources => "insufficient_resources",
            SqlState::ObjectNotInPrerequisiteState => "object_not_in_prerequisite_state",
            SqlState::LockNotAvailable => "lock_not_available",
            SqlState::SystemError => "system_error",
            SqlState::FeatureNotSupported => "feature_not_supported",
        }
    }
}

/// The SQLSTATE an [`Error`] is raised with in SQL, by the extension and by the scripts of
/// [`SqlScript`]: each kind its own, declared here (docs/database.md has the table). The
/// `match` names every variant and has no wildcard arm, so a new kind does not compile until
/// it is given its code (never a silent default).
///
/// ```
/// use idmint_core::sql_script::{sql_state, SqlState};
/// let err = idmint_core::Layout::preset("twitter")?.min_id_at(0).unwrap_err();
/// assert_eq!(err.kind(), "time_out_of_range");
/// assert_eq!(sql_state(&err), SqlState::DatetimeFieldOverflow);
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn sql_state(err: &Error) -> SqlState {
    use SqlState::*;
    match err {
        Error::InvalidLayout { .. } => InvalidParameterValue,
        Error::ValueOutOfRange { .. } => NumericValueOutOfRange,
        Error::UnknownField { .. } => InvalidParameterValue,
        Error::MissingField { .. } => InvalidParameterValue,
        // PostgreSQL's own code for a timestamp out of range.
        Error::TimeOutOfRange { .. } => DatetimeFieldOverflow,
        Error::EpochInFuture { .. } => InvalidParameterValue,
        // PostgreSQL's code for a sequence's nextval past its maximum: a generator used up.
        Error::LayoutExhausted { .. } => SequenceGeneratorLimitExceeded,
        Error::ClockMovedBackwards { .. } => ObjectNotInPrerequisiteState,
        Error::InvalidId { .. } => NumericValueOutOfRange,
        // Text that does not parse, as PostgreSQL's own `'x'::uuid` is refused.
        Error::InvalidObjectId { .. } => InvalidTextRepresentation,
        Error::InvalidArgument { .. } => InvalidParameterValue,
        Error::StoreUnavailable { .. } => SystemError,
        Error::UnknownTag { .. } => UndefinedObject,
        Error::InvalidTag { .. } => InvalidParameterValue,
        Error::RangeBelowIssued { .. } => ObjectNotInPrerequisiteState,
        Error::TagExhausted { .. } => SequenceGeneratorLimitExceeded,
        Error::InvalidKey { .. } => InvalidParameterValue,
        Error::InvalidEncoding { .. } => InvalidTextRepresentation,
        Error::InvalidTemplate { .. } => InvalidParameterValue,
        Error::CounterOverflow { .. } => SequenceGeneratorLimitExceeded,
        Error::InvalidUuid { .. } => InvalidTextRepresentation,
        Error::CheckDigitMismatch { .. } => InvalidTextRepresentation,
        // Every value of the range held: a resource used up for now, free again when a
        // lease runs out.
        Error::NoFreeLease { .. } => InsufficientResources,
        Error::LeaseLost { .. } => ObjectNotInPrerequisiteState,
        Error::Forked { .. } => ObjectNotInPrerequisiteState,
        Error::Closed { .. } => ObjectNotInPrerequisiteState,
        // PostgreSQL's code for NOWAIT finding the row taken: try again, or wait.
        Error::WouldBlock { .. } => LockNotAvailable,
        Error::NotAuthorized { .. } => InsufficientPrivilege,
        // A build without stores (a slim package's library): the call is not available here.
        Error::StoresNotInstalled { .. } => FeatureNotSupported,
    }
}

/// The five-character code of [`sql_state`].
///
/// ```
/// let err = idmint_core::Layout::preset("twitter")?.min_id_at(0).unwrap_err();
/// assert_eq!(idmint_core::sql_script::sqlstate(&err), "22008");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn sqlstate(err: &Error) -> &'static str {
    sql_state(err).code()
}

/// The SQL script of one layout: decoding, time-range bounds and (given node values) minting.
///
/// ```
/// use idmint_core::{sql_script::SqlScript, Layout};
///
/// let script = SqlScript::new(Layout::preset("twitter")?)?
///     .minting([("datacenter", 1), ("worker", 7)])?
///     .postgres();
/// assert!(script.contains("CREATE OR REPLACE FUNCTION idmint_min_id(ts timestamptz)"));
/// assert!(script.contains("CREATE OR REPLACE FUNCTION idmint_next_id()"));
/// // A 64-bit layout's IDs do not fit PostgreSQL's bigint.
/// assert_eq!(SqlScript::new(Layout::preset("discord")?).unwrap_err().kind(), "invalid_argument");
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SqlScript {
    layout: Layout,
    node_bits: Option<u64>,
    max_wait_ms: u64,
}

/// Runtime values spliced into a message: numbers no real message holds, replaced after
/// formatting by the SQL expression that holds the value.
const SLOT_I128: i128 = 7_777_777_777_777_777_777_777;
const SLOT_U64: u64 = 17_777_777_777_777_777_771;
const SLOT_TEXT: &str = "\u{1}value\u{1}";

impl SqlScript {
    /// The script of `layout`; a layout whose IDs may pass 2^63-1 is refused
    /// (`invalid_argument`), since SQL's `bigint` is signed.
    ///
    /// ```
    /// let s = idmint_core::sql_script::SqlScript::new(idmint_core::Layout::preset("sonyflake")?)?;
    /// assert!(!s.postgres().contains("idmint_next_id"));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn new(layout: Layout) -> Result<SqlScript> {
        if layout.total_bits() > 63 {
            return Err(Error::InvalidArgument {
                name: "layout".into(),
                value: layout.spec(),
                expected: format!(
                    "a layout of at most 63 bits (this one has {}): SQL's bigint holds 0..=9223372036854775807",
                    layout.total_bits()
                ),
            });
        }
        Ok(SqlScript {
            layout,
            node_bits: None,
            max_wait_ms: DEFAULT_MAX_WAIT_MS,
        })
    }

    /// Add `idmint_next_id()`, minting with these node values (every node field, each checked
    /// as [`Layout::compose_values`] checks it).
    ///
    /// ```
    /// use idmint_core::{sql_script::SqlScript, Layout};
    /// let s = SqlScript::new(Layout::preset("redis-lua")?)?;
    /// assert_eq!(s.clone().minting([("shard", 4096)]).unwrap_err().kind(), "value_out_of_range");
    /// assert_eq!(s.clone().minting([]).unwrap_err().kind(), "missing_field");
    /// assert!(s.minting([("shard", 53)])?.postgres().contains("idmint_next_id"));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn minting<'a>(mut self, nodes: impl IntoIterator<Item = (&'a str, i128)>) -> Result<Self> {
        self.node_bits = Some(self.layout.node_bits(nodes)?);
        Ok(self)
    }

    /// How long `idmint_next_id()` waits for the clock to reach its counter's tick before
    /// refusing ([`DEFAULT_MAX_WAIT_MS`] unless set).
    ///
    /// ```
    /// use idmint_core::{sql_script::SqlScript, Layout};
    /// let s = SqlScript::new(Layout::preset("twitter")?)?.minting([("datacenter", 0), ("worker", 0)])?;
    /// assert!(s.max_wait_ms(0).postgres().contains("max_wait_ms CONSTANT bigint := 0;"));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn max_wait_ms(mut self, ms: u64) -> Self {
        self.max_wait_ms = ms;
        self
    }

    /// The script for PostgreSQL (13 and later): `CREATE OR REPLACE FUNCTION`s in the current
    /// schema, safe to run again.
    ///
    /// - `idmint_layout() → text`: the layout's canonical spec;
    /// - `idmint_decode(id bigint) → jsonb`: the ID as `idmint parse` shows it (`format`, `id`,
    ///   `value`, `time_ms`, `time`, `layout`, `parts`: each node field and `sequence`);
    /// - `idmint_time(id bigint) → timestamptz`: the start of the ID's tick;
    /// - `idmint_min_id(ts timestamptz) → bigint`, `idmint_max_id(ts timestamptz) → bigint`:
    ///   [`Layout::min_id_at`] and [`Layout::max_id_at`] of the instant (floored to the ms);
    /// - with [`SqlScript::minting`]: the sequence `idmint_counter` and `idmint_next_id() →
    ///   bigint` (see the [module docs](crate::sql_script)).
    ///
    /// ```
    /// let s = idmint_core::sql_script::SqlScript::new(idmint_core::Layout::preset("twitter")?)?;
    /// assert!(s.postgres().contains("SELECT 'time:41@1ms,datacenter:5,worker:5,sequence:12,epoch=1288834974657'::text"));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn postgres(&self) -> String {
        let l = &self.layout;
        let (low, tick, epoch, end) = (self.low_bits(), l.tick_ms(), l.epoch_ms(), self.end_ms());
        let mut out = format!(
            "-- idmint: SQL functions for the layout {spec}\n\
             -- Generated by idmint-core {version} (`idmint sql --dialect postgres`); run again to replace them.\n\
             -- Errors are core's: the message as idmint prints it, `kind: <kind>` in DETAIL.\n\n",
            spec = l.spec(),
            version = env!("CARGO_PKG_VERSION"),
        );
        out.push_str(RAISE_FUNCTION);
        out.push_str(&format!(
            "CREATE OR REPLACE FUNCTION idmint_layout() RETURNS text\n\
             LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$ SELECT {spec}::text $f$;\n\n",
            spec = literal(&l.spec())
        ));

        let mut check = String::new();
        for (cond, err) in self.id_checks() {
            let raise = raise(&err).replace(SLOT_TEXT_SQL, "' || id::text || '");
            check.push_str(&format!("  IF {cond} THEN {raise} END IF;\n"));
        }
        out.push_str(&format!(
            "CREATE OR REPLACE FUNCTION idmint_time_ms(id bigint) RETURNS bigint\n\
             LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $f$\nBEGIN\n{check}  RETURN (id >> {low}) * {tick} + {epoch};\nEND $f$;\n\n"
        ));
        out.push_str(
            "CREATE OR REPLACE FUNCTION idmint_time(id bigint) RETURNS timestamptz\n\
             LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $f$\n  \
             SELECT timestamptz '1970-01-01 00:00:00+00' + idmint_time_ms(id) * interval '1 millisecond'\n$f$;\n\n",
        );
        let fields = self.json_fields();
        // The shape of `idmint parse` and `idmint serve`'s /v1/parse (`idmint_core::json`),
        // 64-bit integers as strings.
        let name = l.preset_name().map_or_else(|| l.spec(), str::to_string);
        out.push_str(&format!(
            "CREATE OR REPLACE FUNCTION idmint_decode(id bigint) RETURNS jsonb\n\
             LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $f$\n  \
             SELECT jsonb_build_object('format', 'snowflake', 'id', id::text, 'value', id::text, 'time_ms', t, \
             'time', to_char((timestamptz '1970-01-01 00:00:00+00' + t * interval '1 millisecond') AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), \
             'layout', {name}, 'parts', jsonb_build_object({fields}))\n  \
             FROM (SELECT idmint_time_ms(id) AS t) AS time_of_id\n$f$;\n\n",
            name = literal(&name)
        ));

        // `Layout::min_id_at` / `max_id_at`: the tick's smallest ID and its largest.
        let (outside, out_of_range) = self.time_check();
        let out_of_range =
            raise(&out_of_range).replace(&SLOT_I128.to_string(), "' || ms::text || '");
        let infinite = raise(&Error::InvalidArgument {
            name: "time".into(),
            value: SLOT_TEXT.into(),
            expected: format!(
                "a finite time from {} to before {}",
                format_time_ms(epoch),
                format_time_ms(end)
            ),
        })
        .replace(SLOT_TEXT_SQL, "' || ts::text || '");
        let low_mask = if low == 0 { 0 } else { u64::MAX >> (64 - low) };
        for (name, tail) in [("min", String::new()), ("max", format!(" | {low_mask}"))] {
            out.push_str(&format!(
                "CREATE OR REPLACE FUNCTION idmint_{name}_id(ts timestamptz) RETURNS bigint\n\
                 LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $f$\nDECLARE\n  ms bigint;\nBEGIN\n  \
                 IF NOT isfinite(ts) THEN {infinite} END IF;\n  \
                 ms := floor(extract(epoch FROM ts) * 1000);\n  \
                 IF {outside} THEN {out_of_range} END IF;\n  \
                 RETURN ((ms - {epoch}) / {tick}) << {low}{tail};\nEND $f$;\n\n"
            ));
        }
        if let Some(node_bits) = self.node_bits {
            out.push_str(&self.next_id(node_bits));
        }
        out
    }

    /// The checks of `Layout::decompose` (via `check_fits` and `time_ms_of`) on an ID named
    /// `id`, in SQL both dialects read: (condition, core's error, [`SLOT_TEXT`] for the ID).
    fn id_checks(&self) -> Vec<(String, Error)> {
        let l = &self.layout;
        let (low, tick, epoch, max_id) = (self.low_bits(), l.tick_ms(), l.epoch_ms(), l.max_id());
        let mut checks = vec![
            (
                "id < 0".to_string(),
                Error::invalid_id(SLOT_TEXT, "negative; IDs are 0..=9223372036854775807"),
            ),
            (
                format!("id > {max_id}"),
                Error::invalid_id(
                    SLOT_TEXT,
                    format!(
                        "uses bits above this layout's {} bits: IDs are 0..={max_id}",
                        l.total_bits()
                    ),
                ),
            ),
        ];
        if l.exhausts_at_ms() > MAX_TIME_MS + 1 {
            checks.push((
                format!("(id >> {low}) * {tick} + {epoch} > {MAX_TIME_MS}"),
                Error::invalid_id(
                    SLOT_TEXT,
                    "its time is past the year 9999, the last idmint represents",
                ),
            ));
        }
        checks
    }

    /// The check of `Layout::min_id_at` / `max_id_at` on unix ms named `ms`: (condition, core's
    /// error, [`SLOT_I128`] for the time).
    fn time_check(&self) -> (String, Error) {
        let l = &self.layout;
        // The first instant no ID holds, as `Layout::min_id_at` checks it.
        let (epoch, end) = (l.epoch_ms(), self.end_ms());
        (
            format!("ms < {epoch} OR ms >= {end}"),
            Error::TimeOutOfRange {
                time_ms: SLOT_I128,
                min_ms: epoch,
                end_ms: end,
            },
        )
    }

    /// The arguments of a JSON object of the ID `id`'s fields, by name (the same in both
    /// dialects' `json_build_object`/`JSON_OBJECT`).
    fn json_fields(&self) -> String {
        let parts: Vec<String> = (self.layout.fields().iter())
            .map(|f| format!("{}, (id >> {}) & {}", literal(f.name()), f.shift(), f.max()))
            .collect();
        parts.join(", ")
    }

    fn low_bits(&self) -> u32 {
        self.layout.total_bits() - self.layout.time_bits()
    }

    /// The first instant no ID holds (capped past the year 9999, as `Layout::min_id_at` caps it).
    fn end_ms(&self) -> u64 {
        self.layout.exhausts_at_ms().min(MAX_TIME_MS + 1)
    }

    /// The script for MySQL 8 and MariaDB 10.5 (tested on MariaDB): the same decoding and
    /// time-range functions as [`SqlScript::postgres`], in the current database, with
    /// `DELIMITER $$` as the `mysql` client reads it; safe to run again (each function is
    /// dropped first).
    ///
    /// - `idmint_layout()`, `idmint_time_ms(id)`, `idmint_time(id) → DATETIME(3)` (UTC),
    ///   `idmint_decode(id) → JSON`;
    /// - `idmint_min_id_ms(ms)`, `idmint_max_id_ms(ms)` and, for a `DATETIME` read as UTC,
    ///   `idmint_min_id(ts)`, `idmint_max_id(ts)`.
    ///
    /// An error is `SIGNAL`led with core's message and its kind's SQLSTATE
    /// ([`sqlstate`]); `SIGNAL` has no field a client reads the kind from. No minting function:
    /// with [`SqlScript::minting`] this is `invalid_argument`. Neither database has a sequence
    /// a function can move to the clock's tick (MariaDB's `SETVAL` takes only a literal, MySQL
    /// has no sequences), and a counter row would hold its lock until the caller commits, so
    /// minting there would either block every other caller or could repeat; mint in the
    /// application and decode and query here.
    ///
    /// ```
    /// use idmint_core::{sql_script::SqlScript, Layout};
    /// let s = SqlScript::new(Layout::preset("twitter")?)?;
    /// let sql = s.mysql()?;
    /// assert!(sql.starts_with("-- idmint") && sql.contains("DELIMITER $$"));
    /// assert!(sql.contains("CREATE FUNCTION idmint_min_id(ts DATETIME(3)) RETURNS BIGINT"));
    /// let minting = s.minting([("datacenter", 1), ("worker", 7)])?;
    /// assert_eq!(minting.mysql().unwrap_err().kind(), "invalid_argument");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn mysql(&self) -> Result<String> {
        if self.node_bits.is_some() {
            return Err(Error::InvalidArgument {
                name: "node".into(),
                value: "given with the dialect mysql".into(),
                expected: "no node values: MySQL and MariaDB have no sequence a function can move \
                           to the clock's tick, so there is no minting function for them; mint in \
                           the application, decode and bound time ranges in SQL"
                    .into(),
            });
        }
        let l = &self.layout;
        let (low, tick, epoch) = (self.low_bits(), l.tick_ms(), l.epoch_ms());
        let mut out = format!(
            "-- idmint: SQL functions for the layout {spec}\n\
             -- Generated by idmint-core {version} (`idmint sql --dialect mysql`) for MySQL 8 and MariaDB 10.5+;\n\
             -- run again to replace them. Errors: core's message, its kind's SQLSTATE.\n\
             DELIMITER $$\n\n",
            spec = l.spec(),
            version = env!("CARGO_PKG_VERSION"),
        );
        let function = |out: &mut String, name: &str, head: &str, body: &str| {
            out.push_str(&format!(
                "DROP FUNCTION IF EXISTS {name}$$\nCREATE FUNCTION {name}{head}\n  DETERMINISTIC NO SQL\n{body}$$\n\n"
            ));
        };
        function(
            &mut out,
            "idmint_layout",
            "() RETURNS VARCHAR(255) CHARACTER SET utf8mb4",
            &format!("RETURN {}", literal(&l.spec())),
        );
        let mut check = String::new();
        for (cond, err) in self.id_checks() {
            check.push_str(&format!(
                "  IF {cond} THEN {} END IF;\n",
                signal(&err, SLOT_TEXT_SQL, "id")
            ));
        }
        function(
            &mut out,
            "idmint_time_ms",
            "(id BIGINT) RETURNS BIGINT",
            &format!(
                "BEGIN\n  DECLARE msg VARCHAR(512);\n  IF id IS NULL THEN RETURN NULL; END IF;\n{check}  \
                 RETURN (id >> {low}) * {tick} + {epoch};\nEND"
            ),
        );
        // DATETIME arithmetic has no time zone: the UTC instant.
        const UNIX: &str = "'1970-01-01 00:00:00'";
        function(
            &mut out,
            "idmint_time",
            "(id BIGINT) RETURNS DATETIME(3)",
            &format!("RETURN TIMESTAMPADD(MICROSECOND, idmint_time_ms(id) * 1000, {UNIX})"),
        );
        let fields = self.json_fields();
        // The shape of `idmint parse` (`idmint_core::json`), 64-bit integers as strings.
        // `t + 0`: MariaDB's JSON_OBJECT writes a BIGINT local variable as a string, an
        // expression as a number.
        let name = l.preset_name().map_or_else(|| l.spec(), str::to_string);
        function(
            &mut out,
            "idmint_decode",
            "(id BIGINT) RETURNS JSON",
            &format!(
                "BEGIN\n  DECLARE t BIGINT DEFAULT idmint_time_ms(id);\n  IF id IS NULL THEN RETURN NULL; END IF;\n  \
                 RETURN JSON_OBJECT('format', 'snowflake', 'id', CAST(id AS CHAR), 'value', CAST(id AS CHAR), \
                 'time_ms', t + 0, 'time', CONCAT(LEFT(DATE_FORMAT(TIMESTAMPADD(MICROSECOND, t * 1000, {UNIX}), \
                 '%Y-%m-%dT%H:%i:%s.%f'), 23), 'Z'), 'layout', {name}, 'parts', JSON_OBJECT({fields}));\nEND",
                name = literal(&name)
            ),
        );
        let (outside, out_of_range) = self.time_check();
        let out_of_range = signal(&out_of_range, &SLOT_I128.to_string(), "ms");
        let low_mask = if low == 0 { 0 } else { u64::MAX >> (64 - low) };
        for (name, tail) in [("min", String::new()), ("max", format!(" | {low_mask}"))] {
            function(
                &mut out,
                &format!("idmint_{name}_id_ms"),
                "(ms BIGINT) RETURNS BIGINT",
                &format!(
                    "BEGIN\n  DECLARE msg VARCHAR(512);\n  IF ms IS NULL THEN RETURN NULL; END IF;\n  \
                     IF {outside} THEN {out_of_range} END IF;\n  \
                     RETURN ((ms - {epoch}) DIV {tick}) << {low}{tail};\nEND"
                ),
            );
            function(
                &mut out,
                &format!("idmint_{name}_id"),
                "(ts DATETIME(3)) RETURNS BIGINT",
                &format!(
                    "RETURN idmint_{name}_id_ms(FLOOR(TIMESTAMPDIFF(MICROSECOND, {UNIX}, ts) / 1000))"
                ),
            );
        }
        out.push_str("DELIMITER ;\n");
        Ok(out)
    }

    fn next_id(&self, node_bits: u64) -> String {
        let l = &self.layout;
        let low = l.total_bits() - l.time_bits();
        let seq = l.sequence_field();
        let (seq_bits, seq_shift, seq_max) = (seq.bits(), seq.shift(), seq.max());
        let (tick, epoch, wait) = (l.tick_ms(), l.epoch_ms(), self.max_wait_ms);
        let last_tick = l.max_time_value();
        let key = COUNTER_LOCK_KEY;
        let future = raise(&Error::EpochInFuture {
            epoch_ms: epoch,
            now_ms: SLOT_U64,
        })
        .replace(&SLOT_U64.to_string(), "' || now_ms::text || '");
        let exhausted = raise(&l.exhausted_error());
        let behind = raise(&Error::ClockMovedBackwards {
            behind_ms: SLOT_U64,
            allowed_ms: wait,
        })
        .replace(&SLOT_U64.to_string(), "' || behind_ms::text || '");
        format!(
            "-- Minting: uniqueness rests on the sequence idmint_counter (tick << {seq_bits} | sequence);\n\
             -- at most {per_tick} IDs per {tick} ms tick, past which a caller waits for the next tick,\n\
             -- up to {wait} ms, then raises clock_moved_backwards. Node bits: {node_bits}.\n\
             CREATE SEQUENCE IF NOT EXISTS idmint_counter AS bigint MINVALUE 0 START 0 CACHE 1 NO CYCLE;\n\n\
             CREATE OR REPLACE FUNCTION idmint_next_id() RETURNS bigint\n\
             LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE AS $f$\n\
             DECLARE\n  max_wait_ms CONSTANT bigint := {wait};\n  now_ms bigint;\n  tick bigint;\n  v bigint;\n  \
             counter_tick bigint;\n  behind_ms bigint;\n\
             BEGIN\n  LOOP\n    \
             now_ms := floor(extract(epoch FROM clock_timestamp()) * 1000);\n    \
             IF now_ms < {epoch} THEN {future} END IF;\n    \
             tick := (now_ms - {epoch}) / {tick};\n    \
             IF tick > {last_tick} THEN {exhausted} END IF;\n    \
             -- Shared: many callers at once; only the move below takes it exclusively.\n    \
             PERFORM pg_advisory_lock_shared({key});\n    \
             v := nextval('idmint_counter');\n    \
             PERFORM pg_advisory_unlock_shared({key});\n    \
             counter_tick := v >> {seq_bits};\n    \
             IF counter_tick > {last_tick} THEN {exhausted} END IF;\n    \
             IF counter_tick < tick THEN\n      \
             -- (Nested, not AND: SQL does not promise to test the left side first.)\n      \
             IF pg_try_advisory_lock({key}) THEN\n        \
             -- No nextval runs while this is held, so the counter only ever moves forward.\n        \
             IF (SELECT last_value FROM idmint_counter) < (tick << {seq_bits}) THEN\n          \
             PERFORM setval('idmint_counter', tick << {seq_bits}, false);\n        END IF;\n        \
             PERFORM pg_advisory_unlock({key});\n        CONTINUE;\n      END IF;\n    END IF;\n    \
             IF counter_tick > tick THEN\n      \
             -- This tick's sequence is used up, or the clock went back: wait for the counter's tick.\n      \
             behind_ms := counter_tick * {tick} + {epoch} - now_ms;\n      \
             IF behind_ms > max_wait_ms THEN {behind} END IF;\n      \
             WHILE floor(extract(epoch FROM clock_timestamp()) * 1000) < counter_tick * {tick} + {epoch} LOOP\n        \
             PERFORM pg_sleep(behind_ms / 1000.0);\n      END LOOP;\n    \
             END IF;\n    \
             RETURN (counter_tick << {low}) | {node_bits} | ((v & {seq_max}) << {seq_shift});\n  \
             END LOOP;\nEND $f$;\n",
            per_tick = seq_max + 1,
        )
    }
}

/// The raising helper every function calls: message, `kind: <kind>` as DETAIL, the SQLSTATE.
const RAISE_FUNCTION: &str = "CREATE OR REPLACE FUNCTION idmint_raise(sqlstate text, kind text, message text) RETURNS void\n\
LANGUAGE plpgsql VOLATILE PARALLEL SAFE AS $f$\n\
BEGIN\n  RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, DETAIL = 'kind: ' || kind;\nEND $f$;\n\n";

/// [`SLOT_TEXT`] as it appears inside an SQL literal.
const SLOT_TEXT_SQL: &str = "\u{1}value\u{1}";

/// The PL/pgSQL statement raising `err`.
fn raise(err: &Error) -> String {
    format!(
        "PERFORM idmint_raise('{}', '{}', {});",
        sqlstate(err),
        err.kind(),
        literal(&err.to_string())
    )
}

/// The MySQL statements raising `err`, with `slot` in its message replaced by the value of
/// `expr` (a local `msg` is declared by the function: `SIGNAL` takes no expression).
fn signal(err: &Error, slot: &str, expr: &str) -> String {
    let message = literal(&err.to_string()).replace(slot, &format!("', {expr}, '"));
    format!(
        "SET msg = CONCAT({message}); SIGNAL SQLSTATE '{}' SET MESSAGE_TEXT = msg;",
        sqlstate(err)
    )
}

/// `text` as an SQL string literal.
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// The refusals of idmint's PostgreSQL extension (`pg/`) that come from how the server is set
/// up rather than from a generator or a store: kept in core with every other error text, so the
/// extension only raises them.
pub mod extension {
    use crate::{Error, Layout, Result};

    /// `idmint_snowflake()` in a server started without `shared_preload_libraries = 'idmint'`:
    /// its backends could not share one generator (and one sequence), so it refuses.
    ///
    /// ```
    /// let e = idmint_core::sql_script::extension::not_preloaded();
    /// assert_eq!(e.kind(), "invalid_argument");
    /// assert!(e.to_string().contains("shared_preload_libraries"));
    /// ```
    pub fn not_preloaded() -> Error {
        Error::InvalidArgument {
            name: "shared_preload_libraries".into(),
            value: "without idmint".into(),
            expected: "'idmint': idmint_snowflake() needs the server started with it, so that \
                       every backend mints as one generator"
                .into(),
        }
    }

    /// Checks the layout a column default names (`idmint_snowflake('twitter')`) against the
    /// server's one generator (`idmint.layout`): a server mints with one layout only.
    ///
    /// ```
    /// use idmint_core::{sql_script::extension::same_layout, Layout};
    /// let server = Layout::preset("twitter")?;
    /// assert!(same_layout("twitter", &server).is_ok());
    /// let e = same_layout("sonyflake", &server).unwrap_err();
    /// assert_eq!(e.kind(), "invalid_argument");
    /// assert!(e.to_string().contains("the server's idmint.layout, twitter (time:41@1ms,"));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn same_layout(asked: &str, server: &Layout) -> Result<()> {
        if Layout::parse(asked)?.spec() == server.spec() {
            return Ok(());
        }
        let server_layout = match server.preset_name() {
            Some(name) => format!("{name} ({})", server.spec()),
            None => server.spec(),
        };
        Err(Error::InvalidArgument {
            name: "layout".into(),
            value: format!("`{asked}`"),
            expected: format!(
                "the server's idmint.layout, {server_layout}; one generator per server"
            ),
        })
    }

    /// The segment store URL of `idmint_segment_next()` and `idmint_segment_range()`, the
    /// setting `idmint.segment_store`, which must be set.
    ///
    /// ```
    /// use idmint_core::sql_script::extension::segment_store;
    /// let url = "postgres://postgres@127.0.0.1:5432/app";
    /// assert_eq!(segment_store(Some(url.into()))?, url);
    /// let e = segment_store(None).unwrap_err();
    /// assert_eq!(e.kind(), "invalid_argument");
    /// assert!(e.to_string().contains("idmint.segment_store"));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn segment_store(setting: Option<String>) -> Result<String> {
        setting.ok_or_else(|| Error::InvalidArgument {
            name: "idmint.segment_store".into(),
            value: "unset".into(),
            expected: "a segment store URL, normally this database's own \
                       (postgres://USER@HOST:PORT/DB); set it in postgresql.conf or with \
                       ALTER SYSTEM, then reload"
                .into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::{sql_state, SqlState};
    use crate::Error;

    /// One error of every kind: the list the SQLSTATE table is checked over.
    fn one_of_each() -> Vec<Error> {
        let s = || String::new();
        vec![
            Error::InvalidLayout {
                spec: s(),
                reason: s(),
            },
            Error::ValueOutOfRange {
                field: s(),
                value: 0,
                max: 0,
            },
            Error::UnknownField {
                field: s(),
                valid: s(),
            },
            Error::MissingField { field: s() },
            Error::TimeOutOfRange {
                time_ms: 0,
                min_ms: 0,
                end_ms: 0,
            },
            Error::EpochInFuture {
                epoch_ms: 0,
                now_ms: 0,
            },
            Error::LayoutExhausted {
                end_ms: 0,
                end: s(),
            },
            Error::ClockMovedBackwards {
                behind_ms: 0,
                allowed_ms: 0,
            },
            Error::InvalidId {
                id: s(),
                reason: s(),
            },
            Error::InvalidObjectId {
                input: s(),
                reason: s(),
            },
            Error::InvalidArgument {
                name: s(),
                value: s(),
                expected: s(),
            },
            Error::StoreUnavailable {
                store: s(),
                reason: s(),
            },
            Error::UnknownTag { tag: s() },
            Error::InvalidTag {
                tag: s(),
                reason: s(),
            },
            Error::RangeBelowIssued {
                tag: s(),
                start: 0,
                end: 0,
                issued: 0,
            },
            Error::TagExhausted {
                tag: s(),
                max_id: 0,
                count: 0,
                limit: 0,
            },
            Error::InvalidKey {
                key: s(),
                reason: s(),
            },
            Error::InvalidEncoding {
                encoding: s(),
                input: s(),
                reason: s(),
            },
            Error::InvalidTemplate {
                template: s(),
                reason: s(),
            },
            Error::CounterOverflow {
                period: s(),
                value: 0,
                max: 0,
                width: 0,
            },
            Error::InvalidUuid {
                input: s(),
                reason: s(),
            },
            Error::CheckDigitMismatch {
                id: s(),
                expected: s(),
                found: s(),
            },
            Error::NoFreeLease {
                store: s(),
                first: 0,
                last: 0,
                reason: s(),
            },
            Error::LeaseLost {
                value: 0,
                store: s(),
                reason: s(),
            },
            Error::Forked {
                what: s(),
                remedy: s(),
            },
            Error::Closed { what: s() },
            Error::StoresNotInstalled {
                what: s(),
                install: s(),
            },
            Error::WouldBlock {
                tag: s(),
                store: s(),
            },
            Error::NotAuthorized {
                store: s(),
                status: 0,
                reason: s(),
            },
        ]
    }

    #[test]
    fn every_kind_has_its_declared_sqlstate_and_docs_list_them_all() {
        let errors = one_of_each();
        let kinds: BTreeSet<&str> = errors.iter().map(Error::kind).collect();
        assert_eq!(kinds.len(), errors.len(), "one error per kind");
        assert_eq!(
            kinds,
            Error::KINDS.iter().copied().collect(),
            "one_of_each() lists every kind of Error::KINDS"
        );
        // The table of docs/database.md, row by row: `kind` | `code` | condition.
        let docs = include_str!("../../docs/database.md");
        let table: BTreeMap<&str, (&str, &str)> = docs
            .lines()
            .filter_map(|line| {
                let cells: Vec<&str> = line
                    .strip_prefix('|')?
                    .strip_suffix('|')?
                    .split('|')
                    .collect();
                let [kind, code, condition] = cells[..] else {
                    return None;
                };
                let kind = kind.trim().strip_prefix('`')?.strip_suffix('`')?;
                let code = code.trim().strip_prefix('`')?.strip_suffix('`')?;
                (Error::KINDS.contains(&kind) && code.len() == 5)
                    .then_some((kind, (code, condition.trim())))
            })
            .collect();
        let declared: BTreeMap<&str, (&str, &str)> = errors
            .iter()
            .map(|e| (e.kind(), (sql_state(e).code(), sql_state(e).condition())))
            .collect();
        assert_eq!(table, declared, "docs/database.md's SQLSTATE table");
    }

    #[test]
    fn sqlstates_are_distinct_well_formed_codes() {
        let codes: BTreeSet<&str> = SqlState::ALL.iter().map(|s| s.code()).collect();
        assert_eq!(codes.len(), SqlState::ALL.len());
        for code in codes {
            assert!(
                code.len() == 5
                    && code
                        .bytes()
                        .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase()),
                "{code}"
            );
            // Class 00 is success, 01 a warning, 02 "no data": none raises an error.
            assert!(!["00", "01", "02"].contains(&&code[..2]), "{code}");
        }
    }
}
