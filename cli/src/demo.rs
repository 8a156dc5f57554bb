//! `idmint demo`: a short tour of what idmint mints, each ID shown with its parts.
//!
//! Each section is one function writing its own lines; the tour is the list in [`SECTIONS`].

use std::io::{self, BufWriter, Write};

use idmint_core::{parse_time_ms, Clock, Layout, ObjectId, Snowflake, WallClock, PRESETS};

use crate::args::layout_name;
use crate::report::CliError;

type Section = fn(&mut dyn Write) -> Result<(), CliError>;

const SECTIONS: &[Section] = &[
    presets,
    object_ids,
    custom_layout,
    exhausted_layout,
    segments,
    leases,
];

/// What an exhausted preset is shown with instead of its own epoch.
const LATER_EPOCH: &str = "2025-01-01T00:00:00Z";

const CUSTOM_SPEC: &str = "time:40@10ms,sequence:8,region:3,machine:12,epoch=2024-01-01T00:00:00Z";

pub fn run() -> Result<(), CliError> {
    let mut out = BufWriter::new(io::stdout().lock());
    writeln!(out, "idmint demo: IDs minted now, each with its parts")?;
    for section in SECTIONS {
        writeln!(out)?;
        section(&mut out)?;
    }
    Ok(out.flush()?)
}

fn presets(out: &mut dyn Write) -> Result<(), CliError> {
    writeln!(out, "Snowflake presets, 3 IDs from one generator each:")?;
    let now_ms = WallClock.now_ms();
    for name in PRESETS {
        let mut layout = Layout::preset(name)?;
        if layout.is_exhausted_at(now_ms) {
            let ended = layout.exhausts_at();
            layout = layout.with_epoch_ms(parse_time_ms("epoch", LATER_EPOCH)?)?;
            if layout.is_exhausted_at(now_ms) {
                writeln!(out, "{name}: ran out on {ended}; skipped")?;
                continue;
            }
            writeln!(
                out,
                "{name}: ran out on {ended}; shown with epoch {LATER_EPOCH} instead"
            )?;
        } else {
            writeln!(out, "{name}: {}", layout.spec())?;
        }
        // Small, distinct values, so each field is easy to spot in the decomposition.
        let nodes: Vec<(String, u64)> = layout
            .node_fields()
            .enumerate()
            .map(|(i, f)| (f.name().to_string(), [1, 7][i % 2].min(f.max())))
            .collect();
        mint_three(out, layout, &nodes)?;
    }
    Ok(())
}

fn object_ids(out: &mut dyn Write) -> Result<(), CliError> {
    writeln!(out, "ObjectIds, byte-compatible with MongoDB's:")?;
    for _ in 0..3 {
        let oid = ObjectId::new();
        writeln!(
            out,
            "  {oid}  {}  random={}  counter={}",
            oid.time(),
            random_hex(&oid),
            oid.counter()
        )?;
    }
    Ok(())
}

fn custom_layout(out: &mut dyn Write) -> Result<(), CliError> {
    writeln!(
        out,
        "A custom layout: 10 ms ticks, the sequence above two node fields:"
    )?;
    writeln!(out, "  --layout-spec '{CUSTOM_SPEC}'")?;
    let layout = Layout::parse(CUSTOM_SPEC)?;
    let nodes = [("region".to_string(), 2), ("machine".to_string(), 1234)];
    mint_three(out, layout, &nodes)
}

fn exhausted_layout(out: &mut dyn Write) -> Result<(), CliError> {
    writeln!(
        out,
        "A layout whose time field has run out refuses to mint (idmint snowflake --layout baidu):"
    )?;
    let layout = Layout::preset("baidu")?;
    let nodes = layout.node_fields().map(|f| (f.name(), 0));
    match Snowflake::builder(layout.clone()).nodes(nodes).build() {
        Err(e) => writeln!(out, "  error: {e}")?,
        Ok(_) => writeln!(out, "  {} has not run out yet", layout_name(&layout))?,
    }
    Ok(())
}

