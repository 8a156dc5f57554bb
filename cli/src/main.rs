//! `idmint`: mint and inspect unique IDs from the command line. All ID logic lives in
//! `idmint-core`; this crate reads arguments, calls it and prints.

mod args;
mod compose;
mod conformance;
mod demo;
mod encode;
mod format;
mod inputs;
mod layouts;
mod lease;
mod obfuscate;
mod objectid;
mod parse;
mod plan;
mod probe;
mod report;
mod segment;
mod serve;
mod sink;
mod snowflake;
mod sql;
mod typeid;
mod uuid7;

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use idmint_core::{OnExhausted, OnRollback};

use crate::args::{LayoutArgs, NodeValue};

#[derive(Parser, Debug)]
#[command(
    name = "idmint",
    version,
    about = "Mint and inspect unique IDs: snowflake IDs of any bit layout, and MongoDB-compatible ObjectIds",
    after_help = "Examples:
  idmint snowflake --node datacenter=1 --node worker=7 --count 5
  idmint parse --layout redis-lua 5981966696448054276
  idmint demo"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Mint snowflake IDs, one a line
    #[command(after_help = "Examples:
  idmint snowflake --node datacenter=1 --node worker=7
  idmint snowflake --layout sonyflake --node machine=513 --count 5
  idmint snowflake --layout-spec 'time:41,worker:10,sequence:12' --epoch 2020-01-01T00:00:00Z --node worker=3 --count 1000000 > ids.txt
  idmint snowflake --random-nodes --on-exhausted borrow:50 --count 10000000 | sort -n -c
  idmint snowflake --lease sqlite:./idmint-leases.db --lease-range 0..7 --count 1000
  idmint snowflake --redis redis://10.0.0.1:6379,redis://10.0.0.2:6379 --tag orders --shard 53 --count 1000")]
    Snowflake(SnowflakeArgs),

    /// Mint MongoDB-compatible ObjectIds (24 hex digits), one a line
    #[command(
        name = "objectid",
        after_help = "Examples:
  idmint objectid
  idmint objectid --count 1000000 > oids.txt"
    )]
    ObjectId(ObjectIdArgs),

    /// Take an ID apart, as one line of JSON: a snowflake ID (decimal), an ObjectId, a UUID, a
    /// ULID, a KSUID, an xid or a TSID
    #[command(after_help = "Examples:
  idmint parse --layout twitter 1541815603606036480
  idmint parse --layout redis-lua 5981966696448054276
  idmint parse --layout discord 175928847299117063
  idmint parse --guess 175928847299117063
  idmint parse --layout-spec 'time:41,worker:10,sequence:12' --epoch 2020-01-01T00:00:00Z 2787405953712128
  idmint parse 507f1f77bcf86cd799439011
  idmint parse 017F22E2-79B0-7CC3-98C4-DC0C0C07398F
  idmint parse 01ARZ3NDEKTSV4RRFFQ69G5FAV
  idmint parse --format tsid 0123456789012
  idmint parse --ids number --layout twitter 1541815603606036480

Decimal IDs are read with the layout given (the 64-bit presets discord, instagram, mastodon and
tsid too); without one, as a 64-bit integer; --guess shows what every preset makes of one.
Formats are told apart by length and alphabet (docs/formats.md).

