//! `idmint format`: order numbers from a template, with a daily counter (this run's own, or
//! shared in a store), snowflake IDs or a segment tag as the sequence; or read them back into
//! their parts.

use std::io::Write;
use std::sync::Arc;

use clap::{Args, ValueEnum};
use idmint_core::segment::{SegmentClient, TagOrderNumbers, DEFAULT_STORE_URL};
use idmint_core::CounterArgs;
use idmint_core::{
    parse_time_ms, CheckDigit, Clock, DailyCounter, ManualClock, MonotonicClock, OrderNumbers,
    Snowflake, Template,
};

use crate::args::LayoutArgs;
use crate::report::CliError;
use crate::sink::LineSink;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Source {
    /// A counter that restarts each day: this run's own (from --start), or shared (--counter)
    Daily,
    /// A snowflake ID as the sequence (needs a sequence as wide as the layout's IDs: %19S)
    Snowflake,
    /// A segment tag's next ID (--store, --tag): unique across the store's clients, never
    /// restarting
    Segment,
}

#[derive(Args, Debug)]
pub struct FormatArgs {
    /// The template, e.g. '%L%Y%M%D%m%5S' (%Y %y %M %D %H %m %s date parts, %L or %NL label,
    /// %NS sequence of N digits, %% a percent sign)
    #[arg(long, value_name = "TEMPLATE")]
    template: String,

    /// The node label for %L (ASCII letters and digits)
    #[arg(long, value_name = "LABEL")]
    label: Option<String>,

    /// The time zone of the date parts, as a UTC offset: Z, +08:00, -05:30
    #[arg(
        long = "tz",
        value_name = "OFFSET",
        default_value = "Z",
        allow_hyphen_values = true
    )]
    tz: String,

    /// Check digits to append: none, luhn (1 digit) or mod97 (2 digits, ISO 7064)
    #[arg(long, value_name = "none|luhn|mod97", default_value = "none")]
    check: CheckDigit,

    /// Where the sequence comes from
    #[arg(long, value_enum, default_value = "daily")]
    source: Source,

    /// The daily counter's first value in this run, for the in-memory counter (a run holds its
    /// own counter: to carry on from an earlier run, start after its last number)
    #[arg(long, value_name = "N", default_value_t = 1)]
    start: u64,

    /// A daily counter shared across runs and processes: sqlite:PATH, postgres://…, mysql://…,
    /// etcd://…, zk://… (a tag per day), redis://host:port (INCR on a key per day), or memory: (this run's own)
    #[arg(long, value_name = "URL", default_value = "memory:")]
    counter: String,

    /// The shared daily counter's name: each day's tag or key is NAME:yyyymmdd
    #[arg(long, value_name = "NAME", default_value = "orders")]
    name: String,

    /// The store of --source segment: sqlite:PATH, postgres://…, mysql://…, redis://…, etcd://…,
    /// zk://…
    #[arg(long, value_name = "URL", default_value = DEFAULT_STORE_URL)]
    store: String,

    /// The tag of --source segment (created on first use)
    #[arg(long, value_name = "TAG")]
    tag: Option<String>,

    /// How many to format
    #[arg(long, value_name = "N", default_value_t = 1)]
    count: u64,

    /// Format at this time (unix ms or RFC 3339) instead of now
    #[arg(long, value_name = "TIME")]
    time: Option<String>,

    #[command(flatten)]
    layout: LayoutArgs,

    /// Node values for --source snowflake
    #[command(flatten)]
    nodes: crate::args::NodeArgs,

    /// Read these order numbers back into their parts instead, one line of JSON each
    #[arg(long, value_name = "TEXT", num_args = 1.., allow_hyphen_values = true)]
    parse: Vec<String>,
}

fn template(args: &FormatArgs) -> idmint_core::Result<Template> {
    let mut t = Template::new(&args.template)?
        .offset(&args.tz)?
        .check_digit(args.check);
    if let Some(label) = &args.label {
        t = t.label(label)?;
    }
    Ok(t)
}

