//! Tag definitions ([`TagSpec`]) and changes ([`TagUpdate`]), and the bounds of IDs, steps
//! and descriptions, checked before they get near a store. Tag names follow the store layer's
//! grammar ([`validate_tag`]).

use crate::rules::check_step;
use crate::store::validate_tag;
use crate::{Error, Result};

/// The longest tag description, in characters (the SQL column is `VARCHAR(256)`).
pub const MAX_DESCRIPTION_LEN: usize = 256;

/// The SQL table of segment stores unless the options or the URL say `?table=…`.
pub const DEFAULT_TABLE: &str = "idmint_segments";

/// The Redis key prefix of segment stores unless the options or the URL say `?prefix=…`.
///
/// ```
/// assert_eq!(idmint_core::segment::DEFAULT_PREFIX, "idmint:seg");
/// ```
pub const DEFAULT_PREFIX: &str = "idmint:seg";

/// The largest ID a tag can reach: stores keep counters in signed 64-bit integers (`BIGINT`).
pub const MAX_ID: u64 = i64::MAX as u64;

/// How to create a tag: its first ID, its step (IDs per store round trip) and a description.
///
/// `start` lets a tag take over a table that already has IDs: with `start(1_000_001)` the first
/// ID handed out is 1,000,001. Creating a tag that exists changes nothing (it never lowers a
/// counter).
///
/// ```
/// use idmint_core::segment::TagSpec;
/// let spec = TagSpec::new("orders")?.start(1_000_001)?.step(5_000)?.description("order numbers")?;
/// assert_eq!(spec.first_max_id(), 1_000_000);
/// assert_eq!(TagSpec::new("orders")?.step(0).unwrap_err().kind(), "invalid_argument");
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagSpec {
    tag: String,
    start: u64,
    step: u64,
    description: String,
}

/// The step of a tag created without one (Leaf's default is 1000 too).
pub const DEFAULT_STEP: u64 = crate::rules::SEGMENT_DEFAULT_STEP;

/// The largest step a tag or a client may use: segments are addressed by 44-bit offsets.
pub const MAX_STEP: u64 = crate::rules::SEGMENT_MAX_STEP;

impl TagSpec {
    /// A tag starting at 1 with step [`DEFAULT_STEP`] and no description.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::TagSpec::new("users")?.tag(), "users");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn new(tag: &str) -> Result<TagSpec> {
        validate_tag(tag)?;
        Ok(TagSpec {
            tag: tag.to_string(),
            start: 1,
            step: DEFAULT_STEP,
            description: String::new(),
        })
    }

    /// The first ID the tag hands out, 1..=2^63-1 (IDs are positive: 0 reads as "unset" in
    /// too many languages and databases).
    ///
    /// ```
    /// use idmint_core::segment::TagSpec;
    /// assert!(TagSpec::new("t")?.start(0).is_err());
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn start(mut self, start: u64) -> Result<TagSpec> {
        check_start("start", start)?;
        self.start = start;
        Ok(self)
    }

    /// The tag's step: IDs per store round trip, 1..=2^40. Clients may grow it (see
    /// [`SegmentClientBuilder::max_step`](super::SegmentClientBuilder::max_step)) but never go
    /// below it.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::TagSpec::new("t")?.step(10)?.step_value(), 10);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn step(mut self, step: u64) -> Result<TagSpec> {
        check_step("step", step)?;
        self.step = step;
        Ok(self)
    }

    /// A free-text description, up to 256 characters.
    ///
    /// ```
    /// let s = idmint_core::segment::TagSpec::new("t")?.description("invoices")?;
    /// assert_eq!(s.description_value(), "invoices");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn description(mut self, description: &str) -> Result<TagSpec> {
        check_description(description)?;
        self.description = description.to_string();
        Ok(self)
    }

    /// The tag name.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::TagSpec::new("a")?.tag(), "a");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn tag(&self) -> &str {
        &self.tag
    }

    /// The first ID.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::TagSpec::new("a")?.start_value(), 1);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn start_value(&self) -> u64 {
        self.start
    }

    /// The step.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::TagSpec::new("a")?.step_value(), 1000);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn step_value(&self) -> u64 {
        self.step
    }

    /// The description.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::TagSpec::new("a")?.description_value(), "");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn description_value(&self) -> &str {
        &self.description
    }

    /// The `max_id` a new row holds: the last ID "already issued", `start - 1`.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::TagSpec::new("a")?.first_max_id(), 0);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn first_max_id(&self) -> i64 {
        // start is 1..=i64::MAX, so this cannot wrap.
        (self.start - 1) as i64
    }
}

/// How to tune a tag that exists ([`SegmentStore::update_tag`](super::SegmentStore::update_tag)):
/// any of a new step, a new description, and a floor for the next ID. Fields left unset are
/// left as they are; each is checked as [`TagSpec`] checks it.
///
/// `next_at_least(n)` raises the tag's counter so the next ID any client *fetches* is at least
/// `n`; a counter already past it stays where it is (lowering would reissue IDs). IDs that
/// clients already hold in memory are still handed out: they were issued before the change.
///
/// ```
/// use idmint_core::segment::TagUpdate;
/// let u = TagUpdate::new().step(5_000)?.description("order numbers")?.next_at_least(2_000_001)?;
/// assert_eq!((u.step_value(), u.next_at_least_value()), (Some(5_000), Some(2_000_001)));
/// assert_eq!(u.description_value(), Some("order numbers"));
/// assert!(TagUpdate::new().is_empty());
/// assert_eq!(TagUpdate::new().step(0).unwrap_err().kind(), "invalid_argument");
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TagUpdate {
    step: Option<u64>,
    description: Option<String>,
    next_at_least: Option<u64>,
}

