//! Arguments that several commands share: the layout options and `--node NAME=VALUE`.

use clap::Args;
use idmint_core::Layout;

/// `--layout`, `--layout-spec` and `--epoch`.
#[derive(Args, Debug, Clone)]
pub struct LayoutArgs {
    /// Layout preset: twitter, sonyflake, redis-lua, baidu or leaf (see `idmint layouts`); for reading
    /// 64-bit IDs also discord, instagram, mastodon and tsid [default: twitter; redis-lua for
    /// `snowflake --redis`]
    #[arg(long, value_name = "PRESET", conflicts_with = "layout_spec")]
    layout: Option<String>,

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
        self.resolve_or(Layout::DEFAULT_PRESET)
    }

    /// Whether `--layout`, `--layout-spec` or `--epoch` was given: without them `idmint parse`
    /// reads a decimal ID as a 64-bit integer, not as any one layout's.
    pub fn is_named(&self) -> bool {
        self.layout.is_some() || self.layout_spec.is_some() || self.epoch.is_some()
    }

    /// The layout these options describe, `default` when neither `--layout` nor
    /// `--layout-spec` is given.
    pub fn resolve_or(&self, default: &str) -> idmint_core::Result<Layout> {
        // Both options go through the same parser, which takes presets and specs alike; the two
        // names only make the command line say what the user meant.
        let spec = self.layout_spec.as_deref().or(self.layout.as_deref());
        Layout::parse_with_epoch(spec.unwrap_or(default), self.epoch.as_deref())
    }
}

/// How to name a layout to a user: its preset name, or else its spec.
pub fn layout_name(layout: &Layout) -> String {
    layout
        .preset_name()
        .map_or_else(|| layout.spec(), str::to_string)
}

/// Where a generator's node values come from: `--node` for each field, or `--random-nodes`
/// (a lease is the third source, `--lease`, for `idmint snowflake`). The core decides that
/// exactly one is used and that every field is covered (`missing_field` otherwise).
#[derive(Args, Debug, Clone)]
pub struct NodeArgs {
    /// A node field's value, e.g. worker=7; repeat for each field of the layout
    #[arg(long = "node", value_name = "NAME=VALUE", value_parser = parse_node)]
    pub nodes: Vec<NodeValue>,

    /// Give every node field not set with --node a random value (for a one-off run: two
    /// generators minting in the same millisecond collide with probability 2^-random_bits)
    #[arg(long)]
    pub random_nodes: bool,
}

impl NodeArgs {
    /// `builder` with these node values.
    pub fn apply<C: idmint_core::Clock>(
        &self,
        builder: idmint_core::SnowflakeBuilder<C>,
    ) -> idmint_core::SnowflakeBuilder<C> {
        let builder = builder.nodes(self.nodes.iter().map(|n| (n.name.as_str(), n.value)));
        if self.random_nodes {
            builder.random_nodes()
        } else {
            builder
        }
    }
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
