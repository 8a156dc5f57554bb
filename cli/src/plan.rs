//! `idmint plan`: the layouts that meet a need (core's planner), as a table or JSON.

use std::io::{self, Write};

use clap::Args;
use idmint_core::plan::{parse_rate, plan, Need, Width};
use idmint_core::{format_time_ms, parse_time_ms, Clock, WallClock};

use crate::layouts::rate;
use crate::report::CliError;

#[derive(Args, Debug)]
pub struct PlanArgs {
    /// Nodes minting at once, each with its own node value
    #[arg(long, value_name = "N")]
    nodes: u64,

    /// IDs a second each node must mint: 4000000, 4M, 4M/s, 25.6k/s
    #[arg(long, value_name = "R")]
    rate: String,

    /// Years the layout must last from its start
    #[arg(long, value_name = "Y")]
    years: u64,

    /// The start of the IDs' life, the layout's epoch: RFC 3339 or unix ms (default: today, 00:00 UTC)
    #[arg(long, value_name = "DATE")]
    start: Option<String>,

    /// IDs exact in a JavaScript number: 53 bits
    #[arg(long, conflicts_with_all = ["bigint", "unsigned"])]
    js_safe: bool,

    /// IDs in a signed 64-bit column (BIGINT, Java long): 63 bits (the default)
    #[arg(long, conflicts_with = "unsigned")]
    bigint: bool,

    /// IDs read as unsigned 64-bit values: 64 bits
    #[arg(long)]
    unsigned: bool,

    /// Print the layouts as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(a: &PlanArgs) -> Result<(), CliError> {
    let start = a
        .start
        .as_deref()
        .map(|t| parse_time_ms("start", t))
        .transpose()?;
    let width = if a.js_safe {
        Width::JsSafe
    } else if a.unsigned {
        Width::Unsigned
    } else {
        Width::Bigint
    };
    let need = Need::new(a.nodes, parse_rate(&a.rate)?, a.years)?
        .start_or_today(start, WallClock.now_ms())
        .width(width);
    let start_ms = need.start_ms;
    let layouts = plan(&need)?;
    let mut out = io::stdout().lock();
    if a.json {
        let text = serde_json::to_string_pretty(&layouts).expect("plain data serializes");
        writeln!(out, "{text}")?;
        return Ok(out.flush()?);
    }
    writeln!(
        out,
        "{} nodes × {} IDs/s each × {} years from {}, in {} bits:",
        need.nodes,
        rate(need.rate as f64),
        need.years,
        format_time_ms(start_ms),
        width.bits()
    )?;
    for l in &layouts {
        writeln!(out)?;
        writeln!(out, "  {}", l.spec)?;
        writeln!(
            out,
            "    {} nodes, {} IDs/s a node, time field runs out {}",
            rate(l.nodes as f64),
            rate(l.cap_per_second as f64),
            l.end
        )?;
        if let Some(ms) = l.beyond_2_53_ms {
            writeln!(
                out,
                "    IDs pass 2^53 (a JavaScript number stops holding them exactly) from {}",
                format_time_ms(ms)
            )?;
        }
    }
    Ok(out.flush()?)
}