The JSON is the same for every format, and the same as idmint serve's GET /v1/parse:
format, id, value, time_ms, time, layout, parts (null where the format has none). The ID's
64-bit integers are strings unless --ids number.")]
    Parse(ParseArgs),

    /// Put a snowflake ID together from its time, node fields and sequence
    #[command(after_help = "Examples:
  idmint compose --layout redis-lua --time 2015-03-13T02:00:00Z --node shard=53 --sequence 4
  idmint compose --time 1656432460105 --node datacenter=11 --node worker=26 --sequence 0")]
    Compose(ComposeArgs),

    /// List the layout presets, their per-second caps and when their time fields run out; or
    /// check a switch from one layout to another
    #[command(after_help = "Examples:
  idmint layouts
  idmint layouts check-migration --from twitter --to 'time:41@1ms,worker:10,sequence:12,epoch=2024-01-01T00:00:00Z' --above 1541815603606036480")]
    Layouts(layouts::LayoutsArgs),

    /// The layouts that meet a need: so many nodes, so many IDs a second each, so many years
    #[command(after_help = "Examples:
  idmint plan --nodes 1024 --rate 4M/s --years 69 --start 2010-11-04T01:42:54.657Z
  idmint plan --nodes 16 --rate 1000 --years 50 --js-safe
  idmint plan --nodes 1024 --rate 10M --years 100 --js-safe   # refused, with the arithmetic")]
    Plan(plan::PlanArgs),

    /// Print SQL functions for a layout, for databases without idmint's extension (managed
    /// PostgreSQL): decode, time, time-range bounds, and with --node a minting function
    #[command(after_help = "Examples:
  idmint sql --dialect postgres --layout twitter | psql \"$DATABASE_URL\"
  idmint sql --dialect postgres --layout twitter --node datacenter=1 --node worker=7 > idmint.sql

Then: SELECT idmint_decode(id), idmint_time(id) FROM orders;
      SELECT * FROM orders WHERE id >= idmint_min_id(now() - interval '1 day');
      CREATE TABLE t (id bigint PRIMARY KEY DEFAULT idmint_next_id(), ...);