pub fn run(args: &FormatArgs) -> Result<(), CliError> {
    let t = template(args)?;
    if !args.parse.is_empty() {
        return parse(&t, &args.parse);
    }
    match &args.time {
        Some(time) => {
            let clock = ManualClock::new(parse_time_ms("time", time)?);
            mint(args, t, clock)
        }
        None => mint(args, t, MonotonicClock::new()),
    }
}

fn mint<C: Clock>(args: &FormatArgs, t: Template, clock: C) -> Result<(), CliError> {
    let mut sink = LineSink::new(args.count);
    match args.source {
        Source::Daily => {
            let counter = daily_counter(args, &t, &clock)?;
            let orders = OrderNumbers::new(t, counter, &clock)?;
            write_lines(&mut sink, args.count, || orders.next())?;
        }
        Source::Segment => {
            let tag = args
                .tag
                .as_deref()
                .ok_or_else(|| idmint_core::Error::InvalidArgument {
                    name: "tag".into(),
                    value: "none".into(),
                    expected: "--tag TAG with --source segment".into(),
                })?;
            let client = SegmentClient::builder()
                .store_url(&args.store)
                .connect_blocking()?;
            let orders = TagOrderNumbers::new(t, client.tag(tag)?, &clock);
            write_lines(&mut sink, args.count, || orders.next())?;
        }
        Source::Snowflake => {
            let layout = args.layout.resolve()?;
            // Refuse a too narrow sequence before anything is minted or noted.
            t.format_snowflake(&layout, 0)?;
            let generator = args
                .nodes
                .apply(Snowflake::with_clock(layout, &clock))
                .build()?;
            write_lines(&mut sink, args.count, || {
                t.format_snowflake(generator.layout(), generator.next_id()?)
            })?;
        }
    }
    Ok(sink.finish()?)
}

fn write_lines(
    sink: &mut LineSink,
    count: u64,
    mut next: impl FnMut() -> idmint_core::Result<String>,
) -> Result<(), CliError> {
    for _ in 0..count {
        let line = next()?;
        let out = sink.out();
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
        sink.advance(1);
    }
    Ok(())
}

/// This run's own counter from --start, or the shared one of --counter.
fn daily_counter<C: Clock>(
    args: &FormatArgs,
    t: &Template,
    clock: &C,
) -> idmint_core::Result<Arc<dyn DailyCounter>> {
    let shared = args.counter.trim() != "memory:";
    if shared && args.start != 1 {
        // Said in the CLI's own terms; the core would refuse it too, naming `start`.
        return Err(idmint_core::Error::InvalidArgument {
            name: "start".into(),
            value: args.start.to_string(),
            expected: "1 with a shared --counter: the store holds where each day's counter is"
                .into(),
        });
    }
    let args = if shared {
        CounterArgs {
            url: Some(args.counter.clone()),
            name: Some(args.name.clone()),
            ..Default::default()
        }
    } else {
        CounterArgs {
            start: Some((t.day_of(clock.now_ms())?.into(), args.start.into())),
            ..Default::default()
        }
    };
    args.open()
}

fn parse(t: &Template, texts: &[String]) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    for text in texts {
        let p = t.parse(text)?;
        let mut json = serde_json::Map::new();
        json.insert("text".into(), text.as_str().into());
        let fields = [
            ("year", p.year.map(i64::from)),
            ("month", p.month.map(i64::from)),
            ("day", p.day.map(i64::from)),
            ("hour", p.hour.map(i64::from)),
            ("minute", p.minute.map(i64::from)),
            ("second", p.second.map(i64::from)),
        ];
        for (name, value) in fields {
            if let Some(v) = value {
                json.insert(name.into(), v.into());
            }
        }
        if let Some(label) = p.label {
            json.insert("label".into(), label.into());
        }
        json.insert("sequence".into(), p.sequence.into());
        if let Some(check) = p.check {
            json.insert("check".into(), check.into());
        }
        writeln!(out, "{}", serde_json::Value::Object(json))?;
    }
    Ok(())
}
