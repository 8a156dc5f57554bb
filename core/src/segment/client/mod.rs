//! The segment client: per tag, a current and a next range in memory, refilled in the
//! background, so callers wait on the store only when both are empty.
//!
//! - `handles`: what callers hold, the client and its tag handles;
//! - `buffer`: the two ranges of a tag in memory and the hot path, one atomic `fetch_add`;
//! - `refill`: the background task that fetches the next range, the dynamic step, and the
//!   state a client shares with its tags and tasks;
//! - `builder`: how a client is configured and connected;
//! - `cursor`: one owner's blocks of a tag's IDs, one atomic step per block.

mod buffer;
mod builder;
mod cursor;
mod handles;
mod refill;

pub use builder::SegmentClientBuilder;
pub use cursor::TagCursor;
pub use handles::{SegmentClient, TagHandle, TagMetrics};