idmint_next_id() mints at most 2^sequence_bits IDs per tick; past that a caller waits for
the next tick (up to --max-wait-ms), then raises clock_moved_backwards; it never repeats.")]
    Sql(sql::SqlArgs),

    /// Order numbers from a template such as '%L%Y%M%D%m%5S', with a daily counter or
    /// snowflake IDs as the sequence; or read them back with --parse
    #[command(after_help = "Examples:
  idmint format --template '%L%Y%M%D%m%5S' --label 7 --tz +08:00 --count 3
  idmint format --template 'SO%y%M%D%6S' --check luhn --start 1001 --count 5
  idmint format --template '%Y%M%D-%19S' --source snowflake --node datacenter=1 --node worker=7
  idmint format --template '%L%Y%M%D%m%5S' --label 7 --parse 7202405223000042")]
    Format(format::FormatArgs),

    /// Hide IDs behind a keyed, reversible permutation of 0..2^63 (positive BIGINTs)
    #[command(after_help = "Examples:
  idmint keygen --key-version 1 > ids.key
  idmint obfuscate --key-file ids.key 1541815603606036480
  idmint snowflake --random-nodes --count 5 | idmint obfuscate --key-file ids.key --tagged")]
    Obfuscate(obfuscate::ObfuscateArgs),

    /// Undo `idmint obfuscate` with the same key file
    #[command(after_help = "Examples:
  idmint reveal --key-file ids.key 4418913385069217036
  idmint reveal --key-file ids.key --tagged 1Qb3z0aY7nXp")]
    Reveal(obfuscate::RevealArgs),

    /// Make an obfuscation key from the OS random source, as one line for a key file
    #[command(after_help = "Examples:
  idmint keygen > ids.key
  idmint keygen --key-version 2 >> ids.key   # rotate: the highest version obfuscates")]
    Keygen(obfuscate::KeygenArgs),

    /// Mint UUIDv7s (RFC 9562, monotonic counter method), or print their ULID text
    #[command(after_help = "Examples:
  idmint uuid7 --count 5
  idmint uuid7 --ulid
  idmint uuid7 --parse 017F22E2-79B0-7CC3-98C4-DC0C0C07398F")]
    Uuid7(uuid7::Uuid7Args),

    /// Mint TypeIDs: a type prefix and a UUIDv7 in lowercase base32 (read them with `idmint parse`)
    #[command(after_help = "Examples:
  idmint typeid --prefix user --count 3
  idmint parse user_01h455vb4pex5vsknk084sn02q")]
    Typeid(typeid::TypeIdArgs),

    /// Write 64-bit IDs in base62 or Crockford base32
    #[command(after_help = "Examples:
  idmint encode 1541815603606036480
  idmint encode --to base32-fixed 1 2 3
  idmint snowflake --random-nodes --count 3 | idmint encode --to base62-fixed")]
    Encode(encode::EncodeArgs),

    /// Read base62 or Crockford base32 back into decimal IDs
    #[command(after_help = "Examples:
  idmint decode 1ptWyK4WgZU
  idmint decode --from base32 1DZXT8GE5E800")]
    Decode(encode::DecodeArgs),

    /// Draw segment IDs for a tag from a shared store: SQLite file (default
    /// ./idmint-segments.db), PostgreSQL, MySQL/MariaDB, Redis or an idmint serve (https://); one
    /// store round trip per thousands of IDs
    #[command(after_help = "Examples:
  idmint segment --tag orders --count 5
  idmint segment --store sqlite:/var/lib/ids.db --tag orders
  idmint segment --store postgres://app:secret@127.0.0.1:5432/ids --tag orders --count 1000
  idmint segment --store mysql://app:secret@127.0.0.1:3306/ids?table=id_segments --tag users
  idmint segment --store redis://127.0.0.1:6379 --tag orders --count 10 --metrics
  idmint segment --store 'https://ids.example:8443?token=TOKEN&ca=ca.pem' --tag orders")]
    Segment(segment::SegmentArgs),

    /// Worker-ID leases in a store (`idmint snowflake --lease URL` takes one)
    #[command(
        subcommand,
        after_help = "Examples:
  idmint lease list --store sqlite:./idmint-leases.db
  idmint lease list --store redis://127.0.0.1:6379 --json"
    )]
    Lease(lease::LeaseCommand),

    /// A short tour: a few IDs of each kind, each with its parts
    #[command(after_help = "Example:
  idmint demo")]
    Demo,

    /// Run the ID service: HTTP (idmint's /v1, Leaf's and Tinyid's endpoints), gRPC, leases
    /// for clients, /metrics and /readyz (docs/server.md)
    #[command(after_help = "Examples:
  idmint serve                                   # 127.0.0.1:8080, state in ./idmint.db
  idmint serve --config /etc/idmint/server.toml
  IDMINT_STORE=postgres://ids:pw@db:5432/ids idmint serve --listen 0.0.0.0:8080 --config tokens.toml")]
    Serve(idmint_server::config::ServeArgs),

    /// Ask a running `idmint serve` its /readyz (or /healthz) on the admin listener it binds
    /// with the same flags, variables and configuration; exit 0 on 200: a health check for
    /// where no HTTP client is at hand (the container image's HEALTHCHECK)
    #[command(after_help = "Examples:
  idmint probe                                   # GET http://127.0.0.1:8081/readyz
  IDMINT_ADMIN_LISTEN=0.0.0.0:8081 idmint probe --path /healthz")]
    Probe(probe::ProbeArgs),

    /// Answer the conformance runner of docs/spec.md: one JSON request a line on stdin, one
    /// JSON answer a line on stdout (tests/conformance/run.py -- idmint conformance)
    #[command(hide = true)]
    Conformance,
}

#[derive(Args, Debug)]
struct SnowflakeArgs {
    #[command(flatten)]
    layout: LayoutArgs,

    #[command(flatten)]
    nodes: args::NodeArgs,

    #[command(flatten)]
    lease: lease::LeaseArgs,

    #[command(flatten)]
    redis: snowflake::RedisArgs,

    /// How many IDs to mint
    #[arg(long, value_name = "N", default_value_t = 1)]
    count: u64,

