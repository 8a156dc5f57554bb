//! Arguments that several commands share: the layout options and `--node NAME=VALUE`, and the
//! readers clap uses for the generator policies.

use std::time::Duration;

use clap::Args;
use idmint_core::{parse_time_ms, Layout, OnExhausted, OnRollback};

/// `--layout`, `--layout-spec` and `--epoch`.
#[derive(Args, Debug, Clone)]
pub struct LayoutArgs {
    /// Layout preset: twitter, sonyflake, redis-lua or baidu (see `idmint layouts`)
    #[arg(
        long,
        value_name = "PRESET",
        default_value = "twitter",
        conflicts_with = "layout_spec"
    )]
    layout: String,

    /// Layout spec, e.g. 'time:41@1ms,datacenter:5,worker:5,sequence:12,epoch=2020-01-01T00:00:00Z'
    #[arg(long, value_name = "SPEC")]
    layout_spec: Option<String>,

    /// Epoch replacing the layout's own, as unix milliseconds or RFC 3339
    #[arg(long, value_name = "EPOCH")]
    epoch: Option<String>,
}

impl LayoutArgs {
    /// The layout these options describe.
    pub fn resolve(&self) -> idmint_core::Result<Layout> {
        // Both options go through the same parser, which takes presets and specs alike; the two
        // names only make the command line say what the user meant.
        let layout = Layout::parse(self.layout_spec.as_deref().unwrap_or(&self.layout))?;
        match &self.epoch {
            Some(epoch) => layout.with_epoch_ms(parse_time_ms("epoch", epoch)?),
            None => Ok(layout),
        }
    }
}

/// How to name a layout to a user: its preset name, or else its spec.
pub fn layout_name(layout: &Layout) -> String {
    layout
        .preset_name()
        .map_or_else(|| layout.spec(), str::to_string)
}

/// One `--node NAME=VALUE`.
#[derive(Debug, Clone)]
pub struct NodeValue {
    pub name: String,
    /// Wide and signed so that the core, not the CLI, judges the range (`worker=-1` gets the
    /// same message as `worker=32`).
    pub value: i128,
}

/// The clap reader for `--node`. Whether the name exists in the layout is the core's to say,
/// since only it knows the layout.
pub fn parse_node(text: &str) -> Result<NodeValue, String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not NAME=VALUE, e.g. worker=7"))?;
    let name = name.trim();
    let value = value.trim();
    let value = value
        .parse::<i128>()
        .map_err(|_| format!("the value of node field `{name}`, `{value}`, is not an integer"))?;
    Ok(NodeValue {
        name: name.to_string(),
        value,
    })
}

/// The clap reader for `--on-exhausted wait|borrow:MS`.
pub fn parse_on_exhausted(text: &str) -> Result<OnExhausted, String> {
    match text {
        "wait" => Ok(OnExhausted::Wait),
        _ => text
            .strip_prefix("borrow:")
            .and_then(parse_ms)
            .map(|max_ahead| OnExhausted::Borrow { max_ahead })
            .ok_or_else(|| {
                format!("expected `wait` or `borrow:MS` (MS in whole milliseconds, e.g. borrow:50), got `{text}`")
            }),
    }
}

/// The clap reader for `--on-rollback error|wait:MS|continue`.
pub fn parse_on_rollback(text: &str) -> Result<OnRollback, String> {
    match text {
        "error" => Ok(OnRollback::Error),
        "continue" => Ok(OnRollback::Continue),
        _ => text
            .strip_prefix("wait:")
            .and_then(parse_ms)
            .map(|max| OnRollback::Wait { max })
            .ok_or_else(|| {
                format!("expected `error`, `wait:MS` (MS in whole milliseconds, e.g. wait:500) or `continue`, got `{text}`")
            }),
    }
}

fn parse_ms(text: &str) -> Option<Duration> {
    text.parse::<u64>().ok().map(Duration::from_millis)
}
