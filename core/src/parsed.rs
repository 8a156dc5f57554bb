//! Reading an ID whose format the caller does not name: a decimal snowflake ID of a given
//! layout, or an ObjectId (24 hex digits). The server's `/v1/parse` reads IDs through
//! [`ParsedId::parse`]; [`crate::formats::decode`] reads these two alike and every other format
//! (UUID, ULID, KSUID, xid, TSID) too, and is what `idmint parse` calls.

use crate::layout::{Layout, Parts};
use crate::objectid::ObjectId;
use crate::Result;

/// An ID taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParsedId {
    /// A snowflake ID of the layout given.
    Snowflake {
        /// The ID.
        id: u64,
        /// Its time, node fields and sequence.
        parts: Parts,
    },
    /// A MongoDB ObjectId.
    ObjectId(ObjectId),
}

impl ParsedId {
    /// Reads `text`: 24 characters can only be an ObjectId (any decimal that long is above
    /// 2^63-1); anything else is a decimal ID of `layout`. A leading `-` is left to the decimal
    /// reader, whose message (negative) fits it better.
    ///
    /// ```
    /// use idmint_core::{Layout, ParsedId};
    /// let twitter = Layout::preset("twitter")?;
    /// match ParsedId::parse("1541815603606036480", &twitter)? {
    ///     ParsedId::Snowflake { parts, .. } => assert_eq!(parts.node("worker"), Some(26)),
    ///     other => panic!("{other:?}"),
    /// }
    /// assert!(matches!(ParsedId::parse("507f1f77bcf86cd799439011", &twitter)?, ParsedId::ObjectId(_)));
    /// assert_eq!(ParsedId::parse("x", &twitter).unwrap_err().kind(), "invalid_id");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn parse(text: &str, layout: &Layout) -> Result<ParsedId> {
        if text.chars().count() == 24 && !text.starts_with('-') {
            return Ok(ParsedId::ObjectId(ObjectId::parse_str(text)?));
        }
        // Up to 2^64-1 for an `unsigned` layout (Discord's and the like), 2^63-1 otherwise.
        let id = layout.parse_id(text)?;
        Ok(ParsedId::Snowflake {
            id,
            parts: layout.decompose(id)?,
        })
    }
}