    /// When a tick's sequence is used up: wait for the next tick, or borrow up to MS
    /// milliseconds of future ticks
    #[arg(long, value_name = "wait|borrow:MS", default_value = "wait")]
    on_exhausted: OnExhausted,

    /// When the clock reads earlier than the last ID: fail, wait up to MS milliseconds for it,
    /// or continue from the last time
    #[arg(long, value_name = "error|wait:MS|continue", default_value = "error")]
    on_rollback: OnRollback,

    /// Mint with a 64-bit layout (discord, instagram, or a spec saying `unsigned`): its IDs
    /// from 2^63 on are negative as a Java long or SQL BIGINT and lose digits as JSON numbers
    #[arg(long)]
    unsigned: bool,
}

#[derive(Args, Debug)]
struct ObjectIdArgs {
    /// How many ObjectIds to mint
    #[arg(long, value_name = "N", default_value_t = 1)]
    count: u64,
}

#[derive(Args, Debug)]
struct ParseArgs {
    #[command(flatten)]
    layout: LayoutArgs,

    /// Show what every preset makes of a decimal ID (the ID itself is then only a 64-bit
    /// integer), instead of reading it with one layout
    #[arg(long, conflicts_with_all = ["layout", "layout_spec", "epoch", "format"])]
    guess: bool,

    /// Read the ID as this format only, without telling formats apart: snowflake, integer,
    /// objectid, uuid, ulid, ksuid, xid or tsid (a TSID of digits alone reads as decimal otherwise)
    #[arg(long, value_name = "FORMAT")]
    format: Option<String>,

    /// How to write the ID's 64-bit integers: string (the default, as `idmint serve` answers:
    /// a JavaScript reader rounds JSON numbers above 2^53) or number (digit for digit, for
    /// readers that keep 64-bit integers, such as jq 1.7)
    #[arg(long, value_name = "string|number", default_value = "string", value_parser = parse::ids_as)]
    ids: idmint_core::json::IdsAs,

    /// The ID: decimal, an ObjectId (24 hex digits), a UUID, a ULID, a KSUID, an xid or a TSID
    // Negative numbers are let through so that the core can say why they are wrong instead of
    // clap calling them an unknown flag.
    #[arg(value_name = "ID", allow_negative_numbers = true)]
    id: String,
}

#[derive(Args, Debug)]
struct ComposeArgs {
    #[command(flatten)]
    layout: LayoutArgs,

    /// The ID's time, as unix milliseconds or RFC 3339; floored to the layout's tick
    #[arg(long, value_name = "TIME")]
    time: String,

    /// A node field's value, e.g. worker=7; every node field of the layout is needed
    #[arg(long = "node", value_name = "NAME=VALUE", value_parser = args::parse_node)]
    nodes: Vec<NodeValue>,

    /// The sequence number within the tick
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    sequence: i128,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Snowflake(a) => snowflake::run(a),
        Command::ObjectId(a) => objectid::run(a),
        Command::Parse(a) => parse::run(a),
        Command::Compose(a) => compose::run(a),
        Command::Layouts(a) => layouts::run(a),
        Command::Plan(a) => plan::run(a),
        Command::Sql(a) => sql::run(a),
        Command::Demo => demo::run(),
        Command::Segment(a) => segment::run(a),
        Command::Lease(a) => lease::run(a),
        Command::Format(a) => format::run(a),
        Command::Obfuscate(a) => obfuscate::obfuscate(a),
        Command::Reveal(a) => obfuscate::reveal(a),
        Command::Keygen(a) => obfuscate::keygen(a),
        Command::Uuid7(a) => uuid7::run(a),
        Command::Typeid(a) => typeid::run(a),
        Command::Encode(a) => encode::encode(a),
        Command::Decode(a) => encode::decode(a),
        Command::Serve(a) => serve::run(a),
        Command::Probe(a) => probe::run(a),
        Command::Conformance => conformance::run(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report::fail(e),
    }
}
