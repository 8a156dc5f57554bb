//! Existing tables, in place: idmint clients and a legacy allocator drawing from the same row
//! at once, counted for duplicates. The legacy allocators are written here with sqlx, as their
//! sources do it: Meituan Leaf's segment mode (`UPDATE leaf_alloc SET max_id = max_id + step`
//! then `SELECT`, in one transaction; the range is `max_id - step .. max_id - 1`) and seed 004's
//! compare-and-set on `sequence_value(id, name)` (read `v`, `UPDATE … SET id = v + n WHERE
//! id = v`, retried; the range is `v + 1 ..= v + n`). SQLite always runs (a temp file);
//! PostgreSQL and MariaDB need `IDMINT_TEST_{POSTGRES,MYSQL}_URL` (tests/servers.sh).
#![cfg(all(feature = "sqlite", feature = "postgres", feature = "mysql"))]

mod segment_util;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use idmint_core::segment::{open_store, SegmentClient, StoreOptions, TagSpec, TagUpdate};
use idmint_core::Error;
use segment_util::{
    child_ids, duplicates, rt, server, spawn_child, temp_dir, temp_path, unique, write_ids,
};
use sqlx::any::AnyPoolOptions;
use sqlx::{AnyPool, Row};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Db {
    Sqlite,
    Postgres,
    MySql,
}

/// The databases to test, as (engine, URL without options).
fn databases() -> Vec<(Db, String)> {
    let file = temp_path(&format!("{}.db", unique("idmint_legacy")));
    let mut dbs = vec![(Db::Sqlite, format!("sqlite:{}", file.display()))];
    if let Some(u) = server("postgres") {
        dbs.push((Db::Postgres, u));
    }
    if let Some(u) = server("mysql") {
        dbs.push((Db::MySql, u));
    }
    dbs
}

/// A pool of the legacy allocator's own connections (SQLite: waits for the file's lock, as
/// idmint's connection does).
async fn legacy_pool(db: Db, url: &str) -> AnyPool {
    sqlx::any::install_default_drivers();
    let url = match db {
        Db::Sqlite => format!("{url}?mode=rwc"),
        _ => url.to_string(),
    };
    AnyPoolOptions::new()
        .max_connections(if db == Db::Sqlite { 1 } else { 4 })
        .acquire_timeout(Duration::from_secs(30))
        .after_connect(move |conn, _| {
            Box::pin(async move {
                if db == Db::Sqlite {
                    sqlx::Executor::execute(&mut *conn, "PRAGMA busy_timeout = 10000").await?;
                    sqlx::Executor::execute(&mut *conn, "PRAGMA journal_mode = WAL").await?;
                }
                Ok(())
            })
        })
        .connect(&url)
        .await
        .unwrap()
}

