//! The values a lease may take for a layout, and the node fields a leased value fills.

use super::store::MAX_VALUE;
use crate::layout::Layout;
use crate::{Error, Result};

/// The values a lease for `layout` may take: `range` (checked against the layout) or, without
/// one, every value its node fields can hold. The leased value fills the node fields, most
/// significant first ([`node_values`]).
///
/// ```
/// use idmint_core::{lease::layout_range, Layout};
/// let twitter = Layout::preset("twitter")?;
/// assert_eq!(layout_range(&twitter, None)?, (0, 1023));
/// assert_eq!(layout_range(&twitter, Some((8, 15)))?, (8, 15));
/// assert_eq!(layout_range(&twitter, Some((0, 1024))).unwrap_err().kind(), "invalid_argument");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn layout_range(layout: &Layout, range: Option<(u64, u64)>) -> Result<(u64, u64)> {
    let node_bits: u32 = layout.node_fields().map(|f| f.bits()).sum();
    if node_bits == 0 {
        return Err(Error::InvalidArgument {
            name: "lease".into(),
            value: layout.spec(),
            expected: "a layout with node fields for the leased value to fill".into(),
        });
    }
    let top = if node_bits >= 62 {
        MAX_VALUE
    } else {
        (1u64 << node_bits) - 1
    };
    let (first, last) = range.unwrap_or((0, top));
    if first > last || last > top {
        return Err(Error::InvalidArgument {
            name: "lease range".into(),
            value: format!("{first}..={last}"),
            expected: format!(
                "first <= last <= {top}, the largest value of the layout's {node_bits} node bits"
            ),
        });
    }
    Ok((first, last))
}

/// The node field values a leased `value` fills, in layout order: for `twitter` (datacenter 5
/// bits, worker 5 bits) value `v` is datacenter `v >> 5`, worker `v & 31`.
///
/// ```
/// use idmint_core::{lease::node_values, Layout};
/// let twitter = Layout::preset("twitter")?;
/// let v = node_values(&twitter, 37);
/// assert_eq!(v, [("datacenter", 1), ("worker", 5)]);
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn node_values(layout: &Layout, value: u64) -> Vec<(&str, u64)> {
    let mut rest = value;
    let mut out: Vec<(&str, u64)> = layout
        .node_fields()
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(|f| {
            let v = rest & f.max();
            rest >>= f.bits();
            (f.name(), v)
        })
        .collect();
    out.reverse();
    out
}

/// A range of lease values written `FIRST..LAST` (both included; `FIRST..=LAST` too), as the
/// CLI's `--lease-range` and the server's `snowflake.lease_range` take it.
///
/// ```
/// use idmint_core::lease::parse_range;
/// assert_eq!(parse_range("0..7")?, (0, 7));
/// assert_eq!(parse_range("8..=15")?, (8, 15));
/// assert_eq!(parse_range("7").unwrap_err().kind(), "invalid_argument");
/// assert_eq!(parse_range("7..3").unwrap_err().kind(), "invalid_argument");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn parse_range(text: &str) -> Result<(u64, u64)> {
    let bad = || Error::InvalidArgument {
        name: "lease range".into(),
        value: text.chars().take(64).collect(),
        expected: "FIRST..LAST, two whole numbers with FIRST <= LAST, e.g. 0..7".into(),
    };
    let (a, b) = text.split_once("..").ok_or_else(bad)?;
    let num = |s: &str| {
        s.trim()
            .trim_start_matches('=')
            .parse::<u64>()
            .map_err(|_| bad())
    };
    let (first, last) = (num(a)?, num(b)?);
    if first > last {
        return Err(bad());
    }
    Ok((first, last))
}
