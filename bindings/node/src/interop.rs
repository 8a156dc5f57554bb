//! What the package's database and framework helpers (`node/interop.js`: pg, Knex, Drizzle,
//! TypeORM) need from the core: IDs read back from a database's text exactly, by the core's
//! rules. Conversion only.

use napi_derive::napi;

use crate::{js_err, Result};

/// An ID a database driver returned as decimal text (PostgreSQL's `int8`, which pg hands over as
/// a string so that it stays exact) as a bigint, by the core's [`idmint_core::parse_u64`]: digits
/// only, 0..=2^64-1, so an empty or negative value is the core's `invalid_id`, never a silent 0.
#[napi(catch_unwind)]
pub fn parse_decimal_id(text: String) -> Result<u64> {
    idmint_core::parse_u64(&text).map_err(js_err)
}