/// A statement written with `?` placeholders, numbered for PostgreSQL.
fn sql(db: Db, text: &str) -> String {
    if db != Db::Postgres {
        return text.to_string();
    }
    let mut n = 0;
    text.chars()
        .map(|c| {
            if c == '?' {
                n += 1;
                format!("${n}")
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn int8(db: Db) -> &'static str {
    if db == Db::MySql {
        "SIGNED"
    } else {
        "BIGINT"
    }
}

/// Leaf's table as its README creates it (MySQL), and the same columns elsewhere.
fn leaf_ddl(db: Db, table: &str) -> String {
    match db {
        Db::MySql => format!(
            "CREATE TABLE {table} (
                biz_tag varchar(128) NOT NULL DEFAULT '',
                max_id bigint(20) NOT NULL DEFAULT '1',
                step int(11) NOT NULL,
                description varchar(256) DEFAULT NULL,
                update_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
                PRIMARY KEY (biz_tag)
            ) ENGINE=InnoDB"
        ),
        _ => format!(
            "CREATE TABLE {table} (
                biz_tag varchar(128) NOT NULL PRIMARY KEY,
                max_id bigint NOT NULL DEFAULT 1,
                step int NOT NULL,
                description varchar(256) DEFAULT NULL,
                update_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP
            )"
        ),
    }
}

/// Seed 004's table: `name` needs a unique index, as the seed itself says.
fn sequence_ddl(table: &str, unique_name: bool) -> String {
    let key = if unique_name { " PRIMARY KEY" } else { "" };
    format!("CREATE TABLE {table} (id bigint NOT NULL, name varchar(64) NOT NULL{key})")
}

/// One Leaf segment: `UPDATE … SET max_id = max_id + step` then `SELECT`, in a transaction
/// (Leaf's `updateMaxIdAndGetLeafAlloc`), and the range `max_id - step .. max_id`.
async fn leaf_segment(pool: &AnyPool, db: Db, table: &str, tag: &str) -> std::ops::Range<u64> {
    let mut tx = pool.begin().await.unwrap();
    sqlx::query(&sql(
        db,
        &format!("UPDATE {table} SET max_id = max_id + step WHERE biz_tag = ?"),
    ))
    .bind(tag)
    .execute(&mut *tx)
    .await
    .unwrap();
    let t = int8(db);
    let row = sqlx::query(&sql(
        db,
        &format!(
            "SELECT biz_tag, CAST(max_id AS {t}), CAST(step AS {t}) FROM {table} WHERE biz_tag = ?"
        ),
    ))
    .bind(tag)
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    let (max_id, step): (i64, i64) = (row.get(1), row.get(2));
    (max_id - step) as u64..max_id as u64
}

/// One block of seed 004's `Sequence.getNextBlock`: read `v`, then `UPDATE … SET id = v + n
/// WHERE name = ? AND id = v`, retried until it moves the row; the block is `v + 1 ..= v + n`.
async fn cas_block(pool: &AnyPool, db: Db, table: &str, tag: &str, n: i64) -> std::ops::Range<u64> {
    loop {
        let v: i64 = sqlx::query(&sql(
            db,
            &format!(
                "SELECT CAST(id AS {}) FROM {table} WHERE name = ?",
                int8(db)
            ),
        ))
        .bind(tag)
        .fetch_one(pool)
        .await
        .unwrap()
        .get(0);
        let done = sqlx::query(&sql(
            db,
            &format!("UPDATE {table} SET id = ? WHERE name = ? AND id = ?"),
        ))
        .bind(v + n)
        .bind(tag)
        .bind(v)
        .execute(pool)
        .await
        .unwrap();
        if done.rows_affected() == 1 {
            return (v + 1) as u64..(v + n + 1) as u64;
        }
    }
}

#[derive(Clone, Copy)]
enum Legacy {
    Leaf,
    Cas,
}

impl Legacy {
    async fn block(self, pool: &AnyPool, db: Db, table: &str, tag: &str) -> std::ops::Range<u64> {
        match self {
            Legacy::Leaf => leaf_segment(pool, db, table, tag).await,
            Legacy::Cas => cas_block(pool, db, table, tag, 20).await,
        }
    }

    /// The store options that map its table.
    fn options(self, table: &str) -> String {
        match self {
            Legacy::Leaf => format!("schema=leaf&table={table}"),
            Legacy::Cas => format!("table={table}&tag_column=name&max_id_column=id"),
        }
    }

    async fn create(self, pool: &AnyPool, db: Db, table: &str, tag: &str) {
        let (ddl, row) = match self {
            Legacy::Leaf => (
                leaf_ddl(db, table),
                format!("INSERT INTO {table} (biz_tag, max_id, step, description) VALUES (?, 1, 20, 'test')"),
            ),
            Legacy::Cas => (
                sequence_ddl(table, true),
                format!("INSERT INTO {table} (id, name) VALUES (0, ?)"),
            ),
        };
        sqlx::query(&ddl).execute(pool).await.unwrap();
        sqlx::query(&sql(db, &row))
            .bind(tag)
            .execute(pool)
            .await
            .unwrap();
    }
}

/// Draws `per_thread` IDs on each of `threads` threads through one idmint client.
fn idmint_draw(url: &str, tag: &str, threads: usize, per_thread: usize) -> Vec<u64> {
    // Steps of 10 to 100 so the run takes hundreds of allocations racing the legacy one.
    let client = SegmentClient::builder()
        .store_url(url)
        .default_step(10)
        .max_step(100)
        .max_wait(Duration::from_secs(30))
        .op_timeout(Duration::from_secs(30))
        .connect_blocking()
        .unwrap();
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let h = client.tag(tag).unwrap();
            std::thread::spawn(move || {
                (0..per_thread)
                    .map(|_| h.next_id().unwrap())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect()
}

/// The child process: draws through idmint and writes the IDs (u64 LE) to a file. Run by
/// [`shared_row`] with `--ignored --exact child_draw`.
#[test]
#[ignore = "run by the shared-row tests"]
fn child_draw() {
    let (Ok(url), Ok(out)) = (
        std::env::var("IDMINT_CHILD_URL"),
        std::env::var("IDMINT_CHILD_OUT"),
    ) else {
        return;
    };
    let ids = idmint_draw(&url, "shared", IDMINT_THREADS, PER_THREAD);
    write_ids(std::path::Path::new(&out), ids);
}

const LEGACY_TASKS: usize = 4;
const LEGACY_BLOCKS: usize = 20;
const IDMINT_THREADS: usize = 3;
const IDMINT_CLIENTS: usize = 2;
const CHILDREN: usize = 2;
const PER_THREAD: usize = 5_000;

/// The legacy allocator on 4 tasks, 2 idmint clients of 3 threads in this process and 2 child
/// processes of 3 threads each, all on one row at once: no ID twice. The legacy side draws
/// blocks of 20 until the idmint side has its 60,000 IDs.
fn shared_row(legacy: Legacy) {
    let rt = rt();
    for (db, url) in databases() {
        let table = unique(match legacy {
            Legacy::Leaf => "leaf_alloc",
            Legacy::Cas => "sequence_value",
        });
        let pool = rt.block_on(legacy_pool(db, &url));
        rt.block_on(legacy.create(&pool, db, &table, "shared"));
        let mapped = format!("{url}?{}", legacy.options(&table));

        let dir = temp_dir("idmint_legacy_procs");
        let children: Vec<_> = (0..CHILDREN)
            .map(|i| {
                let out = dir.join(format!("{i}.bin"));
                (spawn_child("child_draw", &mapped, &out), out)
            })
            .collect();
        let table = Arc::new(table);
        // The legacy side keeps drawing until every idmint client is done, so the two race
        // for the whole run whichever is faster on this engine.
        let idmint_done = Arc::new(AtomicBool::new(false));
        let tasks: Vec<_> = (0..LEGACY_TASKS)
            .map(|_| {
                let (pool, table) = (pool.clone(), Arc::clone(&table));
                let done = Arc::clone(&idmint_done);
                rt.spawn(async move {
                    let mut ids = Vec::new();
                    let mut blocks = 0;
                    while blocks < LEGACY_BLOCKS || !done.load(Ordering::Relaxed) {
                        ids.extend(legacy.block(&pool, db, &table, "shared").await);
                        blocks += 1;
                    }
                    ids
                })
            })
            .collect();
        let clients: Vec<_> = (0..IDMINT_CLIENTS)
            .map(|_| {
                let mapped = mapped.clone();
                std::thread::spawn(move || {
                    idmint_draw(&mapped, "shared", IDMINT_THREADS, PER_THREAD)
                })
            })
            .collect();

        let mut ids = Vec::new();
        for c in clients {
            ids.extend(c.join().unwrap());
        }
        for (child, out) in children {
            ids.extend(child_ids(child, &out, &format!("{db:?}")));
        }
        idmint_done.store(true, Ordering::Relaxed);
        let mut legacy_ids = Vec::new();
        for t in tasks {
            legacy_ids.extend(rt.block_on(t).unwrap());
        }
        let legacy_set: std::collections::HashSet<u64> = legacy_ids.iter().copied().collect();
        ids.extend(&legacy_ids);
        let _ = std::fs::remove_dir_all(&dir);
        let idmint_count = (IDMINT_CLIENTS + CHILDREN) * IDMINT_THREADS * PER_THREAD;
        assert!(
            legacy_ids.len() >= LEGACY_TASKS * LEGACY_BLOCKS * 20,
            "{db:?}"
        );
        assert_eq!(ids.len(), legacy_ids.len() + idmint_count, "{db:?}");
        let dups = duplicates(&mut ids);
        // The two sides really raced: in ID order, ownership changes hands many times.
        let handovers = ids
            .windows(2)
            .filter(|w| legacy_set.contains(&w[0]) != legacy_set.contains(&w[1]))
            .count();
        eprintln!(
            "{db:?} {}: {} legacy IDs ({LEGACY_TASKS} tasks) + {idmint_count} idmint IDs ({} processes x {IDMINT_THREADS} threads), {handovers} handovers, {dups} duplicates",
            table,
            legacy_ids.len(),
            1 + CHILDREN,
        );
        // The servers interleave the two sides hundreds of times. SQLite runs one writer at a
        // time, and a writer that finds the file locked sleeps in its busy handler (up to
        // 100 ms) while others take the lock, so there the legacy side can be starved until
        // idmint is done: the order is the scheduler's, only the duplicates are counted.
        if db != Db::Sqlite {
            assert!(handovers >= 10, "{db:?}: the two sides did not interleave");
        }
        assert_eq!(dups, 0, "{db:?}: duplicate IDs");
        rt.block_on(pool.close());
    }
}

#[test]
fn leaf_and_idmint_share_a_row() {
    shared_row(Legacy::Leaf);
}

#[test]
fn compare_and_set_and_idmint_share_a_row() {
    shared_row(Legacy::Cas);
}

/// Each side's range starts exactly where the other's ended: idmint reads the legacy `max_id`
/// as its owner does (an off-by-one would repeat or skip one ID at every boundary).
#[test]
fn ranges_meet_exactly() {
    let rt = rt();
    for (db, url) in databases() {
        rt.block_on(async {
            let pool = legacy_pool(db, &url).await;
            for legacy in [Legacy::Leaf, Legacy::Cas] {
                let table = unique("exact");
                legacy.create(&pool, db, &table, "t").await;
                let store = open_store(
                    &format!("{url}?{}", legacy.options(&table)),
                    &StoreOptions::default(),
                )
                .await
                .unwrap();
                let first = legacy.block(&pool, db, &table, "t").await;
                let ours = store.allocate("t", 5).await.unwrap();
                let next = legacy.block(&pool, db, &table, "t").await;
                let what = format!("{db:?} {table}: {first:?}, then {ours}, then {next:?}");
                assert_eq!(first.start, 1, "{what}");
                assert_eq!(ours.start, first.end, "{what}");
                assert_eq!(next.start, ours.end, "{what}");
                let info = store.tag_info("t").await.unwrap().unwrap();
                assert_eq!(info.max_id as u64, next.end - 1, "{what}: last issued");

                // A tag idmint creates is a row the legacy allocator starts at `start`.
                let spec = TagSpec::new("new")
                    .unwrap()
                    .start(1001)
                    .unwrap()
                    .step(20)
                    .unwrap();
                assert!(store.create_tag(&spec).await.unwrap(), "{what}");
                assert!(!store.create_tag(&spec).await.unwrap(), "{what}");
                let legacy_first = legacy.block(&pool, db, &table, "new").await;
                assert_eq!(legacy_first, 1001..1021, "{what}");
                assert_eq!(store.allocate("new", 1).await.unwrap().start, 1021);

                // The control: read with the other meaning, one ID at the boundary repeats.
                let wrong = match legacy {
                    Legacy::Leaf => "&max_id_is=last",
                    Legacy::Cas => "&max_id_is=next",
                };
                let url = format!("{url}?{}{wrong}", legacy.options(&table));
                let wrong = open_store(&url, &StoreOptions::default()).await.unwrap();
                let theirs = legacy.block(&pool, db, &table, "t").await;
                let ours = wrong.allocate("t", 5).await.unwrap();
                let after = legacy.block(&pool, db, &table, "t").await;
                let ours: Vec<u64> = ours.into_iter().collect();
                let repeated = theirs.chain(after).filter(|id| ours.contains(id)).count();
                assert_eq!(
                    repeated, 1,
                    "{what}: the wrong meaning should repeat one ID"
                );
            }
            pool.close().await;
        });
    }
}

fn invalid_argument(err: Error) -> (String, String) {
    match err {
        Error::InvalidArgument { name, value, .. } => (name, value),
        other => panic!("expected invalid_argument, got {other:?}"),
    }
}

/// A missing column or table is an error naming it; idmint creates neither.
#[test]
fn missing_columns_and_tables_are_named() {
    let rt = rt();
    for (db, url) in databases() {
        rt.block_on(async {
            let pool = legacy_pool(db, &url).await;
            let leaf = unique("leaf_alloc");
            Legacy::Leaf.create(&pool, db, &leaf, "t").await;
            let seq = unique("sequence_value");
            Legacy::Cas.create(&pool, db, &seq, "t").await;
            let open = |opts: String| {
                let url = format!("{url}?{opts}");
                async move { open_store(&url, &StoreOptions::default()).await }
            };
            for (opts, name, value) in [
                (
                    format!("schema=leaf&table={leaf}&step_column=steps"),
                    "step_column",
                    "steps",
                ),
                (
                    format!("schema=leaf&table={leaf}&tag_column=tag"),
                    "tag_column",
                    "tag",
                ),
                (
                    format!("table={seq}&tag_column=name&max_id_column=value"),
                    "max_id_column",
                    "value",
                ),
                (
                    format!("table={seq}&tag_column=name&max_id_column=id&updated_column=upd_time"),
                    "updated_column",
                    "upd_time",
                ),
            ] {
                let err = open(opts.clone()).await.unwrap_err();
                let msg = err.to_string();
                assert_eq!(
                    invalid_argument(err),
                    (name.into(), value.into()),
                    "{db:?} {opts}"
                );
                assert!(msg.contains(value), "{db:?}: {msg}");
            }
            // Leaf's own table name, or any missing one, is never created.
            let missing = unique("leaf_alloc_missing");
            let err = open(format!("schema=leaf&table={missing}"))
                .await
                .unwrap_err();
            assert_eq!(
                invalid_argument(err),
                ("table".into(), missing.clone()),
                "{db:?}"
            );
            let probe = sqlx::query(&format!("SELECT COUNT(*) FROM {missing}"))
                .fetch_one(&pool)
                .await;
            assert!(probe.is_err(), "{db:?}: {missing} was created");

            // A tag column that is not unique: a new tag could get two rows, so no INSERT.
            let loose = unique("sequence_loose");
            sqlx::query(&sequence_ddl(&loose, false))
                .execute(&pool)
                .await
                .unwrap();
            let store = open(format!("table={loose}&tag_column=name&max_id_column=id"))
                .await
                .unwrap();
            let err = store
                .create_tag(&TagSpec::new("t").unwrap())
                .await
                .unwrap_err();
            eprintln!("{db:?} non-unique tag column: {err}");
            let rows: i64 = sqlx::query(&format!("SELECT COUNT(*) FROM {loose}"))
                .fetch_one(&pool)
                .await
                .unwrap()
                .get(0);
            assert_eq!(rows, 0, "{db:?}");
            pool.close().await;
        });
    }
}

/// Admin operations on mapped tables: list, tune the step and description, raise the counter
/// in the table's own meaning (Leaf's next segment starts exactly at `next_at_least`), never
/// lower it; a field the table has no column for is refused, naming the option, with nothing
/// changed.
#[test]
fn mapped_tables_list_and_update() {
    let rt = rt();
    for (db, url) in databases() {
        rt.block_on(async {
            let pool = legacy_pool(db, &url).await;
            // Leaf: max_id is the next free ID, and the table has step and description.
            let leaf = unique("leaf_admin");
            Legacy::Leaf.create(&pool, db, &leaf, "t").await;
            let store = open_store(
                &format!("{url}?{}", Legacy::Leaf.options(&leaf)),
                &StoreOptions::default(),
            )
            .await
            .unwrap();
            let b = TagSpec::new("b").unwrap().step(30).unwrap();
            assert!(store.create_tag(&b).await.unwrap());
            let tags = store.list_tags().await.unwrap();
            let rows: Vec<_> = tags
                .iter()
                .map(|t| (t.tag.as_str(), t.max_id, t.step, t.description.as_str()))
                .collect();
            assert_eq!(rows, [("b", 0, 30, ""), ("t", 0, 20, "test")], "{db:?}");

            let up = TagUpdate::new()
                .step(50)
                .unwrap()
                .description("tuned")
                .unwrap()
                .next_at_least(1001)
                .unwrap();
            let info = store.update_tag("t", &up).await.unwrap();
            assert_eq!(
                (info.max_id, info.step, info.description.as_str()),
                (1000, 50, "tuned"),
                "{db:?}"
            );
            assert_eq!(store.tag_info("t").await.unwrap().unwrap(), info);
            // Leaf itself reads the new row: the new step, from next_at_least on.
            assert_eq!(
                leaf_segment(&pool, db, &leaf, "t").await,
                1001..1051,
                "{db:?}"
            );
            // Lowering changes nothing: the next range is above everything issued.
            let low = TagUpdate::new().next_at_least(5).unwrap();
            assert_eq!(store.update_tag("t", &low).await.unwrap().max_id, 1050);
            assert_eq!(store.allocate("t", 1).await.unwrap().start, 1051, "{db:?}");
            // An empty update reads the row back; an unknown tag is one.
            let info = store.update_tag("t", &TagUpdate::new()).await.unwrap();
            assert_eq!((info.max_id, info.step), (1051, 50), "{db:?}");
            for u in [TagUpdate::new(), up.clone()] {
                let err = store.update_tag("missing", &u).await.unwrap_err();
                assert_eq!(err.kind(), "unknown_tag", "{db:?}: {err}");
            }

            // seed 004's sequence_value: max_id is the last ID issued, no step or description.
            let seq = unique("seq_admin");
            Legacy::Cas.create(&pool, db, &seq, "t").await;
            let store = open_store(
                &format!("{url}?{}", Legacy::Cas.options(&seq)),
                &StoreOptions::default(),
            )
            .await
            .unwrap();
            let step = TagUpdate::new()
                .step(5)
                .unwrap()
                .next_at_least(100)
                .unwrap();
            let err = store.update_tag("t", &step).await.unwrap_err();
            let msg = err.to_string();
            assert_eq!(invalid_argument(err).0, "step_column", "{db:?}: {msg}");
            assert!(msg.contains(&seq), "{db:?}: {msg}");
            let desc = TagUpdate::new().description("x").unwrap();
            let err = store.update_tag("t", &desc).await.unwrap_err();
            assert_eq!(invalid_argument(err).0, "description_column", "{db:?}");
            // Nothing changed by the refused updates.
            assert_eq!(store.tag_info("t").await.unwrap().unwrap().max_id, 0);
            let raise = TagUpdate::new().next_at_least(100).unwrap();
            let info = store.update_tag("t", &raise).await.unwrap();
            assert_eq!((info.max_id, info.step), (99, 0), "{db:?}");
            assert_eq!(
                cas_block(&pool, db, &seq, "t", 20).await,
                100..120,
                "{db:?}"
            );
            let tags = store.list_tags().await.unwrap();
            assert_eq!(tags.len(), 1, "{db:?}");
            assert_eq!((tags[0].tag.as_str(), tags[0].max_id), ("t", 119), "{db:?}");
            pool.close().await;
        });
    }
}

/// A counter column narrower than `BIGINT` (`INTEGER`) takes idmint's 64-bit parameters.
#[test]
fn narrow_counter_column() {
    let rt = rt();
    for (db, url) in databases() {
        rt.block_on(async {
            let pool = legacy_pool(db, &url).await;
            let table = unique("narrow");
            sqlx::query(&format!(
                "CREATE TABLE {table} (name varchar(64) NOT NULL PRIMARY KEY, id integer NOT NULL, block integer NOT NULL)"
            ))
            .execute(&pool)
            .await
            .unwrap();
            sqlx::query(&sql(db, &format!("INSERT INTO {table} VALUES (?, 5, 7)")))
                .bind("t")
                .execute(&pool)
                .await
                .unwrap();
            let url =
                format!("{url}?table={table}&tag_column=name&max_id_column=id&step_column=block");
            let store = open_store(&url, &StoreOptions::default()).await.unwrap();
            let r = store.allocate("t", 3).await.unwrap();
            assert_eq!((r.start, r.last()), (6, 8), "{db:?}");
            let info = store.tag_info("t").await.unwrap().unwrap();
            assert_eq!((info.max_id, info.step), (8, 7), "{db:?}");
            pool.close().await;
        });
    }
}

/// Tinyid's `tiny_id_info` (tinyid-server/db.sql), its MySQL types where each engine has them.
fn tinyid_ddl(db: Db, table: &str) -> String {
    let int = if db == Db::MySql { "int(11)" } else { "int" };
    format!(
        "CREATE TABLE {table} (
            id bigint NOT NULL PRIMARY KEY,
            biz_type varchar(63) NOT NULL DEFAULT '' UNIQUE,
            begin_id bigint NOT NULL DEFAULT 0,
            max_id bigint NOT NULL DEFAULT 0,
            step {int} DEFAULT 0,
            delta {int} NOT NULL DEFAULT 1,
            remainder {int} NOT NULL DEFAULT 0,
            version bigint NOT NULL DEFAULT 0
        )"
    )
}

/// One segment of tinyid-server (`DbSegmentIdServiceImpl.getNextSegmentId`): read the row, then
/// `UPDATE … SET max_id = max_id + step, version = version + 1 WHERE id = ? AND max_id = old AND
/// version = ?`, retried; the segment hands out `(old, old + step]`.
async fn tinyid_segment(pool: &AnyPool, db: Db, table: &str, biz: &str) -> std::ops::Range<u64> {
    let t = int8(db);
    loop {
        let row = sqlx::query(&sql(
            db,
            &format!(
                "SELECT CAST(id AS {t}), CAST(max_id AS {t}), CAST(step AS {t}), CAST(version AS {t}) FROM {table} WHERE biz_type = ?"
            ),
        ))
        .bind(biz)
        .fetch_one(pool)
        .await
        .unwrap();
        let (id, old, step, version): (i64, i64, i64, i64) =
            (row.get(0), row.get(1), row.get(2), row.get(3));
        let done = sqlx::query(&sql(
            db,
            &format!(
                "UPDATE {table} SET max_id = ?, version = version + 1 WHERE id = ? AND max_id = ? AND version = ? AND biz_type = ?"
            ),
        ))
        .bind(old + step)
        .bind(id)
        .bind(old)
        .bind(version)
        .bind(biz)
        .execute(pool)
        .await
        .unwrap();
        if done.rows_affected() == 1 {
            return (old + 1) as u64..(old + step + 1) as u64;
        }
    }
}

/// The move of a live Tinyid table (docs/server-compat.md, "Moving a live Tinyid table"), both
/// ways: its rows read in place (the columns mapped), or idmint's own tag raised above Tinyid's
/// `max_id` first. Tinyid's `max_id` is no round number (steps of 12345 from 1), and every ID
/// handed out after the move, by idmint or by Tinyid still running, is above it and unique.
#[test]
fn a_live_tinyid_table_moves_above_its_max_id() {
    use idmint_core::segment::TinyidRule;
    let rt = rt();
    for (db, url) in databases() {
        rt.block_on(async {
            let pool = legacy_pool(db, &url).await;
            let table = unique("tiny_id_info");
            sqlx::query(&tinyid_ddl(db, &table))
                .execute(&pool)
                .await
                .unwrap();
            sqlx::query(&sql(
                db,
                &format!("INSERT INTO {table} (id, biz_type, begin_id, max_id, step, delta, remainder, version) VALUES (1, 'test', 1, 1, 12345, 1, 0, 1), (2, 'test_odd', 1, 1, 12345, 2, 1, 3)"),
            ))
            .execute(&pool)
            .await
            .unwrap();
            // Each bizType is a sequence of its own: its IDs, Tinyid's and then idmint's.
            let mut issued: std::collections::BTreeMap<&str, Vec<u64>> = Default::default();
            for biz in ["test", "test_odd", "test", "test_odd", "test"] {
                let range = tinyid_segment(&pool, db, &table, biz).await;
                let delta = if biz == "test" { 1 } else { 2 };
                issued
                    .entry(biz)
                    .or_default()
                    .extend(range.filter(|i| i % delta == delta - 1));
            }
            let max_id = |biz: &'static str| {
                let pool = pool.clone();
                let table = table.clone();
                async move {
                    let q = format!("SELECT CAST(max_id AS {}) FROM {table} WHERE biz_type = ?", int8(db));
                    sqlx::query(&sql(db, &q)).bind(biz).fetch_one(&pool).await.unwrap().get::<i64, _>(0) as u64
                }
            };
            let (test_max, odd_max) = (max_id("test").await, max_id("test_odd").await);
            assert_eq!((test_max, odd_max), (1 + 3 * 12345, 1 + 2 * 12345), "{db:?}");

            // In place: idmint reads and moves Tinyid's rows, Tinyid still drawing beside it.
            let mapped = format!(
                "{url}?table={table}&tag_column=biz_type&max_id_column=max_id&step_column=step"
            );
            let store = open_store(&mapped, &StoreOptions::default()).await.unwrap();
            for (biz, rule, above) in [
                ("test", TinyidRule::new(12345, 1, 0).unwrap(), test_max),
                ("test_odd", TinyidRule::new(12345, 2, 1).unwrap(), odd_max),
            ] {
                let range = store.allocate(biz, rule.step()).await.unwrap();
                let segment = rule.segment(range);
                assert_eq!(segment.current_id, above, "{db:?} {biz}: continues from max_id");
                let ids: Vec<u64> = segment.ids().collect();
                assert!(ids.iter().all(|&i| i > above && rule.holds(i)), "{db:?} {biz}");
                let all = issued.get_mut(biz).unwrap();
                all.extend(ids);
                // Tinyid's next segment comes after idmint's.
                let next = tinyid_segment(&pool, db, &table, biz).await;
                assert!(next.start > range.last(), "{db:?} {biz}: {next:?} {range:?}");
                all.extend(next.filter(|&i| rule.holds(i)));
                assert_eq!(duplicates(all), 0, "{db:?} {biz}");
            }

            // Raised: idmint's own table, each tag started above Tinyid's max_id before the
            // switch (`POST /v1/admin/tags` with `next_at_least`, or TagUpdate here).
            let own = format!("{url}?table={}", unique("moved"));
            let store = open_store(&own, &StoreOptions::default()).await.unwrap();
            // `test` created at Tinyid's max_id + 1; `test_odd` existing, raised above it.
            let (test_max, odd_max) = (max_id("test").await, max_id("test_odd").await);
            let spec = TagSpec::new("test").unwrap().step(100_000).unwrap();
            store
                .create_tag(&spec.start(test_max + 1).unwrap())
                .await
                .unwrap();
            let odd = TagSpec::new("test_odd").unwrap().step(100_000).unwrap();
            store.create_tag(&odd).await.unwrap();
            let raise = TagUpdate::new().next_at_least(odd_max + 1).unwrap();
            store.update_tag("test_odd", &raise).await.unwrap();
            let client = SegmentClient::builder()
                .store(store)
                .connect()
                .await
                .unwrap();
            for (biz, rule, above) in [
                ("test", TinyidRule::default(), test_max),
                ("test_odd", TinyidRule::new(100_000, 2, 1).unwrap(), odd_max),
            ] {
                let mut raised = Vec::new();
                for _ in 0..3 {
                    let range = client
                        .tag_async(biz)
                        .await
                        .unwrap()
                        .next_ids_async(rule.step())
                        .await
                        .unwrap();
                    raised.extend(rule.segment(range).ids());
                }
                assert_eq!(raised.len() as u64, 3 * rule.step() / rule.delta(), "{db:?} {biz}");
                let first = raised[0];
                assert!(first > above && first <= above + rule.delta(), "{db:?} {biz}: {first}");
                assert!(raised.iter().all(|&i| i > above), "{db:?} {biz}");
            }
            client.close_async().await;
            pool.close().await;
        });
    }
}
