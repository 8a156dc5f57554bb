//! `idmint layouts`: the presets, what each can mint and until when; `idmint layouts
//! check-migration`: whether a switch of layout keeps keys unique and in order.

use std::io::{self, Write};

use clap::{Args, Subcommand};
use idmint_core::plan::check_migration;
use idmint_core::{format_time_ms, parse_time_ms, Clock, Layout, WallClock, PRESETS};

use crate::report::CliError;

#[derive(Args, Debug)]
pub struct LayoutsArgs {
    #[command(subcommand)]
    command: Option<LayoutsCommand>,
}

#[derive(Subcommand, Debug)]
enum LayoutsCommand {
    /// Prove that every ID a new layout mints from a switch on sorts above every ID the old one
    /// minted, or name the first time it would (exit 1 when it would not at the switch)
    #[command(after_help = "Examples:
  idmint layouts check-migration --from twitter --to 'time:38@1ms,worker:12,sequence:13,epoch=2023-11-14T22:13:20Z'
  idmint layouts check-migration --from twitter --to 'time:41@1ms,worker:10,sequence:12,epoch=2024-01-01T00:00:00Z' --above 1541815603606036480")]
    CheckMigration(MigrationArgs),
}

#[derive(Args, Debug)]
struct MigrationArgs {
    /// The layout the IDs so far were minted with (a preset or a spec)
    #[arg(long, value_name = "LAYOUT")]
    from: String,
    /// The layout to mint with from the switch on
    #[arg(long, value_name = "LAYOUT")]
    to: String,
    /// The largest ID minted so far (e.g. SELECT max(id)); default: the largest the old layout
    /// can have minted before the switch
    #[arg(long, value_name = "ID")]
    above: Option<String>,
    /// The switch: RFC 3339 or unix ms (default: now)
    #[arg(long, value_name = "TIME")]
    at: Option<String>,
    /// Print the result as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(a: &LayoutsArgs) -> Result<(), CliError> {
    match &a.command {
        None => presets(),
        Some(LayoutsCommand::CheckMigration(m)) => migration(m),
    }
}

fn migration(a: &MigrationArgs) -> Result<(), CliError> {
    let from = Layout::parse(&a.from)?;
    let to = Layout::parse(&a.to)?;
    let above = a.above.as_deref().map(idmint_core::parse_id).transpose()?;
    let at = match &a.at {
        Some(t) => parse_time_ms("at", t)?,
        None => WallClock.now_ms(),
    };
    let m = check_migration(&from, &to, above, at)?;
    let mut out = io::stdout().lock();
    if a.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&m).expect("plain data serializes")
        )?;
    } else {
        writeln!(out, "switch at {}", format_time_ms(m.switch_ms))?;
        writeln!(
            out,
            "  largest old ID: {}{}",
            m.old_max,
            if above.is_some() {
                " (given)"
            } else {
                " (the most the old layout can have minted)"
            }
        )?;
        writeln!(out, "  first new ID:   {} or above", m.new_first)?;
    }
    out.flush()?;
    if m.safe {
        return Ok(());
    }
    let when = match &m.safe_from {
        Some(t) => format!(
            "the new layout's IDs pass {} only from {t}: switch then, or later",
            m.old_max
        ),
        None => "the new layout's time field runs out before its IDs pass the old ones".into(),
    };
    Err(CliError::Check(format!(
        "not safe: IDs the new layout mints from {} can sort at or below IDs already minted ({} and below); {when}",
        format_time_ms(m.switch_ms),
        m.old_max
    )))
}

/// The time left in years of 365 days, one decimal; days below a year.
fn left(d: std::time::Duration) -> String {
    let days = d.as_secs() / 86_400;
    match days {
        0 if d.is_zero() => "none".to_string(),
        0..=364 => format!("{days} days"),
        _ => format!("{:.1} years", d.as_secs_f64() / (365.0 * 86_400.0)),
    }
}

fn presets() -> Result<(), CliError> {
    let now_ms = WallClock.now_ms();
    let mut rows = vec![[
        "PRESET".to_string(),
        "IDS/S".to_string(),
        "TIME FIELD RUNS OUT".to_string(),
        "LEFT".to_string(),
        "SPEC".to_string(),
    ]];
    for name in PRESETS {
        let layout = Layout::preset(name)?;
        let mut end = layout.exhausts_at();
        if layout.is_exhausted_at(now_ms) {
            end.push_str(" (ran out)");
        }
        rows.push([
            name.to_string(),
            rate(layout.ids_per_second_cap()),
            end,
            left(layout.remaining_at(now_ms)),
            layout.spec(),
        ]);
    }

    let width = |col: usize| rows.iter().map(|r| r[col].len()).max().unwrap_or(0);
    let (w0, w1, w2, w3) = (width(0), width(1), width(2), width(3));
    let mut out = io::stdout().lock();
    for [name, cap, end, left, spec] in &rows {
        writeln!(
            out,
            "{name:<w0$}  {cap:>w1$}  {end:<w2$}  {left:>w3$}  {spec}"
        )?;
    }
    writeln!(
        out,
        "IDS/S is the most one generator (one set of node values) can mint per second."
    )?;
    writeln!(
        out,
        "LEFT is the time until it runs out, from now; generators warn at start below 5 years,"
    )?;
    writeln!(
        out,
        "and their health is degraded below one (metric idmint.layout.remaining)."
    )?;
    writeln!(
        out,
        "A layout that ran out still parses its IDs; to mint, give it a later --epoch."
    )?;
    Ok(out.flush()?)
}

/// A per-second cap with thousands separators, rounded to a whole number.
pub fn rate(per_second: f64) -> String {
    let digits = itoa::Buffer::new()
        .format(per_second.round() as u64)
        .to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
