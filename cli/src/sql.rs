//! `idmint sql`: print the plain-SQL functions of a layout (core's `sql_script`), for databases
//! where idmint's extension cannot be installed.

use std::io::{self, Write};

use clap::{Args, ValueEnum};
use idmint_core::sql_script::{SqlScript, DEFAULT_MAX_WAIT_MS};

use crate::args::{self, LayoutArgs, NodeValue};
use crate::report::CliError;

#[derive(Args, Debug)]
pub struct SqlArgs {
    /// The database the SQL is for
    #[arg(long, value_enum)]
    dialect: Dialect,

    #[command(flatten)]
    layout: LayoutArgs,

    /// A node field's value for the minting function idmint_next_id(), e.g. worker=7; every
    /// node field of the layout is needed. Without --node the script only decodes and bounds
    #[arg(long = "node", value_name = "NAME=VALUE", value_parser = args::parse_node)]
    nodes: Vec<NodeValue>,

    /// How long idmint_next_id() waits for the clock when a tick's sequence is used up or the
    /// clock went back, before refusing
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_MAX_WAIT_MS)]
    max_wait_ms: u64,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
enum Dialect {
    /// PostgreSQL 13+: decoding, time-range bounds and (with --node) minting
    Postgres,
    /// MySQL 8 and MariaDB 10.5+: decoding and time-range bounds (no minting function)
    Mysql,
}

pub fn run(args: &SqlArgs) -> Result<(), CliError> {
    let mut script = SqlScript::new(args.layout.resolve()?)?.max_wait_ms(args.max_wait_ms);
    if !args.nodes.is_empty() {
        script = script.minting(args.nodes.iter().map(|n| (n.name.as_str(), n.value)))?;
    }
    let text = match args.dialect {
        Dialect::Postgres => script.postgres(),
        Dialect::Mysql => script.mysql()?,
    };
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    Ok(out.flush()?)
}