impl TagUpdate {
    /// An update that changes nothing (yet).
    ///
    /// ```
    /// assert!(idmint_core::segment::TagUpdate::new().is_empty());
    /// ```
    pub fn new() -> TagUpdate {
        TagUpdate::default()
    }

    /// A new step, 1..=2^40, as [`TagSpec::step`] takes it.
    ///
    /// ```
    /// use idmint_core::segment::TagUpdate;
    /// assert_eq!(TagUpdate::new().step(10)?.step_value(), Some(10));
    /// let err = TagUpdate::new().step(1 << 41).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid argument `step` = 2199023255552: 1..=1099511627776");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn step(mut self, step: u64) -> Result<TagUpdate> {
        check_step("step", step)?;
        self.step = Some(step);
        Ok(self)
    }

    /// A new description, up to 256 characters, as [`TagSpec::description`] takes it (an empty
    /// one clears it).
    ///
    /// ```
    /// use idmint_core::segment::TagUpdate;
    /// assert_eq!(TagUpdate::new().description("")?.description_value(), Some(""));
    /// assert!(TagUpdate::new().description(&"d".repeat(257)).is_err());
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn description(mut self, description: &str) -> Result<TagUpdate> {
        check_description(description)?;
        self.description = Some(description.to_string());
        Ok(self)
    }

    /// The least ID the tag may hand out next, 1..=2^63-1 (the range of [`TagSpec::start`]):
    /// the counter is raised to it if below, never lowered.
    ///
    /// ```
    /// use idmint_core::segment::TagUpdate;
    /// assert_eq!(TagUpdate::new().next_at_least(1_000)?.next_at_least_value(), Some(1_000));
    /// let err = TagUpdate::new().next_at_least(0).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid argument `next_at_least` = 0: 1..=9223372036854775807");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn next_at_least(mut self, next: u64) -> Result<TagUpdate> {
        check_start("next_at_least", next)?;
        self.next_at_least = Some(next);
        Ok(self)
    }

    /// The new step, if one is set.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::TagUpdate::new().step_value(), None);
    /// ```
    pub fn step_value(&self) -> Option<u64> {
        self.step
    }

    /// The new description, if one is set.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::TagUpdate::new().description_value(), None);
    /// ```
    pub fn description_value(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The floor of the next ID, if one is set.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::TagUpdate::new().next_at_least_value(), None);
    /// ```
    pub fn next_at_least_value(&self) -> Option<u64> {
        self.next_at_least
    }

    /// Whether the update changes nothing (then a store only reads the tag back).
    ///
    /// ```
    /// use idmint_core::segment::TagUpdate;
    /// assert!(!TagUpdate::new().step(100)?.is_empty());
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.step.is_none() && self.description.is_none() && self.next_at_least.is_none()
    }
}

/// A first ID (or a floor for the next one): 1..=2^63-1 ([`MAX_ID`]).
fn check_start(name: &str, start: u64) -> Result<()> {
    if !(1..=MAX_ID).contains(&start) {
        return Err(Error::InvalidArgument {
            name: name.into(),
            value: start.to_string(),
            expected: format!("1..={MAX_ID}"),
        });
    }
    Ok(())
}

/// A description: at most [`MAX_DESCRIPTION_LEN`] characters.
fn check_description(description: &str) -> Result<()> {
    let n = description.chars().count();
    if n > MAX_DESCRIPTION_LEN {
        return Err(Error::InvalidArgument {
            name: "description".into(),
            value: format!("{n} characters"),
            expected: format!("at most {MAX_DESCRIPTION_LEN} characters"),
        });
    }
    Ok(())
}

/// Checks a count asked of a store, and returns the highest `max_id` that can still grow by it.
pub(crate) fn check_count(count: u64) -> Result<i64> {
    if !(1..=MAX_STEP).contains(&count) {
        return Err(Error::InvalidArgument {
            name: "count".into(),
            value: count.to_string(),
            expected: format!("1..={MAX_STEP}"),
        });
    }
    Ok(i64::MAX - count as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_bounds() {
        let s = TagSpec::new("t").unwrap();
        assert!(s.clone().start(MAX_ID).is_ok());
        assert!(s.clone().start(MAX_ID + 1).is_err());
        assert!(s.clone().step(MAX_STEP).is_ok());
        assert!(s.clone().step(MAX_STEP + 1).is_err());
        assert!(s.description(&"d".repeat(257)).is_err());
        assert_eq!(check_count(1).unwrap(), i64::MAX - 1);
        let u = TagUpdate::new();
        assert!(u.clone().next_at_least(MAX_ID).is_ok());
        assert!(u.clone().next_at_least(MAX_ID + 1).is_err());
        assert!(u.clone().step(MAX_STEP).is_ok());
        assert!(u.clone().step(MAX_STEP + 1).is_err());
        assert!(u.clone().description(&"d".repeat(256)).is_ok());
        assert!(u.description(&"d".repeat(257)).is_err());
        assert!(check_count(0).is_err());
    }
}
