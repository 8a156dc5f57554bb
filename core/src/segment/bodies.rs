//! How segment values travel as the `/v1` API's bodies ([`crate::wire`], which is data
//! only): a range, a tag's row, a new tag and a change to one, each checked by the segment
//! rules on the way in. Both ends use these: `idmint serve`'s handlers and the
//! `http(s)://` store ([`HttpStore`](super::HttpStore)).

use super::store::{IdRange, TagInfo};
use super::tag::{TagSpec, TagUpdate};
use crate::error::quoted;
use crate::wire::{CreateTag, RangeOut, TagOut, UpdateTag};
use crate::{Error, Result};

impl RangeOut {
    /// The range's IDs, checked: `start` and `last` decimal, `count` IDs between them.
    ///
    /// ```
    /// let r = idmint_core::wire::RangeOut { tag: "t".into(), start: "5".into(), last: "1".into(), count: 1 };
    /// assert_eq!(r.ids().unwrap_err().kind(), "invalid_argument");
    /// ```
    pub fn ids(&self) -> Result<IdRange> {
        let bad = || Error::InvalidArgument {
            name: "range".into(),
            value: format!("{}..={} ({} IDs)", self.start, self.last, self.count),
            expected: "decimal IDs, start <= last, count = last - start + 1".into(),
        };
        let start: u64 = self.start.parse().map_err(|_| bad())?;
        let last: u64 = self.last.parse().map_err(|_| bad())?;
        if start > last || last - start + 1 != self.count || last == u64::MAX {
            return Err(bad());
        }
        IdRange::new(start, last + 1)
    }

    /// The body for a tag's range.
    ///
    /// ```
    /// let r = idmint_core::segment::IdRange::new(1, 11)?;
    /// assert_eq!(idmint_core::wire::RangeOut::of("t", r).last, "10");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn of(tag: &str, range: IdRange) -> RangeOut {
        RangeOut {
            tag: tag.to_string(),
            start: range.start.to_string(),
            last: range.last().to_string(),
            count: range.len(),
        }
    }
}

impl From<TagInfo> for TagOut {
    fn from(t: TagInfo) -> Self {
        TagOut {
            tag: t.tag,
            max_id: t.max_id.to_string(),
            step: t.step,
            description: t.description,
            max_count: None,
        }
    }
}

impl TagOut {
    /// The store's row, checked (`max_id` a decimal `BIGINT`).
    ///
    /// ```
    /// let mut out = idmint_core::wire::TagOut::from(idmint_core::segment::TagInfo { tag: "t".into(), max_id: 0, step: 1, description: String::new() });
    /// out.max_id = "x".into();
    /// assert_eq!(out.info().unwrap_err().kind(), "invalid_argument");
    /// ```
    pub fn info(&self) -> Result<TagInfo> {
        let max_id = self.max_id.parse().map_err(|_| Error::InvalidArgument {
            name: "max_id".into(),
            value: quoted(&self.max_id.chars().take(40).collect::<String>()),
            expected: "a decimal BIGINT".into(),
        })?;
        Ok(TagInfo {
            tag: self.tag.clone(),
            max_id,
            step: self.step,
            description: self.description.clone(),
        })
    }
}

impl CreateTag {
    /// The body for a [`TagSpec`].
    ///
    /// ```
    /// let spec = idmint_core::segment::TagSpec::new("t")?.step(50)?;
    /// assert_eq!(idmint_core::wire::CreateTag::of(&spec).spec()?, spec);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn of(spec: &TagSpec) -> CreateTag {
        CreateTag {
            tag: spec.tag().to_string(),
            start: Some(spec.first_max_id() as u64 + 1),
            step: Some(spec.step_value()),
            description: Some(spec.description_value().to_string()),
        }
    }

    /// The tag spec, checked by core's rules.
    pub fn spec(&self) -> Result<TagSpec> {
        let mut spec = TagSpec::new(&self.tag)?;
        if let Some(v) = self.start {
            spec = spec.start(v)?;
        }
        if let Some(v) = self.step {
            spec = spec.step(v)?;
        }
        if let Some(v) = &self.description {
            spec = spec.description(v)?;
        }
        Ok(spec)
    }
}

impl UpdateTag {
    /// The body for a [`TagUpdate`].
    ///
    /// ```
    /// let up = idmint_core::segment::TagUpdate::new().next_at_least(7)?;
    /// assert_eq!(idmint_core::wire::UpdateTag::of(&up).update()?, up);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn of(update: &TagUpdate) -> UpdateTag {
        UpdateTag {
            step: update.step_value(),
            description: update.description_value().map(str::to_string),
            next_at_least: update.next_at_least_value(),
        }
    }

    /// The update, checked by core's rules.
    pub fn update(&self) -> Result<TagUpdate> {
        let mut update = TagUpdate::new();
        if let Some(v) = self.step {
            update = update.step(v)?;
        }
        if let Some(v) = &self.description {
            update = update.description(v)?;
        }
        if let Some(v) = self.next_at_least {
            update = update.next_at_least(v)?;
        }
        Ok(update)
    }
}
