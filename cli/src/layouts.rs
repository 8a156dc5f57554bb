//! `idmint layouts`: the presets, what each can mint and until when.

use std::io::{self, Write};

use idmint_core::{Clock, Layout, WallClock, PRESETS};

use crate::report::CliError;

pub fn run() -> Result<(), CliError> {
    let now_ms = WallClock.now_ms();
    let mut rows = vec![[
        "PRESET".to_string(),
        "IDS/S".to_string(),
        "TIME FIELD RUNS OUT".to_string(),
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
            layout.spec(),
        ]);
    }

    let width = |col: usize| rows.iter().map(|r| r[col].len()).max().unwrap_or(0);
    let (w0, w1, w2) = (width(0), width(1), width(2));
    let mut out = io::stdout().lock();
    for [name, cap, end, spec] in &rows {
        writeln!(out, "{name:<w0$}  {cap:>w1$}  {end:<w2$}  {spec}")?;
    }
    writeln!(
        out,
        "IDS/S is the most one generator (one set of node values) can mint per second."
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