/// Mint three IDs with `layout` and `nodes` and print each with its parts, in columns.
fn mint_three(
    out: &mut dyn Write,
    layout: Layout,
    nodes: &[(String, u64)],
) -> Result<(), CliError> {
    let generator = Snowflake::builder(layout)
        .nodes(nodes.iter().map(|(n, v)| (n.as_str(), *v)))
        .build()?;
    for id in generator.next_ids(3)? {
        let parts = generator.decompose(id)?;
        write!(out, "  {id:>19}  {}", parts.time())?;
        for (name, value) in &parts.nodes {
            write!(out, "  {name}={value}")?;
        }
        writeln!(out, "  sequence={}", parts.sequence)?;
    }
    Ok(())
}

/// Segment IDs from a SQLite file in the temp directory: two clients (as two processes would
/// be) share one tag and get disjoint ranges.
fn segments(out: &mut dyn Write) -> Result<(), CliError> {
    use idmint_core::segment::{SegmentClient, TagSpec};
    let path = std::env::temp_dir().join(format!("idmint-demo-{}.db", std::process::id()));
    let url = format!("sqlite:{}", path.display());
    let result = (|| -> Result<(), CliError> {
        writeln!(
            out,
            "Segment IDs from a shared store (here SQLite, {}; `idmint segment` uses ./idmint-segments.db):",
            path.display()
        )?;
        let a = SegmentClient::builder()
            .store_url(&url)
            .connect_blocking()?;
        let b = SegmentClient::builder()
            .store_url(&url)
            .connect_blocking()?;
        a.create_tag(&TagSpec::new("orders")?.start(1_000_001)?.step(1000)?)?;
        let (ta, tb) = (a.tag("orders")?, b.tag("orders")?);
        for (name, t) in [("client A", &ta), ("client B", &tb), ("client A", &ta)] {
            let ids = [t.next_id()?, t.next_id()?, t.next_id()?];
            writeln!(out, "  {name}: {} {} {}", ids[0], ids[1], ids[2])?;
        }
        let m = ta.metrics();
        writeln!(
            out,
            "  client A holds {} IDs in memory (step {}, {} store round trips so far)",
            m.remaining, m.step, m.refills
        )?;
        Ok(())
    })();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    result
}

/// Worker-ID leases from a SQLite file in the temp directory: two generators get different
/// values, a third is refused, and a value released by one is taken by the next above its fence.
fn leases(out: &mut dyn Write) -> Result<(), CliError> {
    use idmint_core::lease::LeaseOptions;
    let path = std::env::temp_dir().join(format!("idmint-demo-leases-{}.db", std::process::id()));
    let opts = LeaseOptions::url(&format!("sqlite:{}", path.display())).range(0, 1);
    let result = (|| -> Result<(), CliError> {
        writeln!(
            out,
            "Worker leases (values 0..=1 of twitter's datacenter|worker, a SQLite file):"
        )?;
        let layout = Layout::preset("twitter")?;
        let leased = || {
            Snowflake::builder(layout.clone())
                .lease(opts.clone())
                .build()
        };
        let (a, b) = (leased()?, leased()?);
        let show = |g: &Snowflake| {
            g.nodes()
                .iter()
                .map(|(n, v)| format!("{n} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let refused = leased()
            .err()
            .map_or_else(String::new, |e| e.kind().to_string());
        writeln!(
            out,
            "  generator A leased {}; B leased {}; a third: {refused}",
            show(&a),
            show(&b)
        )?;
        let last = a.next_id()?;
        drop(a);
        let c = leased()?;
        let next = c.next_id()?;
        writeln!(
            out,
            "  A released; C leased {}: its first ID {next} > A's last {last}",
            show(&c)
        )?;
        Ok(())
    })();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    result
}

/// The ObjectId's 5 random bytes as 10 lowercase hex digits.
fn random_hex(oid: &ObjectId) -> String {
    oid.random().iter().map(|b| format!("{b:02x}")).collect()
}
